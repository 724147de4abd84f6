#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# attach-root.sh ARCH [TREE] - what tables attached to files cost for a
# whole root: userspace/eh2sframe makes the table of every ELF object in
# the guest root's /usr/bin, /usr/lib/TRIPLET and /usr/lib/python3.*
# (on the host), then, in the guest, tools/sframe/sframe-attach attaches
# them all, timed, and /sys/kernel/debug/sframe/attached says what the
# kernel keeps: in all and for the largest files.  Then they are
# detached.  The report goes to out/attach-root-ARCH.txt.  TREE is the
# kernel tree whose dev build is booted (default build/linux), with its
# selftests built (make selftests, which builds sframe-attach).
# A measurement, not a check.

. "$(dirname "$0")/../lib/lib.sh"

arch=${1:-x86_64}
tree=$(cd "${2:-$BUILD/linux}" && pwd)
kout=$(kbuild_dir "$arch" "$tree")
attach=$kout/kselftest/sframe/sframe-attach
[ -x "$attach" ] || die "no $attach: run make selftests for $arch first"
arch_vars "$arch"

tables=$CACHE/attach-root-$arch/tables
dirs=(usr/bin "usr/lib/$TRIPLET")
for d in "$GUEST_ROOT"/usr/lib/python3.*; do
	[ -d "$d" ] && dirs+=("${d#"$GUEST_ROOT"/}")
done
rm -rf "$tables"
mkdir -p "$tables"
e2s=$(eh2sframe_build all)
log "making the tables of ${dirs[*]} in $GUEST_ROOT"
inroot "$e2s/eh2sframe" -d "$tables" "${dirs[@]/#/$GUEST_ROOT/}" \
	> /dev/null 2>&1
n=$(find "$tables" -name '*.sframe' | wc -l)
bytes=$(find "$tables" -name '*.sframe' -printf '%s\n' | awk '{ s += $1 } END { print s }')
mkdir -p "$TOP/out"
report=$TOP/out/attach-root-$arch.txt
{
	echo "tables made: $n, $bytes bytes"
	# shellcheck disable=SC2016 # expanded in the guest
	SFRAME_CHECK_LOCKED=1 "$TOP/pipeline/run.sh" "$arch" "$tree" 900 "
		cd / &&
		s=\$(date +%s.%N) &&
		$attach -d $tables ${dirs[*]/#//};
		e=\$(date +%s.%N);
		echo \"attach time: \$(echo \"\$e - \$s\" | bc) s\";
		head -1 /sys/kernel/debug/sframe/attached;
		echo 'largest (dev ino table-bytes kernel-bytes links mappings path):';
		grep -v '^#' /sys/kernel/debug/sframe/attached | sort -k4 -n -r | head -8;
		$attach -u ${dirs[*]/#//}"
} | tee "$report"
