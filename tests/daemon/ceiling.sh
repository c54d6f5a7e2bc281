#!/bin/sh
# The priority ceiling ([BWLOCK++] section 5.1): a lock holder's RT thread
# runs at the highest registered priority until it releases the lock;
# priority_ceiling = 0 turns it off.
. "$top_srcdir/tests/daemon/lib.sh"
CEIL=$top_builddir/tests/daemon/ceiltest
write_conf </dev/null
start_daemon
"$CEIL" "$SOCK"
rc=$?
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || fail "ceiling"
# No privilege through the ceiling: a client that may not set an RT
# priority itself (hard RLIMIT_RTPRIO 0, no CAP_SYS_NICE) but runs
# SCHED_FIFO 1 declares 99; it is not raised, and the other tasks'
# ceiling stays at their own 50.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
    command -v chrt >/dev/null && command -v prlimit >/dev/null; then
	chmod 0755 "$T"
	chmod 0666 "$SOCK"
	chrt -f 1 prlimit --rtprio=0:0 setpriv --reuid=nobody \
	    --regid=nogroup --clear-groups "$CEIL" "$SOCK" capped \
	    > "$T/capped" 2>&1 &
	cp=$!
	i=0
	while ! grep -q registered "$T/capped" && kill -0 $cp 2>/dev/null &&
	    [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -q registered "$T/capped" ||
		fail "capped client: $(cat "$T/capped")"
	"$CEIL" "$SOCK" ||
		fail "an unprivileged declaration lifted the others' ceiling"
	wait $cp || fail "capped client: $(cat "$T/capped")"
else
	echo "not root: the capped-client case skipped"
fi
stop_daemon || fail "exit status"
write_conf <<EOC
priority_ceiling = 0
EOC
start_daemon
"$CEIL" "$SOCK" 2> "$T/err" && fail "ceiling applied although turned off"
grep -q "not raised to the ceiling" "$T/err" || fail "unexpected failure: $(cat "$T/err")"
stop_daemon || fail "exit status"
echo "ok: ceiling raised and restored; off when priority_ceiling = 0"
