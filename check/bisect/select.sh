# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What check/bisect.sh builds at a prefix of the series for the files its
# patch touches: the selection, apart from what runs make on the kernel,
# so that check/pipeline/bisect-select.sh can test it on small fixtures
# (check/bisect/fixtures/) without a kernel build.  Sourced, not run.
#
# Every function takes its inputs as arguments and files, and prints its
# result.  Those that need an arch's state take the name of an
# associative array that holds it (a "selection context"), which they
# only read:
#   [tree]        the source tree, at the prefix being checked
#   [karch]       the kernel's ARCH, [srcarch] its SRCARCH (arch_vars)
#   [autoconf]    the config the prefix builds with (include/config/auto.conf)
#   [cap]         how many includers of a header to build at most
#   [index]       "FILE<TAB>TARGET", sorted: the targets of the full series'
#                 build that depend on each file of the series (cmd_index)
#   [builtin]     the objects of the full build's built-in.a files, sorted
#   [dirs]        the directories of the series' kernel sources, sorted
#   [own_defined] the global symbols that the series' own built-in objects
#                 define and that a patch may add, sorted (added_symbols)
#   [own_symbols] "SYMBOL<TAB>OBJECT" for those, sorted
# The array's name must not be _c or _cn, which the functions use for it.
# sort, comm and join must agree on one order: LC_ALL=C.

# cmd_index TREE KOUT SERIES-FILES: "FILE<TAB>TARGET" for each file listed
# in SERIES-FILES that a target of the build in KOUT depends on, from
# kbuild's .cmd files (fixdep output), which name the files of TREE by
# absolute paths or relative to KOUT.
cmd_index()
{
	local tree=$1 kout=$2 files=$3 rel

	rel=$(realpath -m --relative-to="$kout" "$tree")
	find "$kout" -name '.*.cmd' -not -path '*/kselftest/*' \
		-not -path '*/guest-tests/*' -not -path '*/bisect-*' -print0 |
	xargs -0 awk -v abs="$tree/" -v rel="$rel/" -v files="$files" '
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
		deps && !/\\$/ { deps = 0 }' | sort -u
}

# series_objects INDEX BUILTIN: the series' own built-in objects, those
# compiled from one of its sources.
series_objects()
{
	awk -F'\t' '$2 ~ /\.o$/ && $1 ~ /\.[cS]$/ { print $2 }' "$1" |
		sort -u | { grep -x -F -f "$2" || true; }
}

# added_symbols NAMES < OWN-SYMBOLS: of the symbols ("SYMBOL<TAB>OBJECT")
# that the series' objects define, the ones a patch may add: those that
# name, or contain, a name (of 4 characters or more) in NAMES, the
# identifiers on the lines the series adds (__tracepoint_X, __x64_sys_X,
# __ksymtab_X).  The rest were defined at the base and stay defined.
added_symbols()
{
	cut -f1 | sort -u |
		awk 'NR == FNR { if (length($0) >= 4) n[$0] = 1; next }
		     { for (w in n) if (index($0, w)) { print; next } }' "$1" -
}

# needs_config FIRST FILE...: does the prefix need its config made again?
# The config changes only with a Kconfig file, and at the first prefix
# checked (FIRST=1), after the full series' config.
needs_config()
{
	local first=$1 f
	shift

	[ "$first" = 1 ] && return 0
	for f; do
		case $f in
		*Kconfig*)	return 0 ;;
		esac
	done
	return 1
}

# in_config CTX OBJ: does this prefix's config build OBJ into the kernel?
# make evaluates the kbuild file of OBJ's directory (composite objects
# expanded), and of each parent up to arch/ARCH/DIR or a top-level
# directory, with the config as kbuild has it and the variables
# arch/ARCH/Makefile sets that directory makefiles use.  Returns 2 if a
# file cannot be evaluated.
in_config()
{
	local -n _c=$1
	local obj=$2 dir name mk objs

	dir=${obj%/*} name=${obj##*/}
	while :; do
		mk=$dir/Makefile
		[ -e "${_c[tree]}/$dir/Kbuild" ] && mk=$dir/Kbuild
		[ -e "${_c[tree]}/$mk" ] || return 1
		objs=$(env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS \
			make -s --no-print-directory -C "${_c[tree]}" -f - bisect-objs <<-EOF
			srctree := ${_c[tree]}
			src := $dir
			obj := $dir
			ARCH := ${_c[karch]}
			SRCARCH := ${_c[srcarch]}
			BITS := 64
			include ${_c[autoconf]}
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

# file_targets CTX K FILE: what the full build says depends on FILE, as
# targets to build at prefix number K: objects, or directories (a touched
# Makefile, or a target that is not an object of vmlinux: linker
# scripts, the vDSO, host programs).  The config is not asked yet.
file_targets()
{
	local -n _c=$1
	local k=$2 file=$3 cap=${_c[cap]} all n

	case $file in
	arch/"${_c[srcarch]}"/*) ;;
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
		"${_c[index]}")
	[ -n "$all" ] || return 0
	n=$(wc -l <<< "$all")
	if [ "$n" -gt "$cap" ]; then
		echo "$file: $cap of its $n includers" >&2
		# Half from the series' own directories, the rest an even
		# sample that moves with the prefix, so that each patch that
		# touches the header builds others.
		{
			awk -v dirs="${_c[dirs]}" '
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
		*.o)	if grep -qx -F "$t" "${_c[builtin]}"; then
				echo "$t"
			else
				echo "${t%/*}/"
			fi ;;
		*.lds|*.s|*.i)	echo "$t" ;;
		*)	echo "${t%/*}/" ;;
		esac
	done
}

# patch_targets CTX K FILE...: the kernel targets to build at prefix
# number K for the FILEs its patch touches, sorted: those of each FILE
# still in the tree, but the objects that this prefix's config does not
# build.  Notes go to stderr.
patch_targets()
{
	local _cn=$1 k=$2 f t rc
	local -n _c=$_cn
	shift 2

	for f; do
		[ ! -e "${_c[tree]}/$f" ] || file_targets "$_cn" "$k" "$f"
	done | sort -u | while read -r t; do
		rc=0
		case $t in
		*.o)	in_config "$_cn" "$t" || rc=$? ;;
		esac
		[ $rc = 1 ] || echo "$t"
	done
}

# definer_objects CTX < SYMBOLS: of the series' objects, those that
# define a symbol the series adds that is in the sorted list on stdin,
# and that this prefix's config builds.
definer_objects()
{
	local _cn=$1 o rc
	local -n _c=$_cn

	comm -12 - "${_c[own_defined]}" |
		join -t $'\t' - "${_c[own_symbols]}" | cut -f2 | sort -u |
		while read -r o; do
			rc=0
			in_config "$_cn" "$o" || rc=$?
			[ $rc = 1 ] || echo "$o"
		done
}

# undefined_symbols KERNEL ADDED HERE < USED: of the sorted global symbols
# on stdin, those that neither the kernel (KERNEL: what the full series'
# vmlinux defines, but the symbols in ADDED, which a prefix may lack) nor
# the objects built at this prefix (HERE, in any order) define.
undefined_symbols()
{
	comm -23 - <(sort -u <(comm -23 "$1" "$2") "$3")
}

# alone_dirs TARGET...: the directories among TARGETs that hold another
# of them, which kbuild cannot make at once with it.
alone_dirs()
{
	printf '%s\n' "$@" | sort -u | awk '{ t[NR] = $0 }
		END { for (i in t) if (t[i] ~ /\/$/) for (j in t)
			if (j != i && index(t[j], t[i]) == 1) { print t[i]; break } }' |
		sort
}
