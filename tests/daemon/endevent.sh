#!/bin/sh
# One end event per launch, whichever of the engine and kernel.end sees
# the end first (tests/daemon/endclient.py).
. "$top_srcdir/tests/daemon/lib.sh"
[ -n "${PYTHON3:-}" ] || { echo "no python3"; exit 77; }
"$PYTHON3" -c 'import socket; socket.send_fds' 2>/dev/null || { echo "python too old"; exit 77; }
write_conf </dev/null
start_daemon
"$PYTHON3" "$top_srcdir/tests/daemon/endclient.py" "$SOCK" || fail "end events"
stop_daemon || fail "exit status"
exit 0
