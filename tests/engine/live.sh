#!/bin/sh
# The regulation loop end to end: bwsched with the live sim regulator,
# the demo GPU client launching the histo kernel for a few seconds with
# GREEDY, and `bwctl trace` recording every period.  Checks that while
# the lock is held Q >= Q-bar (and GREEDY does give slack: Q > Q-bar in
# some periods), that regulation stops once the client is gone, that no
# launch finished after its bound, and that the daemon logged one
# structured record per launch (stderr under -f), which "log"
# subscribers see too.  The one check a run starved of CPU time cannot
# meet, GREEDY's slack, is reported as a SKIP when the daemon spent a
# tenth of the run or more waiting for a CPU (schedstat).
. "$top_srcdir/tests/daemon/lib.sh"
DEMO=$top_builddir/examples/demo_gpu
BWCTL=$top_builddir/client/bwctl
HISTO=$top_srcdir/examples/histo.bwk
[ -x "$DEMO" ] && [ -x "$BWCTL" ] || { echo "programs missing"; exit 77; }

write_conf <<CONF
policy = greedy
log_level = info
CONF
start_daemon --regulator=sim
# the socket accepts (bwtest wait) before the daemon makes the sim's
# page; a request answered from its event loop comes after that
"$BWTEST" "$SOCK" ping > /dev/null || fail "the daemon does not answer"
[ -e "$SOCK.sim" ] || fail "no sim state page at $SOCK.sim"

# ns the daemon's threads have waited on a run queue (0: no schedstat)
waited() {
	cat /proc/"$DPID"/task/*/schedstat 2>/dev/null |
	    awk '{ w += $2 } END { printf "%.0f\n", w }'
}

"$BWCTL" -s "$SOCK" trace --csv > "$T/trace.csv" 2> "$T/trace.err" &
TPID=$!
"$BWCTL" -s "$SOCK" subscribe log > "$T/sub.log" 2>&1 &
SPID=$!
sleep 0.3
w0=$(waited)
t0=$(date +%s%N)
"$DEMO" -q -s "$SOCK" -k "$HISTO" -t 3 -i 25 -o "$T/launches.csv" \
	> "$T/demo.out" 2>&1
rc=$?
w1=$(waited)
t1=$(date +%s%N)
starved=$(((w1 - w0) * 100 / (t1 - t0)))
echo "the daemon waited for a CPU $starved% of the run"
cat "$T/demo.out"
[ $rc -eq 3 ] && fail "a launch finished after its bound"
[ $rc -eq 0 ] || fail "demo_gpu exit status $rc"
sleep 0.3
kill "$TPID" "$SPID" 2>/dev/null
wait "$TPID" "$SPID" 2>/dev/null

n=$(($(wc -l < "$T/launches.csv") - 1))
# about 120 normally; far fewer under a sanitizer on a loaded machine
[ "$n" -ge 10 ] || fail "only $n launches"
# a launch the starved client could not follow is reported, not judged;
# more than one in ten means the sim or the daemon stalled
ab=$(sed -n 's/.*, \([0-9]*\) abandoned.*/\1/p' "$T/demo.out")
[ -n "$ab" ] || fail "no abandoned count in the summary"
[ $((ab * 10)) -le "$n" ] || fail "$ab of $n launches abandoned"
awk -F, 'NR > 1 && $5 > 1 { bad++ } END { exit bad > 0 }' \
	"$T/launches.csv" || fail "launch over its bound in the CSV"

# columns: period,ts_ns,q,q_static,holders,late,late_ns,cost_ns,budget,...
# GREEDY finds slack only when the client's progress reaches the daemon
# in time: not asserted on a machine too slow for ~120 launches.  Unloaded
# the daemon waits ~1% of the run and about a third of the held periods
# get slack; with the CPUs overcommitted (10 busy loops on 2 CPUs) it
# waits 30-40% and some runs get none: status 3, judged below.
awk -F, -v need_more=$([ "$n" -ge 50 ] && echo 1 || echo 0) '
NR == 1 { next }
$5 > 0 { held++; if ($3 < $4 - 1e-9) low++; if ($3 > $4 + 0.01) more++ }
{ last_holders = $5; last_q = $3 }
END {
	printf "trace: %d periods, %d held, %d below Q-bar, %d above\n",
	    NR - 1, held, low, more
	if (held < 50 || low > 0) exit 1
	if (last_holders != 0 || last_q != -1) exit 2
	if (need_more && more == 0) exit 3
}' "$T/trace.csv"
st=$?
noslack=no
if [ $st -eq 3 ] && [ "$starved" -ge 10 ]; then
	noslack=yes	# the rest is still checked
elif [ $st -ne 0 ]; then
	fail "trace check failed (awk status $st)"
fi

records=$(grep -c 'BWSCHED_ACTUAL_NS=' "$T/log")
[ "$records" -ge "$((n - 2))" ] || fail "$records launch records for $n launches"
grep 'BWSCHED_KERNEL=histo' "$T/log" | grep -q 'BWSCHED_POLICY=greedy' ||
	fail "launch record fields"
grep -q 'BWSCHED_Q_MEAN=' "$T/log" && grep -q 'BWSCHED_SLACK_NS=' "$T/log" ||
	fail "launch record fields"
# the client records each end (bwc_launch_end): the daemon's verdicts
# are exact and agree with the client's (none over the bound).  Without
# it (an abandoned launch) the daemon's window stands, and the emulated
# bitmap's lag can push that past the bound: not checked.
grep -q 'BWSCHED_BOUND_MET=no BWSCHED_END_BY=client' "$T/log" &&
	fail "the daemon judged a launch over its bound"
exact=$(grep -c 'BWSCHED_END_BY=client' "$T/log")
[ "$exact" -ge "$((n - ab - 2))" ] ||
	fail "only $exact of $n launch records took the client's end"
subs=$(grep -c 'kernel histo of task .*met: ' "$T/sub.log")
[ "$subs" -ge "$((n - 2))" ] ||
	fail "$subs launch records for $n launches reached a log subscriber"
grep -q 'Sanitizer\|runtime error' "$T/log" && fail "sanitizer report"
kill -0 "$DPID" || fail "daemon died"
stop_daemon || fail "daemon exit status"
[ -e "$SOCK.sim" ] && fail "sim state page left behind"
if [ $noslack = yes ]; then
	echo "SKIP: no period above Q-bar, but the daemon waited for a CPU" \
	    "$starved% of the run: too starved to judge GREEDY's slack"
	exit 77
fi
exit 0
