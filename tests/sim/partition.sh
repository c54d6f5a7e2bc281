#!/bin/sh
# bwsim partition and bwsim plot partition: JSON fields, the shape the
# experiment must have (everything schedulable at low utilisation, 1G
# first to fail, SMS never below best fit on these seeds), determinism,
# CSV rows, bad input; small runs only (scripts/results does the full one).
set -u
bwsim=${top_builddir:-.}/tools/bwsim
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
err() { echo "FAIL: $*" >&2; fail=1; }

run="partition --tasks 20 --sets 10 --umin 4 --umax 40 --ustep 12 --seed 3"
# shellcheck disable=SC2086
$bwsim $run --json > "$tmp/a.json" || err "partition --json"
# shellcheck disable=SC2086
$bwsim $run --json > "$tmp/b.json" || err "partition again"
${PYTHON3:-python3} - "$tmp/a.json" <<'PY' || err "partition: JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
keys = ["sms_act", "sms_ina", "bf_act", "bf_ina", "1g", "1g_util"]
pts = d["points"]
assert [p["utilization"] for p in pts] == [4, 16, 28, 40], pts
for p in pts:
    for k in keys:
        assert 0 <= p["rates"][k] <= 1, (p, k)
        assert p["analysis_ms"][k] >= 0 and p["tests"][k] >= 0
    # ACT's prefill is part of its tests; INA has none
    assert p["prefill_tests"]["sms_ina"] == 0
    assert p["prefill_tests"]["sms_act"] > 0
lo, hi = pts[0]["rates"], pts[-1]["rates"]
assert all(lo[k] == 1 for k in keys[:4]), lo
assert hi["1g"] == 0, hi
for p in pts:
    assert p["rates"]["1g"] <= min(p["rates"][k] for k in keys[:4]), p
PY
# analysis_ms varies run to run; everything else must not
for f in a b; do
	sed 's/"analysis_ms":{[^}]*}//g' "$tmp/$f.json" > "$tmp/$f.cut"
done
cmp -s "$tmp/a.cut" "$tmp/b.cut" || err "not deterministic"
# shellcheck disable=SC2086
$bwsim $run --seed 4 --json > "$tmp/c.json" || err "partition --seed 4"
sed 's/"analysis_ms":{[^}]*}//g' "$tmp/c.json" > "$tmp/c.cut"
cmp -s "$tmp/a.cut" "$tmp/c.cut" && err "--seed has no effect"

# readable output, a subset of variants, CSV rows (4 points x 10 sets x 2)
$bwsim partition --tasks 10 --sets 10 --umin 4 --umax 40 --ustep 12 \
    --only sms_ina,1g --csv "$tmp/p.csv" > "$tmp/p.txt" || err "--only"
grep -q 'sms_ina' "$tmp/p.txt" && ! grep -q 'bf_act' "$tmp/p.txt" ||
	err "--only: wrong columns"
test "$(wc -l < "$tmp/p.csv")" -eq 81 || err "csv rows"
head -1 "$tmp/p.csv" | grep -q '^utilization,set,variant,schedulable,tests$' ||
	err "csv header"

# bad input: clear error, exit 2
for args in "--tasks 0" "--tasks 257" "--prm 1.5" "--sets 0" "--sms 0" \
    "--umin 10 --umax 5" "--ustep 0" "--only foo" "--only" "--bogus" \
    "--seed 16777216" "--umin 1 --umax 1000 --ustep 0.5"; do
	# shellcheck disable=SC2086
	$bwsim partition $args > "$tmp/o" 2> "$tmp/e"
	rc=$?
	[ "$rc" = 2 ] || err "partition $args: exit $rc, expected 2"
	[ -s "$tmp/e" ] || err "partition $args: no message"
done
# too high a utilisation for 2 tasks: no set can be drawn
$bwsim partition --tasks 2 --sets 1 --umin 60 --umax 60 > "$tmp/o" \
    2> "$tmp/e" && err "impossible utilisation accepted"
grep -q 'no task set after 10000 draws' "$tmp/e" || err "no draw message"

# the figures, when gnuplot is there
if [ -n "${GNUPLOT:-}" ]; then
	$bwsim plot partition -o "$tmp/fig" --sets 2 --umin 10 --umax 50 \
	    --ustep 20 > "$tmp/plot.txt" || err "plot partition"
	for f in fig3.4 fig3.5 fig3.6; do
		test -s "$tmp/fig-$f.png" && test -s "$tmp/fig-$f.svg" ||
			err "plot: no $f"
	done
	test "$(wc -l < "$tmp/fig-200.csv")" -eq 4 || err "plot data rows"
fi
$bwsim plot partition -o "$tmp/x'y" > /dev/null 2>&1 && err "quote in -o"
$bwsim plot partition --tasks > /dev/null 2>&1 && err "plot: missing value"
exit $fail
