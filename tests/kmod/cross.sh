#!/bin/sh
# cross.sh - cross-build the userspace the arm64 guest runs (the daemon
# and the lock-holding client of tests/kmod/e2e.sh) for aarch64, in
# BUILDDIR (default ./cross-arm64), against the arm64 libev and msgpack-c
# that kernels.sh fetches into the cache (no libsystemd: the guest has
# no systemd).  Configures once, rebuilds what changed.
# Exit: 0 built, 77 when the sysroot cannot be fetched or the cross
# compiler is missing, 1 when the build fails.
set -u
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-cross-arm64}
host=aarch64-linux-gnu

command -v $host-gcc >/dev/null ||
	{ echo "SKIP: no $host-gcc (scripts/setup installs gcc-aarch64-linux-gnu)"; exit 77; }
sr=$(sh "$srcdir/tests/kmod/kernels.sh" arm64-sysroot)
case $? in
0)	eval "$sr" ;;
77)	echo "$sr"; exit 77 ;;
*)	echo "$sr"; exit 1 ;;
esac
lib=$SYSROOT/usr/lib/$host
[ -x "$srcdir/configure" ] || "$srcdir/bootstrap" || exit 1
mkdir -p "$out" && cd "$out" || exit 1
if [ ! -f Makefile ]; then
	"$srcdir/configure" -q --host=$host --without-systemd --with-cuda=no \
		CPPFLAGS="-I$SYSROOT/usr/include" \
		LDFLAGS="-L$lib -Wl,-rpath-link,$lib" \
		PKG_CONFIG=pkg-config PKG_CONFIG_PATH= \
		PKG_CONFIG_LIBDIR="$lib/pkgconfig" \
		PKG_CONFIG_SYSROOT_DIR="$SYSROOT" >configure.out 2>&1 ||
		{ cat configure.out; rm -f Makefile; exit 1; }
fi
make -j2 daemon/bwsched tests/kmod/lockhold >make.out 2>&1 ||
	{ cat make.out; exit 1; }
file daemon/bwsched | grep -q 'ARM aarch64' ||
	{ echo "cross.sh: daemon/bwsched is not an aarch64 binary"; exit 1; }
echo "cross.sh: bwsched and lockhold for $host in $(pwd)"
