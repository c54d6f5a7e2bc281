#!/bin/sh
# demo-live.sh BUILDDIR [SECONDS] - the regulation loop live: bwsched with
# the simulated platform (--regulator=sim: 3 BE cores, each running a
# memory hog and a compute task), and the demo GPU client launching the
# histo kernel (seed 000 Table 4.1) every 25 ms and emulating its blocks
# against the simulated BE traffic.  Phase 1 runs policy SMOOTH for
# SECONDS (default 15) and shows `bwctl top` while it runs; phase 2 runs
# NOMINAL for a third of that.  The summary: Q over time, BE throughput
# under SMOOTH against NOMINAL, and every launch's actual time against
# its bound.
set -eu
[ $# -ge 1 ] || { echo "usage: $0 BUILDDIR [SECONDS]" >&2; exit 2; }
B=$(cd "$1" && pwd)
SECS=${2:-15}
SRC=$(cd "$(dirname "$0")/.." && pwd)
BWSCHED=$B/daemon/bwsched
BWCTL=$B/client/bwctl
DEMO=$B/examples/demo_gpu
HISTO=$SRC/examples/histo.bwk
for p in "$BWSCHED" "$BWCTL" "$DEMO"; do
	[ -x "$p" ] || { echo "demo-live: $p missing: build first" >&2; exit 1; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/bwsched-live.XXXXXX")
DPID= TPID=
cleanup() {
	[ -n "$TPID" ] && kill "$TPID" 2>/dev/null
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
SOCK=$T/bwsched.sock
section() { printf '\n== %s\n' "$*"; }
ctl() { "$BWCTL" -s "$SOCK" "$@"; }

# total BE memory events so far (all cores), from bwctl status --json
be_events() {
	ctl --json status | tr '{},' '\n\n\n' |
	    awk -F: '/"events"/ { s += $2 } END { printf "%.0f\n", s }'
}

printf 'group =\nlog_level = info\npolicy = smooth\n' > "$T/bwsched.conf"
section "bwsched -f --regulator=sim (BE cores: mem hog + compute task each)"
BWSCHED_SIM_TASKS=mem,cpu "$BWSCHED" -f --regulator=sim \
	-c "$T/bwsched.conf" -s "$SOCK" 2> "$T/bwsched.log" &
DPID=$!
i=0
until ctl get policy >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -lt 100 ] && kill -0 "$DPID" 2>/dev/null || {
		cat "$T/bwsched.log" >&2; exit 1; }
	sleep 0.05
done

# phase POLICY SECONDS: trace, demo client, BE events before and after
phase() {
	ctl set policy "$1" > /dev/null
	"$BWCTL" -s "$SOCK" trace --csv > "$T/trace-$1.csv" 2>/dev/null &
	TPID=$!
	e0=$(be_events)
	t0=$(date +%s.%N)
	"$DEMO" -q -s "$SOCK" -k "$HISTO" -t "$2" -i 25 \
		-o "$T/launches-$1.csv" > "$T/demo-$1.out" 2>&1 &
	dp=$!
	if [ "$1" = smooth ]; then
		sleep "$(echo "$2" | awk '{ print $1 / 2 }')"
		section "bwctl top --once (policy $1, mid-run)"
		ctl top --once --interval 1
	fi
	st=0
	wait "$dp" || st=$?
	e1=$(be_events)
	t1=$(date +%s.%N)
	kill "$TPID" 2>/dev/null || true
	wait "$TPID" 2>/dev/null || true
	TPID=
	echo "$e0 $e1 $t0 $t1" > "$T/be-$1"
	cat "$T/demo-$1.out"
	[ $st -eq 0 ] || echo "demo_gpu exit status $st"
	return $st
}

section "phase 1: policy smooth for $SECS s"
phase smooth "$SECS" || echo "demo_gpu reported launches over the bound"
section "phase 2: policy nominal for $((SECS / 3)) s"
phase nominal "$((SECS / 3))" || echo "demo_gpu reported launches over the bound"

section "summary: Q over time (policy smooth, 1 s bins, periods with the lock held)"
awk -F, 'NR == 1 { next }
{ s = int(($2 - t0) / 1e9); if (NR == 2) { t0 = $2; s = 0 } }
$5 > 0 { n[s]++; q[s] += $3; qb[s] = $4; if ($3 > mx[s]) mx[s] = $3;
	if (!(s in mn) || $3 < mn[s]) mn[s] = $3; late[s] += $6 }
END {
	printf "%4s %8s %8s %8s %8s %6s  %s\n", "s", "held", "Q-bar",
	    "Q mean", "Q max", "late", "Q (# = 0.05)"
	for (i = 0; i <= s; i++) {
		if (!n[i]) continue
		bar = ""; m = q[i] / n[i]
		for (j = 0; j < m / 0.05; j++) bar = bar "#"
		printf "%4d %8d %8.4f %8.4f %8.4f %6d  %s\n", i, n[i], qb[i],
		    m, mx[i], late[i], bar
	}
}' "$T/trace-smooth.csv"

section "summary: BE throughput against NOMINAL"
# while the kernel runs (seed 000 section 5.4): BE memory events per launch
awk -F, 'FNR == 1 { p = FILENAME; sub(/.*launches-/, "", p);
	sub(/\.csv$/, "", p); next }
{ n[p]++; be[p] += $6 }
END {
	s = be["smooth"] / n["smooth"]; m = be["nominal"] / n["nominal"]
	printf "BE events while a kernel runs, per launch: smooth %.0f, " \
	    "nominal %.0f: %.2fx\n", s, m, (m > 0 ? s / m : 0)
}' "$T/launches-smooth.csv" "$T/launches-nominal.csv"
read e0 e1 t0 t1 < "$T/be-smooth"
read f0 f1 u0 u1 < "$T/be-nominal"
awk -v a="$e0" -v b="$e1" -v c="$t0" -v d="$t1" \
    -v e="$f0" -v f="$f1" -v g="$u0" -v h="$u1" 'BEGIN {
	s = (b - a) / (d - c); n = (f - e) / (h - g)
	printf "all BE events per second (unregulated between launches " \
	    "too): smooth %.0f, nominal %.0f: %.2fx\n", s, n,
	    (n > 0 ? s / n : 0)
}'
for p in smooth nominal; do
	awk -F, -v p=$p 'NR > 1 && $5 > 0 { n++; q += $3; qq += $3 * $3 }
	END { m = q / n; v = qq / n - m * m; if (v < 0) v = 0
	    printf "%-8s mean Q while held %.4f (std %.4f) " \
	    "over %d periods\n", p, m, sqrt(v), n }' \
	    "$T/trace-$p.csv"
done

section "summary: every launch, actual/bound (1.000 = at the bound)"
for p in smooth nominal; do
	awk -F, -v p=$p 'NR == 2 { printf "%s: bound %.3f ms\n", p, $4 / 1e6 }
	NR > 1 { printf " %5.3f", $5; if (++k % 12 == 0) printf "\n";
		if ($5 > 1) over++; if ($5 > mx) mx = $5 }
	END { printf "\n%s: %d launches, %d over the bound, largest %.3f\n",
	    p, k, over, mx }' "$T/launches-$p.csv"
done

section "the daemon's last per-launch journal record"
grep 'BWSCHED_ACTUAL_NS=' "$T/bwsched.log" | tail -n 1 | tr ' ' '\n' |
	grep '^BWSCHED_' || echo "(none)"
