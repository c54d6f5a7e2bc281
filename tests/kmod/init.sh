#!/bin/sh
# init of the bwreg test guest (tests/kmod/run.sh): load the module, run
# the checks, unload, inspect dmesg, power off.  The host parses the
# PASS/FAIL lines from the console.
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /tmp /run
echo "BWTEST-START $(uname -r) cpus=$(grep -c ^processor /proc/cpuinfo)"
echo 1 > /proc/sys/kernel/printk_ratelimit 2>/dev/null

if insmod /bwreg.ko; then
	echo "PASS insmod"
else
	echo "FAIL insmod"
fi
[ -c /dev/bwreg ] && echo "PASS devnode" || echo "FAIL devnode: no /dev/bwreg"

/bwtest
[ -x /regtest ] && /regtest /dev/bwreg

# Daemon end to end (present once the daemon exists, see run.sh).
if [ -x /bin/bwsched ] && [ -x /e2e.sh ]; then
	/e2e.sh
else
	echo "SKIP daemon-e2e: no daemon in the image"
fi

if rmmod bwreg; then
	echo "PASS rmmod"
else
	echo "FAIL rmmod"
fi
[ -e /dev/bwreg ] && echo "FAIL devnode-gone" || echo "PASS devnode-gone"

dmesg > /tmp/dmesg
echo "--- bwreg kernel messages"
grep -E 'bwreg|RT throttling' /tmp/dmesg
echo "---"
grep -q 'heartbeat stopped' /tmp/dmesg && echo "PASS dmesg-failsafe" ||
	echo "FAIL dmesg-failsafe: no fail-safe message"
grep -q 'heartbeat resumed' /tmp/dmesg && echo "PASS dmesg-resumed" ||
	echo "FAIL dmesg-resumed: no resume message"
grep -q 'cannot create perf event type 0 config 0x3' /tmp/dmesg &&
	echo "PASS dmesg-event-error" ||
	echo "SKIP dmesg-event-error: no missing-event message"
grep -q 'bwreg: unloaded' /tmp/dmesg && echo "PASS dmesg-unloaded" ||
	echo "FAIL dmesg-unloaded"
if grep -E 'WARNING:|BUG:|Oops|lockdep|possible recursive|Call Trace|general protection|soft lockup|hung task|rcu.*stall' /tmp/dmesg; then
	echo "FAIL dmesg-clean"
else
	echo "PASS dmesg-clean"
fi
echo "BWTEST-END"
poweroff -f
