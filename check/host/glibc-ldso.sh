#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What the dynamic linker of userspace/glibc does without a kernel that
# takes SFrame registrations (the host's): the cases that need none.
#
# - A process with nothing to register (no object with PT_GNU_SFRAME,
#   no table) makes no SFrame prctl() at all: run under a seccomp filter
#   that kills at the first PR_ADD_SFRAME or PR_REMOVE_SFRAME
#   (glibc/sfkill), as the sandboxes whose policy kills on unknown
#   prctl() options, it must live.  With the C library (which has
#   PT_GNU_SFRAME) it must die: the control that the filter sees the
#   probe.
# - ldd's modes (LD_TRACE_LOADED_OBJECTS, ld.so --verify, and ldd
#   itself) register nothing: they live under the filter, with the C
#   library and a table found.
# - LD_DEBUG=files says what became of each table and what the kernel
#   answered; the table is looked up in the directory configured with
#   --with-sframe-table-dir, /usr/lib/sframe by default (pipeline/glibc.sh
#   gives none), or the tunable glibc.rtld.sframe_table_dir.
# - A table directory without .build-id (a system without tables): the
#   first object without a table is the last one looked up; with
#   .build-id, each object is.
# - Secure mode (GLIBC_TUNABLES=glibc.rtld.enable_secure=1): a table in
#   the default directory is taken (the process asks the kernel, so the
#   filter kills it) only if root owns it and neither group nor others
#   may write it.  That the tunable directory is ignored is not a case:
#   glibc applies no other tunable once enable_secure is set, nor one
#   that is not marked safe in a set-user-ID program, so ld.so's own
#   refusal cannot be reached through the tunable.  LD_DEBUG is off in
#   secure mode, so the filter tells.  The default directory is replaced
#   by one of the test's in a mount namespace of the program alone
#   (bwrap), which needs nothing else of /usr/lib.
#
# GLIBC_PREFIX=DIR runs it against another build of the glibc (to show
# what an older ld.so fails); by default the one pipeline/glibc.sh built.

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/lib/lib.sh"
. "$top/lib/tap.sh"

tree=${1:?usage: $0 TREE (the check tree, docs/check-tree.md)}
prefix=${GLIBC_PREFIX:-$("$top/pipeline/glibc.sh" x86_64 --installed)} ||
	die "no glibc of userspace/glibc for x86_64: make check builds it (pipeline/glibc.sh x86_64)"
ldso=$prefix/lib/ld-linux-x86-64.so.2
[ -x "$ldso" ] || die "$ldso missing"
tap_start "$tree"

work=$(mktemp -d -p "$CACHE" glibc-ldso.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
src=$top/check/host/glibc
# The programs run on the host, whose own C library they do not use:
# sfkill is static, the others use the prefix's.
inroot gcc -O2 -static -o "$work/sfkill" "$src/sfkill.c"
inroot gcc -O2 -fPIE -pie -nostdlib -fno-stack-protector -Wl,--build-id \
	-Wl,--dynamic-linker="$ldso" -o "$work/nolibc" "$src/nolibc.c"
echo 'int main(void) { return 0; }' > "$work/plain.c"
inroot gcc -O2 -Wl,--build-id -Wl,--dynamic-linker="$ldso" \
	-Wl,-rpath,"$prefix/lib" -o "$work/plain" "$work/plain.c"
for p in nolibc plain; do
	if inroot readelf -lW "$work/$p" | grep -q GNU_SFRAME; then
		die "$p has SFrame data: the compiler emits it by default"
	fi
done
inroot readelf -lW "$prefix/lib/libc.so.6" | grep -q GNU_SFRAME ||
	die "the prefix's libc.so.6 has no PT_GNU_SFRAME"

# Tables made by eh2sframe: in a directory for the tunable, and in the
# test's stand-in for /usr/lib/sframe.
eh2sframe=$(eh2sframe_build all)/eh2sframe
inroot "$eh2sframe" -d "$work/tables" "$work/plain" "$work/nolibc" > /dev/null
bid()
{
	inroot readelf -n "$1" | sed -n 's/.*Build ID: \([0-9a-f]*\)/\1/p'
}
rel()
{
	local id
	id=$(bid "$1")
	echo ".build-id/${id:0:2}/${id:2}.sframe"
}
nolibc_table=$(rel "$work/nolibc") plain_table=$(rel "$work/plain")
[ -s "$work/tables/$nolibc_table" ] && [ -s "$work/tables/$plain_table" ] ||
	die "eh2sframe made no table for the test programs"
mkdir -p "$work/usrlib/sframe/$(dirname "$nolibc_table")"
chmod -R 755 "$work/usrlib" "$work/tables"

# fate CMD...: how CMD ends under the filter: "lives" (exit 0), "dies"
# (killed by SIGSYS), or its status.
fate()
{
	local rc=0

	"$work/sfkill" "$@" > "$work/out" 2>&1 || rc=$?
	case $rc in
	0) echo lives ;;
	159) echo dies ;;
	*) echo "exit $rc: $(head -c 300 "$work/out")" ;;
	esac
}

# Nothing to register: no prctl() at all, with or without a directory
# of tables (an empty one: no table found).
is "nothing to register: no SFrame prctl" lives "$(fate "$work/nolibc")"
mkdir -p "$work/empty"
is "nothing to register, empty table directory: no SFrame prctl" lives \
	"$(fate env GLIBC_TUNABLES=glibc.rtld.sframe_table_dir="$work/empty" \
		"$work/nolibc")"
# The controls: the C library's segment, and a table found for a program
# with nothing else, make the dynamic linker ask the kernel.
is "control: an object with PT_GNU_SFRAME makes the probe" dies \
	"$(fate "$work/plain")"
is "control: a table found makes the probe" dies \
	"$(fate env GLIBC_TUNABLES=glibc.rtld.sframe_table_dir="$work/tables" \
		"$work/nolibc")"
is "control: glibc.rtld.sframe=0 makes no probe" lives \
	"$(fate env GLIBC_TUNABLES=glibc.rtld.sframe=0 "$work/plain")"

# ldd's modes: the C library and a table for the program, no call.
t=glibc.rtld.sframe_table_dir=$work/tables
is "LD_TRACE_LOADED_OBJECTS=1 PROGRAM: no SFrame prctl" lives \
	"$(fate env GLIBC_TUNABLES="$t" LD_TRACE_LOADED_OBJECTS=1 "$work/plain")"
is "the trace lists the C library of the prefix" 1 \
	"$(grep -c "libc.so.6 => $prefix/lib/libc.so.6" "$work/out" || true)"
is "ld.so --verify PROGRAM: no SFrame prctl" lives \
	"$(fate env GLIBC_TUNABLES="$t" "$ldso" --verify "$work/plain")"
is "LD_TRACE_LOADED_OBJECTS=1 ld.so PROGRAM: no SFrame prctl" lives \
	"$(fate env GLIBC_TUNABLES="$t" LD_TRACE_LOADED_OBJECTS=1 "$ldso" \
		"$work/plain")"
# The prefix's ldd names the dynamic linker in lib64/, where this build
# has none (it installs in lib/): the same script, pointed at it.
sed "s|^RTLDLIST=.*|RTLDLIST=$ldso|" "$prefix/bin/ldd" > "$work/ldd"
is "ldd PROGRAM: no SFrame prctl" lives \
	"$(fate env GLIBC_TUNABLES="$t" bash "$work/ldd" "$work/plain")"
is "ldd lists the C library of the prefix" 1 \
	"$(grep -c "libc.so.6 => $prefix/lib/libc.so.6" "$work/out" || true)"

# LD_DEBUG=files: the probe and its answer, the table and its fate.
debug()
{
	env LD_DEBUG=files "$@" 2>&1 > /dev/null | sed 's/^ *[0-9]*:[[:space:]]*//'
}
out=$(debug "$work/plain")
is "LD_DEBUG=files: the kernel's answer to the probe" 1 \
	"$(grep -c '^sframe: the kernel takes no registration: none is made (probe: error 22)$' <<< "$out" || true)"
is "LD_DEBUG=files: the configured directory, /usr/lib/sframe" 1 \
	"$(grep -Ec "^sframe: file=$work/plain \[0\];  table /usr/lib/sframe/$plain_table: none(, and no table directory: no other is looked up)?$" <<< "$out" || true)"
# No DIR/.build-id: the program is looked up, and nothing after it.
mkdir -p "$work/nodir"
out=$(debug env GLIBC_TUNABLES=glibc.rtld.sframe_table_dir="$work/nodir" \
	"$work/plain")
is "LD_DEBUG=files: no DIR/.build-id, the first lookup says so" 1 \
	"$(grep -c "^sframe: file=$work/plain \[0\];  table $work/nodir/$plain_table: none, and no table directory: no other is looked up$" <<< "$out" || true)"
is "LD_DEBUG=files: no DIR/.build-id, one lookup in all" 1 \
	"$(grep -c '^sframe: file=.*;  table ' <<< "$out" || true)"
# The control: with DIR/.build-id and no table in it, the program, ld.so
# and the C library (all have build IDs) are each looked up.
[ -n "$(bid "$ldso")" ] && [ -n "$(bid "$prefix/lib/libc.so.6")" ] ||
	die "the prefix's ld.so or libc.so.6 has no build ID"
mkdir -p "$work/idonly/.build-id"
out=$(debug env GLIBC_TUNABLES=glibc.rtld.sframe_table_dir="$work/idonly" \
	"$work/plain")
is "LD_DEBUG=files: with DIR/.build-id, each of three objects looked up" \
	"3 3" "$(grep -c '^sframe: file=.*;  table .*: none$' <<< "$out" || true) $(grep -c '^sframe: file=.*;  table ' <<< "$out" || true)"
out=$(debug env GLIBC_TUNABLES="$t" "$work/plain")
is "LD_DEBUG=files: a table found, which the kernel cannot take" 1 \
	"$(grep -c "^sframe: file=$work/plain \[0\];  table $work/tables/$plain_table: not used, the kernel takes no registration$" <<< "$out" || true)"
out=$(debug "$work/nolibc")
is "LD_DEBUG=files: nothing to register, no probe" 0 \
	"$(grep -c '^sframe: the kernel' <<< "$out" || true)"
# A table that is no SFrame V3 table is ignored before the probe.
mkdir -p "$work/bad/$(dirname "$nolibc_table")"
head -c 4096 /dev/zero > "$work/bad/$nolibc_table"
out=$(debug env GLIBC_TUNABLES=glibc.rtld.sframe_table_dir="$work/bad" \
	"$work/nolibc")
is "LD_DEBUG=files: a table that is not one is ignored" \
	"sframe: file=$work/nolibc [0];  table $work/bad/$nolibc_table: ignored, not an SFrame V3 table of function starts relative to itself" \
	"$(grep "^sframe: file=$work/nolibc " <<< "$out" || true)"
is "LD_DEBUG=files: after a table ignored, no probe" 0 \
	"$(grep -c '^sframe: the kernel' <<< "$out" || true)"

# Secure mode.  secure OWNER MODE [TUNABLE]: the fate of nolibc in
# secure mode with its table in the default directory, owned by OWNER
# with MODE.
secure()
{
	local table=$work/usrlib/sframe/$nolibc_table

	cp "$work/tables/$nolibc_table" "$table"
	chown "$1" "$table"
	chmod "$2" "$table"
	fate bwrap --dev-bind / / --bind "$work/usrlib" /usr/lib \
		--setenv GLIBC_TUNABLES "glibc.rtld.enable_secure=1${3:+:$3}" \
		"$work/nolibc"
}
is "secure mode: a table of root's, 0644, is taken" dies "$(secure 0:0 0644)"
is "secure mode: a table of another user's is ignored" lives \
	"$(secure 1000:1000 0644)"
is "secure mode: a table writable by others is ignored" lives \
	"$(secure 0:0 0646)"
is "secure mode: a table writable by its group is ignored" lives \
	"$(secure 0:0 0664)"
rm -f "$work/usrlib/sframe/$nolibc_table"
# Outside secure mode, the owner does not matter.
chown 1000:1000 "$work/tables/$nolibc_table"
is "not secure: a table of another user's is taken" dies \
	"$(fate env GLIBC_TUNABLES="$t" "$work/nolibc")"
tap_done
