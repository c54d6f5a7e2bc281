#!/bin/sh
# e2e.sh - the daemon end to end inside the guest (run by init.sh when
# run.sh found a daemon built for the guest's architecture; the module is
# loaded with the test's event: cpu-clock, or the PMU's cycles on arm64):
# bwsched --regulator=kmod configures /dev/bwreg, a client takes the
# bandwidth lock, and a hog on the regulated CPU 1 must be throttled while
# the lock is held and run free before and after.  The hog's share of its
# CPU comes from /proc (its run time over the uptime clock), so the check
# depends on behaviour only, not on the module's statistics.  PASS/FAIL
# lines.
taskset -p 1 $$ >/dev/null	# this shell, the daemon and client on CPU 0
sock=/run/bwsched/bwsched.sock
conf=/tmp/bwsched.conf
cat >"$conf" <<EOF
socket = $sock
group = root
regulator = kmod
be_cores = 1
period_ns = 10000000
bwmax_events = 10000000
heartbeat_timeout_ns = 500000000
EOF
hb0=$(dmesg | grep -c 'daemon heartbeat stopped')
bwsched -f -c "$conf" --regulator=kmod >/tmp/bwsched.log 2>&1 &
dpid=$!
i=0
while [ ! -S "$sock" ] && [ $i -lt 50 ] && kill -0 $dpid 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
if [ ! -S "$sock" ]; then
	cat /tmp/bwsched.log
	echo "FAIL daemon-e2e-start"
	kill $dpid 2>/dev/null
	exit 0
fi
echo "PASS daemon-e2e-start"

# The hog's share of its CPU in percent over the given seconds.
centis() {	# uptime in centiseconds
	read -r up _ </proc/uptime
	c=${up#*.}
	echo $((${up%.*} * 100 + ${c#0}))
}
share() {	# seconds
	read -r r0 _ <"/proc/$hog/schedstat"
	u0=$(centis)
	sleep "$1"
	read -r r1 _ <"/proc/$hog/schedstat"
	u1=$(centis)
	echo $(((r1 - r0) / ((u1 - u0) * 100000)))
}

taskset 2 sh -c 'while :; do :; done' &
hog=$!
sleep 0.3
before=$(share 0.5)
p0=$(/bwtest --plans 1)
/bwtest --starved 1500 >/tmp/e2e.starved &
spid=$!
lockhold "$sock" 60000 >/tmp/lockhold.log 2>&1 &
lh=$!
i=0
while ! grep -q locked /tmp/lockhold.log && [ $i -lt 100 ] &&
	kill -0 $lh 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
sleep 0.1	# the daemon sees the lock within a period or two
locked=$(share 0.6)
kill -0 $lh 2>/dev/null || echo "FAIL daemon-e2e-held: the client released the lock before the measurement ended"
kill -USR1 $lh 2>/dev/null	# release now
if wait $lh; then
	echo "PASS daemon-e2e-lock"
else
	cat /tmp/lockhold.log
	echo "FAIL daemon-e2e-lock"
fi
p1=$(/bwtest --plans 1)
sleep 0.3
after=$(share 0.6)
wait $spid
starved=$(cat /tmp/e2e.starved)
# Throttled under the holder's budget of 0 the hog gets almost nothing;
# free it gets what the host gives the guest's CPU (less on a busy host,
# so the free shares are compared with the throttled one, not with 100%).
if [ "$locked" -le 20 ] && [ "$before" -ge $((locked + 25)) ] &&
	[ "$after" -ge $((locked + 25)) ]; then
	echo "PASS daemon-e2e-regulates: the hog got $before% of CPU 1 before, $locked% while the lock was held, $after% after"
elif [ "$starved" = 1 ]; then
	echo "SKIP daemon-e2e-regulates: starved guest: the hog got $before% of CPU 1 before, $locked% while the lock was held, $after% after"
else
	echo "FAIL daemon-e2e-regulates: the hog got $before% of CPU 1 before, $locked% while the lock was held, $after% after"
fi
# the daemon's plans reach the module (uapi v2)
if [ $((p1 - p0)) -ge 10 ]; then
	echo "PASS daemon-e2e-plans: $((p1 - p0)) periods on the daemon's plans while held"
elif [ "$starved" = 1 ]; then
	echo "SKIP daemon-e2e-plans: starved guest: $((p1 - p0)) periods on the daemon's plans while held"
else
	echo "FAIL daemon-e2e-plans: $((p1 - p0)) periods on the daemon's plans while held"
fi
kill $hog
kill $dpid
wait $dpid
rc=$?
[ $rc -eq 0 ] && echo "PASS daemon-e2e-exit" ||
	{ cat /tmp/bwsched.log; echo "FAIL daemon-e2e-exit: status $rc"; }
if [ "$(dmesg | grep -c 'daemon heartbeat stopped')" -ne "$hb0" ]; then
	echo "FAIL daemon-e2e-heartbeat: the fail-safe fired while the daemon ran"
else
	echo "PASS daemon-e2e-heartbeat"
fi
