#!/bin/sh
# init of the bwreg test guest (tests/kmod/run.sh): load the module, run
# the checks, unload, inspect dmesg, power off.  The host parses the
# PASS/FAIL lines from the console.  BWTEST_EVENT=TYPE:CONFIG (from the
# kernel command line) is the time-like event budgets count: the software
# cpu-clock (1:0) by default, the PMU's cycle counter on arm64.
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mkdir -p /tmp /run
echo
echo "BWTEST-START $(uname -r) $(uname -v) cpus=$(grep -c ^processor /proc/cpuinfo)"
export BWTEST_EVENT=${BWTEST_EVENT:-1:0}
evtype=${BWTEST_EVENT%%:*}
evconf=${BWTEST_EVENT#*:}
echo 1 > /proc/sys/kernel/printk_ratelimit 2>/dev/null

/bwtest --nice-snapshot >/tmp/nice0
if insmod /bwreg.ko; then
	echo "PASS insmod"
else
	echo "FAIL insmod"
fi
[ -c /dev/bwreg ] && echo "PASS devnode" || echo "FAIL devnode: no /dev/bwreg"

/bwtest || echo "FAIL bwtest-exit: status $?"
if [ -x /regtest ]; then
	/regtest /dev/bwreg || echo "FAIL regtest-exit: status $?"
fi

# Unload while a migrating task carries a TFS nice penalty (issue 13 item
# 11): afterwards every user task has the nice it had before the load.
/bwtest --tfs-leave
if rmmod bwreg; then
	echo "PASS rmmod"
else
	echo "FAIL rmmod"
fi
/bwtest --nice-check /tmp/nice0
[ -r /tmp/tfs.pids ] && kill $(cat /tmp/tfs.pids)
[ -e /dev/bwreg ] && echo "FAIL devnode-gone" || echo "PASS devnode-gone"

# Module parameters: regulate CPU 1 from load on, 1 ms of the event per
# 10 ms; measure the throttle's delay; then unload while a hog is being
# throttled.
if insmod /bwreg.ko cpus=2 period_us=10000 event_type=$evtype \
	event_config=$evconf static_events=1000000 heartbeat_ms=0; then
	/thrlat 1 1000000 "$BWTEST_EVENT" 2
	taskset 2 sh -c 'while :; do :; done' &
	hog=$!
	n0=$(/bwtest --throttles 1)
	sleep 1
	n=$(($(/bwtest --throttles 1) - ${n0:-0}))
	p=$(/bwtest --periods 1)
	# 100 periods in 1 s; a starved guest (loaded host) runs fewer
	if [ "${p:-0}" -lt 50 ]; then
		echo "SKIP load-params-throttle: starved guest: ${n:-no} throttles in ${p:-no} periods"
	elif [ "${n:-0}" -ge 5 ]; then
		echo "PASS load-params-throttle: $n throttles in $p periods"
	else
		echo "FAIL load-params-throttle: ${n:-no} throttles in $p periods"
	fi
	rmmod bwreg && echo "PASS rmmod-while-throttling" ||
		echo "FAIL rmmod-while-throttling"
	kill $hog
else
	echo "FAIL insmod-params"
fi
# The same delay with the software cpu-clock (a guest hrtimer), to set a
# hardware event's overflow interrupt against.
if [ "$BWTEST_EVENT" != 1:0 ] && insmod /bwreg.ko cpus=2 period_us=10000 \
	event_type=1 event_config=0 static_events=1000000 heartbeat_ms=0; then
	/thrlat 1 1000000 1:0 2
	rmmod bwreg
fi

# Daemon end to end (present once the daemon exists, see run.sh); the
# module's event is the test's, which the daemon selects by leaving the
# event unset.
if [ -x /bin/bwsched ] && [ -x /e2e.sh ]; then
	insmod /bwreg.ko event_type=$evtype event_config=$evconf
	/e2e.sh
	rmmod bwreg && echo "PASS rmmod-after-daemon" ||
		echo "FAIL rmmod-after-daemon"
else
	echo "SKIP daemon-e2e: no daemon in the image"
fi

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
