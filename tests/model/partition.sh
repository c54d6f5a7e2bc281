#!/bin/sh
# bwanalyze partition and classify: the worked example of
# doc/partition.md (exact JSON for each order and baseline), readable
# output, exit codes, and errors that name the file and line.
set -u
bw="$top_builddir/tools/bwanalyze"
ex="$top_srcdir/tests/model/data/part_example.csv"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top_srcdir/tests/model/expect.sh"

# best fit: A+D, then B+C (doc/partition.md works it through)
expect_rc 0 '{"schedulable":true,"sms_total":4,"sms_used":4,"partitions":[{"tasks":["A","D"],"sms":2},{"tasks":["B","C"],"sms":2}],"reason":"Lemma 3: Pi = 4 <= M = 4"}' \
	"$bw" partition "$ex" --sms 4 --order bf --json
expect_rc 0 '{"schedulable":true,"sms_total":4,"sms_used":4,"partitions":[{"tasks":["A","D"],"sms":2},{"tasks":["B","C"],"sms":2}],"reason":"Lemma 3: Pi = 4 <= M = 4"}' \
	"$bw" partition "$ex" --sms=4 --order=bf --forbidden act --json
# SMS merges A+C first and is stuck at 5 SMs
expect_rc 1 '{"schedulable":false,"sms_total":4,"sms_used":5,"partitions":[{"tasks":["A","C"],"sms":2},{"tasks":["B"],"sms":2},{"tasks":["D"],"sms":1}],"reason":"Algorithm 1 failed: no merge lowers Pi = 5 to M = 4"}' \
	"$bw" partition "$ex" --sms 4 --json
expect_rc 1 'NOT schedulable (Algorithm 1 failed' "$bw" partition "$ex" \
	--sms 4 --forbidden none
# enough SMs: one partition per task (Lemma 2 sizes 2, 2, 1, 1)
expect_rc 0 '"sms_used":6,' "$bw" partition "$ex" --sms 6 --json
expect_rc 1 '{"schedulable":false,"sms_total":3,"sms_used":0,"partitions":[],"reason":"Lemma 1: sum of C^n(1)/T = 3.1800 > M = 3"}' \
	"$bw" partition "$ex" --sms 3 --json
# granule 2: sizes 2, 2, 2, 2 at first
expect_rc 0 'sizes in steps of the granule' "$bw" partition "$ex" \
	--sms 8 --granule 2
# granule 2, M = 7: 2 + 2 + 2 + 2 > 7, SMS merges A+C on 2
expect_rc 0 '"sms_used":6,"partitions":[{"tasks":["A","C"],"sms":2},' \
	"$bw" partition "$ex" --sms 7 --granule 2 --json
# the 1G baselines
expect_rc 1 '"reason":"1G: the EDF test fails with all 4 tasks on 4 SMs"' \
	"$bw" partition "$ex" --sms 4 --baseline 1g --json
expect_rc 0 '"schedulable":true' "$bw" partition "$ex" --sms 40 \
	--baseline 1g --json
expect_rc 1 'sum of C^c(1)/T > M = 5' "$bw" partition "$ex" --sms 5 \
	--baseline 1g-util
expect_rc 0 'sum of C^c(1)/T <= M = 6' "$bw" partition "$ex" --sms 6 \
	--baseline 1g-util
# readable output: per task C(m) with its conflict
expect_rc 0 'A                        ci          C = 52 ns, D = 100 ns' \
	"$bw" partition "$ex" --sms 4 --order bf
expect_rc 1 'A                        ci conflict C = 63 ns' \
	"$bw" partition "$ex" --sms 4

# a task too big for the GPU
printf 'name,period_ns,deadline_ns,a_ns,class\nbig,100,100,5000,mi\n' \
	> "$tmp/big.csv"
expect_rc 1 'task big misses its deadline even alone on all 68 SMs' \
	"$bw" partition "$tmp/big.csv"

# bad input: exit 2, file and line named
printf 'name,period_ns,deadline_ns,a_ns,class\nx,10,11,1,ci\n' > "$tmp/bad.csv"
expect_rc 2 "bwanalyze partition: $tmp/bad.csv: line 2: task 'x': deadline_ns must be in 1..period_ns" \
	"$bw" partition "$tmp/bad.csv"
expect_rc 2 'No such file' "$bw" partition "$tmp/none.csv"
expect_rc 2 "bad value 'x' for --order" "$bw" partition "$ex" --order x
expect_rc 2 "bad value 'all' for --forbidden" "$bw" partition "$ex" \
	--forbidden all
expect_rc 2 "bad value '0'" "$bw" partition "$ex" --sms 0
expect_rc 2 "bad value '2.5'" "$bw" partition "$ex" --sms 2.5
expect_rc 2 "bad value '5'" "$bw" partition "$ex" --sms 4 --granule 5
expect_rc 2 "bad value '2g' for --baseline" "$bw" partition "$ex" \
	--baseline 2g
expect_rc 2 'missing TASKSET' "$bw" partition
head -c 300000 /dev/zero | tr '\0' 'a' > "$tmp/huge.csv"
expect_rc 2 'larger than the 256 KiB task-set limit' "$bw" partition \
	"$tmp/huge.csv"

# classify: the model's CI and MI kernels and a saturating one
awk 'BEGIN { print "sms,time_ns"; for (m = 68; m >= 1; m--)
	printf "%d,%.6f\n", m, 1000000 / m + 20000 }' > "$tmp/ci.csv"
awk 'BEGIN { print "sms,time_ns"; for (m = 1; m <= 68; m++)
	printf "%d,%.6f\n", m, 1000000 / (m < 40 ? m : 40) }' > "$tmp/mi.csv"
expect_rc 0 '{"class":"ci","knee_sms":56,"a_ns":999999.99' \
	"$bw" classify "$tmp/ci.csv" --json
expect_rc 0 'fit t(m) = a/m + b: a = 1000000 ns, b = 20000 ns' \
	"$bw" classify "$tmp/ci.csv"
expect_rc 0 'memory intensive (within 5 % of its best time from 39 of 68' \
	"$bw" classify "$tmp/mi.csv" --tol 0.05
printf 'sms,time_ns\n1,10\n1,12\n' > "$tmp/dup.csv"
expect_rc 2 '1 SMs measured twice' "$bw" classify "$tmp/dup.csv"
printf 'sms,time_ns\n1,10\n2,-1\n' > "$tmp/neg.csv"
expect_rc 2 'line 3: expected SMS' "$bw" classify "$tmp/neg.csv"
printf 'm,t\n1,10\n' > "$tmp/hdr.csv"
expect_rc 2 "the first line must be 'sms,time_ns'" "$bw" classify \
	"$tmp/hdr.csv"
printf 'sms,time_ns\n4,10\n' > "$tmp/one.csv"
expect_rc 2 'needs at least two points' "$bw" classify "$tmp/one.csv"
expect_rc 2 'missing CURVE' "$bw" classify

exit $fail
