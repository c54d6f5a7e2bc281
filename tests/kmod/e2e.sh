#!/bin/sh
# e2e.sh - the daemon end to end inside the guest (run by init.sh when
# run.sh found a built daemon; the module is loaded with the software
# cpu-clock as its event): bwsched --regulator=kmod configures /dev/bwreg,
# a client takes the bandwidth lock, and a hog on the regulated CPU 1 must
# be throttled while the lock is held and run free after.  PASS/FAIL lines.
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

taskset 2 sh -c 'while :; do :; done' &
hog=$!
sleep 0.3
t0=$(/bwtest --throttles 1)
p0=$(/bwtest --plans 1)
/bwtest --starved 650 >/tmp/e2e.starved &
spid=$!
lockhold "$sock" 600 && echo "PASS daemon-e2e-lock" ||
	echo "FAIL daemon-e2e-lock"
t1=$(/bwtest --throttles 1)
p1=$(/bwtest --plans 1)
wait $spid
starved=$(cat /tmp/e2e.starved)
sleep 0.3
t2=$(/bwtest --throttles 1)
sleep 0.5
t3=$(/bwtest --throttles 1)
locked=$((t1 - t0))
free=$((t3 - t2))
if [ $locked -ge 20 ] && [ $free -le 1 ]; then
	echo "PASS daemon-e2e-regulates: $locked throttles while the lock was held, $free after"
elif [ "$starved" = 1 ] && [ $free -le 1 ]; then
	echo "SKIP daemon-e2e-regulates: starved guest: $locked throttles while the lock was held, $free after"
else
	echo "FAIL daemon-e2e-regulates: $locked throttles while the lock was held, $free after"
fi
# the daemon's plans reach the module (uapi v2)
if [ $((p1 - p0)) -ge 10 ]; then
	echo "PASS daemon-e2e-plans: $((p1 - p0)) periods on the daemon's plans while held"
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
