#!/bin/sh
# Metrics: `bwctl metrics` and the file the daemon keeps in metrics_dir
# are Prometheus text that the Prometheus client's own parser reads,
# with conventional names, rewritten atomically on the interval and
# removed when the daemon stops; every metric is documented in
# bwsched(8).
. "$top_srcdir/tests/daemon/lib.sh"
: "${PYTHON3:=python3}"
BWCTL=$top_builddir/client/bwctl
MAN=$top_srcdir/man/bwsched.8
"$PYTHON3" -c 'import prometheus_client.parser' 2>/dev/null ||
	fail "no prometheus_client for $PYTHON3 (scripts/setup installs python3-prometheus-client)"

mkdir "$T/prom"
write_conf <<CONF
metrics_dir = $T/prom
metrics_interval_ns = 200000000
CONF
start_daemon --regulator=sim

# check FILE: parse, names, the families this daemon must have
check() {
	"$PYTHON3" - "$1" "$MAN" <<'PY' || fail "metrics check of $1: $(head -c 2000 "$1")"
import re, sys
from prometheus_client.parser import text_string_to_metric_families
text = open(sys.argv[1]).read()
man = open(sys.argv[2]).read()
fams = {f.name: f for f in text_string_to_metric_families(text)}
# the parser keeps what it was told: every sample line had a TYPE
types = dict(re.findall(r'^# TYPE (\S+) (\S+)$', text, re.M))
helps = set(re.findall(r'^# HELP (\S+) ', text, re.M))
for line in text.splitlines():
    if line.startswith('#'):
        continue
    name = re.match(r'[a-zA-Z_:][a-zA-Z0-9_:]*', line).group(0)
    base = re.sub(r'_(count|sum)$', '', name)
    assert name in types or base in types, 'no TYPE for ' + name
    assert re.match(r'^bwsched_[a-z0-9_]+$', name), 'name ' + name
for name, t in types.items():
    assert name in helps, 'no HELP for ' + name
    if t == 'counter':
        assert name.endswith('_total'), 'counter without _total: ' + name
    else:
        assert not name.endswith('_total'), t + ' named _total: ' + name
    assert not re.search(r'_(ns|ms|us)(_|$)', name), 'not base units: ' + name
    # bwsched(8) documents every metric
    assert name.replace('_', r'\_') in man or name in man, 'undocumented: ' + name
def one(name, labels=None):
    f = fams.get(re.sub(r'_total$', '', name)) or fams[name]
    for s in f.samples:
        if s.name == name and (labels is None or all(
                s.labels.get(k) == v for k, v in labels.items())):
            return s
    raise AssertionError('no sample ' + name + ' ' + str(labels))
assert one('bwsched_info', {'regulator': 'sim', 'be_regulated': 'false'}).value == 1
assert one('bwsched_periods_total').value > 0
assert one('bwsched_uptime_seconds').value > 0
assert one('bwsched_q_ratio').value == -1
assert one('bwsched_period_lateness_seconds', {'quantile': '0.99'}).value >= 0
cores = [s for s in fams['bwsched_core_budget_events'].samples]
assert len(cores) == 3 and all(s.value == float('inf') for s in cores), cores
assert len([s for s in fams['bwsched_core_throttled_seconds'].samples]) == 3
assert one('bwsched_request_errors_total', {'status': 'UNKNOWN_OP'}).value >= 0
PY
}

"$BWCTL" -s "$SOCK" metrics > "$T/m1" || fail "bwctl metrics"
check "$T/m1"
"$BWCTL" metrics --json -s "$SOCK" > "$T/mj" || fail "bwctl metrics --json"
"$PYTHON3" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not d["text"].startswith("# HELP bwsched_"))' "$T/mj" ||
	fail "metrics --json"

# the file: there at once, then rewritten (periods grow), never torn
F=$T/prom/bwsched.prom
i=0
# (the first file may be written before the first period: wait for one)
until [ -s "$F" ] && grep -q '^bwsched_periods_total [1-9]' "$F"; do
	i=$((i + 1)); [ $i -lt 200 ] || fail "no $F"
	sleep 0.05
done
check "$F"
p1=$(sed -n 's/^bwsched_periods_total //p' "$F")
sleep 0.6
check "$F"
p2=$(sed -n 's/^bwsched_periods_total //p' "$F")
[ "$p2" -gt "$p1" ] || fail "metrics file not rewritten ($p1, $p2)"
ls -A "$T/prom" > "$T/ls"
[ "$(cat "$T/ls")" = bwsched.prom ] || fail "left in metrics_dir: $(cat "$T/ls")"

# a bad request is counted by its status
"$BWCTL" -s "$SOCK" kernels 99 > /dev/null 2>&1
"$BWCTL" -s "$SOCK" metrics | grep -q '^bwsched_request_errors_total{status="NOENT"} [1-9]' ||
	fail "error not counted: $(grep errors "$T/m1")"
stop_daemon || fail "daemon exit status"
[ -e "$F" ] && fail "metrics file left after the daemon stopped"
exit 0
