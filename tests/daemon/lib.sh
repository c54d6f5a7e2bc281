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
