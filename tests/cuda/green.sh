#!/bin/sh
# green.sh - the green-context path (client/cuda/green.c) with the fake
# driver: t_green's scenarios through the preloaded interposer and the
# recording sink (the partition from a file), then the whole chain with
# libbwclient and a daemon that learns the SM count from the device.
. "$top_srcdir/tests/cuda/env.sh"
bin=$top_builddir/tests/cuda/t_green
part=$tmp/partition
fail=0

# scenario, partition file contents ("" for none), extra environment
run() {
	s=$1
	log=$tmp/$s.log
	: > "$log"
	rm -f "$part"
	[ -n "$2" ] && printf '%s\n' "$2" > "$part"
	shift 2
	if ! env LD_PRELOAD="$preload" BWSCHED_CUDA_SINK="record:$log" \
	    FAKECUDA_LOG="$log" BWSCHED_CUDA_PARTITION_FILE="$part" "$@" \
	    "$bin" "$s" "$log" "$part" 2> "$tmp/$s.err"; then
		echo "FAIL $s; log:"; tail -n 40 "$log"; cat "$tmp/$s.err"
		fail=1
	else
		echo "ok $s"
	fi
}

run split "1 4 6 2"
run move "1 4 6 2"
run round "1 4 6 2" FAKECUDA_SM_GROUP=4
grep -q 'the driver gave 12 SMs for the 6 planned' "$tmp/round.err" ||
	{ echo "FAIL round: no warning"; fail=1; }
run plain ""
run plain "1 4 6 2" FAKECUDA_NO_GREEN=1
test "$(grep -c 'has no green contexts' "$tmp/plain.err")" = 1 ||
	{ echo "FAIL old driver: not said once"; cat "$tmp/plain.err"; fail=1; }
run fail "1 4 6 2"
grep -q 'creating the green context failed' "$tmp/fail.err" ||
	{ echo "FAIL fail: no warning"; fail=1; }
run destroy "1 4 6 2"
run reenter "1 4 6 2"
# SMs beyond the device: said, unpartitioned
run plain "1 60 16 2"
grep -q 'beyond the 34 groups' "$tmp/plain.err" ||
	{ echo "FAIL beyond: no warning"; cat "$tmp/plain.err"; fail=1; }

# the whole chain: the daemon has no gpu_sms, the CUDA layer reports a
# 16-SM device in groups of 2, registers the task's demand, and the
# task's launches go to the SMs of the plan
daemon=$top_builddir/daemon/bwsched
bwctl=$top_builddir/client/bwctl
lib=$top_builddir/client/.libs/libbwclient.so.0
if [ -x "$daemon" ] && [ -f "$lib" ]; then
	sock=$tmp/sock
	printf 'group =\n' > "$tmp/conf"
	"$daemon" -f --regulator=sim -c "$tmp/conf" -s "$sock" \
	    2> "$tmp/daemon.log" &
	dpid=$!
	i=0
	until "$bwctl" -s "$sock" status > /dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 200 ] || { echo "daemon did not start"; fail=1; break; }
		sleep 0.05
	done
	log=$tmp/live.log
	: > "$log"
	LD_PRELOAD=$preload BWSCHED_SOCKET=$sock BWSCHED_BWCLIENT_LIB=$lib \
	    BWSCHED_TASK_NAME=greenlive BWSCHED_PERIOD_NS=10000000 \
	    BWSCHED_GPU=a_ns=20000000,class=mi FAKECUDA_LOG=$log \
	    FAKECUDA_SMS=16 "$bin" live "$log" 2> "$tmp/live.err" ||
	    { echo "FAIL live"; cat "$tmp/live.err"; tail -n 30 "$log"; fail=1; }
	"$bwctl" -s "$sock" --json partitions > "$tmp/p.json"
	grep -q '"source":"device"' "$tmp/p.json" &&
	    grep -q '"sms_total":16' "$tmp/p.json" ||
	    { echo "FAIL live: device not reported"; cat "$tmp/p.json"; fail=1; }
	grep -q 'call cuGreenCtxCreate .* first=0 sms=4' "$log" ||
	    { echo "FAIL live: no green context"; cat "$log" "$tmp/live.err"
	      fail=1; }
	grep -q 'GPU plan [0-9]* (size granted)' "$tmp/daemon.log" ||
	    { echo "FAIL live: granted not reported"; fail=1; }
	# a demand no plan takes: unpartitioned with a warning, or exit 75
	: > "$log"
	LD_PRELOAD=$preload BWSCHED_SOCKET=$sock BWSCHED_BWCLIENT_LIB=$lib \
	    BWSCHED_PERIOD_NS=10000000 BWSCHED_GPU=a_ns=999000000,class=ci \
	    FAKECUDA_LOG=$log FAKECUDA_SMS=16 "$bin" plain "$log" \
	    2> "$tmp/refused.err" ||
	    { echo "FAIL refused: not run plain"; cat "$tmp/refused.err"
	      fail=1; }
	grep -q 'GPU demand refused: .*Lemma 1' "$tmp/refused.err" &&
	    grep -q 'running unpartitioned' "$tmp/refused.err" ||
	    { echo "FAIL refused: warning"; cat "$tmp/refused.err"; fail=1; }
	LD_PRELOAD=$preload BWSCHED_SOCKET=$sock BWSCHED_BWCLIENT_LIB=$lib \
	    BWSCHED_PERIOD_NS=10000000 BWSCHED_GPU=a_ns=999000000,class=ci \
	    BWSCHED_GPU_REFUSED=exit FAKECUDA_LOG=$log FAKECUDA_SMS=16 \
	    "$bin" plain "$log" 2> /dev/null
	[ $? -eq 75 ] || { echo "FAIL refused: no exit 75"; fail=1; }
	kill $dpid
	wait $dpid
fi
exit $fail
