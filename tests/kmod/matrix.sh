#!/bin/sh
# matrix.sh - the module test on several kernels: tests/kmod/run.sh once
# per row (one boot per kernel running every guest check), then one
# PASS/FAIL/SKIP line per row with the reason.  make check-kmod and make
# check-kmod-arm64 run it.
#
#   tests/kmod/matrix.sh ROW...    rows: tests/kmod/kernels.sh --rows
#
# Environment: what run.sh reads, and KMOD_JOBS (rows booted at once,
# default 1: every guest runs -smp 2 on TCG and the checks compare CPU
# shares, so parallel guests on a 2-core host only make them flakier),
# KMOD_REQUIRE=1 (a skipped row fails the matrix), KMOD_RETRY (boots of
# a failed row, default 1: the guest's checks compare CPU shares and
# periods over wall time, and a guest starved by a busy host can miss
# them; a row that passes on its second boot says which checks failed on
# the first, and a real fault fails both).
# Exit: 0 when no row failed (skipped rows are listed, never hidden),
# 1 otherwise.  The verdict also goes to tests/kmod/$KMOD_RESULT (default
# check-kmod.result): PASS, FAIL, or SKIP when a row was skipped and none
# failed, so scripts/check reports a skip as a skip, not a pass.
set -u
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-.}
logs=$builddir/tests/kmod
jobs=${KMOD_JOBS:-1}
[ $# -gt 0 ] || set -- $(sh "$srcdir/tests/kmod/kernels.sh" --rows)
mkdir -p "$logs" || exit 1

start=$(date +%s)
running=0
for row in "$@"; do
	(
		t0=$(date +%s)
		log=$logs/row-$row.log
		rm -f "$log.1"
		KROW=$row sh "$srcdir/tests/kmod/run.sh" >"$log" 2>&1
		rc=$?
		if [ $rc -eq 1 ] && [ "${KMOD_RETRY:-1}" -gt 0 ]; then
			mv "$log" "$log.1"
			KROW=$row sh "$srcdir/tests/kmod/run.sh" >"$log" 2>&1
			rc=$?
		fi
		echo "$rc $(( $(date +%s) - t0 ))" >"$logs/row-$row.rc"
	) &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait

nfail=0
nskip=0
summary=
for row in "$@"; do
	echo "==== check-kmod $row"
	first=
	if [ -f "$logs/row-$row.log.1" ]; then
		echo "---- first boot"
		cat "$logs/row-$row.log.1"
		echo "---- second boot"
		first=" (first boot failed:$(sed -n 's/^\[[^]]*\] FAIL \([^:]*\).*/ \1/p' \
			"$logs/row-$row.log.1" | tr -d '\n'))"
	fi
	cat "$logs/row-$row.log"
	rc=1
	secs=0
	[ -f "$logs/row-$row.rc" ] && read -r rc secs <"$logs/row-$row.rc"
	line=$(grep "^check-kmod $row: \(PASS\|FAIL\|SKIP\)" "$logs/row-$row.log" | tail -1)
	[ -n "$line" ] || line="check-kmod $row: FAIL - run.sh exited $rc without a verdict"
	case $rc in
	0)	;;
	77)	nskip=$((nskip + 1)) ;;
	*)	nfail=$((nfail + 1)) ;;
	esac
	summary="$summary
$line [${secs} s in all]$first"
done
echo "==== kernel matrix ($(( $(date +%s) - start )) s)$summary"
[ "${KMOD_REQUIRE:-0}" = 1 ] && nfail=$((nfail + nskip))
if [ $nfail -ne 0 ]; then
	verdict=FAIL
elif [ $nskip -ne 0 ]; then
	verdict=SKIP
else
	verdict=PASS
fi
printf '%s %s\n' "$verdict" "$summary" | tr '\n' ' ' |
	sed 's/ *$/\n/' >"$logs/${KMOD_RESULT:-check-kmod.result}"
[ $verdict = SKIP ] && echo "check-kmod: $nskip row(s) SKIPPED, not passed"
[ $nfail -eq 0 ]
