#!/bin/sh
# cross.sh - cross-build the userspace the arm64 guest runs (the daemon
# and the lock-holding client of tests/kmod/e2e.sh) for aarch64 in the
# arm64 chroot that kernels.sh keeps in the cache (Debian 12's cross gcc
# and arm64 libev and msgpack-c through multiarch; no libsystemd: the
# guest has no systemd), and copy them into OUT (default ./cross-arm64).
# The sources are copied into the chroot with their times and the build
# directory there is kept, so a second run only rebuilds what changed.
# Exit: 0 built, 77 when the chroot cannot be made, 1 when the build fails.
set -u
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-cross-arm64}
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 1

ch=$(sh "$srcdir/tests/kmod/kernels.sh" arm64-chroot)
case $? in
0)	eval "$ch" ;;
77)	echo "$ch"; exit 77 ;;
*)	echo "$ch"; exit 1 ;;
esac
[ -x "$srcdir/configure" ] || "$srcdir/bootstrap" || exit 1

# One build directory in the chroot per output directory.
id=$(echo "$out" | cksum | cut -d' ' -f1)
cb=/tmp/bwsched-cross-$id
mkdir -p "$KCHROOT$cb/src" "$KCHROOT$cb/build" || exit 1
# Every configured build tree (config.status) and the git data stay out.
tar -C "$srcdir" --exclude=./.git --exclude-tag-all=config.status -cf - . |
	tar -C "$KCHROOT$cb/src" -xf - || exit 1
lib=/usr/lib/aarch64-linux-gnu
chroot "$KCHROOT" sh -c "cd $cb/build && { test -f Makefile ||
	../src/configure -q --host=aarch64-linux-gnu --without-systemd \
		--with-cuda=no PKG_CONFIG=pkg-config PKG_CONFIG_PATH= \
		PKG_CONFIG_LIBDIR=$lib/pkgconfig; } >configure.out 2>&1 ||
	{ cat configure.out; rm -f Makefile; exit 1; }
	make -j2 daemon/bwsched tests/kmod/lockhold >make.out 2>&1 ||
	{ cat make.out; exit 1; }" || exit 1
mkdir -p "$out/daemon" "$out/tests/kmod" &&
	cp "$KCHROOT$cb/build/daemon/bwsched" "$out/daemon/" &&
	cp "$KCHROOT$cb/build/tests/kmod/lockhold" "$out/tests/kmod/" || exit 1
file "$out/daemon/bwsched" | grep -q 'ARM aarch64' ||
	{ echo "cross.sh: daemon/bwsched is not an aarch64 binary"; exit 1; }
echo "cross.sh: bwsched and lockhold for aarch64 in $out (built in $KCHROOT$cb)"
