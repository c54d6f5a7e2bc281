#!/bin/sh
# SIGHUP: a good file is applied, a bad one is reported and the old
# configuration keeps serving; -n checks files; a missing -c file fails.
. "$top_srcdir/tests/daemon/lib.sh"
write_conf <<EOC
policy = fair
EOC
"$BWSCHED" -n -c "$CONF" || fail "-n on a good file"
echo "policy = fastest" > "$T/bad.conf"
"$BWSCHED" -n -c "$T/bad.conf" 2> "$T/err" && fail "-n accepted a bad file"
grep -q "bad.conf:1: policy" "$T/err" || fail "error without file:line"
"$BWSCHED" -n -c "$T/missing.conf" 2>/dev/null && fail "missing -c file accepted"
"$BWSCHED" -n -c "$CONF" --regulator=bogus 2> "$T/err" && fail "unknown regulator accepted"
grep -q 'unknown regulator "bogus"' "$T/err" || fail "regulator error"
"$BWSCHED" -n -c "$CONF" --regulator=sim >/dev/null || fail "--regulator=sim"
# kmod regulates real CPUs: the default be_cores (1-3) means the CPUs
# there are besides 0; an explicit CPU the machine lacks is an error
ncpu=$(getconf _NPROCESSORS_CONF)
if [ "$ncpu" -ge 2 ]; then
	"$BWSCHED" -n -c "$CONF" --regulator=kmod >/dev/null 2>"$T/err" ||
		fail "default be_cores refused on $ncpu CPUs: $(cat "$T/err")"
fi
{ cat "$CONF"; echo "be_cores = $ncpu"; } > "$T/cores.conf"
"$BWSCHED" -n -c "$T/cores.conf" --regulator=kmod 2>"$T/err" &&
	fail "be_cores = $ncpu accepted on a $ncpu-CPU machine"
grep -q "CPU $ncpu does not exist" "$T/err" || fail "be_cores error: $(cat "$T/err")"
"$BWSCHED" -n -c "$CONF" --bogus 2>/dev/null; [ $? -eq 2 ] || fail "usage error status"
start_daemon
[ "$("$BWTEST" "$SOCK" get regulator)" = sim ] || fail "regulator"
[ "$("$BWTEST" "$SOCK" get policy)" = fair ] || fail "policy from file"
sed -i 's/fair/greedy/' "$CONF"
kill -HUP "$DPID"
sleep 0.3
[ "$("$BWTEST" "$SOCK" get policy)" = greedy ] || fail "good reload"
# only the policy changed: no restart-only key is reported as changing
grep -q "changes at the next restart" "$T/log" &&
	fail "an unchanged restart key reported as changed"
printf 'policy = smooth\nrho = lots\n' > "$CONF"
kill -HUP "$DPID"
sleep 0.3
"$BWTEST" "$SOCK" ping || fail "not serving after a bad reload"
[ "$("$BWTEST" "$SOCK" get policy)" = greedy ] || fail "bad reload applied"
grep -q "reload failed.*bwsched.conf:2: rho" "$T/log" || fail "bad reload not logged"
stop_daemon || fail "exit status"
exit 0
