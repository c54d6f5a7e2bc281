#!/bin/sh
# libbwclient against the real daemon (tests/client/live.c).
: "${top_builddir:=..}"
BWSCHED=$top_builddir/daemon/bwsched
[ -x "$BWSCHED" ] || { echo "no daemon at $BWSCHED: skipped"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/bwclient-live.XXXXXX")
trap 'rm -rf "$T"' EXIT
LIVE_LOG=$T/log
export LIVE_LOG
"$top_builddir/tests/client/live" "$BWSCHED" "$top_builddir/client/bwctl" "$T"
