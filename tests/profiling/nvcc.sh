#!/bin/sh
# bwprofile.cuh compiled by nvcc: the PTX reads %globaltimer, and the
# host helper's CSV is read back by bwanalyze's trace reader.  Skipped
# without nvcc.
set -u
[ -n "${NVCC:-}" ] || exit 77
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src="$top_srcdir/tests/profiling/nvcc_test.cu"
inc="$top_srcdir/include"
"$NVCC" -I"$inc" --ptx -o "$tmp/t.ptx" "$src" || exit 1
grep -q '%globaltimer' "$tmp/t.ptx" ||
	{ echo "no %globaltimer in PTX"; exit 1; }
grep -q 'membar.sys\|fence.sc.sys\|fence.acq_rel.sys' "$tmp/t.ptx" ||
	{ echo "no system-scope fence in PTX"; exit 1; }
"$NVCC" -I"$inc" -o "$tmp/t" "$src" || exit 1
"$tmp/t" || exit 1
# the helper also builds as plain C
cat >"$tmp/c.c" <<'END'
#include <bwsched/bwprofile.cuh>
int
main(void)
{
	struct bwprofile_rec r[1];

	bwprofile_clear(r, 1);
	return bwprofile_write_csv(stdout, r, 1, 0, 0, 1) != 1;
}
END
${CC:-cc} -x c -I"$inc" -o "$tmp/c" "$tmp/c.c" && "$tmp/c" >"$tmp/c.csv" ||
	{ echo "plain C build of the helper"; exit 1; }
exit 0
