# lib.sh - shared by the daemon tests: a temporary directory, a config,
# starting bwsched -f on a temporary socket and stopping it.
set -u
: "${top_builddir:=..}"
: "${top_srcdir:=..}"
BWSCHED=$top_builddir/daemon/bwsched
BWTEST=$top_builddir/tests/daemon/bwtest
T=$(mktemp -d "${TMPDIR:-/tmp}/bwsched-test.XXXXXX")
SOCK=$T/sock
CONF=$T/bwsched.conf
DPID=
trap 'stop_daemon; rm -rf "$T"' EXIT

# write_conf [key = value lines on stdin are appended]
write_conf() {
	{
		echo "# test configuration"
		echo "group ="
		echo "log_level = debug"
		cat
	} > "$CONF"
}

start_daemon() {
	"$BWSCHED" -f -c "$CONF" -s "$SOCK" "$@" 2> "$T/log" &
	DPID=$!
	"$BWTEST" "$SOCK" wait || { echo "daemon did not start"; cat "$T/log"; exit 1; }
}

stop_daemon() {
	if [ -n "$DPID" ]; then
		kill -TERM "$DPID" 2>/dev/null
		wait "$DPID"
		rc=$?
		DPID=
		return $rc
	fi
	return 0
}

fail() {
	echo "FAIL: $*"
	[ -f "$T/log" ] && tail -n 30 "$T/log"
	exit 1
}

# A client in Python (standard library only, 3.9+ for socket.send_fds)
# against a fresh daemon with the default configuration: tests/daemon/$1
# SOCKET must exit 0; $2 names the check.  Skips without such a Python.
python_client() {
	[ -n "${PYTHON3:-}" ] || { echo "no python3"; exit 77; }
	"$PYTHON3" -c 'import socket; socket.send_fds' 2>/dev/null ||
	    { echo "python too old"; exit 77; }
	write_conf </dev/null
	start_daemon
	"$PYTHON3" "$top_srcdir/tests/daemon/$1" "$SOCK" || fail "$2"
	stop_daemon || fail "exit status"
}
