#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bisect.sh TREE [ARCH...] - check that every prefix of the series in TREE
# (the commits on top of tag base) builds what its patch can break, for
# each ARCH (default: x86_64 arm64), and that what it builds links.
#
# A real build of every prefix ("git rebase -x make") costs far more
# than make check's time (measure/bisect-full.sh measures it); this
# builds, at each prefix, the targets that kbuild's own dependency files
# say the patch touches:
#   - the object of each touched source file that the prefix's config
#     builds (make evaluates the directory's kbuild file with the
#     prefix's include/config/auto.conf);
#   - the objects that include a touched header, as the .cmd files of
#     the full series' build list them: all of them up to BISECT_CAP
#     (default 24) per header, else half from the series' own
#     directories and the rest an even sample that moves with the
#     prefix;
#   - the directory of a touched Makefile or of an object outside
#     vmlinux (the vDSO, host programs); linker scripts on their own;
#   - the config, again, after a touched Kconfig;
# then checks that every global symbol the built-in objects built there
# use is defined: by the series' own objects, built at the same prefix,
# or by the rest of the kernel.  User space that a patch touches is built
# too: the sframe selftests with tools/sframe's audit module for each
# ARCH (incrementally, in a directory of their own), and on the host
# tools/testing/sframe and tools/testing/vma.
#
# What this can miss: an includer of a widely used header that no
# prefix touching the header samples (the full build of the series
# catches what is still broken at the end); a failure in a config other
# than the test kernels'; modpost and BTF, which run at the final link
# only.
#
# The kernels of TREE must have been built once, at its HEAD.  Prints one
# "ok"/"not ok" line per patch and arch; exits non-zero if any failed.
# TREE is left at its original HEAD, its kernel configs as they were.
# BISECT_FROM=REV checks only the commits after REV.
#
# A pass of the whole series is kept ($RESULTS, lib/lib.sh), keyed by
# the series' last commit (which names every prefix, and the base), the
# arches, the cap, the exact toolchain, this script, lib.sh, kernel.sh
# and the config fragments: with all of them unchanged, its lines are
# printed again instead of building every prefix anew.

. "$(dirname "$0")/../lib/lib.sh"
# sort, comm and join must agree on one order.
export LC_ALL=C

tree=$(cd "${1:?usage: bisect.sh TREE [ARCH...]}" && pwd)
shift
arches=("$@")
[ ${#arches[@]} -gt 0 ] || arches=(x86_64 arm64)
cap=${BISECT_CAP:-24}

head=$(git -C "$tree" rev-parse HEAD)
branch=$(git -C "$tree" symbolic-ref -q --short HEAD || true)

key=$( (echo "$head ${arches[*]} $cap"; root_stamp
	cat "$0" "$TOP/lib/lib.sh" "$TOP/pipeline/kernel.sh" "$TOP"/config/*.config) |
	sha256sum | cut -c1-16)
passed=$RESULTS/bisect-$key
if [ -z "${BISECT_FROM:-}" ] && [ -s "$passed" ]; then
	echo "# every prefix passed in an earlier run with the same series ($head), toolchain and scripts (key $key): not built again"
	cat "$passed"
	exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Every file the series changes, and the directories of its sources.
git -C "$tree" diff --name-only base.."$head" > "$tmp/series-files"
grep -E '\.[cS]$' "$tmp/series-files" | grep -v '^tools/' |
	sed 's|/[^/]*$||' | sort -u > "$tmp/series-dirs" || true

# The identifiers on the lines that the series adds to kernel code.
git -C "$tree" diff base.."$head" -- . ':!tools' ':!Documentation' |
	{ grep '^+' || true; } | grep -o '[A-Za-z_][A-Za-z0-9_]*' | sort -u > "$tmp/series-names" || true

# index ARCH: "FILE<TAB>TARGET" for each file of the series that a target
# of ARCH's build depends on, from kbuild's .cmd files (fixdep output).
index()
{
	local arch=$1 kout rel

	kout=$(kbuild_dir "$arch" "$tree")
	rel=$(realpath -m --relative-to="$kout" "$tree")
	find "$kout" -name '.*.cmd' -not -path '*/kselftest/*' \
		-not -path '*/guest-tests/*' -not -path '*/bisect-*' -print0 |
	xargs -0 awk -v abs="$tree/" -v rel="$rel/" -v files="$tmp/series-files" '
		BEGIN { while ((getline f < files) > 0) want[f] = 1 }
		function note(p,   q) {
			if (index(p, abs) == 1) p = substr(p, length(abs) + 1)
			else if (index(p, rel) == 1) p = substr(p, length(rel) + 1)
			else return
			# "/./" and "dir/../", as in vdso64/../common/
			while (sub(/\/\.\//, "/", p)) ;
			while ((q = match(p, /[^\/.][^\/]*\/\.\.\//)) > 0)
				p = substr(p, 1, q - 1) substr(p, q + RLENGTH)
			if (p in want) print p "\t" target
		}
		FNR == 1 { target = ""; deps = 0 }
		/^source_/ { target = $1; sub(/^source_/, "", target); note($3); next }
		/^deps_/ { if (target == "") { target = $1; sub(/^deps_/, "", target) }
			   deps = 1; next }
		deps && /^ *\$\(wildcard/ { next }
		deps && NF { note($1) }
		deps && !/\\$/ { deps = 0 }' | sort -u > "$tmp/index-$arch"
	# Built-in objects (the link check looks at these), the symbols the
	# full series' vmlinux defines, and which of them the series' own
	# objects define (those may be missing at a prefix).
	(cd "$kout" && inroot sh -c 'for a in $(find . -name built-in.a \
		-not -path "./kselftest/*" -not -path "./bisect-*"); do
		"$0" t "${a#./}"; done' "${CROSS}ar") |
		grep '\.o$' | sort -u > "$tmp/builtin-$arch"
	inroot "${CROSS}nm" --defined-only "$kout/vmlinux" | awk '{ print $3 }' |
		sort -u > "$tmp/defined-$arch"
	awk -F'\t' '$2 ~ /\.o$/ && $1 ~ /\.[cS]$/ { print $2 }' "$tmp/index-$arch" |
		sort -u | grep -x -F -f "$tmp/builtin-$arch" > "$tmp/own-$arch" || true
	for o in $(cat "$tmp/own-$arch"); do
		nm_defined "$arch" "$o" | sed "s|\$|\t$o|"
	done | sort -u > "$tmp/own-symbols-$arch"
	# Of those, the ones a patch may add: the names its added lines
	# mention, or contain (__tracepoint_X, __x64_sys_X, __ksymtab_X).
	# The rest were defined at the base and stay defined.
	cut -f1 "$tmp/own-symbols-$arch" | sort -u |
		awk 'NR == FNR { if (length($0) >= 4) n[$0] = 1; next }
		     { for (w in n) if (index($0, w)) { print; next } }' \
		"$tmp/series-names" - > "$tmp/own-defined-$arch"
	[ -s "$tmp/own-$arch" ] ||
		die "$kout has no object of the series: not a build of $tree"
	awk -F'\t' 'NR == FNR { want[$1] = 1; next } $1 in want' \
		"$tmp/own-defined-$arch" "$tmp/own-symbols-$arch" > "$tmp/own-symbols-$arch.new"
	mv "$tmp/own-symbols-$arch.new" "$tmp/own-symbols-$arch"
}

# in_config KOUT OBJ: does this prefix's config build OBJ into the
# kernel?  make evaluates the kbuild file of OBJ's directory (composite
# objects expanded), and of each parent up to arch/ARCH/DIR or a
# top-level directory, with the config as kbuild has it
# (include/config/auto.conf) and the variables arch/ARCH/Makefile sets
# that directory makefiles use.  Returns 2 if a file cannot be evaluated.
in_config()
{
	local kout=$1 obj=$2 dir name mk objs

	dir=${obj%/*} name=${obj##*/}
	while :; do
		mk=$dir/Makefile
		[ -e "$tree/$dir/Kbuild" ] && mk=$dir/Kbuild
		[ -e "$tree/$mk" ] || return 1
		objs=$(env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS \
			make -s --no-print-directory -C "$tree" -f - bisect-objs <<-EOF
			srctree := $tree
			src := $dir
			obj := $dir
			ARCH := $KARCH
			SRCARCH := ${KARCH%_64}
			BITS := 64
			include $kout/include/config/auto.conf
			include $mk
			all-y := \$(obj-y) \$(lib-y)
			bisect-objs: ; @echo \$(all-y) \$(foreach m,\$(all-y),\$(\$(m:.o=-y)) \$(\$(m:.o=-objs)))
			FORCE:
		EOF
		) || { echo "cannot evaluate $mk" >&2; return 2; }
		case " $objs " in
		*" $name "*)	;;
		*)		return 1 ;;
		esac
		case $dir in
		arch/*/*/*|[!a]*/*|a[!r]*/*) ;;
		*)		return 0 ;;
		esac
		name=${dir##*/}/ dir=${dir%/*}
	done
}

# targets ARCH FILE: what to build at this prefix for a touched FILE:
# objects, or directories (a touched Makefile, or a target that is not an
# object: linker scripts, the vDSO, host programs).
targets()
{
	local arch=$1 file=$2 all n

	case $file in
	arch/x86/*)	[ "$arch" = x86_64 ] || return 0 ;;
	arch/arm64/*)	[ "$arch" = arm64 ] || return 0 ;;
	arch/*/*)	return 0 ;;
	tools/*|Documentation/*|samples/*|MAINTAINERS|*Kconfig*) return 0 ;;
	esac
	case $file in
	*/Makefile|*/Kbuild)
		echo "${file%/*}/"
		return 0
		;;
	esac
	all=$(awk -F'\t' -v f="$file" '$1 == f && $2 !~ /-offsets\.s$/ { print $2 }' \
		"$tmp/index-$arch")
	[ -n "$all" ] || return 0
	n=$(wc -l <<< "$all")
	if [ "$n" -gt "$cap" ]; then
		echo "$file: $cap of its $n includers" >&2
		# Half from the series' own directories, the rest an even
		# sample that moves with the prefix, so that each patch that
		# touches the header builds others.
		{
			awk -v dirs="$tmp/series-dirs" '
				BEGIN { while ((getline d < dirs) > 0) own[d] = 1 }
				{ d = $0; sub(/\/[^\/]*$/, "", d) } d in own' <<< "$all" |
				awk -v m=$((cap / 2)) 'NR <= m'
			awk -v n="$n" -v cap="$cap" -v k="$k" \
				'(NR + k) % int(n / cap + 1) == 0' <<< "$all"
		} | awk -v cap="$cap" '!seen[$0]++ && ++i <= cap'
	else
		echo "$all"
	fi | while read -r t; do
		case $t in
		*/*)	;;
		*)	continue ;;	# vmlinux's own link: not per prefix
		esac
		case $t in
		*.o)	if grep -qx -F "$t" "$tmp/builtin-$arch"; then
				echo "$t"
			else
				echo "${t%/*}/"
			fi ;;
		*.lds|*.s|*.i)	echo "$t" ;;
		*)	echo "${t%/*}/" ;;
		esac
	done
}

# nm_defined ARCH OBJ...: the global symbols that OBJ define.
nm_defined()
{
	local arch=$1
	shift

	[ $# -gt 0 ] || return 0
	(cd "$(kbuild_dir "$arch" "$tree")" &&
	 inroot "${CROSS}nm" -g --defined-only "$@" 2>/dev/null) |
		awk 'NF == 3 { print $3 }'
}

# used ARCH OBJ...: the global symbols that the built-in objects among
# OBJ use.
used()
{
	local arch=$1 objs
	shift

	objs=$(printf '%s\n' "$@" | grep -x -F -f "$tmp/builtin-$arch" || true)
	[ -n "$objs" ] || return 0
	# shellcheck disable=SC2086
	# An object that is not built yet has nothing to say.
	(cd "$(kbuild_dir "$arch" "$tree")" && inroot "${CROSS}nm" -u $objs 2>/dev/null || true) |
		awk '$1 == "U" { print $2 }' | sort -u
}

# definers ARCH: of the series' objects, those that define a symbol the
# series adds that is in the sorted list on stdin, and that this
# prefix's config builds.
definers()
{
	local arch=$1 kout o rc

	kout=$(kbuild_dir "$arch" "$tree")
	comm -12 - "$tmp/own-defined-$arch" |
		join -t $'\t' - "$tmp/own-symbols-$arch" | cut -f2 | sort -u |
		while read -r o; do
			rc=0
			in_config "$kout" "$o" 2>> "$log" || rc=$?
			[ $rc = 1 ] || echo "$o"
		done
}

# build ARCH TARGET...: make TARGETs at this prefix, in one make but for
# a directory that holds another target, which kbuild cannot build at
# once with it: it gets a make of its own.
# shellcheck disable=SC2086
build()
{
	local arch=$1 alone rest
	shift

	alone=$(printf '%s\n' "$@" | sort -u | awk '{ t[NR] = $0 }
		END { for (i in t) if (t[i] ~ /\/$/) for (j in t)
			if (j != i && index(t[j], t[i]) == 1) { print t[i]; break } }')
	rest=$(printf '%s\n' "$@" | sort -u | grep -v -x -F "${alone:-/}" || true)
	(cd "$tree" &&
	 { [ -z "$rest" ] ||
	   inroot env CCACHE_BASEDIR="$tree" "${kmake[@]}" $rest; } &&
	 for t in $alone; do
		inroot env CCACHE_BASEDIR="$tree" "${kmake[@]}" "$t" || exit 1
	 done)
}

# link_check ARCH OBJ... (OBJ built, with DEFINERS, at this prefix):
# every global symbol that the built-in objects among OBJ use must be
# defined at this prefix: by the part of the kernel that the series does
# not touch, by these objects, or by one of the series' objects that this
# prefix's config builds (built now if DEFINERS, the guess made before
# building, missed it).
link_check()
{
	local arch=$1 kout used own more missing o rc
	shift

	kout=$(kbuild_dir "$arch" "$tree")
	used=$(used "$arch" "$@")
	[ -n "$used" ] || return 0
	own=$(definers "$arch" <<< "$used")
	# shellcheck disable=SC2086
	more=$(comm -23 <(echo "$own") <(printf '%s\n' $DEFINERS | sort -u))
	[ -z "$more" ] || build "$arch" $more || return 1
	# shellcheck disable=SC2086
	missing=$(comm -23 <(echo "$used") \
		<(sort -u <(comm -23 "$tmp/defined-$arch" "$tmp/own-defined-$arch") \
			  <(nm_defined "$arch" "$@" $own)))
	[ -z "$missing" ] && return 0
	# A name that only some prefixes define (added, then renamed) is
	# not in the full series' objects: ask all the series' objects, as
	# this prefix builds them, before calling it undefined.
	own=$(while read -r o; do
		rc=0; in_config "$kout" "$o" 2>> "$log" || rc=$?
		[ $rc = 1 ] || echo "$o"; done < "$tmp/own-$arch")
	# shellcheck disable=SC2086
	[ -z "$own" ] || build "$arch" $own || return 1
	# shellcheck disable=SC2086
	missing=$(comm -23 <(echo "$missing") <(nm_defined "$arch" $own | sort -u))
	[ -z "$missing" ] && return 0
	echo "undefined at this prefix: $(echo $missing)"
	return 1
}

# user_space ARCH: build the user space programs the patch touches.
# kmake and log are check_arch's.
user_space()
{
	local arch=$1 kout rc always=

	kout=$(kbuild_dir "$arch" "$tree")
	if grep -qE '^(tools/testing/selftests/sframe/|tools/sframe/|tools/include/|include/uapi/)' <<< "$files" &&
	   [ -e "$tree/tools/testing/selftests/sframe/Makefile" ]; then
		# The uapi headers of this prefix, when they changed.
		if [ "$first" = 1 ] || grep -q '^include/uapi/' <<< "$files"; then
			(cd "$tree" && inroot "${kmake[@]}" headers_install \
				INSTALL_HDR_PATH="$kout/bisect-selftests/usr") ||
				{ echo "headers_install"; return 1; }
		fi
		# The selftests' rules know only their own headers: rebuild
		# them all when others changed.
		grep -qvE '^tools/(testing/selftests/)?sframe/' <<< "$files" && always=-B
		# As selftests.sh builds them, in a directory of their own.
		(cd "$tree" && inroot make -s $always -C tools/testing/selftests \
			TARGETS=sframe O="$kout/bisect-selftests" ARCH=$KARCH \
			CROSS_COMPILE=$CROSS \
			KHDR_INCLUDES="-isystem $kout/bisect-selftests/usr/include") ||
			{ echo "sframe selftests"; return 1; }
	fi
	[ "$arch" = x86_64 ] || return 0
	# The host's user space: the decoder in user space and its headers,
	# the vma tests.  They build in the tree.  (The selftests build the
	# rtld audit module of tools/sframe.)
	for d in tools/testing/sframe tools/testing/vma; do
		case $d in
		tools/testing/sframe)
			grep -qE '^(tools/testing/sframe/|tools/include/|kernel/unwind/sframe_decode|include/linux/(sframe|unwind_user))' <<< "$files" ;;
		tools/testing/vma)
			grep -qE '^(tools/testing/vma/|mm/vma)' <<< "$files" ;;
		esac || continue
		[ -e "$tree/$d/Makefile" ] || continue
		rc=0
		(cd "$tree" && inroot make -s -C "$d") || rc=$?
		(cd "$tree" && inroot make -s -C "$d" clean) > /dev/null 2>&1 || true
		[ $rc = 0 ] || { echo "$d"; return 1; }
	done
}

# Build at commit $c (number $k) for ARCH what its patch touches; print
# one "ok"/"not ok" line.  Returns non-zero on a failure.
check_arch()
{
	local arch=$1 kout name log f tgts why

	kout=$(kbuild_dir "$arch" "$tree")
	name="bisect $k/$total $arch: $subject"
	arch_vars "$arch"
	log="$kout/bisect-$k.log"
	: > "$log"
	kmake=(make -s -j"$JOBS" O="$kout" ARCH="$KARCH" CROSS_COMPILE="$CROSS"
	       CC="ccache ${CROSS}gcc")
	# The config at this prefix decides what is built; it changes only
	# with a Kconfig file (and at the first prefix checked, after the
	# full series' config).
	if { [ "$first" = 1 ] || grep -q 'Kconfig' <<< "$files"; } &&
	   ! (cd "$tree" && inroot "${kmake[@]}" olddefconfig &&
	      inroot "${kmake[@]}" syncconfig) > "$log" 2>&1; then
		echo "not ok - $name (olddefconfig)"
		sed 's/^/#   /' "$log" | tail -n 30
		return 1
	fi
	# Objects that this prefix's config builds, and directories.
	tgts=$(for f in $files; do
		[ ! -e "$tree/$f" ] || targets "$arch" "$f" 2>> "$log"
	done | sort -u | while read -r t; do
		rc=0
		case $t in
		*.o)	in_config "$kout" "$t" 2>> "$log" || rc=$? ;;
		esac
		[ $rc = 1 ] || echo "$t"
	done)
	objs=$(grep '\.o$' <<< "$tgts" || true)
	# The series' objects that define what the objects use, as the
	# objects are in the build directory now (the full series' build, or
	# a nearby prefix's): built with them, not after.
	# shellcheck disable=SC2086
	DEFINERS=$(used "$arch" $objs | definers "$arch")
	why=
	# shellcheck disable=SC2086
	if [ -n "$tgts" ] && ! build "$arch" $tgts $DEFINERS >> "$log" 2>&1; then
		why=build
	elif ! link_check "$arch" $objs >> "$log" 2>&1; then
		why="link"
	elif ! user_space "$arch" >> "$log" 2>&1; then
		why="user space"
	fi
	if [ -n "$why" ]; then
		echo "not ok - $name ($why)"
		sed 's/^/#   /' "$log" | tail -n 30
		return 1
	fi
	echo "ok - $name ($(grep -c . <<< "$tgts" || true) kernel targets)"
}

# Older prefixes configure with fewer options: keep the full series'
# configs to put them back at the end.
for a in "${arches[@]}"; do
	kout=$(kbuild_dir "$a" "$tree")
	[ ! -e "$kout/.config" ] || cp -p "$kout/.config" "$tmp/config-$a"
done
restore()
{
	local a

	git -C "$tree" checkout -q -f "${branch:-$head}"
	for a in "${arches[@]}"; do
		[ ! -e "$tmp/config-$a" ] ||
			cp "$tmp/config-$a" "$(kbuild_dir "$a" "$tree")/.config"
	done
	rm -rf "$tmp"
}
trap restore EXIT

for a in "${arches[@]}"; do
	if [ ! -e "$(kbuild_dir "$a" "$tree")/vmlinux" ]; then
		echo "not ok - bisect $a (no $a kernel build to compile in)"
		exit 1
	fi
	arch_vars "$a"
	index "$a"
done

# A range of the series can be checked alone: BISECT_FROM=REV starts
# after REV instead of after base.
from=${BISECT_FROM:-base}
fail=0
total=$(git -C "$tree" rev-list --count base..HEAD)
k=$(git -C "$tree" rev-list --count base.."$from")
first=1
for c in $(git -C "$tree" rev-list --reverse "$from".."$head"); do
	k=$((k + 1))
	subject=$(git -C "$tree" log -1 --format=%s "$c")
	git -C "$tree" checkout -q -f "$c"
	files=$(git -C "$tree" diff-tree --no-commit-id --name-only -r "$c")
	# The arches build side by side; their lines print in order.  A
	# check that stops without its verdict (set -e) fails with its
	# output and status.
	pids=()
	for arch in "${arches[@]}"; do
		check_arch "$arch" > "$tmp/out-$arch" 2>&1 &
		pids+=($!)
	done
	i=0
	for arch in "${arches[@]}"; do
		rc=0
		wait "${pids[i]}" || rc=$?
		i=$((i + 1))
		cat "$tmp/out-$arch"
		grep '^ok - ' "$tmp/out-$arch" >> "$tmp/passes" || true
		[ $rc -eq 0 ] && continue
		fail=1
		grep -q '^not ok' "$tmp/out-$arch" ||
			echo "not ok - bisect $k/$total $arch: $subject (stopped with status $rc before its verdict)"
	done
	first=0
done
if [ $fail = 0 ] && [ "$from" = base ]; then
	mkdir -p "$RESULTS"
	cp "$tmp/passes" "$passed.tmp" && mv "$passed.tmp" "$passed"
fi
exit $fail
