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
stop_daemon || fail "exit status"
write_conf <<EOC
priority_ceiling = 0
EOC
start_daemon
"$CEIL" "$SOCK" 2> "$T/err" && fail "ceiling applied although turned off"
grep -q "not raised to the ceiling" "$T/err" || fail "unexpected failure: $(cat "$T/err")"
stop_daemon || fail "exit status"
echo "ok: ceiling raised and restored; off when priority_ceiling = 0"
