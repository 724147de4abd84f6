#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# userspace/distro/sframe-tables, as a distribution runs it, on a small
# object directory: copies of the guest root's python3 and of libz
# (same build-ids, their own inodes), and a table directory of its own.
# - update (x86_64, where the host's eh2sframe runs in the guest; arm64
#   gets the tables made on the host first): a table for each object,
#   attached, as /sys/kernel/debug/sframe/attached shows;
# - an upgrade, as dpkg does it: a new python3 renamed over the old one
#   while a process runs the old one; update attaches the new file and
#   keeps the old one's table while it is mapped; once that process has
#   exited, update detaches it (sframe-attach -P);
# - detach: none of the objects has a table any more.
# Prints KTAP (lib/tap.sh), one case per check.

set -u
# shellcheck source=lib/tap.sh
. "$(dirname "$0")/../../lib/tap.sh"
attach=$KOUT/kselftest/sframe/sframe-attach
eh=$KOUT/guest-tests/eh2sframe
script=$(cd "$(dirname "$0")/../.." && pwd)/userspace/distro/sframe-tables
list=/sys/kernel/debug/sframe/attached
[ -x "$attach" ] || { echo "$attach missing: selftests not built"; exit 1; }
[ -r "$list" ] || { echo "no $list: debugfs not mounted?"; exit 1; }
tmp=$(mktemp -d)
chmod 755 "$tmp"
# attach also attaches what running processes map (libc...): the tests
# after this one need processes without tables.
trap 'SFRAME_OBJECT_DIRS=$tmp/objs SFRAME_TOOLS=$tmp/bin "$script" detach > /dev/null 2>&1; "$attach" -u -p > /dev/null; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/objs" "$tmp/bin"
ln -s "$attach" "$tmp/bin/sframe-attach"
python=$(readlink -f "$(command -v python3)")
libz=$(readlink -f "/usr/lib/$(uname -m)-linux-gnu/libz.so.1")
cp "$python" "$tmp/objs/python3"
cp "$libz" "$tmp/objs/libz.so.1"
export SFRAME_TABLE_DIR=$tmp/tables SFRAME_OBJECT_DIRS=$tmp/objs \
	SFRAME_TOOLS=$tmp/bin
if [ -x "$eh" ]; then
	ln -s "$eh" "$tmp/bin/eh2sframe"
else
	# arm64: no eh2sframe for the guest; the tables of the stock
	# objects were made on the host (pipeline/selftests.sh), and update
	# finds them there, as if it had made them.
	cp -r "$KOUT/guest-tests/sframe-tables" "$tmp/tables"
	printf '#!/bin/sh\nexit 0\n' > "$tmp/bin/eh2sframe"
	chmod 755 "$tmp/bin/eh2sframe"
fi
tap_start "$TREE"
# The plan first: lib/ktap-results.py reads the plan of a nested
# document (guest-tests.sh nests this one) only there.
ktap_set_plan 9

# listed_ino INO: whether inode INO has a table (the second field)
listed_ino()
{
	awk -v ino="$1" '$2 == ino { found = 1 } END { exit !found }' "$list"
}

# listed FILE: whether the inode of FILE has a table
listed()
{
	listed_ino "$(stat -c %i "$1")"
}

# check NAME COMMAND...: the case NAME, which passes if COMMAND does
check()
{
	local name=$1

	shift
	if "$@"; then
		tap_pass "$name"
	else
		tap_fail "$name"
	fi
}

# not COMMAND...: whether COMMAND fails
not()
{
	! "$@"
}

"$script" update 2>&1 | sed 's/^/# update: /'
n=$(find "$tmp/tables" -name '*.sframe' | wc -l)
echo "# update made $n tables"
check "update makes a table for each object" [ "$n" -ge 2 ]
for f in python3 libz.so.1; do
	check "update attaches $f's table" listed "$tmp/objs/$f"
done

# An upgrade: the old python3 runs, a new file is renamed over it.
old_ino=$(stat -c %i "$tmp/objs/python3")
"$tmp/objs/python3" -c 'import time; time.sleep(600)' &
old_pid=$!
# Until it runs the old file, however slowly it starts
for _ in $(seq 3000); do
	[ "$(stat -L -c %i "/proc/$old_pid/exe" 2>/dev/null)" = "$old_ino" ] && break
	sleep 0.1
done
check "the old python3 runs" \
	[ "$(stat -L -c %i "/proc/$old_pid/exe" 2>/dev/null)" = "$old_ino" ]
cp "$python" "$tmp/objs/python3.new"
printf 'x' >> "$tmp/objs/python3.new"	# another file, same build-id
mv "$tmp/objs/python3.new" "$tmp/objs/python3"
"$script" update 2>&1 | sed 's/^/# update after the upgrade: /'
check "update attaches the new python3's table" listed "$tmp/objs/python3"
check "the old python3 keeps its table while it runs" listed_ino "$old_ino"
kill "$old_pid"
wait "$old_pid" 2> /dev/null
"$script" update 2>&1 | sed 's/^/# update once it exited: /'
check "update detaches the old python3's table once it exited" \
	not listed_ino "$old_ino"

"$script" detach 2>&1 | sed 's/^/# detach: /'
for f in python3 libz.so.1; do
	check "detach detaches $f's table" not listed "$tmp/objs/$f"
done
ktap_finished
