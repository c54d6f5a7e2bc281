#!/bin/sh
# The EVT statistics of bwanalyze evt against SciPy, computed at test time
# (Debian's python3-scipy; skipped when it is missing).
set -u
[ -n "${PYTHON3:-}" ] || exit 77
"$PYTHON3" -c 'import scipy, numpy' 2>/dev/null || exit 77
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PYTHON3" "$top_srcdir/tests/profiling/scipy_ref.py" \
	"$top_builddir/tools/bwanalyze" "$tmp"
