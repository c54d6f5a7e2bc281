#!/bin/sh
# The lock is enforced before the first block, under CPU load: with
# both CPUs kept busy by spinning processes, the demo GPU client launches
# each kernel the moment it takes the lock (bwc_launch, as the CUDA
# instrumentation does, no waiting for the daemon), and no launch may
# run past its bound.  Every lock edge must have been confirmed by the
# sim regulator's kick, and the launch records must agree.
. "$top_srcdir/tests/daemon/lib.sh"
DEMO=$top_builddir/examples/demo_gpu
HISTO=$top_srcdir/examples/histo.bwk
[ -x "$DEMO" ] || { echo "programs missing"; exit 77; }

write_conf <<CONF
policy = smooth
log_level = info
CONF
start_daemon --regulator=sim

HOGS=
for i in 1 2; do
	sh -c 'while :; do :; done' &
	HOGS="$HOGS $!"
done
trap 'kill $HOGS 2>/dev/null; stop_daemon; rm -rf "$T"' EXIT

"$DEMO" -q -s "$SOCK" -k "$HISTO" -t 4 -i 20 -o "$T/launches.csv" \
	> "$T/demo.out" 2>&1
rc=$?
kill $HOGS 2>/dev/null
cat "$T/demo.out"
[ $rc -eq 3 ] && fail "a launch finished after its bound"
[ $rc -eq 0 ] || fail "demo_gpu exit status $rc"
n=$(($(wc -l < "$T/launches.csv") - 1))
[ "$n" -ge 10 ] || fail "only $n launches"
awk -F, 'NR > 1 && $5 > 1 { bad++ } END { exit bad > 0 }' \
	"$T/launches.csv" || fail "launch over its bound in the CSV"
grep -q 'lock enforced by the sim regulator' "$T/demo.out" ||
	fail "the client had no lock slot"
kicks=$(sed -n 's/.*: \([0-9]*\) kicks, \([0-9]*\) not confirmed.*/\1/p' \
	"$T/demo.out")
unconf=$(sed -n 's/.*: \([0-9]*\) kicks, \([0-9]*\) not confirmed.*/\2/p' \
	"$T/demo.out")
[ -n "$kicks" ] && [ "$kicks" -ge "$n" ] ||
	fail "$kicks kicks for $n launches: a lock edge went unkicked"
[ "$unconf" = 0 ] || fail "$unconf kicks not confirmed"
grep -q 'BWSCHED_BOUND_MET=no BWSCHED_END_BY=client' "$T/log" &&
	fail "the daemon judged a launch over its bound"
echo "ok: $n launches under load, $kicks lock edges enforced"
