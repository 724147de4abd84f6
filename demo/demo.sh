#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: what "perf record --call-graph fp,defer" gives for a real
# program built without frame pointers, with and without the series'
# SFrame unwinding, against DWARF unwinding as the reference.
#
# Builds (or reuses) the toolchain, the patched x86_64 kernel and the Lua
# interpreter from Debian's sources (demo/workload.sh), boots the
# kernel, profiles the interpreter running demo/workload.lua in
# four ways there (demo/guest.sh), and writes to out/demo/:
#
#   perf-MODE.data, report-MODE.txt (perf report --stdio call graphs),
#   flame-MODE.html (perf script report flamegraph), script-MODE.txt,
#   summary.txt (also printed)
#
# for MODE:
#   sframe    lua-sframe (no frame pointers, SFrame), fp,defer
#   nosframe  the same binary without its .sframe section, fp,defer:
#             what frame-pointer unwinding gives for it today
#   fp        lua-fp (built with frame pointers), fp,defer
#   dwarf     lua-sframe, --call-graph dwarf: the reference
#
# and Debian's own python3, not rebuilt, running demo/workload.py:
#   py-tables  with the SFrame tables that userspace/eh2sframe made from
#              the .eh_frame of python3, its libraries and its extension
#              modules, registered by the rtld-audit module, fp,defer
#   py-none    the module with no tables: what python3 gives today
#   py-dwarf   --call-graph dwarf: the reference
#
# and the same workload under ftrace, with trace-cmd: a delayed user
# stack (trace option userstacktrace_delay) at each scheduler tick of
# the interpreter (event sched:sched_stat_runtime), for lua-sframe,
# lua-nosframe and lua-fp; stock trace-cmd report prints the frames as
# file offsets with the inodes that the inode_cache event names,
# userspace/trace-cmd/ustack-symbolize names them, and
# demo/trace-cmd-stacks.py sums them up:
#
#   trace-cmd-MODE.dat, stacks-MODE.txt (the named stacks)
#
# and, system-wide, the guest root's own python3, perl, bash, xz and
# mawk, not rebuilt, running at once and started with nothing that
# registers tables, under one perf record -a --call-graph fp,defer:
#   sys-none    before any table is attached
#   sys-tables  after tools/sframe/sframe-attach -p attached, to every
#               file that the running processes map, the tables that
#               eh2sframe made for the whole root (as a distribution
#               would ship them)
# with a flame graph of each (flame-sys-MODE.html) and one line per
# program in the summary;
#
# and under BPF, with the project's bpf-profile (userspace/bpf-profile), a
# sampling profiler like bcc's profile whose BPF programs ask for deferred
# user stacks (bpf_unwind_user_request()), at the rate perf samples at,
# for lua-sframe, lua-nosframe and lua-fp; demo/bpf-profile-report.py
# names the frames and draws the flame graph:
#
#   bpf-profile-MODE.txt (its output), bpf-stacks-MODE.txt (the named
#   stacks), flame-bpf-MODE.html

. "$(dirname "$0")/../lib/lib.sh"

# DEMO_TREE: a kernel tree of your own (e.g. build/linux) instead of
# base + patches/.
# Not cd: base + patches/ may not exist yet (pipeline/tree.sh makes it).
tree=$(realpath -m "${DEMO_TREE:-$CACHE/trees/check}")
lock_check_tree "$tree"
demo=$OUT/demo
rounds=${DEMO_ROUNDS:-300}
pyrounds=${DEMO_PYROUNDS:-300}
rate=${DEMO_RATE:-499}
syssecs=${DEMO_SYS_SECONDS:-5}
lua_modes="sframe nosframe fp dwarf"
py_modes="py-tables py-none py-dwarf"
modes="$lua_modes $py_modes"
sys_modes="sys-none sys-tables"
sys_comms="python3 perl bash xz mawk"
mkdir -p "$demo"
rm -f "$demo"/perf-*.data "$demo"/report-*.txt "$demo"/script-*.txt \
	"$demo"/flame-*.html "$demo"/summary.txt "$demo"/trace-cmd-*.dat \
	"$demo"/stacks-*.txt "$demo"/bpf-profile-*.txt "$demo"/bpf-stacks-*.txt \
	"$demo"/flame-bpf-*.html
tcmodes="sframe nosframe fp"

log "toolchain"
"$TOP/pipeline/toolchain.sh"
if [ -z "${DEMO_TREE:-}" ]; then
	log "kernel tree: base + patches/"
	FORCE=1 "$TOP/pipeline/tree.sh" "$tree"
fi
log "x86_64 kernel"
"$TOP/pipeline/kernel.sh" x86_64 "$tree"
log "workload: Lua from Debian's lua5.4 sources, three builds"
"$TOP/demo/workload.sh" "$demo/lua"
log "flame graph template"
template=$("$TOP/demo/flamegraph-template.sh")

log "perf without debuginfod for the guest"
inroot make -s -C "$TOP/check/guest" O="$demo/guest" \
	SELFTESTS="$tree/tools/testing/selftests/sframe" \
	"$demo/guest/nodebuginfod/libdebuginfod.so.1"
log "bpf-profile"
kout=$(kbuild_dir x86_64 "$tree")
arch_vars x86_64
inroot make -s -C "$TOP/userspace/bpf-profile" O="$demo/guest/bpf-profile" \
	VMLINUX="$kout/vmlinux" SRCARCH="$SRCARCH" TRIPLET="$TRIPLET"
log "python3's SFrame tables (userspace/eh2sframe), the rtld-audit module"
(cd "$tree" && inroot make -s O="$kout" headers)
inroot make -s -C "$tree/tools/sframe" OUTPUT="$demo/guest/" \
	KHDR_INCLUDES="-isystem $kout/usr/include"
e2s=$(eh2sframe_build all)
rm -rf "$demo/guest/sframe-tables"
lib=$GUEST_ROOT/usr/lib/$TRIPLET
# The root's python3, whatever its version: python3 links to python3.X.
python=$(basename "$(readlink -f "$GUEST_ROOT/usr/bin/python3")")
[ -x "$GUEST_ROOT/usr/bin/$python" ] || die "no python3 in $GUEST_ROOT"
inroot "$e2s/eh2sframe" -d "$demo/guest/sframe-tables" \
	"$GUEST_ROOT/usr/bin/$python" "$lib/$LDSO" "$lib/libc.so.6" \
	"$lib/libm.so.6" "$lib/libz.so.1" "$lib/libexpat.so.1" \
	"$GUEST_ROOT/usr/lib/$python/lib-dynload/"*.so > /dev/null
log "the tables of the whole guest root, for the system-wide part"
rm -rf "$demo/guest/root-tables"
inroot "$e2s/eh2sframe" -d "$demo/guest/root-tables" \
	"$GUEST_ROOT/usr/bin" "$lib" "$GUEST_ROOT/usr/lib/$python" > /dev/null

log "profiling in the guest (QEMU TCG; a few minutes)"
# The work is fixed (DEMO_ROUNDS): the limit, an hour by default
# (DEMO_GUEST_TIMEOUT), only stops a guest that hangs, on any machine.
guestcmd=$(printf '%q ' bash "$TOP/demo/guest.sh" "$demo" "$rate" "$rounds" \
	"$modes" "$tcmodes" "$pyrounds" "$syssecs")
"$TOP/pipeline/run.sh" x86_64 "$tree" "${DEMO_GUEST_TIMEOUT:-3600}" "$guestcmd" \
	> "$demo/guest.log" 2>&1 ||
	{ tail -n 30 "$demo/guest.log"; die "guest run failed"; }

for mode in $modes $sys_modes; do
	log "reports: $mode"
	data=$demo/perf-$mode.data
	inroot perf report -i "$data" --stdio --no-children -G \
		> "$demo/report-$mode.txt" 2>/dev/null
	inroot perf script -i "$data" -F ip,sym,dso > "$demo/script-$mode.txt" \
		2>/dev/null
	# The flame graph script reads ./perf.data (it runs "perf report
	# --header-only" itself); its own options go after "--".
	rm -rf "$demo/.flame" && mkdir "$demo/.flame"
	ln -s "$data" "$demo/.flame/perf.data"
	(cd "$demo/.flame" && inroot perf script report flamegraph -- \
		--template "$template" -o "$demo/flame-$mode.html") \
		> "$demo/.flame.log" 2>&1 || {
		cat "$demo/.flame.log"
		die "perf script report flamegraph failed for $mode"
	}
done
rm -rf "$demo/.flame" "$demo/.flame.log"
for mode in $sys_modes; do
	for comm in $sys_comms; do
		inroot perf script -i "$demo/perf-$mode.data" --comms "$comm" \
			-F ip,sym,dso > "$demo/script-$mode-$comm.txt" 2>/dev/null
	done
done

# trace-cmd's stacks, named on the host: one summary line per mode.
for mode in $tcmodes; do
	log "trace-cmd report: $mode"
	data=$demo/trace-cmd-$mode.dat
	printf "%-9s " "$mode" > "$demo/.tc-$mode"
	if ! inroot trace-cmd report -i "$data" > "$demo/.report.txt" 2>/dev/null; then
		echo "(trace-cmd record stalled: see guest.log)" >> "$demo/.tc-$mode"
		continue
	fi
	# The guest's paths are the toolchain root's
	inroot python3 "$TOP/userspace/trace-cmd/ustack-symbolize" \
		"$demo/.report.txt" > "$demo/.named.txt"
	inroot python3 "$TOP/demo/trace-cmd-stacks.py" "$demo/.named.txt" \
		"$demo/stacks-$mode.txt" >> "$demo/.tc-$mode"
done
rm -f "$demo/.report.txt" "$demo/.named.txt"

# bpf-profile's stacks, named on the host, and their flame graphs.
for mode in $tcmodes; do
	log "bpf-profile report: $mode"
	printf "%-9s " "$mode" > "$demo/.bpf-$mode"
	inroot python3 "$TOP/demo/bpf-profile-report.py" \
		"$demo/bpf-profile-$mode.txt" "$template" \
		"$demo/bpf-stacks-$mode.txt" "$demo/flame-bpf-$mode.html" \
		>> "$demo/.bpf-$mode"
done

# One line per mode: samples, share of the samples whose user stack
# reaches START (main(), or _start for the stock programs, whose main()
# has no symbol), mean user stack depth, perf.data bytes per sample.
# What reaches START is lib/ustacks.py's reaches(), which the tests use
# too: every frame up to START in a mapping, and _start the outermost
# frame (or the one after __libc_start_main, which only _start calls:
# some stock programs, xz and mawk, have no symbol for _start either).
# With a program's name, the line is of that program's samples only, and
# the bytes, which are the recording's, are left out.
summary()
{
	local mode=$1 start=$2 comm=${3:-} size script=$demo/script-$1.txt line n

	size=$(stat -c %s "$demo/perf-$mode.data")
	[ -z "$comm" ] || { script=$demo/script-$mode-$comm.txt; size=; }
	line=$(inroot python3 "$TOP/lib/ustacks.py" perf-script "$start" \
		"$script") || die "lib/ustacks.py failed on $script"
	printf "%-9s %s" "${comm:-$mode}" "$line"
	[ -n "$size" ] || { printf "\n"; return; }
	read -r n _ <<< "$line"
	awk -v size="$size" -v n="$n" 'BEGIN {
		printf " %11.1f MB %10d\n", size / 1e6, n ? size / n : 0 }'
}

{
	echo "perf record -F $rate -e cpu-clock:u, Lua $(sed 's/.*_\(.*\)\.orig.*/\1/' "$demo/lua/SOURCE") running demo/workload.lua $rounds"
	echo "in the patched x86_64 kernel under QEMU TCG"
	echo
	printf "%-9s %8s %14s %11s %14s %10s\n" mode samples "reach main" \
		"mean depth" perf.data "B/sample"
	for mode in $lua_modes; do
		summary "$mode" main
	done
	echo
	echo "sframe:   lua built -fomit-frame-pointer -Wa,--gsframe, --call-graph fp,defer"
	echo "nosframe: the same binary, .sframe removed (frame pointers only, as today)"
	echo "fp:       lua built -fno-omit-frame-pointer, --call-graph fp,defer"
	echo "dwarf:    lua-sframe, --call-graph dwarf (8 KiB of stack copied per sample)"
	echo "reach main: share of the samples whose user stack reaches main(), every"
	echo "            frame to it in a mapping (lib/ustacks.py, as the tests count)"
	echo
	echo "perf record -F $rate -e cpu-clock:u, Debian's python3 (not rebuilt)"
	echo "running demo/workload.py $pyrounds"
	echo
	printf "%-9s %8s %14s %11s %14s %10s\n" mode samples "reach _start" \
		"mean depth" perf.data "B/sample"
	for mode in $py_modes; do
		summary "$mode" _start
	done
	echo
	echo "py-tables: SFrame tables made from .eh_frame (eh2sframe), registered by"
	echo "           the rtld-audit module (LD_AUDIT), --call-graph fp,defer"
	echo "py-none:   the module, no tables (frame pointers only, as today)"
	echo "py-dwarf:  --call-graph dwarf"
	echo "reach _start: share of the samples whose user stack ends in _start, every"
	echo "              frame in a mapping (lib/ustacks.py, as the tests count)"
	echo
	echo "perf record -a -F $rate -e cpu-clock:u --call-graph fp,defer for $syssecs s:"
	echo "Debian's python3, perl, bash, xz and mawk (not rebuilt) running at once,"
	echo "started before any table was attached, with nothing that registers tables;"
	echo "a task's last sample may hold only the cookie of its deferred stack,"
	echo "which came after the recording ended"
	for mode in $sys_modes; do
		echo
		case $mode in
		sys-none) echo "sys-none: no table attached (frame pointers only, as today)" ;;
		sys-tables) echo "sys-tables: after sframe-attach -p attached the tables of the whole root" ;;
		esac
		printf "%-9s %8s %14s %11s\n" program samples \
			"reach _start" "mean depth"
		for comm in $sys_comms; do
			summary "$mode" _start "$comm"
		done
	done
	echo
	echo "trace-cmd record -O userstacktrace_delay -e sched:sched_stat_runtime,"
	echo "the same workload: a deferred user stack per scheduler tick of Lua"
	echo
	printf "%-9s %8s %14s %11s\n" mode stacks "reach main" "mean depth"
	for mode in $tcmodes; do
		cat "$demo/.tc-$mode"
	done
	rm -f "$demo"/.tc-*
	echo
	echo "bpf-profile -F $rate (BPF, cpu-clock user samples, deferred user stacks),"
	echo "the same workload; samples: all of them, those that got no stack"
	echo "included, which reach nothing; mean depth: of those with a stack"
	echo
	printf "%-9s %8s %14s %11s\n" mode samples "reach main" "mean depth"
	for mode in $tcmodes; do
		cat "$demo/.bpf-$mode"
	done
	rm -f "$demo"/.bpf-*
} > "$demo/summary.txt"

echo
cat "$demo/summary.txt"
echo
echo "Outputs in $demo:"
echo "  report-MODE.txt  perf report --stdio call graphs"
echo "  flame-MODE.html  flame graphs (perf script report flamegraph);"
echo "                   flame-sys-tables.html: the whole guest, tables attached"
echo "  perf-MODE.data   the recordings; guest.log: the guest's output"
echo "  stacks-MODE.txt  trace-cmd's deferred stacks, named"
echo "  trace-cmd-MODE.dat  trace-cmd's recordings"
echo "  flame-bpf-MODE.html  bpf-profile's flame graphs"
echo "  bpf-stacks-MODE.txt  bpf-profile's stacks, named"
