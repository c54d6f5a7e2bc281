#!/bin/sh
# GPU admission through the real daemon (doc/partition.md): placements,
# a re-partition, refusals that leave the plan as it was, granted sizes,
# the plan page, bwctl partitions, the plan changes in the log; then a
# daemon without gpu_sms that learns the SM count from a client.
. "$top_srcdir/tests/daemon/lib.sh"
[ -n "${PYTHON3:-}" ] || { echo "no python3"; exit 77; }
BWCTL=$top_builddir/client/bwctl
write_conf <<EOF2
gpu_sms = 4
EOF2
start_daemon
"$PYTHON3" "$top_srcdir/tests/daemon/admit_client.py" "$SOCK" "$SOCK.gpu" plan ||
	fail "admission"
# the plan outlives the clients' tasks only while they are registered
"$BWCTL" -s "$SOCK" partitions > "$T/p.txt" || fail "bwctl partitions"
grep -q '^GPU: 4 SMs in groups of 1 (config)' "$T/p.txt" ||
	fail "bwctl partitions header: $(cat "$T/p.txt")"
"$BWCTL" -s "$SOCK" --json partitions > "$T/p.json" || fail "--json"
grep -q '"sms_total":4' "$T/p.json" || fail "json: $(cat "$T/p.json")"
"$BWCTL" -s "$SOCK" partitions extra > /dev/null 2>&1 &&
	fail "partitions takes no argument"
grep -q 'GPU plan [0-9]* (partitioned again)' "$T/log" ||
	fail "no re-partition in the log"
grep -q 'GPU demand of E refused, plan [0-9]* unchanged' "$T/log" ||
	fail "no refusal in the log"
# E asked twice on the same plan: analysed and logged once
test "$(grep -c 'GPU demand of E refused' "$T/log")" = 1 ||
	fail "the repeated refusal was analysed again"
stop_daemon || fail "exit status"
test -e "$SOCK.gpu" && fail "plan page left behind"

write_conf </dev/null
start_daemon
"$PYTHON3" "$top_srcdir/tests/daemon/admit_client.py" "$SOCK" "$SOCK.gpu" device ||
	fail "device report"
grep -q 'GPU: 8 SMs in groups of 2 (device)' "$T/log" ||
	fail "device not logged"
stop_daemon || fail "exit status"
exit 0
