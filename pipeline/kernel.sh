#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel.sh ARCH [TREE] - configure and build a test kernel out of tree.
#
# The build directory is $CACHE/kbuild/<tree-name>-ARCH so that later runs
# build incrementally; ccache covers the rest.  The config is virtme-ng's
# minimal config plus config/common.config, config/ARCH.config, with
# KVARIANT=debug config/debug.config, and, once the series adds it,
# tools/testing/selftests/sframe/config.

. "$(dirname "$0")/../lib/lib.sh"

arch=${1:?usage: kernel.sh ARCH [TREE]}
tree=${2:-$BUILD/linux}
tree=$(cd "$tree" && pwd)
kout=$(kbuild_dir "$arch" "$tree")

arch_vars "$arch"
karch=$KARCH image=$IMAGE

VIRTME_DROP='CONFIG_(DEBUG_INFO|KVM|BPF|HAVE_EBPF|CGROUP_BPF|DRM|SND|SOUND|FB|VGA|FRAMEBUFFER|SQUASHFS|SECURITYFS|SCSI|BLK_DEV_SD|WATCHDOG|I6300ESB|DAX|FS_DAX|MEMORY_HOT|ZONE_DEVICE|FUNCTION_TRACER|DYNAMIC_FTRACE|HAVE_DYNAMIC_FTRACE|FTRACE_SYSCALLS|KPROBE|HAVE_KPROBES|FW_CFG|INET|PACKET|VIRTIO_NET|NETDEVICES|INPUT|KEYBOARD|SERIO|VIRTIO_BALLOON|VIRTIO_IOMMU)'

frags=("$TOP/config/common.config" "$TOP/config/$arch.config")
[ -z "${KVARIANT:-}" ] || frags+=("$TOP/config/$KVARIANT.config")
[ -e "$tree/tools/testing/selftests/sframe/config" ] &&
	frags+=("$tree/tools/testing/selftests/sframe/config")

mkdir -p "$kout" "$CACHE/ccache"
cd "$tree" || exit 1

# config_missing: does the config lack an option that a fragment asks
# for?  olddefconfig drops, without a word, an option whose dependencies
# are not met: a new config must have kept them all.  One that did stays
# whole (bisect.sh configures its prefixes in a copy), and an interrupted
# configuring leaves no .config-inputs: no build needs to check again.
config_missing()
{
	local f line opt missing=1

	for f in "${frags[@]}"; do
		while IFS= read -r line; do
			case $line in
			CONFIG_*=n) opt=${line%=n}
				grep -q "^$opt=" "$kout/.config" &&
					{ echo "config: $opt is set" >&2; missing=0; } ;;
			CONFIG_*=*) grep -qx "$line" "$kout/.config" ||
					{ echo "config: $line not set" >&2; missing=0; } ;;
			esac
		done < "$f"
	done
	return $missing
}

# Reconfigure when an input of the config changed.
stamp=$( (echo "$VIRTME_DROP"; cat "${frags[@]}") | sha256sum | cut -c1-16)
if [ "$(cat "$kout/.config-inputs" 2>/dev/null)" != "$stamp" ] ||
   [ ! -e "$kout/.config" ]; then
	log "configuring $arch kernel"
	rm -f "$kout/.config-inputs"
	# virtme-ng's minimal options on top of allnoconfig, without what
	# the tests do not use and what costs build time: debug info, KVM,
	# BPF, graphics, sound, SCSI, DAX, snaps, IP networking, input.
	inroot virtme-configkernel --dry-run --arch "$karch" |
		grep -v -E "$VIRTME_DROP" > "$kout/virtme.config"
	kernel_make "$arch" "$tree" "$kout" allnoconfig >/dev/null
	inroot "$tree/scripts/kconfig/merge_config.sh" -m -O "$kout" \
		"$kout/.config" "$kout/virtme.config" "${frags[@]}" >/dev/null
	kernel_make "$arch" "$tree" "$kout" olddefconfig </dev/null >/dev/null
	# Every requested option must have survived olddefconfig.
	! config_missing || die "$arch config lacks requested options"
	echo "$stamp" > "$kout/.config-inputs"
fi

log "building $arch kernel in $kout"
# Symbols that the tree gained since the config was made take their
# defaults here, instead of kconfig asking on a terminal that is not.
kernel_make "$arch" "$tree" "$kout" olddefconfig </dev/null >/dev/null
kernel_make "$arch" "$tree" "$kout" "$(basename "$image")"
log "$arch kernel: $kout/$image"
