#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bisect.sh TREE [ARCH...] - check that every prefix of the series in TREE
# (the commits on top of tag base) compiles what its patch touches: each
# touched .c file, and for each touched header the files of the config
# that include it (up to a few).  Generic code is compiled for every ARCH
# (default: x86_64 arm64), arch/<arch>/ code for that architecture only.
# The kernels of TREE must have been built once, so that the objects of
# the config are known.  Prints one "ok"/"not ok" line per patch and arch;
# exits non-zero if any failed.  TREE is left at its original HEAD, its
# kernel configs as they were.  BISECT_FROM=REV checks only the commits
# after REV.

. "$(dirname "$0")/lib.sh"

tree=$(cd "${1:?usage: bisect.sh TREE [ARCH...]}" && pwd)
shift
arches=("$@")
[ ${#arches[@]} -gt 0 ] || arches=(x86_64 arm64)

# Objects of ARCH's config that FILE's change can break.
objects()
{
	local arch=$1 file=$2 kout=$3 dir inc

	case $file in
	arch/x86/*)	[ "$arch" = x86_64 ] || return 0 ;;
	arch/arm64/*)	[ "$arch" = arm64 ] || return 0 ;;
	arch/*)		return 0 ;;
	tools/*|Documentation/*|samples/*|MAINTAINERS) return 0 ;;
	esac

	case $file in
	*.c)
		echo "${file%.c}.o"
		;;
	*.h)
		case $file in
		include/uapi/*)		inc="<${file#include/uapi/}>" ;;
		include/*)		inc="<${file#include/}>" ;;
		arch/*/include/uapi/*)	inc="<${file#arch/*/include/uapi/}>" ;;
		arch/*/include/*)	inc="<${file#arch/*/include/}>" ;;
		*)			inc="\"$(basename "$file")\"" ;;
		esac
		dir=.
		case $inc in
		\"*) dir=$(dirname "$file") ;;
		esac
		# Includers that this config builds, a few of them; for a
		# header that only headers include, the includers of those.
		{
			git grep -l -F "#include $inc" -- "$dir/*.c" || true
			[ "$dir" != . ] ||
			git grep -l -F "#include $inc" -- 'include/*.h' |
			while read -r h; do
				git grep -l -F "#include <${h#include/}>" -- '*.c' || true
			done || true
		} | while read -r c; do
			[ ! -e "$kout/${c%.c}.o" ] || echo "${c%.c}.o"
		done | head -n 3 || true
		;;
	esac
}

# Is OBJ built in the config at $kout?  It is when its directory's
# Makefile lists it under obj-y, or under obj-$(CONFIG_X) with X set.
enabled()
{
	local obj=$1 kout=$2 line sym

	line=$(grep -E "^[[:space:]]*obj-\\\$\(CONFIG_[A-Z0-9_]+\)[[:space:]]*[+:]?=.*[[:space:]]$(basename "$obj")([[:space:]]|$)" \
		"$tree/$(dirname "$obj")/Makefile" 2>/dev/null | head -n 1 || true)
	[ -n "$line" ] || return 0
	sym=$(echo "$line" | sed -E 's/^[[:space:]]*obj-\$\((CONFIG_[A-Z0-9_]+)\).*/\1/')
	grep -q "^$sym=y" "$kout/.config"
}

# Compile at commit $c (number $k) for ARCH what its patch touches; print
# one "ok"/"not ok" line.  Returns non-zero on a failure.
check_arch()
{
	local arch=$1 kout karch cross name log f objs kmake

	kout=$(kbuild_dir "$arch" "$tree")
	name="bisect $k/$total $arch: $subject"
	if [ ! -e "$kout/vmlinux" ]; then
		echo "not ok - $name (no $arch kernel build to compile in)"
		return 1
	fi
	arch_vars "$arch"
	karch=$KARCH cross=$CROSS
	log="$kout/bisect-$k.log"
	: > "$log"
	kmake=(make -s -j"$JOBS" O="$kout" ARCH=$karch CROSS_COMPILE=$cross
	       CC="ccache ${cross}gcc")
	# The config at this prefix decides what is built; it changes only
	# with a Kconfig file (and at the first prefix checked, after the
	# full series' config).
	if { [ "$first" = 1 ] || grep -q 'Kconfig' <<< "$files"; } &&
	   ! (cd "$tree" && inroot "${kmake[@]}" olddefconfig) > "$log" 2>&1; then
		echo "not ok - $name (olddefconfig)"
		sed 's/^/#   /' "$log" | tail -n 30
		return 1
	fi
	objs=()
	for f in $files; do
		[ -e "$tree/$f" ] || continue
		mapfile -t -O ${#objs[@]} objs < <(cd "$tree" && objects "$arch" "$f" "$kout")
	done
	mapfile -t objs < <(printf '%s\n' ${objs[@]+"${objs[@]}"} | sort -u |
		while read -r o; do
			[ -n "$o" ] && enabled "$o" "$kout" && echo "$o"
		done)
	if [ ${#objs[@]} -gt 0 ] &&
	   ! (cd "$tree" && inroot env CCACHE_BASEDIR="$tree" \
		"${kmake[@]}" "${objs[@]}") >> "$log" 2>&1; then
		echo "not ok - $name"
		sed 's/^/#   /' "$log" | tail -n 30
		return 1
	fi
	echo "ok - $name (${objs[*]:-no objects in this config})"
}

head=$(git -C "$tree" rev-parse HEAD)
branch=$(git -C "$tree" symbolic-ref -q --short HEAD || true)
tmp=$(mktemp -d)
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
	# The arches compile side by side; their lines print in order.  A
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
		[ $rc -eq 0 ] && continue
		fail=1
		grep -q '^not ok' "$tmp/out-$arch" ||
			echo "not ok - bisect $k/$total $arch: $subject (stopped with status $rc before its verdict)"
	done
	first=0
done
exit $fail
