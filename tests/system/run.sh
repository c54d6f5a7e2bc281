#!/bin/sh
# run.sh - make check-system: the whole stack as an operator runs it.
# Builds the Debian packages (scripts/package, unless BWSCHED_PKGDIR names
# a directory of them already built), boots a Debian 12 machine with
# systemd as PID 1 under qemu (the image comes from mkimage.sh and is
# cached), and there installs the packages and runs the operator steps
# of guest.sh.  The transcript of those steps is printed and kept in
# tests/system/transcript.txt of the build tree.  doc/system-test.md
# says what is covered and how to run one step by hand.
#
# Environment: top_srcdir, top_builddir (make sets them), QEMU,
# BWSCHED_CACHE_DIR (default /var/tmp/bwsched-cache; this test uses its
# rootfs-bookworm/ subdirectory, safe to delete), BWSCHED_PKGDIR,
# BWSCHED_SYSTEST_TIMEOUT (seconds for the machine, default 3600: a
# ceiling for a machine shared with other work, not the usual time),
# BWSCHED_KEEP=1 keeps the work directory.
# Exit: 0 pass, 77 skip (missing tools or not root), 1 fail.
set -u

srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-.}
builddir=$(cd "$builddir" && pwd)
QEMU=${QEMU:-qemu-system-x86_64}
[ -n "$QEMU" ] || QEMU=qemu-system-x86_64
cache=${BWSCHED_CACHE_DIR:-/var/tmp/bwsched-cache}/rootfs-bookworm
work=$builddir/tests/system/work
here=$srcdir/tests/system

skip() { echo "SKIP check-system: $*"; exit 77; }
fail() { echo "FAIL check-system: $*"; exit 1; }
took() { echo "check-system: $1 took $(( $(date +%s) - $2 )) s"; }

[ "$(id -u)" -eq 0 ] || skip "needs root (mmdebstrap --mode=root, the image's owners)"
[ "$(uname -m)" = x86_64 ] || skip "the test machine is x86_64, this host is $(uname -m)"
for t in mmdebstrap mke2fs dpkg-buildpackage lintian flock "$QEMU"; do
	command -v "$t" >/dev/null 2>&1 ||
		skip "no $t (scripts/setup installs mmdebstrap e2fsprogs dpkg-dev lintian qemu-system-x86)"
done
demo=$builddir/examples/.libs/demo_gpu
[ -x "$demo" ] || demo=$builddir/examples/demo_gpu
[ -x "$demo" ] || fail "no examples/demo_gpu in $builddir: build first"

# 1. The packages.
if [ -n "${BWSCHED_PKGDIR:-}" ]; then
	pkgdir=$BWSCHED_PKGDIR
else
	pkgdir=$builddir/packages
	t=$(date +%s)
	"$srcdir/scripts/package" "$pkgdir" >"$builddir/tests/system-package.log" 2>&1 ||
		{ tail -40 "$builddir/tests/system-package.log"; fail "scripts/package failed"; }
	took "scripts/package" "$t"
fi
ls "$pkgdir"/*.deb >/dev/null 2>&1 || fail "no .deb in $pkgdir"

# 2. The machine's image, made once per version of its recipe.  The lock
# on the cache is exclusive to make one (which deletes the others) and
# shared while a machine boots one.
key=$(cat "$here/mkimage.sh" "$here/systest.service" | sha256sum | cut -c1-16)
img=$cache/$key
mkdir -p "$cache" || fail "cannot create $cache"
exec 9>"$cache/.lock"
flock 9
if [ ! -f "$img/rootfs.ext4" ]; then
	# older recipes' images are of no use any more
	find "$cache" -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} +
	t=$(date +%s)
	echo "check-system: making the Debian 12 image in $img (mmdebstrap, a few minutes)"
	nice -n 10 "$here/mkimage.sh" "$img" >"$cache/mkimage.log" 2>&1 ||
		{ tail -30 "$cache/mkimage.log"; fail "mkimage.sh failed (log: $cache/mkimage.log)"; }
	took "the image" "$t"
fi
flock -s 9
echo "check-system: image $img: $(tr '\n' ' ' <"$img/manifest")"

# 3. The payload disk: the packages, the test and its programs.
rm -rf "$work"
mkdir -p "$work/payload/debs" "$work/payload/bin" || fail "cannot create $work"
# (the -dbgsym packages stay out)
find "$pkgdir" -maxdepth 1 -name '*.deb' ! -name '*-dbgsym_*' \
	-exec cp -t "$work/payload/debs/" {} + &&
	cp "$here/guest.sh" "$here/holdlock.c" "$work/payload/" &&
	cp "$demo" "$work/payload/bin/demo_gpu" &&
	cp "$srcdir/examples/histo.bwk" "$work/payload/bin/" ||
	fail "cannot fill the payload"
mke2fs -q -t ext4 -L payload -d "$work/payload" "$work/payload.ext4" 256M ||
	fail "cannot make the payload disk"

# 4. Boot: the root disk is a snapshot (writes are thrown away), the
# console on the first serial port, the transcript on the second.
echo "check-system: booting the machine under qemu (console: $work/console.log)"
t=$(date +%s)
# TCG unless told otherwise: nested KVM (a /dev/kvm inside a VM) can hang
# the guest before its first console line, as the kernel tests found.
timeout "${BWSCHED_SYSTEST_TIMEOUT:-3600}" nice -n 10 "$QEMU" \
	-accel "${BWSCHED_QEMU_ACCEL:-tcg}" -m 2048 -smp 2 \
	-display none -monitor none -no-reboot -nic none \
	-kernel "$img/vmlinuz" -initrd "$img/initrd.img" \
	-append "root=/dev/vda rw console=ttyS0 panic=-1 quiet systemd.show_status=0" \
	-drive file="$img/rootfs.ext4",format=raw,if=virtio,snapshot=on \
	-drive file="$work/payload.ext4",format=raw,if=virtio \
	-serial file:"$work/console.log" -serial file:"$work/transcript.log" \
	</dev/null >"$work/qemu.log" 2>&1
rc=$?
secs=$(( $(date +%s) - t ))
tr -d '\r' <"$work/transcript.log" >"$builddir/tests/system/transcript.txt"
tr=$builddir/tests/system/transcript.txt
cat "$tr"
echo "check-system: the machine ran $secs s"

# 5. The verdict.
[ $rc -eq 124 ] && { tail -30 "$work/console.log"; fail "qemu timed out"; }
grep -q '^SYSTEST-START' "$tr" ||
	{ cat "$work/qemu.log"; tail -60 "$work/console.log"; fail "the test did not start (qemu exit $rc)"; }
grep -q '^SYSTEST-END' "$tr" ||
	{ tail -60 "$work/console.log"; fail "the test did not finish (qemu exit $rc)"; }
npass=$(grep -c '^PASS' "$tr")
nfail=$(grep -c '^FAIL' "$tr")
if [ "$nfail" -ne 0 ] || [ "$npass" -lt 20 ]; then
	grep '^FAIL' "$tr"
	fail "$nfail failed, $npass passed (console: $work/console.log)"
fi
[ "${BWSCHED_KEEP:-0}" = 1 ] || rm -rf "$work"
echo "check-system: PASS - $npass operator checks in a Debian 12 machine with systemd as PID 1 ($secs s): install with DKMS, socket activation, unprivileged client, journal records, reload, kmod regulation under the shipped unit, watchdog restart with the heartbeat fail-safe, stop, remove"
exit 0
