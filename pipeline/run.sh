#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh ARCH TREE TIMEOUT COMMAND - boot the test kernel of TREE for ARCH
# under QEMU TCG with virtme-ng and run COMMAND (a shell command line) in
# it.  The project directory and the cache are visible in the guest at
# the same paths.  Prints the guest's output and exits with COMMAND's
# status; a boot that does not finish in TIMEOUT seconds is killed and
# reported as status 124.
#
# x86_64 guests use the toolchain root as their root file system; arm64
# guests use the arm64 guest root.  /dev/kvm is never used: this host's
# nested KVM cannot boot Linux.
# Guests get two vCPUs unless VM_CPUS says otherwise; VM_APPEND adds to the
# kernel command line.  VM_ICOUNT=N ties the guest's clocks to the
# instructions it runs, 2^N ns each (QEMU's -icount shift=N, which runs
# the vCPUs in one host thread): 0 makes the guest's CPU look faster than
# it is under TCG here, 3 or more slower; idle time still passes at the
# host's pace.  measure/guest-speed.sh runs the guest tests so, to show
# that their verdicts do not depend on the machine's speed.
#
# The root file system is shared over 9p, not virtiofs (virtme-ng's
# default): virtiofsd writes file data into guest memory from another
# process, behind QEMU's back, and TCG then goes on running code it
# translated from what the page held before.  Programs crashed in code
# loaded from the root (perf's libraries, perl) in a few boots out of
# many.  check/qemu-tcg/ has the reproducer; VM_ROOTFS=virtiofs boots
# with virtiofs to run it.  The project and the cache (--rwdir) are 9p
# shares either way.

. "$(dirname "$0")/../lib/lib.sh"

arch=${1:?usage: run.sh ARCH TREE TIMEOUT COMMAND}
tree=$(cd "${2:?}" && pwd)
limit=${3:?}
cmd=${4:?}
kout=$(kbuild_dir "$arch" "$tree")

# The guest writes its exit status here: vng's own exit status does not
# always carry the command's.
status=$(mktemp -p "$CACHE" vmstatus.XXXXXX)
trap 'rm -f "$status"' EXIT
echo 125 > "$status"

guestcmd="cd $TOP && ( $cmd ); echo \$? > $status"

arch_vars "$arch"
args=(--run "$kout/$IMAGE" --memory 2G)
[ -z "${VM_ICOUNT:-}" ] || QEMU_OPTS+=" -icount shift=$VM_ICOUNT,sleep=on"
[ -z "$QEMU_OPTS" ] || args+=(--qemu-opts="$QEMU_OPTS")
if [ "$GUEST_ROOT" = "$ROOT" ]; then
	# vng runs in the toolchain root, which is the guest's root too.
	args+=(--rwdir "$TOP" --rwdir "$CACHE")
else
	[ -x "$GUEST_ROOT/bin/bash" ] ||
		die "$arch guest root missing: run 'make toolchain'"
	# The guest sees only its own root: bind the project and the cache
	# into it, at their host paths.
	BWRAP_EXTRA=(--bind "$TOP" "$GUEST_ROOT$TOP"
		     --bind "$CACHE" "$GUEST_ROOT$CACHE")
	args+=(--arch "$KARCH" --cross-compile "$CROSS" --root "$GUEST_ROOT"
	       --rwdir "$TOP=$GUEST_ROOT$TOP" --rwdir "$CACHE=$GUEST_ROOT$CACHE")
fi

case ${VM_ROOTFS:-9p} in
9p)		args+=(--force-9p) ;;
virtiofs)	;;
*)		die "VM_ROOTFS: 9p or virtiofs" ;;
esac

rc=0
# The guest does not hold the lock of trees/check (fd 9, lock_check_tree):
# a QEMU that outlived its timeout must not keep every later run waiting.
extra=(${BWRAP_EXTRA[@]+"${BWRAP_EXTRA[@]}"})
# shellcheck disable=SC2016
timeout -k 10 "$limit" bash -c '
	. "$1"; n=$2; shift 2
	BWRAP_EXTRA=("${@:1:n}"); shift "$n"
	inroot "$@"' _ "$TOP/lib/lib.sh" ${#extra[@]} ${extra[@]+"${extra[@]}"} \
	vng "${args[@]}" --disable-kvm --cpus "${VM_CPUS:-2}" \
	${VM_APPEND:+--append "$VM_APPEND"} \
	--exec "$guestcmd" < /dev/null 9>&- || rc=$?
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	echo "run.sh: $arch guest timed out after ${limit}s" >&2
	exit 124
fi
exit "$(cat "$status")"
