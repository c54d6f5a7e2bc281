#!/bin/sh
# demo.sh BUILDDIR - the walking skeleton end to end: bwsched with the
# simulated regulator on a temporary socket, a client that registers a
# task and the histo kernel and takes the bandwidth lock around fake
# kernel launches, and bwctl showing the daemon's view.  scripts/demo
# runs it, then examples/demo-live.sh.
set -eu
[ $# -eq 1 ] || { echo "usage: $0 BUILDDIR" >&2; exit 2; }
B=$(cd "$1" && pwd)
BWSCHED=$B/daemon/bwsched
BWCTL=$B/client/bwctl
CLIENT=$B/examples/demo_client
for p in "$BWSCHED" "$BWCTL" "$CLIENT"; do
	[ -x "$p" ] || { echo "demo: $p missing: build first" >&2; exit 1; }
done

T=$(mktemp -d "${TMPDIR:-/tmp}/bwsched-demo.XXXXXX")
DPID=
CPID=
cleanup() {
	exec 3>&- 2>/dev/null || true
	[ -n "$CPID" ] && kill "$CPID" 2>/dev/null
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

SOCK=$T/bwsched.sock
cat > "$T/bwsched.conf" <<CONF
# demo configuration
group =
log_level = info
CONF
section() { printf '\n== %s\n' "$*"; }

"$BWSCHED" -f --regulator=sim -c "$T/bwsched.conf" -s "$SOCK" \
	2> "$T/bwsched.log" &
DPID=$!
i=0
until "$BWCTL" -s "$SOCK" get policy >/dev/null 2>&1; do
	i=$((i + 1))
	if [ $i -gt 100 ] || ! kill -0 "$DPID" 2>/dev/null; then
		echo "demo: bwsched did not start:" >&2
		cat "$T/bwsched.log" >&2
		exit 1
	fi
	sleep 0.05
done
echo "bwsched (pid $DPID) serves on a temporary socket with the simulated"
echo "regulator: 3 best-effort (BE) cores whose memory traffic it throttles."

section "demo_client: a task with one GPU kernel (histo, M = 32 as in demo_client.c)"
mkfifo "$T/hold"
"$CLIENT" "$SOCK" 3 < "$T/hold" > "$T/client.out" 2>&1 &
CPID=$!
exec 3> "$T/hold"
i=0
until grep -q '^ready' "$T/client.out"; do
	i=$((i + 1))
	if [ $i -gt 400 ] || ! kill -0 "$CPID" 2>/dev/null; then
		cat "$T/client.out"
		echo "demo: the client failed" >&2
		exit 1
	fi
	sleep 0.05
done
grep -v '^ready' "$T/client.out"

section "bwctl status (the client holds the lock)"
"$BWCTL" -s "$SOCK" status
section "bwctl tasks"
"$BWCTL" -s "$SOCK" tasks
section "bwctl kernels"
"$BWCTL" -s "$SOCK" kernels

section "the client releases the lock and leaves"
exec 3>&-
wait "$CPID" || { echo "demo: client exit status $?" >&2; exit 1; }
CPID=
tail -n +$(($(grep -c '' "$T/client.out") )) "$T/client.out"
"$BWCTL" -s "$SOCK" tasks

section "stopping bwsched"
kill -TERM "$DPID"
rc=0
wait "$DPID" || rc=$?
DPID=
[ $rc -eq 0 ] || { echo "demo: bwsched exit status $rc" >&2; cat "$T/bwsched.log" >&2; exit 1; }
echo "bwsched stopped cleanly.  Its log, one line per finished launch (the"
echo "journal fields BWSCHED_*= are left out here):"
grep 'kernel .* of task ' "$T/bwsched.log" | sed 's/ BWSCHED_.*//; s/^bwsched: info: /  /'
echo "The fake kernel is a CPU sleep, so a launch can end after its bound"
echo "when this machine oversleeps; the last launch was held open on purpose"
echo "while bwctl looked at it, so it reads \"met: no\"."
