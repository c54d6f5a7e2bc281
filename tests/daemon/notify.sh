#!/bin/sh
# sd_notify protocol against a fake NOTIFY_SOCKET: READY=1 and STATUS= at
# start, WATCHDOG=1 pings when WATCHDOG_USEC is set, RELOADING=1 on
# SIGHUP, STOPPING=1 at exit.
. "$top_srcdir/tests/daemon/lib.sh"
"$BWSCHED" -V | grep -q +systemd || { echo "built without systemd"; exit 77; }
[ -n "${PYTHON3:-}" ] || { echo "no python3"; exit 77; }
write_conf </dev/null
"$PYTHON3" "$top_srcdir/tests/daemon/notifyd.py" "$T/notify" "$T/notes" &
NPID=$!
for i in $(seq 50); do [ -S "$T/notify" ] && break; sleep 0.1; done
NOTIFY_SOCKET=$T/notify WATCHDOG_USEC=200000 start_daemon
sleep 1.3
kill -HUP "$DPID"
sleep 0.3
stop_daemon || fail "exit status"
sleep 0.2
kill "$NPID" 2>/dev/null; wait "$NPID" 2>/dev/null
cat "$T/notes"
grep -q '^READY=1$' "$T/notes" || fail "no READY=1"
grep -q "^STATUS=serving" "$T/notes" || fail "no STATUS="
grep -q "^STATUS=serving 0 client(s), 0 task(s)" "$T/notes" || fail "no counts in STATUS="
[ "$(grep -c '^WATCHDOG=1$' "$T/notes")" -ge 2 ] || fail "no WATCHDOG=1 pings"
grep -q '^RELOADING=1$' "$T/notes" || fail "no RELOADING=1"
grep -q '^STOPPING=1$' "$T/notes" || fail "no STOPPING=1"
exit 0
