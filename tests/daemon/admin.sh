#!/bin/sh
# Admin rights follow the running configuration: a connected client in
# the admin group loses set when a reload drops that group, at its next
# request.  Its groups are the ones it had at connect() (SO_PEERGROUPS).
. "$top_srcdir/tests/daemon/lib.sh"
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null ||
    ! getent group users >/dev/null || ! getent group staff >/dev/null; then
	echo "needs root, setpriv and the groups users and staff"
	exit 77
fi
[ -n "${PYTHON3:-}" ] || { echo "no python3"; exit 77; }
write_conf <<EOC
group = users
admin_group = staff
EOC
start_daemon
chmod 0755 "$T"
mkdir "$T/sync" && chmod 0777 "$T/sync"
users=$(getent group users | cut -d: -f3)
staff=$(getent group staff | cut -d: -f3)
setpriv --reuid=nobody --regid=nogroup --groups="$users,$staff" \
    "$PYTHON3" - "$top_srcdir/tests/daemon" "$SOCK" "$T/sync" <<'EOP' &
import os, sys, time
sys.path.insert(0, sys.argv[1])
from thirdparty import Client
c = Client(sys.argv[2])
r = c.call("hello", pid=os.getpid(), name="admin-test")
assert r["status"] == 0 and r["admin"] is True, "admin by group: %r" % r
r = c.call("set", key="policy", value="fair")
assert r["status"] == 0, "set as admin: %r" % r
open(sys.argv[3] + "/ready", "w").close()
for _ in range(100):
    if os.path.exists(sys.argv[3] + "/go"):
        break
    time.sleep(0.1)
r = c.call("set", key="policy", value="greedy")
assert r["status"] == 6, "set after the admin group was dropped: %r" % r
print("refused after reload:", r["error"])
EOP
cpid=$!
i=0
while [ ! -e "$T/sync/ready" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -e "$T/sync/ready" ] || fail "the client did not get admin rights by its group"
sed -i 's/^admin_group = staff$/admin_group = root/' "$CONF"
kill -HUP "$DPID"
sleep 0.3
touch "$T/sync/go"
wait $cpid || fail "the client kept admin rights after the reload"
[ "$("$BWTEST" "$SOCK" get policy)" != greedy ] || fail "a refused set applied"
stop_daemon || fail "exit status"
exit 0
