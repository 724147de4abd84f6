#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.sh TREE - run TREE's scripts/checkpatch.pl --strict on every
# patch of the topics of patches/ (lib/lib.sh).  A patch passes with no error, warning or check
# other than those listed in config/checkpatch-exceptions (lines of
# "PATCH TYPE reason...", PATCH being the file name without its number,
# so that renumbering keeps the exception).  Prints KTAP (lib/tap.sh):
# one result per patch, after checkpatch's findings if it failed.
# A patch that passed is not checked again while it, its exceptions,
# checkpatch.pl with its data files, this script and the toolchain are
# the same ($RESULTS, lib/lib.sh).

. "$(dirname "$0")/../lib/lib.sh"

tree=$(cd "${1:?usage: checkpatch.sh TREE}" && pwd)
exceptions=${CHECKPATCH_EXCEPTIONS:-$TOP/config/checkpatch-exceptions}

tool=$( (root_stamp; cat "$0"; cd "$tree" && cat scripts/checkpatch.pl \
	scripts/spelling.txt scripts/const_structs.checkpatch) | sha256sum | cut -c1-16)
mkdir -p "$RESULTS"
# shellcheck source=lib/tap.sh
. "$TOP/lib/tap.sh"
tap_start "$tree"

again=0
while read -r p; do
	ignore=$(grep -v '^#' "$exceptions" 2>/dev/null |
		 awk -v p="$(basename "$p" | sed 's/^[0-9]\{4\}-//')" '$1 == p { print $2 }' |
		 paste -sd, - || true)
	passed=$RESULTS/checkpatch-$( (echo "$tool $ignore"; cat "$PDIR/$p") |
		sha256sum | cut -c1-16)
	if [ -e "$passed" ]; then
		tap_pass "checkpatch $p${ignore:+ (excepted: $ignore)}"
		again=$((again + 1))
		continue
	fi
	out=$(cd "$tree" && inroot perl scripts/checkpatch.pl --strict --terse \
		--show-types --no-summary ${ignore:+--ignore "$ignore"} \
		"$PDIR/$p" 2>&1) || true
	if [ -n "$out" ]; then
		echo "$out" | sed 's/^/#   /'
		tap_fail "checkpatch $p"
	else
		tap_pass "checkpatch $p${ignore:+ (excepted: $ignore)}"
		touch "$passed"
	fi
done < <(series_list)
[ $again = 0 ] || echo "# $again patches passed in an earlier run, unchanged: not checked again"
tap_done
