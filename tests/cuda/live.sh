#!/bin/sh
# live.sh - the interposer with the real libbwclient and a running
# daemon (sim regulator): bwctl sees the task take and release the lock
# as the fake application launches, copies and synchronizes.
. "$top_srcdir/tests/cuda/env.sh"
daemon=$top_builddir/daemon/bwsched
BWCTL=$top_builddir/client/bwctl
lib=$top_builddir/client/.libs/libbwclient.so.0
[ -x "$daemon" ] && [ -x "$BWCTL" ] && [ -f "$lib" ] || {
	echo "daemon, bwctl or libbwclient not built: skipped"; exit 77; }
BWSCHED_SOCKET=$tmp/sock
export BWCTL BWSCHED_SOCKET
printf 'group =\n' > "$tmp/conf"
"$daemon" -f --regulator=sim -c "$tmp/conf" -s "$BWSCHED_SOCKET" \
    2> "$tmp/daemon.log" &
dpid=$!
trap 'kill $dpid 2>/dev/null; wait $dpid 2>/dev/null; rm -rf "$tmp"' EXIT
i=0
until "$BWCTL" -s "$BWSCHED_SOCKET" status > /dev/null 2>&1; do
	i=$((i + 1))
	[ $i -lt 200 ] || {
		echo "daemon did not start"; cat "$tmp/daemon.log"; exit 1; }
	sleep 0.05
done
LD_PRELOAD=$preload BWSCHED_BWCLIENT_LIB=$lib BWSCHED_TASK_NAME=cudalive \
    BWSCHED_PRIORITY=60 "$top_builddir/tests/cuda/t_interpose" live \
    "$tmp/unused" 2> "$tmp/err"
rc=$?
cat "$tmp/err"
[ $rc -eq 0 ] || { tail -n 20 "$tmp/daemon.log"; exit 1; }
if grep -q '^bwsched: ' "$tmp/err"; then
	echo "unexpected warning"; exit 1
fi
exit 0
