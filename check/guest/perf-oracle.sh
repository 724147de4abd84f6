#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf end to end, against an oracle nobody here wrote: the real perf
# records "--call-graph fp,defer" user callchains of a program built
# without frame pointers and with SFrame (perf-oracle/prog.c, and its
# SFrame library registered by the LD_AUDIT module), and then the same
# program again with "--call-graph dwarf", which perf unwinds with
# elfutils from .eh_frame.  The samples are page faults at stop points
# (perf-oracle/stops.h and first touches of stack pages), so that both
# runs take the same samples; with address space randomization off, a
# sample is identified by its fault address.  perf's default 8 KiB stack
# copy per DWARF sample is kept: larger ones left most DWARF stacks
# empty in perf 7.2 here; samples deeper than it are counted as
# incomplete.  The ring buffers (8 MiB a CPU) hold all of a run's DWARF
# samples: perf's default 512 KiB overflowed after some 60 of them and
# lost the rest.  For every sample whose
# DWARF stack is complete (reaches main() or the thread's start), the
# fp,defer chain must equal it frame for frame.  Single-threaded and
# with four threads.  Prints KTAP (lib/tap.sh), one case per comparison,
# with compare.py's report before it.

set -u
# shellcheck source=lib/tap.sh
. "$(dirname "$0")/../../lib/tap.sh"
# shellcheck source=check/guest/lib/perf.sh
. "$(dirname "$0")/lib/perf.sh"
src=$(cd "$(dirname "$0")/perf-oracle" && pwd)
keep=${KEEP:+$(cd "$KEEP" && pwd)}
dir=$(mktemp -d)
trap '[ -n "$keep" ] && cp "$dir"/*.txt "$keep"; rm -rf "$dir"' EXIT
perf_setup perf-oracle "$dir"
cd "$dir" || exit 1
tap_start "$TREE"
# The plan first: lib/ktap-results.py reads the plan of a nested
# document (guest-tests.sh nests this one) only there.  Two runs, the
# control, each other build there is, and two runs of the glibc build.
builds=0
for b in fp pac fp-pac; do
	[ ! -x "$bin/$b/prog" ] || builds=$((builds + 1))
done
ktap_set_plan $((5 + builds))

# compared NAME COMMAND...: the case NAME, which passes if COMMAND (a
# comparison) does
compared()
{
	local name=$1

	shift
	if "$@" 2>&1 | sed 's/^/#   /' && [ "${PIPESTATUS[0]}" = 0 ]; then
		tap_pass "$name"
	else
		tap_fail "$name"
	fi
}

# record NAME CALL-GRAPH THREADS [BUILD]: perf script output in NAME.txt;
# if perf record fails, the case $cname fails and nothing more is checked.
# The LD_AUDIT module registers the library, except for the glibc build,
# whose dynamic linker does.  perf script leaves inlined calls out: it
# would resolve them with binutils' addr2line, which the arm64 guest does
# not have, and it died (SIGPIPE) on the page faults of the module's own
# inlined code.
record()
{
	local rc=0 module=$audit

	[ "${4:-}" != glibc ] || module=
	LD_AUDIT=$module setarch -R perf record -q -B -e page-faults:u -c 1 -d \
		-m 2048 --call-graph "$2" -o "$dir/$1.data" "$bin/${4:-.}/prog" "$3" \
		> /dev/null 2>&1 || {
		echo "# perf record --call-graph $2 failed"
		tap_fail "$cname"
		ktap_finished
	}
	perf script --no-inline -i "$dir/$1.data" -F tid,addr,ip,sym,symoff,dso \
		> "$dir/$1.txt" 2> "$dir/$1.err" || rc=$?
	[ $rc -eq 0 ] || {
		echo "# perf script of $1 failed with status $rc:"
		tail -n 5 "$dir/$1.err" | sed 's/^/# /'
	}
}

# The samples a thread of prog.c yields: its 74 stop points.  Faults of
# the stack growing in big(), where there are any, lie deeper than perf's
# stack copy and count as incomplete.  Every stop point must be compared:
# a lost sample fails the test.
stops=74
for threads in 0 4; do
	cname="$threads threads: fp,defer chains equal DWARF's"
	record fp-$threads fp,defer $threads
	record dwarf-$threads dwarf $threads
	echo "# $threads threads, fp,defer against dwarf:"
	compared "$cname" python3 "$src/compare.py" \
		--expect $((stops * (threads ? threads : 1))) \
		fp-$threads.txt dwarf-$threads.txt
done
# The control: the library without its .sframe (check/guest/Makefile),
# so that its frames cannot be unwound; the comparison must see that.
cname="control: the comparison sees the library's missing SFrame"
LD_LIBRARY_PATH=$bin/control:$LD_LIBRARY_PATH record control fp,defer 0
echo "# control, the library without SFrame:"
compared "$cname" python3 "$src/compare.py" --control --expect $stops \
	control.txt dwarf-0.txt
# Side by side, one thread: the other builds of check/guest/Makefile.
# The build with frame pointers instead of SFrame (fp) is compared with
# its DWARF run and reported: gcc 16 gives x86_64 leaf functions no frame
# even with -mno-omit-leaf-frame-pointer, and a frame pointer walk from
# a leaf misses its caller.  perf's DWARF unwinding stops at the first
# return address signed by pointer authentication, so the arm64 builds
# with PAC (pac, fp-pac) are held against the same build without PAC:
# sample by sample, the same functions up to main().
for b in fp pac fp-pac; do
	[ -x "$bin/$b/prog" ] || continue
	case $b in
	fp) cname="fp build: every stop point compared with DWARF (match reported)" ;;
	pac) cname="pac build: the same functions as without PAC" ;;
	fp-pac) cname="fp-pac build: the same functions as the fp build" ;;
	esac
	record "$b-defer" fp,defer 0 "$b"
	echo "# $b build, fp,defer:"
	case $b in
	fp)
		record fp-dwarf dwarf 0 fp
		compared "$cname" python3 "$src/compare.py" --report \
			--expect $stops fp-defer.txt fp-dwarf.txt ;;
	pac)
		compared "$cname" python3 "$src/compare.py" --same-functions \
			$stops pac-defer.txt fp-0.txt ;;
	fp-pac)
		compared "$cname" python3 "$src/compare.py" --same-functions \
			$stops fp-pac-defer.txt fp-defer.txt ;;
	esac
done
# Against the glibc of userspace/glibc (check/guest/Makefile, GLIBC=),
# without LD_AUDIT: its ld.so registers the library and the C library,
# which has SFrame, so every chain goes on through the C library to its
# outermost frame (_start, or the clone3() of a thread), equal to perf's
# DWARF unwinding all the way.
for threads in 0 4; do
	cname="glibc build, $threads threads: fp,defer chains equal DWARF's through the C library"
	if [ ! -x "$bin/glibc/prog" ]; then
		echo "# glibc build of prog missing: check/guest not built with GLIBC="
		tap_fail "$cname"
		continue
	fi
	record glibc-fp-$threads fp,defer $threads glibc
	record glibc-dwarf-$threads dwarf $threads glibc
	echo "# glibc build, $threads threads, fp,defer against dwarf through the C library:"
	compared "$cname" python3 "$src/compare.py" --through-libc \
		--expect $((stops * (threads ? threads : 1))) \
		glibc-fp-$threads.txt glibc-dwarf-$threads.txt
done
ktap_finished
