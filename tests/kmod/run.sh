#!/bin/sh
# run.sh - make check-kmod: build bwreg for Debian's kernel, boot that
# kernel under qemu (TCG) with a busybox initramfs holding the module and
# the test programs, and parse the results from the serial console.
#
# Environment: top_srcdir, top_builddir (make sets them), QEMU, CC,
# KVER (Debian kernel version, default the newest with headers and image),
# BWREG_KEEP=1 keeps the work directory.
# Exit: 0 pass, 77 skip (missing tools), 1 fail; the outcome is also
# written to $top_builddir/tests/kmod/check-kmod.result, the guest's
# measurements (RESULT lines) to tests/kmod/results.txt.
set -u

srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-.}
QEMU=${QEMU:-qemu-system-x86_64}
CC=${CC:-cc}
work=$builddir/tests/kmod/work
result=$builddir/tests/kmod/check-kmod.result
mkdir -p "$builddir/tests/kmod"

skip() { echo "SKIP check-kmod: $*" | tee "$result"; exit 77; }
fail() { echo "FAIL check-kmod: $*" | tee "$result"; exit 1; }

if [ -z "${KVER:-}" ]; then
	for img in $(ls /boot/vmlinuz-*-amd64 2>/dev/null | sort -V -r); do
		v=${img#/boot/vmlinuz-}
		if [ -d "/usr/src/linux-headers-$v" ]; then
			KVER=$v
			break
		fi
	done
fi
[ -n "${KVER:-}" ] || skip "no Debian kernel image with headers (scripts/setup installs linux-image-amd64 linux-headers-amd64)"
kdir=/usr/src/linux-headers-$KVER
kimg=/boot/vmlinuz-$KVER
[ -r "$kimg" ] || skip "$kimg not readable"
command -v "$QEMU" >/dev/null 2>&1 || skip "no $QEMU"
command -v cpio >/dev/null 2>&1 || skip "no cpio"
busybox=$(command -v busybox) || skip "no busybox"
file -L "$busybox" 2>/dev/null | grep -q 'statically linked' ||
	[ -x /bin/busybox ] || skip "busybox is not static (install busybox-static)"

rm -rf "$work"
mkdir -p "$work/kmod" "$work/root" || fail "cannot create $work"

# The module, built for the guest kernel from a copy of the sources.
cp "$srcdir"/kmod/Kbuild "$srcdir"/kmod/*.c "$srcdir"/kmod/*.h "$work/kmod/" &&
	cp -r "$srcdir/kmod/uapi" "$work/kmod/" || fail "cannot copy kmod sources"
chmod -R u+w "$work/kmod"
make -C "$kdir" M="$(cd "$work/kmod" && pwd)" modules >"$work/kbuild.log" 2>&1 ||
	{ cat "$work/kbuild.log"; fail "module build against $kdir failed"; }
grep -E 'warning:' "$work/kbuild.log" && fail "module build has warnings"

# Static test programs.
cflags="-std=gnu11 -static -O2 -Wall -Wextra -I$srcdir/kmod/uapi -I$srcdir/daemon -I$srcdir/lib"
$CC $cflags -pthread -o "$work/root/bwtest" "$srcdir/tests/kmod/bwtest.c" \
	"$srcdir/daemon/reg_kmod.c" -lm || fail "cannot build bwtest"
$CC $cflags -pthread -o "$work/root/regtest" "$srcdir/tests/kmod/regtest.c" \
	"$srcdir/daemon/reg_kmod.c" -lm || fail "cannot build regtest"

# The image.
r=$work/root
mkdir -p "$r/bin" "$r/sbin" "$r/proc" "$r/sys" "$r/dev" "$r/tmp" "$r/lib"
cp "$busybox" "$r/bin/busybox"
for a in sh mount insmod rmmod dmesg grep poweroff echo cat sleep mkdir \
	uname ls kill ps taskset; do
	ln -s busybox "$r/bin/$a"
done
cp "$work/kmod/bwreg.ko" "$r/bwreg.ko"
cp "$srcdir/tests/kmod/init.sh" "$r/init"
chmod 755 "$r/init"

# The daemon end to end, once the daemon is built: bwsched, the
# lock-holding client and their shared libraries.
if [ -x "$builddir/daemon/bwsched" ] && [ -x "$builddir/tests/kmod/lockhold" ]
then
	cp "$builddir/daemon/bwsched" "$builddir/tests/kmod/lockhold" "$r/bin/"
	cp "$srcdir/tests/kmod/e2e.sh" "$r/e2e.sh"
	chmod 755 "$r/e2e.sh"
	mkdir -p "$r/etc" "$r/run"
	echo "root:x:0:0:root:/:/bin/sh" >"$r/etc/passwd"
	echo "root:x:0:" >"$r/etc/group"
	for lib in $(ldd "$r/bin/bwsched" "$r/bin/lockhold" 2>/dev/null |
		awk '/=>/ { print $3 } /^[[:space:]]*\// { print $1 }' |
		sort -u); do
		[ -f "$lib" ] || continue
		mkdir -p "$r$(dirname "$lib")"
		cp -L "$lib" "$r$lib"
	done
fi

(cd "$r" && find . | cpio -o -H newc 2>/dev/null | gzip -1) \
	>"$work/initramfs.cpio.gz" || fail "cannot build the initramfs"

log=$work/console.log
echo "booting $kimg under qemu TCG (log: $log)"
start=$(date +%s)
timeout 300 "$QEMU" -accel tcg -m 512M -smp 2 -nographic -no-reboot \
	-kernel "$kimg" -initrd "$work/initramfs.cpio.gz" \
	-append "console=ttyS0 panic=-1 loglevel=4 quiet" \
	</dev/null >"$log" 2>&1
rc=$?
secs=$(( $(date +%s) - start ))
tr -d '\r' <"$log" >"$log.txt"
grep -E '^(PASS|FAIL|SKIP|RESULT|retry|bwtest|regtest)' "$log.txt"
{
	echo "bwreg.ko on Linux $KVER, qemu TCG -smp 2 (emulated: times are not hardware times)"
	sed -n 's/^RESULT //p' "$log.txt"
} >"$builddir/tests/kmod/results.txt"
[ $rc -eq 124 ] && fail "qemu timed out after 300 s"
grep -q '^BWTEST-END' "$log.txt" ||
	{ tail -40 "$log.txt"; fail "guest did not finish (qemu exit $rc)"; }
npass=$(grep -c '^PASS' "$log.txt")
nfail=$(grep -c '^FAIL' "$log.txt")
# checks whose window the regulated CPU mostly missed (a loaded host)
nstarved=$(grep -c '^SKIP .*: starved guest' "$log.txt")
if [ "$nfail" -ne 0 ] || [ "$npass" -lt 50 ]; then
	sed -n '/^--- bwreg/,/^---$/p' "$log.txt"
	fail "$nfail failed, $npass passed"
fi
[ "$nstarved" -lt 5 ] ||
	skip "the guest was starved by a loaded host: $nstarved checks could not be judged ($npass passed, none failed); run again on a quieter machine"
starved_note=
[ "$nstarved" -eq 0 ] || starved_note=" ($nstarved skipped: starved guest)"
if grep -q '^PASS daemon-e2e-regulates' "$log.txt"; then
	e2e="bwsched --regulator=kmod regulated CPU 1 while a client held the lock"
else
	e2e="daemon end to end skipped: $(grep '^SKIP daemon-e2e' "$log.txt" |
		sed 's/^SKIP daemon-e2e: //')"
fi
[ "${BWREG_KEEP:-0}" = 1 ] || rm -rf "$work"
echo "check-kmod: PASS - bwreg.ko for Linux $KVER in qemu TCG ($secs s): $npass checks passed$starved_note: validation, device permissions, missing PMU error, mmap, throttle under a small budget, free under unlimited, TFS charge and nice penalty, TFS fairness with a page-fault budget, TFS penalty of a migrating task and after unload, plans (entry 0, look-ahead, refused, withdrawn, malformed), lock slots (files, mapping rules, revocation, dyn, kick), stale overflows, heartbeat fail-safe and resume, CPU hotplug, stop, reg_kmod backend, load-time parameters, rmmod while throttling, clean dmesg; $e2e" |
	tee "$result"
echo "measurements (tests/kmod/results.txt):"
cat "$builddir/tests/kmod/results.txt"
exit 0
