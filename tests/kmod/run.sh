#!/bin/sh
# run.sh - one kernel of the module test matrix (tests/kmod/matrix.sh runs
# the rows): build bwreg for that kernel, boot it under qemu (TCG) with a
# busybox initramfs holding the module and the guest programs, and parse
# the results from the serial console.  The guest's init is init.sh.
#
# Environment: top_srcdir, top_builddir (make sets them); KROW, the row
# (tests/kmod/kernels.sh --rows; default amd64-6.1) and what kernels.sh
# prints for it (KARCH KVER KIMG KDIR KCHROOT BUSYBOX SYSROOT; fetched
# when KIMG is unset); CC (amd64 guest programs), CROSS_COMPILE (arm64,
# default aarch64-linux-gnu-), ARM64_BUILD (a build tree configured with
# --host=aarch64-linux-gnu holding daemon/bwsched and tests/kmod/lockhold,
# for the daemon end to end on arm64), BWREG_KEEP=1 keeps the work
# directory, KMOD_TIMEOUT (seconds, default 600), KMOD_NICE (niceness of
# qemu, default 0: a niced guest on a busy host misses its periods).
# The last line is "check-kmod ROW: PASS|FAIL|SKIP - details".
# Exit: 0 pass, 77 skip (missing tool or kernel), 1 fail.
set -u

srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-.}
builddir=$(cd "$builddir" && pwd)
KROW=${KROW:-amd64-6.1}
CC=${CC:-cc}
CROSS_COMPILE=${CROSS_COMPILE:-aarch64-linux-gnu-}
work=$builddir/tests/kmod/work-$KROW

skip() { echo "check-kmod $KROW: SKIP - $*"; exit 77; }
fail() { echo "check-kmod $KROW: FAIL - $*"; exit 1; }

if [ -z "${KIMG:-}" ]; then
	out=$(sh "$srcdir/tests/kmod/kernels.sh" "$KROW")
	case $? in
	0)	eval "$out" ;;
	77)	skip "${out#SKIP: }" ;;
	*)	fail "kernels.sh $KROW: $out" ;;
	esac
fi

case $KARCH in
amd64)
	QEMU=${QEMU:-qemu-system-x86_64}
	qargs="-accel tcg -m 512M -smp 2"
	console=ttyS0
	gcc=$CC
	# The software cpu-clock: TCG emulates no x86 PMU.
	event=1:0
	;;
arm64)
	QEMU=${QEMU_ARM64:-qemu-system-aarch64}
	# -cpu max brings the emulated PMUv3; pauth-impdef keeps TCG fast.
	qargs="-accel tcg -M virt -cpu max,pauth-impdef=on -m 512M -smp 2"
	console=ttyAMA0
	gcc=${CROSS_COMPILE}gcc
	# Raw 0x11 CPU_CYCLES on the armv8_pmuv3 PMU: the hardware overflow
	# interrupt path (QEMU models no memory events; its cycle counter
	# runs at 1 GHz of virtual time).
	event=4:0x11
	kmake="ARCH=arm64"
	[ "$(uname -m)" = aarch64 ] || kmake="$kmake CROSS_COMPILE=$CROSS_COMPILE"
	;;
*)	fail "unknown architecture '$KARCH'" ;;
esac

[ -r "$KIMG" ] || skip "$KIMG not readable"
command -v "$QEMU" >/dev/null 2>&1 || skip "no $QEMU (scripts/setup installs it)"
command -v "$gcc" >/dev/null 2>&1 || skip "no $gcc (scripts/setup installs it)"
command -v cpio >/dev/null 2>&1 || skip "no cpio"
[ -n "$BUSYBOX" ] && [ -x "$BUSYBOX" ] || skip "no busybox for $KARCH"
file -L "$BUSYBOX" 2>/dev/null | grep -q 'statically linked' ||
	skip "$BUSYBOX is not static (install busybox-static)"

rm -rf "$work"
mkdir -p "$work/kmod" "$work/root" || fail "cannot create $work"

# The module, built with W=1 for the guest kernel from a copy of the
# sources: in the row's chroot (Debian 13's compiler), cross or native.
cp "$srcdir"/kmod/Kbuild "$srcdir"/kmod/*.c "$srcdir"/kmod/*.h "$work/kmod/" &&
	cp -r "$srcdir/kmod/uapi" "$work/kmod/" || fail "cannot copy kmod sources"
chmod -R u+w "$work/kmod"
if [ -n "$KCHROOT" ]; then
	cdir=/tmp/bwreg-$KROW-$$
	rm -rf "$KCHROOT$cdir" && cp -r "$work/kmod" "$KCHROOT$cdir" &&
		chroot "$KCHROOT" make -C "$KDIR" M="$cdir" W=1 modules \
		>"$work/kbuild.log" 2>&1 &&
		cp "$KCHROOT$cdir/bwreg.ko" "$work/kmod/"
	rc=$?
	rm -rf "${KCHROOT:?}$cdir"
else
	# shellcheck disable=SC2086
	make -C "$KDIR" ${kmake:-} M="$work/kmod" W=1 modules \
		>"$work/kbuild.log" 2>&1
	rc=$?
fi
[ $rc -eq 0 ] || { cat "$work/kbuild.log"; fail "module build against $KDIR failed"; }
grep -E 'warning:' "$work/kbuild.log" && fail "module build has warnings (W=1)"

# Kernel facts for the report: preemption model, lockdep, fair class.
kconfig=${KCHROOT}$KDIR/.config
kconf() { grep -q "^$1=y" "$kconfig" 2>/dev/null; }
rt=no
kconf CONFIG_PREEMPT_RT && rt=yes
lockdep="lockdep off (CONFIG_PROVE_LOCKING is not set in this kernel)"
kconf CONFIG_PROVE_LOCKING && lockdep="lockdep on"

# Static guest programs.
cflags="-std=gnu11 -static -O2 -Wall -Wextra -I$srcdir/kmod/uapi -I$srcdir/daemon -I$srcdir/lib"
r=$work/root
for p in bwtest thrlat; do
	$gcc $cflags -o "$r/$p" "$srcdir/tests/kmod/$p.c" ||
		fail "cannot build $p for $KARCH"
done
$gcc $cflags -o "$r/regtest" "$srcdir/tests/kmod/regtest.c" \
	"$srcdir/daemon/reg_kmod.c" -lm || fail "cannot build regtest"

# The image.
mkdir -p "$r/bin" "$r/sbin" "$r/proc" "$r/sys" "$r/dev" "$r/tmp" "$r/lib"
cp "$BUSYBOX" "$r/bin/busybox"
for a in sh mount insmod rmmod dmesg grep poweroff echo cat sleep mkdir \
	uname ls kill ps taskset wait; do
	ln -s busybox "$r/bin/$a"
done
cp "$work/kmod/bwreg.ko" "$r/bwreg.ko"
cp "$srcdir/tests/kmod/init.sh" "$r/init"
chmod 755 "$r/init"

# Copy a program's shared libraries (and their libraries) and its loader
# into the image, searching the directories given.
readelf=readelf
[ "$KARCH" = arm64 ] && command -v "${CROSS_COMPILE}readelf" >/dev/null &&
	readelf=${CROSS_COMPILE}readelf
copy_libs() {	# binary dir...
	bin=$1
	shift
	interp=$($readelf -l "$bin" | sed -n 's/.*interpreter: \(.*\)]/\1/p')
	if [ -n "$interp" ] && [ ! -e "$r$interp" ]; then
		for d in "$@"; do
			[ -e "$d/${interp##*/}" ] || continue
			mkdir -p "$r${interp%/*}"
			cp -L "$d/${interp##*/}" "$r$interp"
			break
		done
	fi
	for lib in $($readelf -d "$bin" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
		[ -e "$r/lib/$lib" ] && continue
		for d in "$@"; do
			[ -e "$d/$lib" ] || continue
			cp -L "$d/$lib" "$r/lib/$lib" && copy_libs "$r/lib/$lib" "$@"
			break
		done
		[ -e "$r/lib/$lib" ] || echo "run.sh: $lib of $bin not found" >&2
	done
}

# The daemon end to end, once a daemon for this architecture is built:
# bwsched, the lock-holding client and their shared libraries.
ub=
if [ "$KARCH" = amd64 ]; then
	ub=$builddir
	libdirs="/lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib64"
else
	ub=${ARM64_BUILD:-}
	libdirs="$SYSROOT/usr/lib/aarch64-linux-gnu /usr/aarch64-linux-gnu/lib"
fi
e2e_note="no daemon built for $KARCH"
if [ -n "$ub" ] && [ -x "$ub/daemon/bwsched" ] && [ -x "$ub/tests/kmod/lockhold" ]
then
	cp "$ub/daemon/bwsched" "$ub/tests/kmod/lockhold" "$r/bin/"
	cp "$srcdir/tests/kmod/e2e.sh" "$r/e2e.sh"
	chmod 755 "$r/e2e.sh"
	mkdir -p "$r/etc" "$r/run"
	echo "root:x:0:0:root:/:/bin/sh" >"$r/etc/passwd"
	echo "root:x:0:" >"$r/etc/group"
	# shellcheck disable=SC2086
	copy_libs "$r/bin/bwsched" $libdirs
	# shellcheck disable=SC2086
	copy_libs "$r/bin/lockhold" $libdirs
fi

(cd "$r" && find . | cpio -o -H newc 2>/dev/null | gzip -1) \
	>"$work/initramfs.cpio.gz" || fail "cannot build the initramfs"

log=$work/console.log
tmo=${KMOD_TIMEOUT:-600}
echo "check-kmod $KROW: booting $KIMG ($KVER) under $QEMU TCG (log: $log)"
start=$(date +%s)
# Assignments on the command line become the environment of init.
# shellcheck disable=SC2086
timeout "$tmo" nice -n "${KMOD_NICE:-0}" "$QEMU" $qargs -nographic -no-reboot \
	-kernel "$KIMG" -initrd "$work/initramfs.cpio.gz" \
	-append "console=$console panic=-1 loglevel=4 quiet BWTEST_EVENT=$event BWTEST_ROW=$KROW" \
	</dev/null >"$log" 2>&1
rc=$?
secs=$(( $(date +%s) - start ))
tr -d '\r' <"$log" >"$log.txt"
grep -E '^(PASS|FAIL|SKIP|LATENCY|bwtest|regtest|tfs round)|BWTEST-START' "$log.txt" |
	sed "s/^/[$KROW] /"
[ $rc -eq 124 ] && { tail -40 "$log.txt"; fail "qemu timed out after $tmo s"; }
grep -q '^BWTEST-END' "$log.txt" ||
	{ tail -40 "$log.txt"; fail "guest did not finish (qemu exit $rc)"; }
npass=$(grep -c '^PASS' "$log.txt")
nfail=$(grep -c '^FAIL' "$log.txt")
# The RT row must really run a PREEMPT_RT kernel.
if [ $rt = yes ] && ! grep -q 'BWTEST-START.*PREEMPT_RT' "$log.txt"; then
	nfail=$((nfail + 1))
	echo "[$KROW] FAIL preempt-rt: the guest kernel does not report PREEMPT_RT"
fi
if [ "$nfail" -ne 0 ] || [ "$npass" -lt 50 ]; then
	sed -n '/^--- bwreg/,/^---$/p' "$log.txt"
	fail "$nfail failed, $npass passed ($KVER, $secs s)"
fi
if grep -q '^PASS daemon-e2e-regulates' "$log.txt"; then
	e2e="bwsched --regulator=kmod regulated CPU 1 while a client held the lock"
elif grep -q '^SKIP daemon-e2e' "$log.txt"; then
	e2e="daemon end to end skipped: $(grep '^SKIP daemon-e2e' "$log.txt" |
		head -1 | sed 's/^SKIP daemon-e2e: //')"
else
	e2e="daemon end to end skipped: $e2e_note"
fi
class=$(sed -n 's/.*bwreg: version.*fair class \([A-Z]*\).*/\1/p' "$log.txt" | head -1)
lat=$(sed -n "s/^LATENCY //p" "$log.txt" | tr "\n" " ")
[ "${BWREG_KEEP:-0}" = 1 ] || rm -rf "$work"
echo "check-kmod $KROW: PASS - $npass checks on Linux $KVER ($KARCH, fair class ${class:-?}, PREEMPT_RT $rt, $lockdep), event $event, $secs s in qemu; $e2e${lat:+; latency: $lat}"
exit 0
