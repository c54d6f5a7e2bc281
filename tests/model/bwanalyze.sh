#!/bin/sh
# bwanalyze on the example profiles and task sets: exact JSON answers
# (hand-computed in doc/analysis.md), readable output, and errors that
# name the file and line with exit status 2.
set -u
bw="$top_builddir/tools/bwanalyze"
data="$top_srcdir/tests/model/data"
fail=0

. "$top_srcdir/tests/model/expect.sh"

ex="$data/example.bwk"
expect '{"wcet_ns":65}' "$bw" wcet "$ex" --q 0 --json
expect '{"wcet_ns":80}' "$bw" wcet "$ex" --q 0.2 --sync 1 --json
expect '{"wcet_ns":90}' "$bw" wcet --json "$ex" --q=0.2 --sync 0
expect '{"wcet_ns":100}' "$bw" wcet "$ex" --q 1 --json
expect 'example: G(Q=0.2, sync=1) = 80 ns' "$bw" wcet "$ex" --q 0.2 --sync 1
expect '{"q":0.01,"q_adjusted":0.01,"wcet_ns":71,"wcet0_ns":65}' \
	"$bw" nominal "$ex" --json
expect '{"q":0,"q_adjusted":0,"wcet_ns":65,"wcet0_ns":65}' \
	"$bw" nominal "$ex" --slowdown 0.05 --json
# Table 5.1: 14 % - 470/60000 = 13.2 %
expect_rc 0 'Q-bar adjusted  0.1322' "$bw" nominal "$ex" --slowdown 0.2924 \
	--bwmax-events 60000 --overhead-events 470
# remaining time G(0.1) - 0 = 80: FAIR 0.2, GREEDY 0.2; SMOOTH from 0.1
expect '{"q":0.20000000000000001}' "$bw" budget "$ex" --policy fair \
	--elapsed-ns 0 --remaining 4,2 --q-nominal 0.1 --json
expect '{"q":0.20000000000000001}' "$bw" budget "$ex" --policy greedy \
	--elapsed-ns 0 --remaining 4,2 --q-nominal 0.1 --json
expect '{"q":0.13}' "$bw" budget "$ex" --policy smooth \
	--elapsed-ns 0 --remaining 4,2 --q-nominal 0.1 --json
expect '{"q":0.10000000000000001}' "$bw" budget "$ex" --policy smooth \
	--elapsed-ns 0 --remaining 4,2 --q-nominal 0.1 --prev-q 0.05 --json
# nothing left: any budget; far behind: Q-bar (the default nominal 0.01)
expect '{"q":1}' "$bw" budget "$ex" --policy fair --elapsed-ns 10 \
	--remaining 0,0 --json
expect '{"q":0.01}' "$bw" budget "$ex" --policy greedy --elapsed-ns 500 \
	--remaining 4,2 --json
expect_rc 0 'fair budget Q = 0.200000' "$bw" budget "$ex" --policy fair \
	--elapsed-ns 0 --remaining 4,2 --q-nominal 0.1
expect_rc 0 'G(Q-bar)  = 71 ns' "$bw" show "$ex"
expect_rc 0 '"wcet1_ns":100' "$bw" show "$ex" --json
c0='{"id":0,"e0_ns":2000,"e1_ns":5000,"blocks":3700}'
c1='{"id":1,"e0_ns":8000,"e1_ns":9000,"blocks":200}'
c2='{"id":2,"e0_ns":500,"e1_ns":3000,"blocks":196}'
expect_rc 0 "\"clusters\":[$c0,$c1,$c2]" \
	"$bw" show "$data/interleaved.bwk" --json
expect_rc 0 '"period_ns":1000000' "$bw" show "$data/interleaved.bwk" --json

# task sets
expect_rc 0 '"response_ns":38' "$bw" rta "$data/sched.ts" --json
expect_rc 0 'schedulable' "$bw" rta "$data/sched.ts"
expect_rc 1 '"schedulable":false' "$bw" rta "$data/unsched.ts" --json
expect_rc 1 'NOT schedulable' "$bw" rta "$data/unsched.ts"
expect_rc 2 "bad.ts: line 3: bad number for 'gpu_exec'" \
	"$bw" rta "$data/bad.ts"

# bad input and usage
expect_rc 2 "bad_line7.bwk: line 7: e0 50 > e1 40" \
	"$bw" wcet "$data/bad_line7.bwk" --q 0.5
expect_rc 2 "bad_unused.bwk: line 6: cluster 1 is used by no interval" \
	"$bw" show "$data/bad_unused.bwk"
expect_rc 2 "no-such.bwk: No such file" "$bw" show "$data/no-such.bwk"
expect_rc 2 "--q Q is required" "$bw" wcet "$ex"
expect_rc 2 "bad value '2' for --q" "$bw" wcet "$ex" --q 2
expect_rc 2 "bad value '0.5x' for --q" "$bw" wcet "$ex" --q 0.5x
expect_rc 2 "--sync (0 or 1)" "$bw" wcet "$ex" --q 0.5 --sync 2
expect_rc 2 "unknown option '--bogus'" "$bw" show "$ex" --bogus
expect_rc 2 "missing PROFILE" "$bw" show
expect_rc 2 "--policy fair|greedy|smooth" "$bw" budget "$ex" --policy x \
	--elapsed-ns 0 --remaining 1,1
expect_rc 2 "needs 2 comma-separated" "$bw" budget "$ex" --policy fair \
	--elapsed-ns 0 --remaining 1
expect_rc 2 "needs 2 comma-separated" "$bw" budget "$ex" --policy fair \
	--elapsed-ns 0 --remaining 1,1,1
expect_rc 2 "cluster 1 has only 2 blocks" "$bw" budget "$ex" \
	--policy fair --elapsed-ns 0 --remaining 1,3
expect_rc 2 "go together" "$bw" nominal "$ex" --bwmax-events 100

# the writer's output parses back to the same answers (stdin as "-")
expect '{"wcet_ns":90}' sh -c "'$bw' wcet - --q 0.2 --json < '$ex'"
exit $fail
