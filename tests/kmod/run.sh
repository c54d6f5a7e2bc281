#!/bin/sh
# run.sh - one kernel of the module test matrix (tests/kmod/matrix.sh runs
# the rows): build bwreg for that kernel, boot it under qemu (TCG) with a
# busybox initramfs holding the module and the guest programs, and parse
# the results from the serial console.  The guest's init is init.sh.
#
# Environment: top_srcdir, top_builddir (make sets them); KROW, the row
# (tests/kmod/kernels.sh --rows; default amd64-6.1) and what kernels.sh
# prints for it (KARCH KVER KIMG KDIR KCHROOT BUSYBOX; fetched when KIMG
# is unset); CC (guest programs for the host's kernel), ARM64_BUILD (a
# directory holding daemon/bwsched and tests/kmod/lockhold cross-built by
# cross.sh, for the daemon end to end on arm64), BWREG_KEEP=1 keeps the work
# directory, KMOD_TIMEOUT (seconds, default 600), KMOD_NICE (niceness of
# qemu, default 0: a niced guest on a busy host misses its periods).
# The last line is "check-kmod ROW: PASS|FAIL|SKIP - details"; the
# guest's measurements (RESULT lines) go to tests/kmod/results-ROW.txt.
# Exit: 0 pass, 77 skip (missing tool or kernel), 1 fail.
set -u

srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-.}
builddir=$(cd "$builddir" && pwd)
KROW=${KROW:-amd64-6.1}
CC=${CC:-cc}
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
	kmake=
	# The software cpu-clock: TCG emulates no x86 PMU.
	event=1:0
	;;
arm64)
	QEMU=${QEMU_ARM64:-qemu-system-aarch64}
	# -cpu max brings the emulated PMUv3; pauth-impdef keeps TCG fast.
	qargs="-accel tcg -M virt -cpu max,pauth-impdef=on -m 512M -smp 2"
	console=ttyAMA0
	gcc=aarch64-linux-gnu-gcc
	kmake="ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-"
	# Raw 0x11 CPU_CYCLES on the armv8_pmuv3 PMU: the hardware overflow
	# interrupt path (QEMU models no memory events; its cycle counter
	# runs at 1 GHz of virtual time).
	event=4:0x11
	;;
*)	fail "unknown architecture '$KARCH'" ;;
esac

[ -r "$KIMG" ] || skip "$KIMG not readable"
command -v "$QEMU" >/dev/null 2>&1 || skip "no $QEMU (scripts/setup installs it)"
command -v cpio >/dev/null 2>&1 || skip "no cpio"
[ -n "$BUSYBOX" ] && [ -x "$BUSYBOX" ] || skip "no busybox for $KARCH"
file -L "$BUSYBOX" 2>/dev/null | grep -q 'statically linked' ||
	skip "$BUSYBOX is not static (install busybox-static)"

rm -rf "$work"
mkdir -p "$work/root" || fail "cannot create $work"

# The module (W=1) and the static guest programs are built from a copy of
# the sources in the row's chroot (Debian 13's compiler; Debian 12's arm64
# cross compiler), or on the host for its own kernel.
if [ -n "$KCHROOT" ]; then
	bdir=/tmp/bwreg-$KROW-$$
	host_bdir=$KCHROOT$bdir
	in_build() { chroot "$KCHROOT" sh -c "cd $bdir && $*"; }
else
	bdir=$work/build
	host_bdir=$bdir
	in_build() { (cd "$bdir" && sh -c "$*"); }
fi
rm -rf "$host_bdir"
mkdir -p "$host_bdir/kmod" "$host_bdir/tests/kmod" "$host_bdir/daemon" &&
	cp "$srcdir"/kmod/Kbuild "$srcdir"/kmod/*.c "$srcdir"/kmod/*.h \
	"$host_bdir/kmod/" && cp -r "$srcdir/kmod/uapi" "$host_bdir/kmod/" &&
	cp "$srcdir"/tests/kmod/*.[ch] "$host_bdir/tests/kmod/" &&
	cp "$srcdir"/daemon/reg_kmod.c "$srcdir"/daemon/*.h "$host_bdir/daemon/" &&
	cp -r "$srcdir/lib" "$host_bdir/" && chmod -R u+w "$host_bdir" ||
	fail "cannot copy the sources to $host_bdir"
cleanup() { rm -rf "$host_bdir"; }
trap cleanup EXIT
in_build make -C "$KDIR" $kmake M="$bdir/kmod" W=1 modules \
	>"$work/kbuild.log" 2>&1 ||
	{ cat "$work/kbuild.log"; fail "module build against $KDIR failed"; }
grep -E 'warning:' "$work/kbuild.log" && fail "module build has warnings (W=1)"
cp "$host_bdir/kmod/bwreg.ko" "$work/" || fail "no bwreg.ko"

# Static programs do not depend on the kernel: amd64 ones are built on the
# host, arm64 ones in the arm64 chroot.
prog_build() {
	if [ "$KARCH" = arm64 ]; then
		in_build "$@"
	else
		(cd "$host_bdir" && sh -c "$*")
	fi
}
cflags="-std=gnu11 -static -O2 -Wall -Wextra -Ikmod/uapi -Idaemon -Ilib"
r=$work/root
prog_build "$gcc" $cflags -o thrlat tests/kmod/thrlat.c >>"$work/cc.log" 2>&1 ||
	{ cat "$work/cc.log"; fail "cannot build thrlat for $KARCH"; }
# bwtest and regtest drive the module through the daemon's backend
for p in bwtest regtest; do
	prog_build "$gcc" $cflags -pthread -o "$p" "tests/kmod/$p.c" \
	    daemon/reg_kmod.c -lm >>"$work/cc.log" 2>&1 ||
		{ cat "$work/cc.log"; fail "cannot build $p for $KARCH"; }
done
cp "$host_bdir/bwtest" "$host_bdir/thrlat" "$host_bdir/regtest" "$r/" ||
	fail "cannot copy the guest programs"

# Kernel facts for the report: preemption model, lockdep, fair class.
kconfig=${KCHROOT}$KDIR/.config
kconf() { grep -q "^$1=y" "$kconfig" 2>/dev/null; }
rt=no
kconf CONFIG_PREEMPT_RT && rt=yes
lockdep="lockdep off (CONFIG_PROVE_LOCKING is not set in this kernel)"
kconf CONFIG_PROVE_LOCKING && lockdep="lockdep on"

# The image.
mkdir -p "$r/bin" "$r/sbin" "$r/proc" "$r/sys" "$r/dev" "$r/tmp" "$r/lib"
cp "$BUSYBOX" "$r/bin/busybox"
for a in sh mount insmod rmmod dmesg grep poweroff echo cat sleep mkdir \
	uname ls kill ps taskset; do
	ln -s busybox "$r/bin/$a"
done
cp "$work/bwreg.ko" "$r/bwreg.ko"
cp "$srcdir/tests/kmod/init.sh" "$r/init"
chmod 755 "$r/init"

# Copy a program's shared libraries (and their libraries) and its loader
# into the image, searching the directories given.
copy_libs() {	# binary dir...
	bin=$1
	shift
	interp=$(readelf -l "$bin" | sed -n 's/.*interpreter: \(.*\)]/\1/p')
	if [ -n "$interp" ] && [ ! -e "$r$interp" ]; then
		for d in "$@"; do
			[ -e "$d/${interp##*/}" ] || continue
			mkdir -p "$r${interp%/*}"
			cp -L "$d/${interp##*/}" "$r$interp"
			break
		done
	fi
	for lib in $(readelf -d "$bin" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
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
	libdirs="$KCHROOT/lib/aarch64-linux-gnu $KCHROOT/usr/lib/aarch64-linux-gnu"
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
grep -E '^(PASS|FAIL|SKIP|LATENCY|RESULT|retry|bwtest|regtest|tfs round)|BWTEST-START' "$log.txt" |
	sed "s/^/[$KROW] /"
{
	echo "bwreg.ko on Linux $KVER ($KARCH), qemu TCG (emulated: times are not hardware times)"
	sed -n 's/^RESULT //p' "$log.txt"
} >"$builddir/tests/kmod/results-$KROW.txt"
[ $rc -eq 124 ] && { tail -40 "$log.txt"; fail "qemu timed out after $tmo s"; }
if ! grep -q '^BWTEST-END' "$log.txt"; then
	tail -40 "$log.txt"
	oops=$(grep -m1 -E 'Oops|BUG:|Kernel panic' "$log.txt" | sed 's/^\[[ 0-9.]*\] //')
	fail "guest did not finish (qemu exit $rc)${oops:+: the kernel crashed: $oops}"
fi
npass=$(grep -c '^PASS' "$log.txt")
nfail=$(grep -c '^FAIL' "$log.txt")
# checks whose window the regulated CPU mostly missed (a loaded host)
nstarved=$(grep -c '^SKIP .*: starved guest' "$log.txt")
# The RT row must really run a PREEMPT_RT kernel.
if [ $rt = yes ] && ! grep -q 'BWTEST-START.*PREEMPT_RT' "$log.txt"; then
	nfail=$((nfail + 1))
	echo "[$KROW] FAIL preempt-rt: the guest kernel does not report PREEMPT_RT"
fi
if [ "$nfail" -ne 0 ] || [ "$npass" -lt 50 ]; then
	sed -n '/^--- bwreg/,/^---$/p' "$log.txt"
	fail "$nfail failed, $npass passed ($KVER, $secs s)"
fi
[ "$nstarved" -lt 5 ] ||
	skip "the guest was starved by a loaded host: $nstarved checks could not be judged ($npass passed, none failed); run again on a quieter machine"
starved_note=
[ "$nstarved" -eq 0 ] || starved_note=" ($nstarved skipped: starved guest)"
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
echo "check-kmod $KROW: PASS - $npass checks$starved_note on Linux $KVER ($KARCH, fair class ${class:-?}, PREEMPT_RT $rt, $lockdep), event $event, $secs s in qemu; $e2e${lat:+; latency: $lat}"
echo "measurements (tests/kmod/results-$KROW.txt):"
sed 's/^/  /' "$builddir/tests/kmod/results-$KROW.txt"
exit 0
