#!/bin/sh
# Hostile input, slow readers and limits: each case gets its documented
# error and the daemon keeps serving (see tests/abuse/abuse.c).
. "$top_srcdir/tests/daemon/lib.sh"
ABUSE=$top_builddir/tests/abuse/abuse
write_conf <<EOC
max_output_bytes = 65536
max_msgs_per_sec = 1000000
EOC
start_daemon
"$ABUSE" "$SOCK" inputs || fail "bad inputs"
"$ABUSE" "$SOCK" flood || fail "slow subscriber"
kill -0 "$DPID" || fail "daemon died"
grep -q "slow reader" "$T/log" || fail "slow reader not logged"
stop_daemon || fail "exit status"

write_conf <<EOC
max_clients = 4
max_msgs_per_sec = 50
EOC
start_daemon
"$ABUSE" "$SOCK" limits 4 50 || fail "limits"
kill -0 "$DPID" || fail "daemon died"
stop_daemon || fail "exit status"
exit 0
