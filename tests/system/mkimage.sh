#!/bin/sh
# mkimage.sh DIR - the Debian 12 virtual machine of make check-system:
# mmdebstrap a bookworm root file system (systemd as PID 1, udev, kmod,
# Debian's 6.1 kernel with its headers, DKMS and its compiler, and the
# libraries the bwsched packages depend on), make an ext4 image of it and
# take its kernel and initrd beside it:
#
#   DIR/rootfs.ext4 DIR/vmlinuz DIR/initrd.img DIR/manifest
#
# The image holds no bwsched file: the test installs the packages in the
# running machine (tests/system/run.sh).  It boots straight into
# systest.service, which runs the test from the second disk.  Everything
# the machine needs is installed here because it has no network.
#
# Environment: BWSCHED_MIRROR (default http://deb.debian.org/debian),
# BWSCHED_SECURITY_MIRROR (default http://deb.debian.org/debian-security).
set -eu
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
dir=$1
here=$(cd "$(dirname "$0")" && pwd)
mirror=${BWSCHED_MIRROR:-http://deb.debian.org/debian}
security=${BWSCHED_SECURITY_MIRROR:-http://deb.debian.org/debian-security}

# The documentation of these is left out to keep the image small; the
# bwsched packages are installed with theirs (the test reads bwsched(8)).
# libev4 libmsgpackc2 libsystemd0: what bwsched, libbwclient0 link;
# dkms gcc make linux-headers-amd64: bwreg-dkms; pkg-config libc6-dev:
# compiling a client against libbwclient-dev; procps util-linux: ps,
# pkill, taskset, runuser.
pkgs="systemd systemd-sysv udev kmod dbus
linux-image-amd64 linux-headers-amd64 dkms gcc make libc6-dev pkg-config
libev4 libmsgpackc2 libsystemd0 procps util-linux passwd"

rm -rf "$dir.tmp"
mkdir -p "$dir.tmp"
root=$dir.tmp/root
# The initrd needs only what mounts the root disk: MODULES=list with
# virtio and ext4 makes it in seconds instead of minutes (MODULES=most).
# shellcheck disable=SC2046
mmdebstrap --variant=minbase --mode=root \
	--include="$(echo $pkgs | tr ' ' ,)" \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	--essential-hook='mkdir -p "$1/etc/initramfs-tools/conf.d" "$1/usr/share/initramfs-tools/modules.d"' \
	--essential-hook='echo MODULES=list > "$1/etc/initramfs-tools/conf.d/bwsched-vm"' \
	--essential-hook='printf "virtio_pci\nvirtio_blk\next4\n" > "$1/usr/share/initramfs-tools/modules.d/bwsched-vm"' \
	--customize-hook="copy-in $here/systest.service /etc/systemd/system" \
	--customize-hook='chroot "$1" systemctl enable systest.service' \
	--customize-hook='chroot "$1" systemctl mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer getty@tty1.service serial-getty@ttyS0.service' \
	--customize-hook='echo bwsched-vm > "$1/etc/hostname"' \
	--customize-hook='printf "/dev/vda / ext4 rw 0 1\n/dev/vdb /payload ext4 rw,nofail 0 0\n" > "$1/etc/fstab"' \
	--customize-hook='mkdir -p "$1/payload"' \
	--customize-hook='rm -f "$1"/var/cache/apt/archives/*.deb "$1"/var/lib/apt/lists/*_Packages' \
	--customize-hook='rm -f "$1"/etc/dpkg/dpkg.cfg.d/99mmdebstrap' \
	bookworm "$root" \
	"deb $mirror bookworm main" \
	"deb $mirror bookworm-updates main" \
	"deb $security bookworm-security main"

kver=$(cd "$root/lib/modules" && ls | sort -V | tail -1)
cp "$root/boot/vmlinuz-$kver" "$dir.tmp/vmlinuz"
cp "$root/boot/initrd.img-$kver" "$dir.tmp/initrd.img"
chmod 644 "$dir.tmp/vmlinuz" "$dir.tmp/initrd.img"
mke2fs -q -t ext4 -L bwsched-root -d "$root" "$dir.tmp/rootfs.ext4" 3G
{
	echo "kernel $kver"
	chroot "$root" dpkg-query -W -f='${Package} ${Version}\n' \
		systemd linux-image-amd64 linux-headers-amd64 dkms gcc
} >"$dir.tmp/manifest"
rm -rf "$root"
rm -rf "$dir"
mv "$dir.tmp" "$dir"
cat "$dir/manifest"
