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
#
# Prints KTAP (lib/tap.sh), one case per check.  A run whose chains are
# the verdict has its program's KTAP "# "-prefixed before its case, as
# kselftest's runner nests a program, and check.sh counts each chain as
# "ARCH: CASE: CHAIN"; the output of a run whose verdict is the test's
# own (the broken takes, the controls) goes out labelled instead
# ("# stock: ..."), without its KTAP version line, so that its chains
# are not counted as results.

set -u
# shellcheck source=lib/tap.sh
. "$(dirname "$0")/../../lib/tap.sh"
bin=$KOUT/guest-tests/glibc
for p in chains stock/chains tables/chains partial/chains nopie/chains; do
	[ -x "$bin/$p" ] || { echo "$bin/$p missing: check/guest not built with GLIBC="; exit 1; }
done
tap_start "$TREE"
# The plan first: lib/ktap-results.py reads the plan of a nested
# document (guest-tests.sh nests this one) only there.  The chains, the
# two broken takes, the root's C library (2), three programs with and
# without their tables (3 each), the table registered and attached (4),
# and the chains taken again.
ktap_set_plan 19

# How many chains the programs took again in the runs that break nothing:
# the emulator lets about one breakpoint in 40,000 pass, and these runs
# take about 40 chains, so two or more would be something else.
again=0
count_again()
{
	again=$((again + $(echo "$1" | grep -c ' taken again$')))
}

# chains NAME COMMAND...: run a chains program, its KTAP "# "-prefixed,
# count the chains it took again; the case NAME, its verdict.  Its
# output in chain_out.
chains()
{
	local name=$1 st

	shift
	chain_out=$("$@" 2>&1)
	st=$?
	echo "$chain_out" | sed 's/^/# /'
	count_again "$chain_out"
	tap_status "$name" $st
}

chains "chains through the glibc of userspace/glibc" "$bin/chains"
out=$chain_out

# broken HOW AGAIN WANT NAME: glibc/chains with BREAKPOINT_DROP=HOW must
# take AGAIN chains again, or one more (a miss of the emulator's own,
# which is as likely here as in any run), and give WANT: how many chains
# failed with the message of that break, and whether it failed (1) or
# not (0).  The case NAME.
broken()
{
	local how=$1 again=$2 want=$3 name=$4 o st n bad msg

	o=$(BREAKPOINT_DROP=$how "$bin/chains" 2>&1)
	st=$?
	echo "$o" | tap_labelled "BREAKPOINT_DROP=$how"
	case $how in
	first) msg='the breakpoint at hit() did not fire, 1 try' ;;
	record) msg='no deferred callchain: No such file or directory' ;;
	esac
	n=$(echo "$o" | grep -c ' taken again$')
	bad=$(echo "$o" | grep -c "^not ok [0-9] [a-z]* # $msg\$")
	if [ "$n" -lt "$again" ] || [ "$n" -gt $((again + 1)) ] ||
	   [ "$bad $((st != 0))" != "$want" ]; then
		echo "# BREAKPOINT_DROP=$how: taken again, failed, status:" \
			"$n $bad $((st != 0)), expected $again (or one more)" \
			"$want"
		tap_fail "$name"
	else
		tap_pass "$name"
	fi
}
if [ "$ARCH" = x86_64 ]; then
	broken first 4 "0 0" "each breakpoint made to miss once"
else
	broken first 0 "4 1" "each breakpoint made to miss once"
fi
broken record 0 "4 1" "each chain read away after its hit"

stock=$("$bin/stock/chains" --report 2>&1)
st=$?
echo "$stock" | tap_labelled stock
count_again "$stock"
tap_status "the root's C library: the chains run" $st

# The table: frames matched against the DWARF unwinder, per chain.  The
# control: against the root's C library, which has no SFrame, chains must
# come out incomplete, or the comparison could not tell: all four on
# x86_64, whose C library has no frame pointers; at least one on arm64,
# where frame pointers get further through it.
echo "# chain | stock glibc (no SFrame) | glibc of userspace/glibc"
short=0
for c in qsort thread signal atexit; do
	s=$(echo "$stock" | sed -n "s/^ok [0-9]* $c # \([0-9]* of [0-9]*\) frames.*/\1/p")
	p=$(echo "$out" | sed -n "s/^ok [0-9]* $c # \([0-9]*\) frames.*/\1 of \1/p")
	echo "# $c | ${s:-?} | ${p:-failed}"
	[ -n "$s" ] && [ "${s% of *}" = "${s#* of }" ] || short=$((short + 1))
done
[ "$ARCH" = x86_64 ] && want=4 || want=1
if [ "$short" -lt "$want" ]; then
	echo "# control: $short chains incomplete without the C library's SFrame, expected $want"
	tap_fail "the root's C library: chains incomplete without its SFrame"
else
	tap_pass "the root's C library: chains incomplete without its SFrame"
fi

# with_table PROG WHAT STRICT: PROG's chains, with its table in the
# directory that the tunable names, must equal DWARF's.  Without it (the
# control), each of the four must be short of whole, and with STRICT
# have no frame at all.
with_table()
{
	local prog=$1 what=$2 strict=$3 none st ran short

	chains "$what, with its table found by ld.so" \
		env GLIBC_TUNABLES=glibc.rtld.sframe_table_dir="$bin/tables" \
		"$bin/$prog"
	none=$(GLIBC_TUNABLES=glibc.rtld.sframe_table_dir=/nonexistent \
		"$bin/$prog" --report 2>&1)
	st=$?
	echo "$none" | tap_labelled "without its table"
	count_again "$none"
	tap_status "$what, without its table: the chains run" $st
	read -r ran short < <(echo "$none" | awk -v strict="$strict" '
		/^ok [0-9]+ [a-z]+ # [0-9]+ of [0-9]+ frames/ {
			n++; if ($5 < $7 && (!strict || $5 == 0)) s++ }
		END { print n + 0, s + 0 }')
	if [ "$ran" != 4 ] || [ "$short" != 4 ]; then
		echo "# control: $short of $ran chains short enough without the table, expected 4 of 4"
		tap_fail "$what, without its table: no chain whole"
	else
		tap_pass "$what, without its table: no chain whole"
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
	local c

	if [ ! -r "$so" ] || [ ! -x "$attach" ]; then
		echo "# $so or $attach missing: selftests not built"
		for c in "with its table registered by the audit module" \
			 "sframe-attach attaches its table" \
			 "with its table attached to its file" \
			 "sframe-attach -u detaches its table"; do
			tap_fail "$what, $c"
		done
		return
	fi
	chains "$what, with its table registered by the audit module" \
		env GLIBC_TUNABLES=glibc.rtld.sframe_table_dir=/nonexistent \
		LD_AUDIT="$so" SFRAME_TABLE_DIR="$bin/tables" "$bin/$prog"
	# Detached whatever happens: the tests after this one run the
	# program without its table.
	# shellcheck disable=SC2064 # the paths are known now
	trap "'$attach' -u -d '$bin/tables' '$bin/$prog' > /dev/null" EXIT
	"$attach" -d "$bin/tables" "$bin/$prog" 2>&1 | sed 's/^/# /'
	tap_status "$what, sframe-attach attaches its table" "${PIPESTATUS[0]}"
	chains "$what, with its table attached to its file" \
		env GLIBC_TUNABLES=glibc.rtld.sframe_table_dir=/nonexistent \
		"$bin/$prog"
	trap - EXIT
	"$attach" -u -d "$bin/tables" "$bin/$prog" > /dev/null
	tap_status "$what, sframe-attach -u detaches its table" $?
}
others nopie/chains "the non-PIE program without SFrame"
# With its partial section alone, which the kernel registered at exec,
# no chain may be whole either.
with_table partial/chains "the program whose .sframe describes one function" 0
if [ "$again" -gt 1 ]; then
	echo "# $again chains taken again where nothing was broken:" \
		"more than the emulator explains"
	tap_fail "at most one chain taken again where nothing was broken"
else
	tap_pass "at most one chain taken again where nothing was broken"
fi
ktap_finished
