#!/bin/sh
# systemd-analyze verify on the units, with ExecStart paths rewritten to
# the build tree's binary in a temporary directory.
set -u
[ -n "${SYSTEMD_ANALYZE:-}" ] && [ -x "$SYSTEMD_ANALYZE" ] || { echo "no systemd-analyze"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/bwsched-units.XXXXXX")
trap 'rm -rf "$T"' EXIT
bin=$(cd "$top_builddir/daemon" && pwd)/bwsched
sed "s|@sbindir@/bwsched|$bin|g" "$top_srcdir/units/bwsched.service.in" > "$T/bwsched.service"
cp "$top_srcdir/units/bwsched.socket" "$T/"
out=$("$SYSTEMD_ANALYZE" verify --man=no "$T/bwsched.socket" "$T/bwsched.service" 2>&1)
rc=$?
echo "$out"
# no manager or D-Bus here: only complaints about our files count
bad=$(echo "$out" | grep -E "bwsched\.(service|socket)" | grep -v -E "Failed to (connect|create bus)")
[ $rc -eq 0 ] || [ -z "$bad" ] || { echo "FAIL: $bad"; exit 1; }
[ -z "$bad" ] || { echo "FAIL: $bad"; exit 1; }
# the example configuration must parse
"$top_builddir/daemon/bwsched" -n -c "$top_srcdir/units/bwsched.conf" || exit 1
exit 0
