#!/bin/sh
# bwctl against the real daemon: every command, readable and --json
# output (checked with python3's json), and the documented exit codes.
: "${top_builddir:=..}"
: "${PYTHON3:=python3}"
BWSCHED=$top_builddir/daemon/bwsched
BWCTL=$top_builddir/client/bwctl
[ -x "$BWSCHED" ] || { echo "no daemon at $BWSCHED: skipped"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/bwctl-test.XXXXXX")
SOCK=$T/sock
DPID=
trap '[ -n "$DPID" ] && kill "$DPID" 2>/dev/null; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; tail -n 20 "$T/log"; exit 1; }
printf 'group =\nlog_level = debug\n' > "$T/conf"

# exit code 3 before the daemon exists, 2 for usage errors
"$BWCTL" -s "$SOCK" status >/dev/null 2>&1; rc=$?
[ $rc -eq 3 ] || fail "no daemon: exit $rc, want 3"
for args in "" "frob" "get" "set rho" "status extra" "subscribe nosuch" \
	"--bogus status" "kernels 1 2"; do
	# shellcheck disable=SC2086
	"$BWCTL" -s "$SOCK" $args >/dev/null 2>&1; rc=$?
	[ $rc -eq 2 ] || fail "'bwctl $args': exit $rc, want 2"
done
"$BWCTL" --help | grep -q subscribe || fail "--help"

"$BWSCHED" -f --regulator=sim -c "$T/conf" -s "$SOCK" 2> "$T/log" &
DPID=$!
i=0
until "$BWCTL" -s "$SOCK" get policy >/dev/null 2>&1; do
	i=$((i + 1)); [ $i -lt 200 ] || fail "daemon did not start"
	sleep 0.025
done

json() {	# bwctl args... | python3 expression on the parsed object d
	expr=$1; shift
	"$BWCTL" -s "$SOCK" --json "$@" > "$T/out" || return 1
	"$PYTHON3" -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($expr) else 1)" "$T/out"
}

"$BWCTL" -s "$SOCK" status > "$T/out" || fail "status"
# human units in the tables (raw values stay in --json)
grep -q '^uptime  *[0-9.]* m\{0,1\}s$' "$T/out" || fail "uptime unit: $(cat "$T/out")"
grep -q '^period  *1.000 ms$' "$T/out" || fail "period in ms"
grep -q '^lead  *100.0 µs$' "$T/out" || fail "lead in µs"
grep -q '^q  *unregulated$' "$T/out" || fail "q without holders is a word"
grep -q '^ *1  *unlimited  *unlimited ' "$T/out" || fail "no holder: unlimited budgets"
# options after the command, as people type them
"$BWCTL" status --json -s "$SOCK" > "$T/late" || fail "status --json -s"
"$PYTHON3" -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d['uptime_ns'] <= 0)" "$T/late" || fail "status --json after the command: $(cat "$T/late")"
"$BWCTL" get --socket="$SOCK" policy | grep -qx nominal || fail "get --socket= after the command"
"$BWCTL" -s "$SOCK" status --frob >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "unknown option after the command: exit $rc, want 2"
grep -q '^policy  *nominal' "$T/out" || fail "status table: $(cat "$T/out")"
grep -q '^regulator  *sim' "$T/out" || fail "status regulator"
grep -q 'THROTTLES' "$T/out" || fail "status cores table"
json 'd["status"] == 0 and d["regulator"] == "sim" and d["tasks"] == 0 and len(d["cores"]) >= 1' status || fail "status --json"
json 'd["tasks"] == []' tasks || fail "tasks --json"
"$BWCTL" -s "$SOCK" tasks | grep -q '^ *TASK  *PID  *NAME' || fail "tasks header"
json 'd["kernels"] == []' kernels || fail "kernels --json"
"$BWCTL" -s "$SOCK" kernels 7 >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] || fail "kernels of an unknown task: exit $rc, want 1"
[ "$("$BWCTL" -s "$SOCK" get policy)" = nominal ] || fail "get policy"
json 'd["key"] == "period_ns" and d["value"] == 1000000' get period_ns || fail "get --json"
BWSCHED_SOCKET=$SOCK "$BWCTL" get lead_ns >/dev/null || fail "BWSCHED_SOCKET"

"$BWCTL" -s "$SOCK" get no_such_key >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] || fail "get unknown: exit $rc, want 1"
json 'd["status"] == 8 and "error" in d' get no_such_key && fail "get unknown --json exit 0"
"$PYTHON3" -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d['status'] != 8)" "$T/out" || fail "error reply --json"
"$BWCTL" -s "$SOCK" set period_ns 5 >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] || fail "set run-time key: exit $rc, want 1"

if [ "$(id -u)" = 0 ]; then
	[ "$("$BWCTL" -s "$SOCK" set policy greedy)" = "policy = greedy" ] || fail "set policy"
	[ "$("$BWCTL" -s "$SOCK" get policy)" = greedy ] || fail "policy not set"
	json 'd["value"] == 0.5' set failsafe_q 0.5 || fail "set float --json"
	json 'd["value"] == 0.5' get failsafe_q || fail "get float"
	"$BWCTL" -s "$SOCK" set rho 1000 >/dev/null 2>&1; rc=$?
	[ $rc -eq 1 ] || fail "set rho out of range: exit $rc"
else
	"$BWCTL" -s "$SOCK" set policy greedy >/dev/null 2>&1; rc=$?
	[ $rc -eq 1 ] || fail "non-admin set: exit $rc, want 1"
fi

# kernels: launches through the progress page are counted, and the one
# the client holds open shows as running (the page is read, not cached)
CLIENT=$top_builddir/examples/demo_client
if [ -x "$CLIENT" ]; then
	mkfifo "$T/hold"
	"$CLIENT" "$SOCK" 3 < "$T/hold" > "$T/client" 2>&1 &
	CPID=$!
	exec 4> "$T/hold"
	i=0
	until grep -q '^ready' "$T/client"; do
		i=$((i + 1)); [ $i -lt 400 ] || fail "demo_client: $(cat "$T/client")"
		sleep 0.025
	done
	# 3 launches ended and 1 running: the ends reach the daemon within
	# a few periods
	i=0
	until json 'd["kernels"][0]["launches"] >= 4' kernels; do
		i=$((i + 1)); [ $i -lt 400 ] || fail "kernels launches: $(cat "$T/out")"
		sleep 0.025
	done
	json 'd["kernels"][0]["running"] is True and d["kernels"][0]["running_launches"] == 1' kernels ||
		fail "kernels running: $(cat "$T/out")"
	"$BWCTL" -s "$SOCK" kernels > "$T/out"
	# ... BOUND LAUNCHES RUNNING CLUSTERS: "3.163 ms        4       1 [["
	grep -Eq ' ms +([4-9]|[1-9][0-9]+) +1 \[\[' "$T/out" ||
		fail "kernels table: launches, running, bound in ms: $(cat "$T/out")"
	"$BWCTL" -s "$SOCK" tasks > "$T/out"
	grep -q '10.000 ms .* yes ' "$T/out" || fail "tasks: period in ms, locked yes: $(cat "$T/out")"
	"$BWCTL" -s "$SOCK" status > "$T/out"
	grep -q '^q  *0\.[0-9]*$' "$T/out" || fail "status q while held: $(cat "$T/out")"
	grep -q ' MB/s ' "$T/out" || fail "held core budget in MB/s: $(cat "$T/out")"
	# top shows regulation in action: the budget of a held period
	"$BWCTL" -s "$SOCK" top --once --interval 0.3 > "$T/out" || fail "top --once"
	grep -Eq '^1 +[0-9]+ +[0-9]+ +[0-9.]+ MB/s ' "$T/out" ||
		fail "top: no held budget: $(cat "$T/out")"
	grep -q '^1 .*histo' "$T/out" || fail "top: no kernel: $(cat "$T/out")"
	grep -q 'Q 0\.[0-9]*  static 0\.' "$T/out" || fail "top: Q while held: $(cat "$T/out")"
	exec 4>&-
	wait "$CPID" || fail "demo_client exit status"
fi

# subscribe: the reply, then events until the daemon stops (exit 3)
"$BWCTL" -s "$SOCK" --json subscribe lock > "$T/sub" 2>&1 &
SPID=$!
sleep 0.3
kill "$DPID"; wait "$DPID"; rc=$?; DPID=
[ $rc -eq 0 ] || fail "daemon exit $rc"
wait "$SPID"; rc=$?
[ $rc -eq 3 ] || fail "subscribe after daemon exit: $rc, want 3"
head -n 1 "$T/sub" | "$PYTHON3" -c 'import json,sys; d=json.load(sys.stdin); sys.exit(d["topics"] != ["lock"])' || fail "subscribe reply: $(cat "$T/sub")"
exit 0
