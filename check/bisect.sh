#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bisect.sh TREE [ARCH...] - check that every prefix of the series in TREE
# (the commits on top of tag base) builds what its patch can break, for
# each ARCH (default: ARCHES), and that what it builds links: at each
# prefix, the targets that kbuild's own dependency files say the patch
# touches (check/bisect/select.sh), then a check that every symbol they
# use is defined.  How, why, what it can miss, how the tree is left and
# when a pass is kept: docs/bisect.md, the one description of the step.
#
# The kernels of TREE must have been built once, at its HEAD.  Prints KTAP
# (lib/tap.sh): one result per patch and arch, after the end of its build
# log if it failed; exits non-zero if any failed.  BISECT_FROM=REV checks
# only the commits after REV.  A pass of the whole series is kept
# ($RESULTS, lib/lib.sh) under a key of everything it depends on (the
# series, the toolchain, the scripts: see key= below).

. "$(dirname "$0")/../lib/lib.sh"
. "$TOP/check/bisect/select.sh"
# shellcheck source=lib/tap.sh
. "$TOP/lib/tap.sh"
# sort, comm and join must agree on one order.
export LC_ALL=C

tree=$(cd "${1:?usage: bisect.sh TREE [ARCH...]}" && pwd)
shift
arches=("$@")
[ ${#arches[@]} -gt 0 ] || arches=("${ARCHES[@]}")
cap=${BISECT_CAP:-24}

# Before any prefix is checked out: the helpers are the tree's.
tap_start "$tree"
head=$(git -C "$tree" rev-parse HEAD)
branch=$(git -C "$tree" symbolic-ref -q --short HEAD || true)

key=$( (echo "$head ${arches[*]} $cap"; root_stamp
	cat "$0" "$TOP/check/bisect/select.sh" "$TOP/lib/lib.sh" "$TOP/pipeline/kernel.sh" "$TOP"/config/*.config \
		"$TOP"/config/arch/*.sh) |
	sha256sum | cut -c1-16)
passed=$RESULTS/bisect-$key
if [ -z "${BISECT_FROM:-}" ] && [ -s "$passed" ]; then
	echo "# every prefix passed in an earlier run with the same series ($head), toolchain and scripts (key $key): not built again"
	while IFS= read -r line; do
		tap_pass "${line#ok - }"
	done < "$passed"
	tap_done
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

# arch_ctx NAME ARCH TREE DATA CAP: fill the associative array NAME with
# ARCH's state in TREE, the run's files being in DATA, BISECT_CAP CAP,
# for the selection (check/bisect/select.sh describes the keys it reads)
# and for what builds:
#   [arch], [cross] (CROSS_COMPILE), [kout] (the build directory, which
#   holds the full series' build)
#   [config]   the config the prefixes are configured with: a copy of the
#              full series' .config, which bisect never writes
#   [files], [names]  the series' files, and the names its lines add
#   [defined]  the global symbols that the full series' vmlinux defines
#   [own]      the series' own built-in objects
# and the files that index fills.
arch_ctx()
{
	local -n _new=$1
	local arch=$2 tree=$3 data=$4 cap=$5 kout

	arch_vars "$arch"
	kout=$(kbuild_dir "$arch" "$tree")
	_new=([arch]=$arch [tree]=$tree [kout]=$kout [karch]=$KARCH
	    [srcarch]=$SRCARCH [cross]=$CROSS [cap]=$cap
	    [autoconf]=$kout/include/config/auto.conf
	    [config]=$kout/.config-bisect
	    [files]=$data/series-files [dirs]=$data/series-dirs
	    [names]=$data/series-names [index]=$data/index-$arch
	    [builtin]=$data/builtin-$arch [defined]=$data/defined-$arch
	    [own]=$data/own-$arch [own_symbols]=$data/own-symbols-$arch
	    [own_defined]=$data/own-defined-$arch)
}

# kmake CTX ARG...: make in the tree for CTX's arch, its prefixes'
# config in place of the full series'.
kmake()
{
	local -n _a=$1
	shift

	kernel_make "${_a[arch]}" "${_a[tree]}" "${_a[kout]}" \
		KCONFIG_CONFIG="${_a[config]}" "$@"
}

# index CTX: what the selection reads of the full series' build.
index()
{
	local -n _a=$1
	local o

	cmd_index "${_a[tree]}" "${_a[kout]}" "${_a[files]}" > "${_a[index]}"
	# Built-in objects (the link check looks at these), the symbols the
	# full series' vmlinux defines, and which of them the series' own
	# objects define (those may be missing at a prefix).
	(cd "${_a[kout]}" && inroot sh -c 'for a in $(find . -name built-in.a \
		-not -path "./kselftest/*" -not -path "./bisect-*"); do
		"$0" t "${a#./}"; done' "${_a[cross]}ar") |
		grep '\.o$' | sort -u > "${_a[builtin]}"
	inroot "${_a[cross]}nm" --defined-only "${_a[kout]}/vmlinux" |
		awk '{ print $3 }' | sort -u > "${_a[defined]}"
	series_objects "${_a[index]}" "${_a[builtin]}" > "${_a[own]}"
	[ -s "${_a[own]}" ] ||
		die "${_a[kout]} has no object of the series: not a build of ${_a[tree]}"
	while read -r o; do
		nm_defined "$1" "$o" | sed "s|\$|\t$o|"
	done < "${_a[own]}" | sort -u > "${_a[own_symbols]}.all"
	added_symbols "${_a[names]}" < "${_a[own_symbols]}.all" > "${_a[own_defined]}"
	awk -F'\t' 'NR == FNR { want[$1] = 1; next } $1 in want' \
		"${_a[own_defined]}" "${_a[own_symbols]}.all" > "${_a[own_symbols]}"
}

# nm_defined CTX OBJ...: the global symbols that OBJ define.
nm_defined()
{
	local -n _a=$1
	shift

	[ $# -gt 0 ] || return 0
	(cd "${_a[kout]}" && inroot "${_a[cross]}nm" -g --defined-only "$@" 2>/dev/null) |
		awk 'NF == 3 { print $3 }'
}

# used CTX OBJ...: the global symbols that the built-in objects among OBJ
# use.
used()
{
	local -n _a=$1
	local objs
	shift

	objs=$(printf '%s\n' "$@" | grep -x -F -f "${_a[builtin]}" || true)
	[ -n "$objs" ] || return 0
	# shellcheck disable=SC2086
	# An object that is not built yet has nothing to say.
	(cd "${_a[kout]}" && inroot "${_a[cross]}nm" -u $objs 2>/dev/null || true) |
		awk '$1 == "U" { print $2 }' | sort -u
}

# build CTX TARGET...: make TARGETs at this prefix, in one make but for a
# directory that holds another target, which gets a make of its own.
# shellcheck disable=SC2086
build()
{
	local alone rest t

	alone=$(alone_dirs "${@:2}")
	rest=$(printf '%s\n' "${@:2}" | sort -u | grep -v -x -F "${alone:-/}" || true)
	{ [ -z "$rest" ] || kmake "$1" $rest; } &&
	for t in $alone; do
		kmake "$1" "$t" || return 1
	done
}

# link_check CTX DEFINERS OBJ... (OBJ built, with the objects DEFINERS
# lists, at this prefix): every global symbol that the built-in objects
# among OBJ use must be defined at this prefix: by the part of the kernel
# that the series does not touch, by these objects, or by one of the
# series' objects that this prefix's config builds (built now if
# DEFINERS, the guess made before building, missed it).  Notes go to
# stderr.
link_check()
{
	local -n _a=$1
	local definers=$2 used own more missing o rc
	shift 2

	used=$(used "${!_a}" "$@")
	[ -n "$used" ] || return 0
	own=$(definer_objects "${!_a}" <<< "$used")
	# shellcheck disable=SC2086
	more=$(comm -23 <(echo "$own") <(printf '%s\n' $definers | sort -u))
	[ -z "$more" ] || build "${!_a}" $more || return 1
	# shellcheck disable=SC2086
	missing=$(undefined_symbols "${_a[defined]}" "${_a[own_defined]}" \
		<(nm_defined "${!_a}" "$@" $own) <<< "$used")
	[ -z "$missing" ] && return 0
	# A name that only some prefixes define (added, then renamed) is
	# not in the full series' objects: ask all the series' objects, as
	# this prefix builds them, before calling it undefined.
	own=$(while read -r o; do
		rc=0; in_config "${!_a}" "$o" || rc=$?
		[ $rc = 1 ] || echo "$o"; done < "${_a[own]}")
	# shellcheck disable=SC2086
	[ -z "$own" ] || build "${!_a}" $own || return 1
	# shellcheck disable=SC2086
	missing=$(comm -23 <(echo "$missing") <(nm_defined "${!_a}" $own | sort -u))
	[ -z "$missing" ] && return 0
	echo "undefined at this prefix: $(echo $missing)"
	return 1
}

# user_space CTX FIRST FILE...: build the user space programs that the
# patch touching FILEs touches (FIRST=1: at the first prefix checked).
user_space()
{
	local -n _a=$1
	local first=$2 files d rc always=
	shift 2

	files=$(printf '%s\n' "$@")
	if grep -qE '^(tools/testing/selftests/sframe/|tools/sframe/|tools/include/|include/uapi/)' <<< "$files" &&
	   [ -e "${_a[tree]}/tools/testing/selftests/sframe/Makefile" ]; then
		# The uapi headers of this prefix, when they changed.
		if [ "$first" = 1 ] || grep -q '^include/uapi/' <<< "$files"; then
			kmake "${!_a}" headers_install \
				INSTALL_HDR_PATH="${_a[kout]}/bisect-selftests/usr" ||
				{ echo "headers_install"; return 1; }
		fi
		# The selftests' rules know only their own headers: rebuild
		# them all when others changed.
		grep -qvE '^tools/(testing/selftests/)?sframe/' <<< "$files" && always=-B
		# As selftests.sh builds them, in a directory of their own.
		(cd "${_a[tree]}" && inroot make -s $always -C tools/testing/selftests \
			TARGETS=sframe O="${_a[kout]}/bisect-selftests" ARCH="${_a[karch]}" \
			CROSS_COMPILE="${_a[cross]}" \
			KHDR_INCLUDES="-isystem ${_a[kout]}/bisect-selftests/usr/include") ||
			{ echo "sframe selftests"; return 1; }
	fi
	# The host's user space is built once, with the arch that needs no
	# cross compiler.
	[ -z "${_a[cross]}" ] || return 0
	# The decoder in user space and its headers, the vma tests.  They
	# build in the tree.  (The selftests build the rtld audit module of
	# tools/sframe.)
	for d in tools/testing/sframe tools/testing/vma; do
		case $d in
		tools/testing/sframe)
			grep -qE '^(tools/testing/sframe/|tools/include/|kernel/unwind/sframe_decode|include/linux/(sframe|unwind_user))' <<< "$files" ;;
		tools/testing/vma)
			grep -qE '^(tools/testing/vma/|mm/vma)' <<< "$files" ;;
		esac || continue
		[ -e "${_a[tree]}/$d/Makefile" ] || continue
		rc=0
		(cd "${_a[tree]}" && inroot make -s -C "$d") || rc=$?
		(cd "${_a[tree]}" && inroot make -s -C "$d" clean) > /dev/null 2>&1 || true
		[ $rc = 0 ] || { echo "$d"; return 1; }
	done
}

# check_arch CTX K FIRST NAME FILE...: build at prefix number K (FIRST=1:
# the first one checked) for CTX's arch what its patch, touching FILEs,
# can break; print one "ok - NAME"/"not ok - NAME" line for it, after the
# end of the build log on a failure, which report() turns into KTAP.
# Returns non-zero on a failure.
check_arch()
{
	local -n _a=$1
	local k=$2 first=$3 name=$4 log tgts objs definers why rc
	shift 4

	log="${_a[kout]}/bisect-$k.log"
	: > "$log"
	if needs_config "$first" "$@"; then
		rc=0
		{ kmake "${!_a}" olddefconfig && kmake "${!_a}" syncconfig; } > "$log" 2>&1 ||
			rc=$?
		# kbuild's copy of the config (include/config/) is now this
		# prefix's.  A .config newer than it makes the next make
		# outside bisect derive it again from the full series'
		# config, even after a bisect that was killed.
		touch "${_a[kout]}/.config"
		if [ $rc != 0 ]; then
			sed 's/^/#   /' "$log" | tail -n 30
			echo "not ok - $name (olddefconfig)"
			return 1
		fi
	fi
	# Objects that this prefix's config builds, and directories.
	tgts=$(patch_targets "${!_a}" "$k" "$@" 2>> "$log")
	objs=$(grep '\.o$' <<< "$tgts" || true)
	# The series' objects that define what the objects use, as the
	# objects are in the build directory now (the full series' build, or
	# a nearby prefix's): built with them, not after.
	# shellcheck disable=SC2086
	definers=$(used "${!_a}" $objs | definer_objects "${!_a}" 2>> "$log")
	why=
	# shellcheck disable=SC2086
	if [ -n "$tgts" ] && ! build "${!_a}" $tgts $definers >> "$log" 2>&1; then
		why=build
	elif ! link_check "${!_a}" "$definers" $objs >> "$log" 2>&1; then
		why="link"
	elif ! user_space "${!_a}" "$first" "$@" >> "$log" 2>&1; then
		why="user space"
	fi
	if [ -n "$why" ]; then
		sed 's/^/#   /' "$log" | tail -n 30
		echo "not ok - $name ($why)"
		return 1
	fi
	echo "ok - $name ($(grep -c . <<< "$tgts" || true) kernel targets)"
}

# The prefixes are configured in a copy of each arch's config: the full
# series' .config stays as it is, however bisect ends.
restore()
{
	local a

	git -C "$tree" checkout -q -f "${branch:-$head}"
	for a in "${arches[@]}"; do
		rm -f "$(kbuild_dir "$a" "$tree")"/.config-bisect{,.old}
		# Whatever prefix include/config/ was last derived for,
		# the next make derives it again from .config.
		[ ! -e "$(kbuild_dir "$a" "$tree")/.config" ] ||
			touch "$(kbuild_dir "$a" "$tree")/.config"
	done
	rm -rf "$tmp"
}
trap restore EXIT

# report FILE: check_arch's lines in FILE as KTAP, and its passes kept.
report()
{
	local line

	while IFS= read -r line; do
		case $line in
		"ok - "*) tap_pass "${line#ok - }"; echo "$line" >> "$tmp/passes" ;;
		"not ok - "*) tap_fail "${line#not ok - }" ;;
		*) echo "$line" ;;
		esac
	done < "$1"
}

for a in "${arches[@]}"; do
	if [ ! -e "$(kbuild_dir "$a" "$tree")/vmlinux" ]; then
		tap_fail "bisect $a (no $a kernel build to compile in)"
		tap_done
	fi
	declare -A "ctx_$a"
	arch_ctx "ctx_$a" "$a" "$tree" "$tmp" "$cap"
	cp "$(kbuild_dir "$a" "$tree")/.config" "$(kbuild_dir "$a" "$tree")/.config-bisect"
	index "ctx_$a"
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
		# shellcheck disable=SC2086
		check_arch "ctx_$arch" "$k" "$first" \
			"bisect $k/$total $arch: $subject" $files > "$tmp/out-$arch" 2>&1 &
		pids+=($!)
	done
	i=0
	for arch in "${arches[@]}"; do
		rc=0
		wait "${pids[i]}" || rc=$?
		i=$((i + 1))
		report "$tmp/out-$arch"
		[ $rc -eq 0 ] && continue
		fail=1
		grep -q '^not ok' "$tmp/out-$arch" ||
			tap_fail "bisect $k/$total $arch: $subject (stopped with status $rc before its verdict)"
	done
	first=0
done
if [ $fail = 0 ] && [ "$from" = base ]; then
	mkdir -p "$RESULTS"
	cp "$tmp/passes" "$passed.tmp" && mv "$passed.tmp" "$passed"
fi
tap_done
