#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Call chains through the C library, with the glibc of userspace/glibc
# (built with SFrame, its ld.so registering each object it maps) and
# without LD_AUDIT: glibc/chains takes chains from a qsort() comparison
# function, a thread, an atexit() handler and a signal handler, each
# equal frame for frame to libgcc's DWARF unwinding, through the C
# library to its outermost frame.  Then with its takes broken on purpose
# (check/include/breakpoint-miss.h): a breakpoint that misses is taken
# again on x86_64 only, and a chain lost after its hit is never taken
# again.  The same program against the root's own C library (no SFrame)
# is run for comparison: the table below.
#
# Then the program built without SFrame, as distributions build
# (glibc/tables/chains), with the table that eh2sframe made from its
# .eh_frame: the dynamic linker (patch 0002 of userspace/glibc) finds it
# by build ID in the directory glibc.rtld.sframe_table_dir names and
# registers it for the main program, which the kernel mapped.  Its chains
# must equal DWARF's too; with no table there, the x86_64 ones cannot.
# The same for the program linked at a fixed address (glibc/nopie/chains),
# which is not a PIE, and for its table registered by the selftests'
# rtld-audit module (tools/sframe/sframe-audit.c) and attached to its file
# by sframe-attach instead, with ld.so's own lookup pointed at nothing:
# each must give the kernel the link address of the program's first
# segment as the base of the table's function starts.
# Last, the program with a .sframe section that describes one function
# and its PLT (glibc/partial/chains), which the kernel registers at exec:
# ld.so must replace it with the program's table, which describes more,
# and the chains must equal DWARF's; with that section alone, none is
# whole.

set -u
bin=$KOUT/guest-tests/glibc
for p in chains stock/chains tables/chains partial/chains nopie/chains; do
	[ -x "$bin/$p" ] || { echo "$bin/$p missing: check/guest not built with GLIBC="; exit 1; }
done

rc=0
# How many chains the programs took again in the runs that break nothing:
# the emulator lets about one breakpoint in 40,000 pass, and these runs
# take about 40 chains, so two or more would be something else.
again=0
count_again()
{
	again=$((again + $(echo "$1" | grep -c ' taken again$')))
}

# chains INDENT COMMAND...: run a chains program, print its output
# indented, count the chains it took again; COMMAND's status.
chains()
{
	local indent=$1 o st

	shift
	o=$("$@" 2>&1)
	st=$?
	echo "$o" | sed "s/^/$indent/"
	count_again "$o"
	return $st
}

out=$("$bin/chains" 2>&1) || rc=1
echo "$out"
count_again "$out"

# broken HOW AGAIN WANT: glibc/chains with BREAKPOINT_DROP=HOW must take
# AGAIN chains again, or one more (a miss of the emulator's own, which is
# as likely here as in any run), and give WANT: how many chains failed
# with the message of that break, and whether it failed (1) or not (0).
broken()
{
	local how=$1 again=$2 want=$3 o st n bad msg

	o=$(BREAKPOINT_DROP=$how "$bin/chains" 2>&1)
	st=$?
	echo "$o" | sed 's/^/  /'
	case $how in
	first) msg='the breakpoint at hit() did not fire, 1 try' ;;
	record) msg='no deferred callchain: No such file or directory' ;;
	esac
	n=$(echo "$o" | grep -c ' taken again$')
	bad=$(echo "$o" | grep -c "^not ok [0-9] [a-z]* # $msg\$")
	if [ "$n" -lt "$again" ] || [ "$n" -gt $((again + 1)) ] ||
	   [ "$bad $((st != 0))" != "$want" ]; then
		echo "BREAKPOINT_DROP=$how: taken again, failed, status:" \
			"$n $bad $((st != 0)), expected $again (or one more)" \
			"$want"
		rc=1
	fi
}
echo "each breakpoint made to miss once:"
if [ "$ARCH" = x86_64 ]; then
	broken first 4 "0 0"
else
	broken first 0 "4 1"
fi
echo "each chain read away after its hit:"
broken record 0 "4 1"

stock=$("$bin/stock/chains" --report 2>&1) || rc=1
echo "$stock" | sed 's/^/stock: /'
count_again "$stock"

# The table: frames matched against the DWARF unwinder, per chain.  The
# control: against the root's C library, which has no SFrame, chains must
# come out incomplete, or the comparison could not tell: all four on
# x86_64, whose C library has no frame pointers; at least one on arm64,
# where frame pointers get further through it.
echo "chain | stock glibc (no SFrame) | glibc of userspace/glibc"
short=0
for c in qsort thread signal atexit; do
	s=$(echo "$stock" | sed -n "s/^ok [0-9]* $c # \([0-9]* of [0-9]*\) frames.*/\1/p")
	p=$(echo "$out" | sed -n "s/^ok [0-9]* $c # \([0-9]*\) frames.*/\1 of \1/p")
	echo "$c | ${s:-?} | ${p:-failed}"
	[ -n "$s" ] && [ "${s% of *}" = "${s#* of }" ] || short=$((short + 1))
done
[ "$ARCH" = x86_64 ] && want=4 || want=1
if [ "$short" -lt "$want" ]; then
	echo "control: $short chains incomplete without the C library's SFrame, expected $want"
	rc=1
fi

# with_table PROG WHAT STRICT: PROG's chains, with its table in the
# directory that the tunable names, must equal DWARF's.  Without it (the
# control), each of the four must be short of whole, and with STRICT
# have no frame at all.
with_table()
{
	local prog=$1 what=$2 strict=$3 none ran short

	echo "$what, with its table found by the dynamic linker:"
	chains "  " env GLIBC_TUNABLES=glibc.rtld.sframe_table_dir="$bin/tables" \
		"$bin/$prog" || rc=1
	echo "and without it (the control):"
	none=$(GLIBC_TUNABLES=glibc.rtld.sframe_table_dir=/nonexistent \
		"$bin/$prog" --report 2>&1) || rc=1
	echo "$none" | sed 's/^/  /'
	count_again "$none"
	read -r ran short < <(echo "$none" | awk -v strict="$strict" '
		/^ok [0-9]+ [a-z]+ # [0-9]+ of [0-9]+ frames/ {
			n++; if ($5 < $7 && (!strict || $5 == 0)) s++ }
		END { print n + 0, s + 0 }')
	if [ "$ran" != 4 ] || [ "$short" != 4 ]; then
		echo "control: $short of $ran chains short enough without the table, expected 4 of 4"
		rc=1
	fi
}

# The program keeps no frame pointers: without its table, no chain may
# get through it (0 of 14, 3, 8 and 6 frames on both arches).
with_table tables/chains "the program without SFrame" 1
# The same linked at a fixed address (not a PIE): its load bias is 0, and
# ld.so gives the kernel the link address of its first segment, where the
# table's function starts begin.
with_table nopie/chains "the non-PIE program without SFrame" 1

# others PROG WHAT: PROG's chains must equal DWARF's with its table
# registered by the audit module, then attached to its file.
others()
{
	local prog=$1 what=$2 so=$KOUT/kselftest/sframe/sframe-audit.so
	local attach=$KOUT/kselftest/sframe/sframe-attach

	[ -r "$so" ] && [ -x "$attach" ] ||
		{ echo "$so or $attach missing: selftests not built"; rc=1; return; }
	echo "$what, with its table registered by the audit module:"
	chains "  " env GLIBC_TUNABLES=glibc.rtld.sframe_table_dir=/nonexistent \
		LD_AUDIT="$so" SFRAME_TABLE_DIR="$bin/tables" "$bin/$prog" || rc=1
	echo "$what, with its table attached to its file by sframe-attach:"
	# Detached whatever happens: the tests after this one run the
	# program without its table.
	# shellcheck disable=SC2064 # the paths are known now
	trap "'$attach' -u -d '$bin/tables' '$bin/$prog' > /dev/null" EXIT
	"$attach" -d "$bin/tables" "$bin/$prog" | sed 's/^/  /'
	[ "${PIPESTATUS[0]}" = 0 ] || { echo "sframe-attach failed"; rc=1; }
	chains "  " env GLIBC_TUNABLES=glibc.rtld.sframe_table_dir=/nonexistent \
		"$bin/$prog" || rc=1
	trap - EXIT
	"$attach" -u -d "$bin/tables" "$bin/$prog" > /dev/null ||
		{ echo "sframe-attach -u failed"; rc=1; }
}
others nopie/chains "the non-PIE program without SFrame"
# With its partial section alone, which the kernel registered at exec,
# no chain may be whole either.
with_table partial/chains "the program whose .sframe describes one function" 0
if [ "$again" -gt 1 ]; then
	echo "$again chains taken again where nothing was broken:" \
		"more than the emulator explains"
	rc=1
fi
exit $rc
