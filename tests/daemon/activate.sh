#!/bin/sh
# Socket activation: systemd-socket-activate owns the listening
# SOCK_SEQPACKET socket and starts bwsched on the first connection.
. "$top_srcdir/tests/daemon/lib.sh"
"$BWSCHED" -V | grep -q +systemd || { echo "built without systemd"; exit 77; }
SSA=$(command -v systemd-socket-activate) || { echo "no systemd-socket-activate"; exit 77; }
"$SSA" --help 2>&1 | grep -q -- --seqpacket || { echo "no --seqpacket"; exit 77; }
write_conf <<EOC
socket = $T/not-used.sock
EOC
"$SSA" -l "$SOCK" --seqpacket "$BWSCHED" -f -c "$CONF" 2> "$T/log" &
DPID=$!
for i in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.05; done
"$BWTEST" "$SOCK" ping || fail "no service through the activated socket"
"$BWTEST" "$SOCK" ping || fail "second client"
grep -q "serving on the activated socket" "$T/log" || fail "not activated"
[ ! -e "$T/not-used.sock" ] || fail "created its own socket too"
stop_daemon || fail "exit status"
exit 0
