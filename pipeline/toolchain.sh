#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) the Debian sid toolchain root and the arm64 guest root.
#
# Both are cached under $CACHE keyed by a hash of their package lists and
# of a format number (ROOT_FORMAT, GUEST_FORMAT in lib/lib.sh, bumped when
# this script makes a root another way); each finished root is also kept as a tarball so that a
# lost directory is restored in seconds.

. "$(dirname "$0")/../lib/lib.sh"

APTOPTS=(
	--aptopt='Acquire::Check-Valid-Until "false"'
	--aptopt='Acquire::Check-Date "false"'
	--aptopt='APT::Install-Recommends "false"'
)

pkglist()
{
	grep -v '^#' "$1" | grep -v '^$' | paste -sd, -
}

# make_root DIR PKGFILE FIXUP EXTRA-MMDEBSTRAP-ARGS...
# FIXUP is a function run on the new root before it is archived.
make_root()
{
	local dir=$1 pkgs=$2 fixup=$3
	shift 3

	if [ -e "$dir/.complete" ]; then
		return 0
	fi
	rm -rf "$dir" "$dir.tmp" "$dir.tar.zst.tmp"
	if [ -e "$dir.tar.zst" ]; then
		log "restoring $(basename "$dir") from its tarball"
		mkdir -p "$dir"
		tar -C "$dir" --zstd -xpf "$dir.tar.zst"
		touch "$dir/.complete"
		return 0
	fi

	log "creating $(basename "$dir") with mmdebstrap (sid)"
	need_mirror
	mmdebstrap --quiet "${APTOPTS[@]}" --include="$(pkglist "$pkgs")" \
		"$@" sid "$dir.tmp" "$MIRROR"
	cat > "$dir.tmp/etc/apt/apt.conf.d/99sframe-valid-until" <<-EOT
	Acquire::Check-Valid-Until "false";
	Acquire::Check-Date "false";
	EOT
	$fixup "$dir.tmp"
	tar -C "$dir.tmp" --zstd -cpf "$dir.tar.zst.tmp" .
	mv "$dir.tar.zst.tmp" "$dir.tar.zst"
	mv "$dir.tmp" "$dir"
	touch "$dir/.complete"
}

no_fixup()
{
	:
}

fix_guest_root()
{
	local dir=$1

	# --variant=extract runs no maintainer scripts: provide what the
	# guest's init expects to find.
	[ -e "$dir/etc/passwd" ] || echo 'root:x:0:0:root:/root:/bin/bash' > "$dir/etc/passwd"
	[ -e "$dir/etc/group" ] || echo 'root:x:0:' > "$dir/etc/group"
	mkdir -p "$dir/root" "$dir/tmp" "$dir/run" "$dir/proc" "$dir/sys" "$dir/dev"
	# virtme-ng starts the guest with /bin/sh; dash's maintainer
	# scripts would have made the link.
	[ -e "$dir/usr/bin/sh" ] || ln -s bash "$dir/usr/bin/sh"
	# Likewise awk, an alternative that mawk's would have made.
	[ -e "$dir/usr/bin/awk" ] || ln -s mawk "$dir/usr/bin/awk"
}

host_install mmdebstrap bubblewrap zstd xz-utils curl python3 git
make_root "$ROOT" "$TOP/config/toolchain.pkgs" no_fixup --variant=apt
make_root "$AROOT" "$TOP/config/guest-arm64.pkgs" fix_guest_root \
	--variant=extract --architectures=arm64
# Old roots of previous package lists are not reused; drop them once no
# run has used them for a day: a run of another checkout (a branch with
# another package list) may be using one.  Each run marks its own.
touch "$ROOT" "$AROOT"
for d in "$CACHE"/root-*; do
	case $d in
	"$ROOT"|"$ROOT.tar.zst"|"$AROOT"|"$AROOT.tar.zst") ;;
	*) [ -n "$(find "$d" -maxdepth 0 -mmin +1440)" ] || continue
	   log "removing stale $(basename "$d")"; rm -rf "$d" ;;
	esac
done
log "toolchain root: $ROOT"
log "arm64 guest root: $AROOT"
