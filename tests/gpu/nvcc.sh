#!/bin/sh
# With CUDA: the committed PTX of examples/kernels is what nvcc makes of
# the sources today (the analyzer sees the same warps, instructions and
# requests in the PTX make built), and ptxas accepts it.
[ -n "${NVCC:-}" ] || { echo "no nvcc: skipped"; exit 77; }
: "${top_builddir:?}" "${top_srcdir:?}"
an=$top_builddir/tools/bwanalyze
k=$top_srcdir/examples/kernels
ptxas=$(dirname "$NVCC")/ptxas
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bwptx.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
grep -v '^#' "$k/launches" | while read -r name args; do
	built=$top_builddir/examples/kernels/built/$name.ptx
	[ -f "$built" ] || { echo "FAIL: $built was not built"; exit 1; }
	# shellcheck disable=SC2086
	"$an" ptx "$built" $args --json > "$tmp/built.json" || exit 1
	# shellcheck disable=SC2086
	"$an" ptx "$k/$name.ptx" $args --json > "$tmp/committed.json" || exit 1
	cmp -s "$tmp/built.json" "$tmp/committed.json" || {
		echo "FAIL: $name: the committed PTX is out of date"
		exit 1
	}
	"$ptxas" -arch=sm_75 "$k/$name.ptx" -o "$tmp/$name.cubin" || {
		echo "FAIL: ptxas refuses $name.ptx"
		exit 1
	}
done || fail=1
exit $fail
