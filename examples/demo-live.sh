#!/bin/sh
# demo-live.sh BUILDDIR [SECONDS] - the regulation loop live: bwsched with
# the simulated platform (--regulator=sim: 3 BE cores, each running a
# memory hog and a compute task), and the demo GPU client launching the
# histo kernel (examples/histo.bwk: M = 8, the profile of [DynBW]
# Table 4.1; see doc/references.md) every 25 ms and emulating its blocks
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
BWSIM=$B/tools/bwsim
HISTO=$SRC/examples/histo.bwk
for p in "$BWSCHED" "$BWCTL" "$DEMO" "$BWSIM"; do
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
BWSCHED_SIM_TASKS=cpu,mem "$BWSCHED" -f --regulator=sim \
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

echo "bwsched with the simulated platform: 3 BE cores, each running a memory"
echo "hog and a compute task; demo_gpu launches the histo kernel every 25 ms."
section "phase 1: policy smooth for $SECS s"
phase smooth "$SECS" || echo "demo_gpu reported launches over the bound"
section "phase 2: policy nominal for $((SECS / 3)) s"
phase nominal "$((SECS / 3))" || echo "demo_gpu reported launches over the bound"

section "what the numbers mean"
cat <<'TXT'
Q is how much memory traffic the best-effort (BE) cores may make in one
period (1 ms) while a real-time GPU kernel holds the bandwidth lock, as a
share of the most they can make: 0.13 means 13 %, split over the BE cores;
"unregulated" means no kernel holds the lock and the BE cores run free.
Q-bar is the static Q: the largest Q with which the kernel still meets its
bound if nothing else is known.  The daemon computes it when the kernel
registers, from the kernel's profile.  NOMINAL always runs at Q-bar.
SMOOTH watches the kernel's progress (finished blocks) and gives the BE
cores more than Q-bar while the kernel is ahead of its schedule.  A late
period is one the engine could not decide before it began: it then runs at
Q-bar, which is safe for the kernel but gives the BE cores no extra.
TXT

section "summary: Q while the lock was held (policy smooth, 3 s bins)"
# a row with again (column 12) = 1 replaces the row before it
awk -F, 'NR == 1 { next }
{ s = int(($2 - t0) / 3e9); if (NR == 2) { t0 = $2; s = 0 } }
$12 == 1 && $1 == lp && lh { n[ls]--; q[ls] -= lq }
$5 > 0 { n[s]++; q[s] += $3; qb[s] = $4; if ($3 > mx[s]) mx[s] = $3;
	late[s] += $6 }
{ lp = $1; ls = s; lq = $3; lh = $5 > 0 }
END {
	printf "%6s %8s %8s %8s %8s %6s  %s\n", "s", "periods", "Q-bar",
	    "Q mean", "Q max", "late", "Q mean (# = 0.05)"
	for (i = 0; i <= s; i++) {
		if (!n[i]) continue
		bar = ""; m = q[i] / n[i]
		for (j = 0; j < m / 0.05; j++) bar = bar "#"
		printf "%2d-%-3d %8d %8.4f %8.4f %8.4f %5.0f%%  %s\n", 3 * i,
		    3 * i + 3, n[i], qb[i], m, mx[i], 100 * late[i] / n[i], bar
	}
}' "$T/trace-smooth.csv"

section "summary: what the BE cores got, SMOOTH against NOMINAL"
# BE memory events while a kernel runs ([DynBW] section 5.4), per launch
awk -F, 'FNR == 1 { p = FILENAME; sub(/.*launches-/, "", p);
	sub(/\.csv$/, "", p); next }
{ n[p]++; be[p] += $6 }
END {
	s = be["smooth"] / n["smooth"]; m = be["nominal"] / n["nominal"]
	printf "while a kernel runs, BE memory events per launch: smooth " \
	    "%.0f, nominal %.0f, ratio %.2f\n", s, m, (m > 0 ? s / m : 0)
}' "$T/launches-smooth.csv" "$T/launches-nominal.csv" | tee "$T/ratio"
# the same in virtual time: bwsim budgets with this daemon's settings;
# its "mixed" BE cores run a compute and a memory task each, as here
# (its compute task issues 1 % of a core's bandwidth, the daemon's none)
model() {
	"$BWSIM" budgets --profile "$HISTO" --policy "$1" --launches 1000 \
	    --be mixed --overhead-events "$(ctl get overhead_events)" \
	    --bwmax-events "$(ctl get bwmax_events)" --rho "$(ctl get rho)" \
	    --json | tr '{},' '\n\n\n' |
	    awk -F: '/"be_events"/ { printf "%.0f\n", $2 }'
}
ms=$(model smooth) mn=$(model nominal)
awk -v s="$ms" -v n="$mn" '{ r = $NF }
END {
	m = n > 0 ? s / n : 0
	printf "the model in virtual time (bwsim budgets, same profile and " \
	    "settings): smooth %.0f,\nnominal %.0f, ratio %.2f; the live " \
	    "ratio is %.0f %% of it\n", s, n, m, (m > 0 ? 100 * r / m : 0)
}' "$T/ratio"
late=$(awk -F, 'NR > 1 && $5 > 0 && $12 != 1 { n++; l += $6 }
	END { printf "%.0f", n ? 100 * l / n : 0 }' "$T/trace-smooth.csv")
awk -v late="$late" '{ r = $NF }
END {
	if (r >= 1.10)
		printf "SMOOTH gave the BE cores %.0f %% more while the kernel " \
		    "ran (whether every launch still met\nits bound is the " \
		    "last summary).\n", (r - 1) * 100
	else
		printf "SMOOTH gained little here: %s %% of its held periods " \
		    "were late, and a late period\nruns at Q-bar, as NOMINAL " \
		    "does: on this machine the period thread does not\n" \
		    "wake in time (other work, no dedicated core).\n", late
}' "$T/ratio"
read e0 e1 t0 t1 < "$T/be-smooth"
read f0 f1 u0 u1 < "$T/be-nominal"
awk -v a="$e0" -v b="$e1" -v c="$t0" -v d="$t1" \
    -v e="$f0" -v f="$f1" -v g="$u0" -v h="$u1" 'BEGIN {
	s = (b - a) / (d - c); n = (f - e) / (h - g)
	printf "over the whole run, BE memory events per second: smooth " \
	    "%.0f, nominal %.0f, ratio %.2f\n", s, n, (n > 0 ? s / n : 0)
	printf "(between launches the BE cores are unregulated under both " \
	    "policies, and that is\nmost of the time: this ratio shows " \
	    "how busy this machine was in each phase more\nthan what " \
	    "the policy did)\n"
}'

section "summary: every launch against its bound"
for p in smooth nominal; do
	awk -F, -v p=$p 'NR == 2 { bound = $4 / 1e6 }
	NR > 1 { k++; sum += $5; if ($5 > 1) over++; if ($5 > mx) mx = $5 }
	END { printf "%-8s %d launches, %d over the bound (%.3f ms); " \
	    "actual/bound mean %.3f, largest %.3f\n", p, k, over, bound,
	    k ? sum / k : 0, mx }' "$T/launches-$p.csv"
done
echo "(1.000 = the kernel ended exactly at its bound; on this CPU-only"
echo "machine the kernel's blocks are emulated against the simulated BE traffic)"
