#!/bin/sh
# bwsim's command line: spellings, JSON fields, determinism, bad input.
set -u
bwsim=${top_builddir:-.}/tools/bwsim
histo=${top_srcdir:-.}/examples/histo.bwk
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
err() { echo "FAIL: $*" >&2; fail=1; }

$bwsim tfs --rho 1 --periods 200 --json > "$tmp/t.json" || err "tfs"
for k in mem_periods cpu_periods throttled_ns; do
	grep -q "\"$k\"" "$tmp/t.json" || err "tfs: no $k"
done
$bwsim tfs --rho 0 --periods 100 --csv "$tmp/t.csv" > /dev/null || err "tfs csv"
test "$(wc -l < "$tmp/t.csv")" -eq 101 || err "tfs csv rows"

$bwsim throttle --rho 3 --launches 5 --json > "$tmp/th.json" || err "throttle"
grep -q '"throttled_ns"' "$tmp/th.json" || err "throttle: no throttled_ns"

for p in nominal fair greedy smooth; do
	$bwsim budgets --profile "$histo" --policy $p --launches 4 --seed 9 \
	    --json > "$tmp/$p.json" || err "budgets $p"
	for k in launches over_bound max_ratio be_events q_mean q_std; do
		grep -q "\"$k\"" "$tmp/$p.json" || err "budgets $p: no $k"
	done
	grep -q '"over_bound":0' "$tmp/$p.json" || err "budgets $p: over bound"
done
$bwsim budgets --profile "$histo" --policy smooth --launches 4 --seed 9 \
    --json > "$tmp/again.json" || err "budgets again"
$bwsim budgets --profile "$histo" --policy greedy --launches 3 --be mixed \
    --rho 3 --speed harmonic --json > "$tmp/mixed.json" || err "budgets mixed"
grep -q '"over_bound":0' "$tmp/mixed.json" || err "budgets mixed: over bound"
cmp -s "$tmp/smooth.json" "$tmp/again.json" || err "budgets not deterministic"
$bwsim budgets --profile "$histo" --policy fair --launches 2 \
    --csv "$tmp/b.csv" > "$tmp/b.txt" || err "budgets csv"
head -1 "$tmp/b.csv" | grep -q '^launch,period' || err "budgets csv header"
# every period's Q within [Q-bar, 1], for each dynamic policy
for p in fair greedy smooth; do
	$bwsim budgets --profile "$histo" --policy $p --launches 3 \
	    --csv "$tmp/q.csv" --json > "$tmp/q.json" || err "budgets $p csv"
	qn=$(sed 's/.*"q_nominal":\([0-9.e-]*\).*/\1/' "$tmp/q.json")
	awk -F, -v qn="$qn" 'NR > 1 { n++; if ($4 < qn - 1e-6 || $4 > 1) bad++ }
	    END { exit !(n > 10 && bad == 0) }' "$tmp/q.csv" ||
	    err "budgets $p: Q outside [Q-bar, 1] or no periods"
done
grep -q 'over bound: 0' "$tmp/b.txt" || err "budgets readable output"
for k in be_run_ns cpu_run_ns; do
	grep -q "\"$k\"" "$tmp/mixed.json" || err "budgets: no $k"
done
$bwsim budgets --profile "$histo" --policy smooth --launches 3 \
    --be 1,0.25,0.05 --json > "$tmp/spec.json" || err "budgets --be list"
grep -q '"over_bound":0' "$tmp/spec.json" || err "budgets --be list: over"

# protection (BWLOCK++ Fig. 9): every scenario, the lock within its bound
for sc in solo corun locked; do
	$bwsim protect --scenario $sc --launches 3 --json > "$tmp/p.json" ||
	    err "protect $sc"
	for k in mean_ns max_ns bound_ns over_bound be_events; do
		grep -q "\"$k\"" "$tmp/p.json" || err "protect $sc: no $k"
	done
	grep -q '"over_bound":0' "$tmp/p.json" || err "protect $sc: over bound"
done
$bwsim protect --scenario locked --q 0.05 --launches 2 | grep -q 'Q 0.0500' ||
    err "protect --q"

# bad input: clear error, exit 2, no crash
for args in "tfs" "tfs --rho -1" "tfs --rho x" "tfs --rho 1 --periods 0" \
    "budgets --policy fair --launches 1" \
    "budgets --profile $histo --policy best" \
    "budgets --profile /nonexistent --policy fair" "nosuch" \
    "throttle --rho 1 --cores 99" "tfs --rho" \
    "budgets --profile $histo --policy fair --be some" \
    "budgets --profile $histo --policy fair --speed fast" \
    "budgets --profile $histo --policy fair --be 1.5" \
    "budgets --profile $histo --policy fair --be 0.5,x" \
    "budgets --profile $histo --policy fair --be" \
    "protect" "protect --scenario alone" "protect --scenario locked --q 2" \
    "protect --scenario solo --launches 0"; do
	$bwsim $args > /dev/null 2> "$tmp/e"
	rc=$?
	test $rc -eq 2 || err "'$args' exited $rc"
	test -s "$tmp/e" || err "'$args' said nothing"
done
printf 'bwk 1\nkernel x\nblocks 0\n' > "$tmp/bad.bwk"
$bwsim budgets --profile "$tmp/bad.bwk" --policy fair > /dev/null 2>&1
test $? -eq 2 || err "bad profile accepted"

if test -n "${GNUPLOT:-}" && test -x "$GNUPLOT"; then
	$bwsim plot shares --periods 100 -o "$tmp/sh" > /dev/null || err "plot"
	test -s "$tmp/sh.png" && test -s "$tmp/sh.svg" || err "plot files"
fi
exit $fail
