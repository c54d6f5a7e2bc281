#!/bin/sh
# kernels.sh - fetch and cache one kernel of the module test matrix, then
# print what run.sh needs to build bwreg for it and boot it, as shell
# assignments (KROW KARCH KVER KIMG KDIR KCHROOT KCC BUSYBOX SYSROOT).
#
#   tests/kmod/kernels.sh ROW        ROW: amd64-6.1 amd64-6.12
#                                    amd64-6.12-rt arm64-6.1 arm64-6.1-rt
#   tests/kmod/kernels.sh --rows     list the rows
#   tests/kmod/kernels.sh arm64-sysroot   only the arm64 sysroot (SYSROOT)
#
# Everything fetched lives in ${BWSCHED_CACHE_DIR:-/var/tmp/bwsched-cache}
# (doc/kmod.md; safe to delete, it is fetched again):
#   apt-bookworm/   private apt lists (amd64 + arm64) used only here
#   kernels/        arm64 kernel images and extracted headers + kbuild;
#                   Debian 13 amd64 kernel images
#   chroot-trixie/  a Debian 13 chroot (mmdebstrap) with make, gcc-14 and
#                   the 6.12 headers: modules for 6.12 are built in it
#   arm64-sysroot/  arm64 busybox-static, libev and msgpack-c (the daemon's
#                   cross build and the arm64 guest's image)
# Only Debian's archive is contacted.  Nothing is installed on the host
# and its apt configuration is left alone.  A cached kernel is used as is;
# delete its directory (or the cache) to fetch the archive's current one.
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

# The host's own Debian 12 kernel (scripts/setup installs it).
row_host() {
	for img in $(ls /boot/vmlinuz-*-amd64 2>/dev/null | sort -V -r); do
		v=${img#/boot/vmlinuz-}
		case $v in *-rt-*) continue ;; esac
		if [ -d "/usr/src/linux-headers-$v" ]; then
			emit amd64 "$v" "$img" "/usr/src/linux-headers-$v" "" \
				"$(command -v busybox)" ""
			return
		fi
	done
	skip "no Debian kernel image with headers in /boot and /usr/src (scripts/setup installs linux-image-amd64 linux-headers-amd64)"
}

emit() {	# arch kver image kdir chroot busybox sysroot
	echo "KARCH='$1' KVER='$2' KIMG='$3' KDIR='$4' KCHROOT='$5' BUSYBOX='$6' SYSROOT='$7'"
}

# apt with a private state under $cache/apt-bookworm: the host's sources,
# lists and dpkg database are never read or written.
bw_apt_dir=$cache/apt-bookworm
bw_apt() {
	apt-get -q -o Dir::Etc::sourcelist="$bw_apt_dir/sources.list" \
		-o Dir::Etc::sourceparts=- \
		-o Dir::Etc::preferencesparts=- \
		-o Dir::State::lists="$bw_apt_dir/lists" \
		-o Dir::State::status="$bw_apt_dir/status" \
		-o Dir::Cache::archives="$bw_apt_dir/archives" \
		-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= \
		-o APT::Architecture=amd64 -o APT::Architectures::=amd64 \
		-o APT::Architectures::=arm64 -o Debug::NoLocking=1 "$@"
}
bw_apt_cache() {
	apt-cache -o Dir::Etc::sourcelist="$bw_apt_dir/sources.list" \
		-o Dir::Etc::sourceparts=- \
		-o Dir::State::lists="$bw_apt_dir/lists" \
		-o Dir::State::status="$bw_apt_dir/status" \
		-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= \
		-o APT::Architecture=amd64 -o APT::Architectures::=amd64 \
		-o APT::Architectures::=arm64 "$@"
}

# Fresh package lists for Debian 12 (amd64 and arm64), once per run.
bw_update() {
	[ -n "${bw_updated:-}" ] && return 0
	command -v apt-get >/dev/null || skip "no apt-get"
	[ -r "$keyring" ] || skip "no $keyring (debian-archive-keyring)"
	mkdir -p "$bw_apt_dir/lists/partial" "$bw_apt_dir/archives/partial"
	touch "$bw_apt_dir/status"
	{
		echo "deb [signed-by=$keyring] $mirror bookworm main"
		echo "deb [signed-by=$keyring] $mirror bookworm-updates main"
		echo "deb [signed-by=$keyring] $secmirror bookworm-security main"
	} >"$bw_apt_dir/sources.list"
	log "updating Debian 12 package lists in $bw_apt_dir"
	# apt-get update exits 0 when a source cannot be fetched: read its log.
	if ! bw_apt -qq update >"$bw_apt_dir/update.log" 2>&1 ||
		grep -q '^[WE]: Failed to fetch' "$bw_apt_dir/update.log"; then
		skip "apt-get update for Debian 12 failed: $(grep -m1 '^[WE]:' "$bw_apt_dir/update.log")"
	fi
	bw_updated=1
}

# The package a metapackage depends on first, e.g. linux-image-6.1.0-56-arm64.
bw_dep() {	# metapackage:arch
	bw_apt_cache depends "$1" 2>/dev/null |
		sed -n 's/^ *Depends: \([^:]*\).*/\1/p' | head -1
}

# Download packages into dir and extract them all into dir/root.
bw_extract() {	# dir pkg...
	d=$1
	shift
	mkdir -p "$d/debs" "$d/root"
	(cd "$d/debs" && bw_apt -qq download "$@") >"$d/download.log" 2>&1 ||
		return 1
	for deb in "$d"/debs/*.deb; do
		case $deb in
		*/linux-image-*)	# only the kernel, not its modules
			dpkg-deb --fsys-tarfile "$deb" |
				tar -x -C "$d/root" --wildcards './boot/vmlinuz-*' ;;
		*)	dpkg-deb -x "$deb" "$d/root" ;;
		esac || return 1
	done
	rm -rf "$d/debs"
}

# Debian 12 arm64: image, headers (+ common) and the amd64 kbuild of the
# same version, extracted (the headers' scripts/ link into the kbuild).
row_arm64() {	# flavour: "" or "rt-"
	fl=$1
	dir=$cache/kernels/arm64-6.1${fl:+-rt}
	if [ ! -f "$dir/ok" ]; then
		bw_update
		img=$(bw_dep "linux-image-${fl}arm64:arm64")
		[ -n "$img" ] || skip "no linux-image-${fl}arm64 in Debian 12's arm64 lists"
		abi=${img#linux-image-}
		ver=$(bw_apt_cache show "$img:arm64" 2>/dev/null |
			sed -n 's/^Version: //p' | head -1)
		common=linux-headers-${abi%-arm64}-common
		[ -n "$fl" ] && common=linux-headers-${abi%-rt-arm64}-common-rt
		log "fetching $img $ver (arm64) with its headers into $dir"
		rm -rf "$dir.tmp"
		bw_extract "$dir.tmp" "$img:arm64=$ver" \
			"linux-headers-$abi:arm64=$ver" "$common=$ver" \
			"linux-kbuild-${abi%%.0-*}:amd64=$ver" ||
			skip "cannot download $img $ver: $(tail -1 "$dir.tmp/download.log")"
		# The headers' Makefile includes the common headers by absolute
		# path: point it into this tree, not at the host's /usr/src.
		sed -i "s,^include /usr/src/,include $dir/root/usr/src/," \
			"$dir.tmp/root/usr/src/linux-headers-$abi/Makefile"
		rm -rf "$dir" && mv "$dir.tmp" "$dir" || skip "cannot write $dir"
		echo "$abi" >"$dir/ok"
	fi
	abi=$(cat "$dir/ok")
	arm64_sysroot
	emit arm64 "$abi" "$dir/root/boot/vmlinuz-$abi" \
		"$dir/root/usr/src/linux-headers-$abi" "" \
		"$cache/arm64-sysroot/bin/busybox" "$cache/arm64-sysroot"
}

# arm64 busybox and the daemon's libraries for the cross build.
arm64_sysroot() {
	s=$cache/arm64-sysroot
	[ -f "$s/ok" ] && return 0
	bw_update
	log "fetching arm64 busybox-static, libev and msgpack-c into $s"
	rm -rf "$s.tmp"
	bw_extract "$s.tmp" busybox-static:arm64 libev4:arm64 libev-dev:arm64 \
		libmsgpackc2:arm64 libmsgpack-dev:arm64 ||
		skip "cannot download arm64 packages: $(tail -1 "$s.tmp/download.log")"
	# One tree: root/ becomes the sysroot itself.
	mv "$s.tmp/root" "$s.new" && rm -rf "$s.tmp" "$s" && mv "$s.new" "$s" ||
		skip "cannot write $s"
	touch "$s/ok"
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
	command -v mmdebstrap >/dev/null || skip "no mmdebstrap (scripts/setup installs it)"
	[ "$(id -u)" -eq 0 ] || skip "building the Debian 13 chroot needs root"
	log "creating the Debian 13 chroot $c (mmdebstrap, a few minutes)"
	rm -rf "$c.tmp"
	mmdebstrap --variant=apt --include=$trixie_pkgs \
		--aptopt='Acquire::Retries "3"' trixie "$c.tmp" \
		"deb [signed-by=$keyring] $mirror trixie main" \
		"deb [signed-by=$keyring] $mirror trixie-updates main" \
		"deb [signed-by=$keyring] $secmirror trixie-security main" \
		>"$cache/chroot-trixie.log" 2>&1 ||
		{ rm -rf "$c.tmp"; skip "mmdebstrap of Debian 13 failed (see $cache/chroot-trixie.log): $(tail -1 "$cache/chroot-trixie.log")"; }
	cp -L /etc/resolv.conf "$c.tmp/etc/resolv.conf" 2>/dev/null
	mkdir -p "$c.tmp/tmp/dl"
	# shellcheck disable=SC2016
	chroot "$c.tmp" sh -c 'cd /tmp/dl && apt-get -qq update &&
		abi=$(apt-cache depends linux-headers-amd64 |
			sed -n "s/^ *Depends: linux-headers-\(.*\)-amd64$/\1/p" | head -1) &&
		[ -n "$abi" ] && echo $abi >abi &&
		apt-get -qq download linux-headers-$abi-amd64 \
			linux-headers-$abi-common linux-headers-$abi-rt-amd64 \
			linux-headers-$abi-common-rt linux-image-$abi-amd64 \
			linux-image-$abi-rt-amd64' >>"$cache/chroot-trixie.log" 2>&1 ||
		{ rm -rf "$c.tmp"; skip "cannot download Debian 13's 6.12 kernels (see $cache/chroot-trixie.log): $(tail -1 "$cache/chroot-trixie.log")"; }
	for deb in "$c.tmp"/tmp/dl/*.deb; do
		case $deb in
		*/linux-image-*) ;;
		*)	dpkg-deb -x "$deb" "$c.tmp" || skip "cannot extract $deb" ;;
		esac
	done
	abi=$(cat "$c.tmp/tmp/dl/abi")
	for fl in "" rt-; do
		dir=$cache/kernels/amd64-6.12${fl:+-rt}
		rm -rf "$dir" && mkdir -p "$dir/root" &&
			dpkg-deb --fsys-tarfile "$c.tmp"/tmp/dl/linux-image-"$abi-$fl"amd64_*.deb |
			tar -x -C "$dir/root" --wildcards './boot/vmlinuz-*' ||
			skip "cannot extract the ${fl}amd64 image into $dir"
	done
	rm -rf "$c.tmp/tmp/dl" "$c" && mv "$c.tmp" "$c" || skip "cannot write $c"
	echo "$trixie_pkgs" >"$c/ok"
}

row_trixie() {	# flavour: "" or "rt-"
	fl=$1
	trixie_chroot
	c=$cache/chroot-trixie
	dir=$cache/kernels/amd64-6.12${fl:+-rt}
	img=$(ls "$dir"/root/boot/vmlinuz-*-"$fl"amd64 2>/dev/null | tail -1)
	[ -n "$img" ] || skip "no 6.12 ${fl}amd64 image in $dir (delete $c to fetch again)"
	abi=${img##*/vmlinuz-}
	[ -d "$c/usr/src/linux-headers-$abi" ] ||
		skip "no headers for $abi in $c (delete $c to fetch again)"
	emit amd64 "$abi" "$img" "/usr/src/linux-headers-$abi" "$c" \
		"$(command -v busybox)" ""
}

case ${1:-} in
--rows)	echo "$rows"; exit 0 ;;
amd64-6.1|amd64-6.12|amd64-6.12-rt|arm64-6.1|arm64-6.1-rt|arm64-sysroot)
	row=$1 ;;
*)	echo "usage: $0 ROW ($rows) | --rows" >&2; exit 2 ;;
esac

mkdir -p "$cache/kernels" 2>/dev/null || skip "cannot create $cache"
# One fetcher at a time per kind of download (parallel runs share them).
case $row in
amd64-6.12*)	lock=trixie ;;
*)		lock=bookworm ;;
esac
exec 9>"$cache/.lock-$lock"
command -v flock >/dev/null && flock 9
case $row in
amd64-6.1)	row_host ;;
amd64-6.12)	row_trixie "" ;;
amd64-6.12-rt)	row_trixie rt- ;;
arm64-6.1)	row_arm64 "" ;;
arm64-6.1-rt)	row_arm64 rt- ;;
arm64-sysroot)	arm64_sysroot && echo "SYSROOT='$cache/arm64-sysroot'" ;;
esac
