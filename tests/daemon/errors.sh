#!/bin/sh
# What a newcomer meets first: errors that name the real cause, the
# regulator picked by its device and a loud word when it is only the
# simulation, `get socket` naming the socket in use, and routine
# connections kept out of the info log.
. "$top_srcdir/tests/daemon/lib.sh"
BWCTL=$top_builddir/client/bwctl
CLIENT=$top_builddir/examples/demo_client

# --regulator names itself, not the config file
write_conf < /dev/null
"$BWSCHED" -n -c "$CONF" --regulator=foo > "$T/out" 2>&1 && fail "--regulator=foo accepted"
grep -q '^bwsched: --regulator: unknown regulator "foo"' "$T/out" || fail "--regulator=foo: $(cat "$T/out")"
echo 'regulator = foo' >> "$CONF"
"$BWSCHED" -n -c "$CONF" > "$T/out" 2>&1 && fail "regulator = foo accepted"
grep -q "^bwsched: $CONF: unknown regulator \"foo\"" "$T/out" || fail "regulator = foo: $(cat "$T/out")"

# -n on the default path says whether the file exists
def=$("$BWSCHED" --help | sed -n 's/.*(default \(.*\))$/\1/p')
[ -n "$def" ] || fail "no default config path in --help"
"$BWSCHED" -n > "$T/out" 2>&1 || fail "-n on the default path: $(cat "$T/out")"
if [ -e "$def" ]; then
	grep -q 'configuration OK' "$T/out" || fail "-n: $(cat "$T/out")"
else
	grep -q "^$def does not exist: the built-in defaults" "$T/out" ||
		fail "-n on a missing default file: $(cat "$T/out")"
fi
"$BWSCHED" -n -c "$T/nosuch.conf" > "$T/out" 2>&1 && fail "-n -c on a missing file passed"

# the real regulator's BE cores must exist on this machine
n=$(getconf _NPROCESSORS_CONF)
write_conf <<CONF
regulator = kmod
be_cores = 0-$n
CONF
"$BWSCHED" -n -c "$CONF" > "$T/out" 2>&1 && fail "be_cores beyond the CPUs accepted"
grep -q "be_cores: CPU $n does not exist" "$T/out" || fail "be_cores: $(cat "$T/out")"

# no regulator configured, no /dev/bwreg: the sim, said loudly
write_conf <<CONF
socket = $T/not-this-one.sock
group = bwsched-no-such-group
log_level = info
CONF
start_daemon
if [ ! -e /dev/bwreg ]; then
	[ "$("$BWCTL" -s "$SOCK" get regulator)" = sim ] || fail "auto did not pick the sim"
	grep -q 'warning: regulator sim: the best-effort cores are SIMULATED' "$T/log" ||
		fail "no warning about the simulated regulator"
	"$BWCTL" -s "$SOCK" status > "$T/out" || fail "status"
	grep -q '^be_regulated  *no$' "$T/out" || fail "status be_regulated: $(cat "$T/out")"
	grep -q 'NOT really regulated' "$T/out" || fail "status note: $(cat "$T/out")"
fi
grep -q 'socket group "bwsched-no-such-group" does not exist: the socket stays root-only' "$T/log" ||
	fail "socket group warning: $(grep group "$T/log")"
# the socket in use, not the configured one
[ "$("$BWCTL" -s "$SOCK" get socket)" = "$SOCK" ] || fail "get socket: $("$BWCTL" -s "$SOCK" get socket)"
# a client that hangs up is routine: not in the info log
"$BWCTL" -s "$SOCK" tasks > /dev/null || fail "tasks"
stop_daemon || fail "daemon exit status"
grep -q 'closed: hung up' "$T/log" && fail "hang-ups logged at info"

# top and trace name the socket they could not reach
"$top_builddir/client/bwctl" -s "$T/nobody.sock" top --once > "$T/out" 2>&1 && fail "top without a daemon"
grep -q "top: cannot connect to $T/nobody.sock: " "$T/out" || fail "top: $(cat "$T/out")"

# a client with no daemon names the socket it tried
if [ -x "$CLIENT" ]; then
	"$CLIENT" "$T/nobody.sock" > "$T/out" 2>&1 && fail "demo_client without a daemon"
	grep -q "cannot reach bwsched at $T/nobody.sock" "$T/out" || fail "demo_client: $(cat "$T/out")"
fi
exit 0
