#!/bin/sh
# e2e.sh - the daemon end to end inside the guest (run by init.sh when
# run.sh found a built daemon): bwsched --regulator=kmod regulates CPU 1
# while a client holds the bandwidth lock.  Prints PASS/FAIL lines.
#
# Needs from the daemon and client parts: `bwsched -f -c FILE
# --regulator=kmod` and a client tool that holds the lock for a while
# (client/bwlockhold); until they exist this reports SKIP.
conf=/tmp/bwsched.conf
if ! command -v bwlockhold >/dev/null 2>&1; then
	echo "SKIP daemon-e2e: no lock-holding client (client/bwlockhold)"
	exit 0
fi
cat >"$conf" <<EOF
[regulator]
backend = kmod
period_us = 10000
cores = 1
event_type = 1
event_config = 0
EOF
mkdir -p /run/bwsched
bwsched -f -c "$conf" --regulator=kmod >/tmp/bwsched.log 2>&1 &
dpid=$!
sleep 2
if ! kill -0 $dpid 2>/dev/null; then
	cat /tmp/bwsched.log
	echo "FAIL daemon-e2e-start"
	exit 0
fi
echo "PASS daemon-e2e-start"
t0=$(grep -o 'throttles [0-9]*' /sys/kernel/debug/bwreg 2>/dev/null)
bwlockhold 2 && echo "PASS daemon-e2e-lock" || echo "FAIL daemon-e2e-lock"
kill $dpid
wait $dpid && echo "PASS daemon-e2e-exit" || echo "FAIL daemon-e2e-exit"
