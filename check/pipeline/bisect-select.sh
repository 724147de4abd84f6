#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What check/bisect.sh builds at a prefix, on the small fixtures of
# check/bisect/fixtures/ instead of a kernel build: check/pipeline/
# bisect.sh builds a real series, but only with a built kernel, and
# cannot say which part of the selection went wrong.  Each test asserts
# an exact selection.  Prints TAP; exits non-zero if a test failed.  Of the check
# tree (the argument check.sh passes), only its KTAP helpers are used.

set -euo pipefail
export LC_ALL=C
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/check/bisect/select.sh"
fix=$top/check/bisect/fixtures

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# shellcheck source=lib/tap.sh
. "$top/lib/tap.sh"
tap_start "${1:?usage: $0 TREE (the check tree, for its KTAP helpers)}"

# status COMMAND...: its exit status, as text.
status()
{
	local rc=0

	"$@" || rc=$?
	echo "$rc"
}

# The selection context of an x86_64 prefix, on the fixtures, and
# others made from it; the functions read them by name.
# shellcheck disable=SC2034
declare -A x86=([tree]=$fix/tree [karch]=x86_64 [srcarch]=x86
	[autoconf]=$fix/auto.conf [cap]=24 [index]=$fix/index
	[builtin]=$fix/builtin [dirs]=$fix/dirs
	[own_defined]=$work/own-defined [own_symbols]=$work/own-symbols)
declare -A arm64
for key in "${!x86[@]}"; do
	arm64[$key]=${x86[$key]}
done
# shellcheck disable=SC2034
arm64[karch]=arm64 arm64[srcarch]=arm64
declare -A capped
for key in "${!x86[@]}"; do
	capped[$key]=${x86[$key]}
done
# shellcheck disable=SC2034
capped[cap]=4

# .cmd files name the tree by absolute paths or relative to the build;
# the absolute ones are written for where the fixtures are copied.
cp -r "$fix/tree" "$fix/kbuild" "$work/"
find "$work/kbuild" -name '.*.cmd' -exec sed -i "s|@TREE@|$work/tree|" {} +
is "index: the series' files each target depends on, by its .cmd file" \
"arch/x86/entry/vdso/common/vclock.c	arch/x86/entry/vdso/vdso64/vclock.o
include/linux/unwind.h	arch/x86/entry/vdso/vdso64/vclock.o
include/linux/unwind.h	arch/x86/kernel/vmlinux.lds
include/linux/unwind.h	kernel/unwind/user.o
include/linux/wide.h	arch/x86/kernel/vmlinux.lds
kernel/unwind/user.c	kernel/unwind/user.o" \
	"$(cmd_index "$work/tree" "$work/kbuild" "$fix/series-files")"

is "series objects: built-in objects of the series' sources" \
"arch/arm64/kernel/a.o
broken/b.o
drivers/x/x.o
kernel/unwind/combo_part.o
kernel/unwind/sframe.o
kernel/unwind/user.o
lib/l.o" \
	"$(series_objects "$fix/index" "$fix/builtin")"

is "touched sources: the objects the config builds, parts of composites too" \
"kernel/unwind/combo_part.o
kernel/unwind/user.o" \
	"$(patch_targets x86 1 kernel/unwind/user.c kernel/unwind/sframe.c \
		kernel/unwind/combo_part.c drivers/x/x.c)"

is "a directory's Kbuild, not its Makefile" "lib/l.o" \
	"$(patch_targets x86 1 lib/l.c)"

is "in_config: 1 for an object of a directory the parent does not enter" \
	1 "$(status in_config x86 drivers/x/x.o)"

is "a kbuild file that does not evaluate: built, and said" \
"broken/b.o
cannot evaluate broken/Makefile" \
	"$(patch_targets x86 1 broken/b.c 2>"$work/note"
	   grep '^cannot' "$work/note")"

is "a touched Makefile: its directory" "kernel/unwind/" \
	"$(patch_targets x86 1 kernel/unwind/Makefile)"

is "a touched Kconfig: nothing to build, the config made again" "0 " \
	"$(status needs_config 0 kernel/unwind/Makefile kernel/unwind/Kconfig) $(patch_targets x86 1 kernel/unwind/Kconfig)"

is "no Kconfig touched: the config kept, but at the first prefix" "1 0" \
	"$(status needs_config 0 kernel/unwind/user.c include/linux/wide.h) $(status needs_config 1 kernel/unwind/user.c)"

is "another arch's files, documentation, tools, deleted files: nothing" "" \
	"$(patch_targets x86 1 arch/arm64/kernel/a.c Documentation/x.rst \
		tools/testing/sframe/Makefile kernel/unwind/gone.c)"

is "an arch's own files" "arch/arm64/kernel/a.o" \
	"$(patch_targets arm64 1 arch/arm64/kernel/a.c)"

is "an object outside vmlinux (the vDSO): its directory" \
	"arch/x86/entry/vdso/vdso64/" \
	"$(patch_targets x86 1 arch/x86/entry/vdso/common/vclock.c)"

is "a header under the cap: every includer, linker scripts and host programs as they build" \
"arch/x86/entry/vdso/vdso64/
arch/x86/kernel/vmlinux.lds
kernel/unwind/sframe.o
kernel/unwind/user.o
scripts/mod/" \
	"$(file_targets x86 1 include/linux/unwind.h | sort)"

is "a header over the cap: half from the series' directories, the rest sampled" \
"fs/f2.o
kernel/unwind/deferred.o
kernel/unwind/sframe.o
kernel/unwind/user.o
include/linux/wide.h: 4 of its 10 includers" \
	"$(file_targets capped 1 include/linux/wide.h 2>"$work/note" | sort; cat "$work/note")"

is "the sample moves with the prefix" \
"fs/f1.o
kernel/unwind/deferred.o
kernel/unwind/sframe.o
mm/m2.o
--
kernel/unwind/deferred.o
kernel/unwind/sframe.o
mm/m1.o
net/n1.o" \
	"$(file_targets capped 2 include/linux/wide.h 2>/dev/null | sort
	   echo --
	   file_targets capped 3 include/linux/wide.h 2>/dev/null | sort)"

is "a header over the cap, at a prefix: what the config builds of the sample" \
	"kernel/unwind/user.o" \
	"$(patch_targets capped 1 include/linux/wide.h 2>/dev/null)"

printf '%s\n' sfr sframe_add_section unwind_user_next > "$work/names"
printf '%s\t%s\n' __ksymtab_sframe_add_section kernel/unwind/sframe.o \
	sframe_add_section kernel/unwind/sframe.o \
	sfree kernel/unwind/sframe.o unwind_old kernel/unwind/user.o \
	unwind_user_next kernel/unwind/user.o > "$work/symbols"
is "symbols a patch may add: those that contain a name its lines add" \
"__ksymtab_sframe_add_section
sframe_add_section
unwind_user_next" \
	"$(added_symbols "$work/names" < "$work/symbols")"

added_symbols "$work/names" < "$work/symbols" > "$work/own-defined"
grep -v -e sfree -e unwind_old "$work/symbols" | sort > "$work/own-symbols"
is "link check: the series' objects that define what is used, if the config builds them" \
	"kernel/unwind/user.o" \
	"$(printf '%s\n' printk sframe_add_section unwind_user_next |
		definer_objects x86)"

printf '%s\n' printk sframe_add_section unwind_user_next > "$work/defined"
is "link check: used, defined neither by the kernel at the base nor here" \
"sframe_add_section
vanished" \
	"$(printf '%s\n' printk sframe_add_section unwind_user_next vanished |
		undefined_symbols "$work/defined" "$work/own-defined" \
			<(echo unwind_user_next))"

is "a directory that holds another target gets a make of its own" \
	"kernel/unwind/" \
	"$(alone_dirs kernel/unwind/user.o kernel/unwind/ mm/m1.o \
		arch/x86/entry/vdso/vdso64/ kernel/unwind/)"

tap_done
