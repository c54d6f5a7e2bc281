#!/bin/sh
# One daemon per socket: a second bwsched on a live daemon's socket is
# refused and leaves the first reachable; a stale socket left by a killed
# daemon is taken over.
. "$top_srcdir/tests/daemon/lib.sh"
write_conf </dev/null
start_daemon
"$BWSCHED" -f -c "$CONF" -s "$SOCK" 2> "$T/second" &
second=$!
i=0
while kill -0 $second 2>/dev/null && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
if kill -0 $second 2>/dev/null; then
	kill $second
	fail "a second daemon started on a live socket"
fi
wait $second && fail "the second daemon exited 0"
grep -q "another bwsched" "$T/second" || {
	cat "$T/second"
	fail "the refusal does not say why"
}
"$BWTEST" "$SOCK" ping || fail "the first daemon is unreachable"

# a listener that is not bwsched (systemd's socket, say) is refused too
kill -KILL "$DPID"
wait "$DPID" 2>/dev/null
DPID=
"${PYTHON3:-python3}" -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.bind(sys.argv[1]); s.listen(1); time.sleep(5)' "$SOCK.other" &
lp=$!
sleep 0.5
"$BWSCHED" -f -c "$CONF" -s "$SOCK.other" 2> "$T/third" &&
	fail "a daemon started on a socket something listens on"
kill $lp 2>/dev/null
grep -q "listening on it already" "$T/third" || {
	cat "$T/third"
	fail "no reason for refusing a foreign listener"
}

# the killed daemon left its socket: the next one takes it over
[ -S "$SOCK" ] || fail "no stale socket to take over"
start_daemon
"$BWTEST" "$SOCK" ping || fail "no takeover of a stale socket"
stop_daemon || fail "exit status"
exit 0
