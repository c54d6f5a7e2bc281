#!/bin/sh
# The daemon end to end: every op, lock transitions, events, client death,
# set as non-admin (as nobody when we are root).
. "$top_srcdir/tests/daemon/lib.sh"
write_conf </dev/null
start_daemon
"$BWTEST" "$SOCK" basic || fail "basic scenario"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 0755 "$T"
	chmod 0666 "$SOCK"
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$BWTEST" "$SOCK" nonadmin || fail "non-admin scenario"
else
	echo "not root: non-admin case skipped"
fi
kill -0 "$DPID" || fail "daemon died"
stop_daemon || fail "daemon exit status"
grep -q "serving on" "$T/log" || fail "no start message"
exit 0
