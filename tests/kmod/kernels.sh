#!/bin/sh
# kernels.sh - fetch and cache one kernel of the module test matrix, then
# print what run.sh needs to build bwreg for it and boot it, as shell
# assignments (KARCH KVER KIMG KDIR KCHROOT BUSYBOX).
#
#   tests/kmod/kernels.sh ROW        ROW: amd64-6.1 amd64-6.12
#                                    amd64-6.12-rt arm64-6.1 arm64-6.1-rt
#   tests/kmod/kernels.sh --rows     list the rows
#   tests/kmod/kernels.sh arm64-chroot   only the arm64 build chroot
#
# Everything fetched lives in ${BWSCHED_CACHE_DIR:-/var/tmp/bwsched-cache}
# (doc/kmod.md; safe to delete, it is fetched again):
#   chroot-trixie/  a Debian 13 chroot (mmdebstrap) with make, gcc-14 and
#                   the 6.12 headers: modules for 6.12 are built in it
#   chroot-arm64/   a Debian 12 chroot with the arm64 cross compiler, the
#                   arm64 headers, and arm64 libev and msgpack-c: the
#                   arm64 module, guest programs and daemon are built in it
#   kernels/        the kernel images (and the arm64 busybox)
# Only Debian's archive is contacted.  Nothing is installed on the host:
# a chroot keeps the toolchains from conflicting with the host's packages
# (Debian 12's cross gcc conflicts with gcc-multilib).  A cached kernel is
# used as is; delete its directory (or the cache) to fetch the archive's
# current one.
#
# Exit: 0 (assignments on stdout), 77 when the kernel cannot be fetched
# or a tool is missing (the reason on stdout as "SKIP: why"), 2 usage.
set -u

cache=${BWSCHED_CACHE_DIR:-/var/tmp/bwsched-cache}
mirror=${BWSCHED_DEBIAN_MIRROR:-http://deb.debian.org/debian}
secmirror=${BWSCHED_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
rows="amd64-6.1 amd64-6.12 amd64-6.12-rt arm64-6.1 arm64-6.1-rt"

skip() { echo "SKIP: $*"; exit 77; }
log() { echo "kernels: $*" >&2; }

# The host's own Debian 12 6.1 kernel (scripts/setup installs it; a
# backports kernel installed beside it is not this row).
row_host() {
	for img in $(ls /boot/vmlinuz-6.1.*-amd64 2>/dev/null | sort -V -r); do
		v=${img#/boot/vmlinuz-}
		case $v in *-rt-*) continue ;; esac
		if [ -d "/usr/src/linux-headers-$v" ]; then
			emit amd64 "$v" "$img" "/usr/src/linux-headers-$v" "" \
				"$(command -v busybox)"
			return
		fi
	done
	skip "no Debian kernel image with headers in /boot and /usr/src (scripts/setup installs linux-image-amd64 linux-headers-amd64)"
}

emit() {	# arch kver image kdir chroot busybox
	echo "KARCH='$1' KVER='$2' KIMG='$3' KDIR='$4' KCHROOT='$5' BUSYBOX='$6'"
}

# A chroot made by mmdebstrap: suite, directory, packages, then a script
# run inside it (sh -c) that downloads into /tmp/dl.  Creates dir.tmp and
# leaves it for the caller to finish and rename; skips on failure.
make_chroot() {	# suite dir include script [mmdebstrap options]
	suite=$1 c=$2 inc=$3 script=$4
	shift 4
	command -v mmdebstrap >/dev/null || skip "no mmdebstrap (scripts/setup installs it)"
	[ "$(id -u)" -eq 0 ] || skip "building the $suite chroot needs root"
	[ -r "$keyring" ] || skip "no $keyring (debian-archive-keyring)"
	log "creating the $suite chroot $c (mmdebstrap, a few minutes)"
	rm -rf "$c.tmp"
	mmdebstrap --variant=apt --include="$inc" \
		--aptopt='Acquire::Retries "3"' "$@" "$suite" "$c.tmp" \
		"deb [signed-by=$keyring] $mirror $suite main" \
		"deb [signed-by=$keyring] $mirror $suite-updates main" \
		"deb [signed-by=$keyring] $secmirror $suite-security main" \
		>"$c.log" 2>&1 ||
		{ rm -rf "$c.tmp"; skip "mmdebstrap of $suite failed (see $c.log): $(tail -1 "$c.log")"; }
	cp -L /etc/resolv.conf "$c.tmp/etc/resolv.conf" 2>/dev/null
	mkdir -p "$c.tmp/tmp/dl"
	chroot "$c.tmp" sh -c "cd /tmp/dl && apt-get -qq update && $script" \
		>>"$c.log" 2>&1 ||
		{ rm -rf "$c.tmp"; skip "cannot download the $suite kernels (see $c.log): $(tail -1 "$c.log")"; }
}

# Extract every downloaded package but the images into the chroot, and
# each image's vmlinuz into kernels/ROW/root/boot.
finish_chroot() {	# dir row:image-package...
	c=$1
	shift
	for deb in "$c.tmp"/tmp/dl/*.deb; do
		case $deb in
		*/linux-image-*|*/busybox-static_*) ;;
		# keep the chroot's /lib -> usr/lib (dpkg-deb -x would replace it)
		*)	dpkg-deb --fsys-tarfile "$deb" |
				tar -x --keep-directory-symlink -C "$c.tmp" ||
				skip "cannot extract $deb" ;;
		esac
	done
	for ri in "$@"; do
		dir=$cache/kernels/${ri%%:*}
		rm -rf "$dir" && mkdir -p "$dir/root" &&
			dpkg-deb --fsys-tarfile "$c.tmp"/tmp/dl/"${ri#*:}"_*.deb |
			tar -x -C "$dir/root" --wildcards './boot/vmlinuz-*' ||
			skip "cannot extract ${ri#*:} into $dir"
	done
}

# Debian 12 for arm64: an amd64 chroot with the arm64 cross compiler and,
# through multiarch, arm64 libev and msgpack-c (the daemon's cross build);
# the arm64 headers (plain and RT) are extracted into it with the amd64
# linux-kbuild of the same version, the images and busybox downloaded at
# the same time.
arm64_pkgs=make,gcc-aarch64-linux-gnu,libc6-dev-arm64-cross,pkg-config,file,libev-dev:arm64,libmsgpack-dev:arm64
arm64_chroot() {
	c=$cache/chroot-arm64
	[ "$(cat "$c/ok" 2>/dev/null)" = "$arm64_pkgs" ] && return 0
	# shellcheck disable=SC2016
	make_chroot bookworm "$c" "$arm64_pkgs" '
		abi=$(apt-cache depends linux-headers-arm64:arm64 |
			sed -n "s/^ *Depends: linux-headers-\(.*\)-arm64.*/\1/p" | head -1) &&
		[ -n "$abi" ] && echo $abi >abi &&
		ver=$(apt-cache show linux-headers-$abi-arm64:arm64 |
			sed -n "s/^Version: //p" | head -1) &&
		apt-get -qq download linux-headers-$abi-arm64:arm64=$ver \
			linux-headers-$abi-common=$ver \
			linux-headers-$abi-rt-arm64:arm64=$ver \
			linux-headers-$abi-common-rt=$ver \
			linux-kbuild-${abi%%.0-*}:amd64=$ver \
			linux-image-$abi-arm64:arm64=$ver \
			linux-image-$abi-rt-arm64:arm64=$ver \
			busybox-static:arm64' --architectures=amd64,arm64
	abi=$(cat "$c.tmp/tmp/dl/abi")
	finish_chroot "$c" "arm64-6.1:linux-image-$abi-arm64" \
		"arm64-6.1-rt:linux-image-$abi-rt-arm64"
	dpkg-deb --fsys-tarfile "$c.tmp"/tmp/dl/busybox-static_*_arm64.deb |
		tar -x -O ./bin/busybox >"$cache/kernels/busybox-arm64" &&
		chmod 755 "$cache/kernels/busybox-arm64" ||
		skip "cannot extract the arm64 busybox"
	rm -rf "$c.tmp/tmp/dl" "$c" && mv "$c.tmp" "$c" || skip "cannot write $c"
	echo "$arm64_pkgs" >"$c/ok"
}

# A row whose kernel comes with a chroot: the image in kernels/ROW, the
# headers in the chroot.
row_chroot() {	# row arch chroot busybox
	dir=$cache/kernels/$1
	c=$3
	img=$(ls "$dir"/root/boot/vmlinuz-* 2>/dev/null | tail -1)
	[ -n "$img" ] || skip "no image in $dir (delete $c to fetch again)"
	abi=${img##*/vmlinuz-}
	[ -d "$c/usr/src/linux-headers-$abi" ] ||
		skip "no headers for $abi in $c (delete $c to fetch again)"
	emit "$2" "$abi" "$img" "/usr/src/linux-headers-$abi" "$c" "$4"
}

# Debian 13: a chroot with make, gcc-14 and the 6.12 kbuild; the 6.12
# headers (plain and RT) are extracted into it, not installed (installing
# them would install both kernel images and build their initramfs), and
# the images downloaded at the same time, so headers and images always
# have the same version.
# What the chroot holds (perl: W=1 runs kernel-doc); a chroot made with
# another list is made again.
trixie_pkgs=make,gcc-14,linux-kbuild-6.12,perl
trixie_chroot() {
	c=$cache/chroot-trixie
	[ "$(cat "$c/ok" 2>/dev/null)" = "$trixie_pkgs" ] && return 0
	# shellcheck disable=SC2016
	make_chroot trixie "$c" "$trixie_pkgs" '
		abi=$(apt-cache depends linux-headers-amd64 |
			sed -n "s/^ *Depends: linux-headers-\(.*\)-amd64$/\1/p" | head -1) &&
		[ -n "$abi" ] && echo $abi >abi &&
		apt-get -qq download linux-headers-$abi-amd64 \
			linux-headers-$abi-common linux-headers-$abi-rt-amd64 \
			linux-headers-$abi-common-rt linux-image-$abi-amd64 \
			linux-image-$abi-rt-amd64'
	abi=$(cat "$c.tmp/tmp/dl/abi")
	finish_chroot "$c" "amd64-6.12:linux-image-$abi-amd64" \
		"amd64-6.12-rt:linux-image-$abi-rt-amd64"
	rm -rf "$c.tmp/tmp/dl" "$c" && mv "$c.tmp" "$c" || skip "cannot write $c"
	echo "$trixie_pkgs" >"$c/ok"
}

case ${1:-} in
--rows)	echo "$rows"; exit 0 ;;
amd64-6.1|amd64-6.12|amd64-6.12-rt|arm64-6.1|arm64-6.1-rt|arm64-chroot)
	row=$1 ;;
*)	echo "usage: $0 ROW ($rows) | --rows" >&2; exit 2 ;;
esac

mkdir -p "$cache/kernels" 2>/dev/null || skip "cannot create $cache"
# One fetcher at a time per kind of download (parallel runs share them).
case $row in
amd64-6.12*)	lock=trixie ;;
*)		lock=arm64 ;;
esac
exec 9>"$cache/.lock-$lock"
command -v flock >/dev/null && flock 9
case $row in
amd64-6.1)	row_host ;;
amd64-6.12*)	trixie_chroot
		row_chroot "$row" amd64 "$cache/chroot-trixie" \
			"$(command -v busybox)" ;;
arm64-6.1*)	arm64_chroot
		row_chroot "$row" arm64 "$cache/chroot-arm64" \
			"$cache/kernels/busybox-arm64" ;;
arm64-chroot)	arm64_chroot && echo "KCHROOT='$cache/chroot-arm64'" ;;
esac
