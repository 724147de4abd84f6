#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# btf-cost.sh [ARCH] - what the BPF tests' BTF costs the kernel build.
#
# DEBUG_INFO_BTF needs DWARF debug info (DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT
# in config/common.config), which every compile then emits, and adds
# pahole and resolve_btfids to every link of vmlinux.  Measured on this
# machine, in one run, as ratios:
#
# - compile: kernel/ and mm/ built from clean, without ccache, with the
#   test kernel's config and with the same config without debug info;
# - link: vmlinux relinked after a change of one file, with both configs.
#
# Needs the test kernel's build ($CACHE/kbuild/linux-ARCH, make kernel).

. "$(dirname "$0")/../lib/lib.sh"

arch=${1:-x86_64}
tree=$BUILD/linux
ref=$(kbuild_dir "$arch" "$tree")
[ -e "$ref/.config" ] || die "no $ref/.config: run make kernel ARCH=$arch"
arch_vars "$arch"

# The sources are a worktree of build/linux's HEAD, which edits of
# build/linux during the measure leave alone.
work=$CACHE/btf-cost-$arch
git -C "$tree" worktree remove --force "$work/src" 2>/dev/null || true
rm -rf "$work"
mkdir -p "$work/btf" "$work/nobtf"
git -C "$tree" worktree add -q --detach "$work/src" HEAD
trap 'git -C "$tree" worktree remove --force "$work/src"; rm -rf "$work"' EXIT
cp "$ref/.config" "$work/btf/.config"
cp "$ref/.config" "$work/nobtf/.config"
"$work/src/scripts/config" --file "$work/nobtf/.config" \
	-d DEBUG_INFO_BTF -d DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT \
	-d DEBUG_INFO -e DEBUG_INFO_NONE

cd "$work/src" || exit 1
# kmake DIR TARGET...: ccache only for what is not timed.
kmake()
{
	inroot env ${NOCACHE:+CCACHE_DISABLE=1} make -s -j"$JOBS" O="$1" \
		ARCH="$KARCH" CROSS_COMPILE="$CROSS" CC="ccache ${CROSS}gcc" \
		KBUILD_BUILD_TIMESTAMP=0 "${@:2}"
}

# seconds CMD...: the wall time of CMD, in seconds.
seconds()
{
	local t0=$EPOCHREALTIME
	"$@" > /dev/null 2>&1 || die "failed: $*"
	echo "$EPOCHREALTIME - $t0" | bc
}

for c in btf nobtf; do
	log "$c: prepare"
	kmake "$work/$c" olddefconfig > /dev/null
	kmake "$work/$c" prepare > /dev/null
done
grep -q '^CONFIG_DEBUG_INFO_BTF=y' "$work/btf/.config" || die "no BTF in $ref"
grep -q '^CONFIG_DEBUG_INFO=y' "$work/nobtf/.config" && die "debug info left"

# secs[STEP.CONFIG]: the wall time of STEP with CONFIG.
declare -A secs
for c in btf nobtf; do
	log "$c: compile kernel/ and mm/"
	secs[compile.$c]=$(NOCACHE=1 seconds kmake "$work/$c" kernel/ mm/)
done
for c in btf nobtf; do
	log "$c: vmlinux"
	kmake "$work/$c" vmlinux > /dev/null
	touch kernel/unwind/user.c
	secs[link.$c]=$(NOCACHE=1 seconds kmake "$work/$c" vmlinux)
done

printf "%-28s %9s %9s %7s\n" "$arch, $JOBS jobs" "BTF" "no debug" ratio
for m in compile link; do
	printf "%-28s %8.1fs %8.1fs %6.2fx\n" \
		"$([ $m = compile ] && echo "compile kernel/ mm/" ||
		   echo "relink vmlinux")" \
		"${secs[$m.btf]}" "${secs[$m.nobtf]}" \
		"$(echo "${secs[$m.btf]} / ${secs[$m.nobtf]}" | bc -l)"
done
