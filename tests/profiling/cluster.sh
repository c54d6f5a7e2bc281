#!/bin/sh
# bwanalyze cluster end to end: synthetic traces with known clusters
# (interleaved intervals, one-block interval) recovered exactly from CSV,
# binary and stdin; the profile accepted by the .bwk parser (bwanalyze
# show); too few samples and bad input refused with a clear reason.
set -u
. "$top_srcdir/tests/profiling/lib.sh"
data="$top_srcdir/tests/profiling/data"

# status, pattern in stderr/stdout, command...
expect_rc() {
	want=$1 pat=$2
	shift 2
	got=$("$@" 2>&1)
	rc=$?
	[ "$rc" = "$want" ] || no "$* exited $rc, expected $want: $got"
	case $got in *"$pat"*) ;; *) no "$*: no '$pat' in: $got" ;; esac
}

ints="0:1,100:0,130:2,400:0,401:1,450:0,700:2"
"$gen" trace --blocks 800 --runs 150 --seed 11 --intervals "$ints" \
	--clusters 2000:40,2600:60:1.5,3300:45 -o "$tmp/k.csv" || no gen csv
"$gen" trace --blocks 800 --runs 150 --seed 11 --intervals "$ints" \
	--clusters 2000:40,2600:60:1.5,3300:45 --binary -o "$tmp/k.bin" ||
	no gen bin

"$bw" cluster "$tmp/k.csv" -o "$tmp/k.bwk" --concurrency 16 >/dev/null ||
	no cluster csv
want="interval 0 1
interval 100 0
interval 130 2
interval 400 0
interval 401 1
interval 450 0
interval 700 2"
got=$(grep '^interval' "$tmp/k.bwk")
[ "$got" = "$want" ] || no "intervals: $got"
grep -q '^kernel k$' "$tmp/k.bwk" || no "kernel name from the file name"
grep -q '^blocks 800$' "$tmp/k.bwk" || no "blocks"
grep -q '^concurrency 16$' "$tmp/k.bwk" || no "concurrency"
[ "$(grep -c '^cluster' "$tmp/k.bwk")" = 3 ] || no "3 clusters"

# the same trace in binary, from a file and from stdin: same profile
"$bw" cluster "$tmp/k.bin" -o "$tmp/b.bwk" --concurrency 16 --name k \
	>/dev/null || no cluster bin
cmp -s "$tmp/k.bwk" "$tmp/b.bwk" || no "binary trace gives another profile"
"$bw" cluster - -o "$tmp/s.bwk" --concurrency 16 --name k <"$tmp/k.bin" \
	>/dev/null || no cluster stdin
cmp -s "$tmp/k.bwk" "$tmp/s.bwk" || no "stdin gives another profile"

# the daemon's parser accepts it; the model computes bounds from it
"$bw" show "$tmp/k.bwk" >/dev/null || no "show rejects the profile"
"$bw" wcet "$tmp/k.bwk" --q 0.5 >/dev/null || no "wcet on the profile"

# e0 is the maximum observed (max rule), e1 >= e0
awk '/^cluster/ { split($3, a, "="); split($4, b, "=");
	if (a[2] + 0 > b[2] + 0) exit 1 }' "$tmp/k.bwk" || no "e0 > e1"
"$bw" cluster "$tmp/k.csv" -o "$tmp/j.bwk" --concurrency 16 --json \
	>"$tmp/j.json" || no json
for key in '"clusters"' '"fit_ratio"' '"percentile"' '"goodness_of_fit"' \
    '"intervals":[[0,1],[100,0],[130,2],[400,0],[401,1],[450,0],[700,2]]'; do
	grep -qF "$key" "$tmp/j.json" || no "json lacks $key"
done
"$bw" cluster "$tmp/k.csv" -o "$tmp/n.bwk" --concurrency 16 \
	--select normal:0.999 >/dev/null || no "normal:P"
cmp -s "$tmp/k.bwk" "$tmp/n.bwk" && no "normal:P gives the max profile"
[ "$(grep '^interval' "$tmp/n.bwk")" = "$want" ] || no "normal intervals"

# EVT rule: pWCET at 1e-6 lies above every observed maximum here
"$gen" trace --blocks 200 --runs 100 --seed 11 --clusters 2000:40,3300:45 \
	-o "$tmp/e.csv"
"$bw" cluster "$tmp/e.csv" -o "$tmp/e.bwk" --concurrency 4 \
	--select evt:1e-6 >/dev/null || no "evt:P"
"$bw" cluster "$tmp/e.csv" -o "$tmp/m.bwk" --concurrency 4 >/dev/null ||
	no "max on e.csv"
paste "$tmp/e.bwk" "$tmp/m.bwk" | awk '/^cluster/ {
	split($3, e0, "="); split($4, e1, "=");
	split($7, m0, "="); split($8, m1, "=");
	if (e0[2] + 0 <= m0[2] + 0 || e1[2] + 0 <= m1[2] + 0) exit 1 }' ||
	no "evt e0/e1 not above the observed maxima"
[ "$(grep -c '^interval' "$tmp/e.bwk")" = 2 ] || no "evt intervals"
# a drift shared by all blocks from run to run (an AR(1) over runs):
# the blocks still cluster, but the EVT rule refuses, naming why
awk -F, 'BEGIN { srand(1) } NR == 1 { print; next }
	$1 != run || $4 != cond { v = 0.9 * v + (rand() - 0.5) * 300;
		run = $1; cond = $4 }
	{ printf "%s,%s,%d,%s\n", $1, $2, $3 + v + 300, $4 }' \
	"$tmp/e.csv" >"$tmp/dep.csv"
expect_rc 2 "cannot select e0: " "$bw" cluster "$tmp/dep.csv" \
	-o "$tmp/x.bwk" --concurrency 4 --select evt:1e-6
case $got in *non-stationary*|*"not independent"*) ;;
	*) no "dep: the refusal does not say why: $got" ;; esac

# whole-ns Gaussian clusters, 3,600 block maxima each: the EVT rule
# accepts them (the Gumbel tail lies above the data, and rounding is not
# misfit) and e0/e1 lie above the observed maxima
"$gen" trace --blocks 1800 --runs 100 --seed 12 --clusters 1600:35,2600:35 \
	-o "$tmp/g.csv"
"$bw" cluster "$tmp/g.csv" -o "$tmp/g.bwk" --concurrency 4 \
	--select evt:1e-6 --json >"$tmp/g.json" || no "evt:P on Gaussian"
grep -q '"goodness_of_fit":0\.' "$tmp/g.json" ||
	no "normal data flagged by the fit ratio: $(cat "$tmp/g.json")"

# same mean, sd 35 vs 140 (the clustering used to mix these into two
# impure clusters and 132 intervals): two clusters, the true halves
"$gen" trace --blocks 600 --runs 200 --seed 1 --clusters 1600:35,1600:140 \
	-o "$tmp/sp.csv"
"$bw" cluster "$tmp/sp.csv" -o "$tmp/sp.bwk" --concurrency 4 >/dev/null ||
	no "spread"
[ "$(grep '^interval' "$tmp/sp.bwk" | tr '\n' ' ')" = \
    "interval 0 1 interval 300 0 " ] ||
	no "spread: $(grep '^interval' "$tmp/sp.bwk" | tr '\n' ' ')"

# refusals
expect_rc 2 "too few samples" "$bw" cluster "$data/too_few.csv" \
	-o "$tmp/x.bwk" --concurrency 4
expect_rc 2 "expected the header" "$bw" cluster "$data/bad_header.csv" \
	-o "$tmp/x.bwk" --concurrency 4
expect_rc 2 "--concurrency M is required" "$bw" cluster "$tmp/k.csv" \
	-o "$tmp/x.bwk"
expect_rc 2 "bad --select" "$bw" cluster "$tmp/k.csv" -o "$tmp/x.bwk" \
	--concurrency 4 --select normal:99
expect_rc 2 "bad --alpha" "$bw" cluster "$tmp/k.csv" -o "$tmp/x.bwk" \
	--concurrency 4 --alpha 0
expect_rc 2 "No such file" "$bw" cluster "$tmp/none.csv" -o "$tmp/x.bwk" \
	--concurrency 4
expect_rc 2 "blocks 0..899 expected" "$bw" cluster "$tmp/k.csv" \
	-o "$tmp/x.bwk" --concurrency 4 --blocks 900
[ -e "$tmp/x.bwk" ] && no "a refused run wrote a profile"
exit $fail
