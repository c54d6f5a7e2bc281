# Sourced by the profiling shell tests: the tools, a scratch directory
# removed on exit, and no() to record a failure and go on.
bw="$top_builddir/tools/bwanalyze"
gen="$top_builddir/tools/bwtracegen"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }
