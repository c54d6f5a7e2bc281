#!/bin/sh
# nvcc.sh - nvcc compiles the device header (to PTX: the bit is set with
# a system-scope atomic OR) and a program using its host helpers, which
# runs without a GPU; the example was built by make.
[ -n "$NVCC" ] || { echo "no nvcc: skipped"; exit 77; }
: "${top_builddir:?}" "${top_srcdir:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bwnvcc.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
src=$top_srcdir/tests/cuda/progress_kernel.cu
inc=$top_srcdir/include
# sm_75: the oldest CUDA 13 targets; sm_87: Jetson Orin
for arch in 75 87; do
	"$NVCC" -arch=sm_$arch -I"$inc" -ptx -o "$tmp/k$arch.ptx" "$src" ||
		exit 1
	grep -q 'atom\(\.global\)\{0,1\}\.sys\.or\.b64' "$tmp/k$arch.ptx" || {
		echo "sm_$arch: no system-scope atomic OR in the PTX"; exit 1; }
	grep -q 'bar\.sync\|barrier\.sync' "$tmp/k$arch.ptx" || {
		echo "sm_$arch: no barrier before the bit"; exit 1; }
	# the start: %globaltimer stored with a system-scope CAS
	grep -q 'globaltimer' "$tmp/k$arch.ptx" &&
	grep -q 'atom\(\.global\)\{0,1\}\.sys\.cas\.b64' "$tmp/k$arch.ptx" || {
		echo "sm_$arch: no GPU start in the PTX"; exit 1; }
done
"$NVCC" -I"$inc" -o "$tmp/progress_kernel" "$src" || exit 1
"$tmp/progress_kernel" || exit 1
# the header also builds as plain C++ host code
cat > "$tmp/host.cpp" <<'END'
#define BWPROGRESS_HOST
#include <bwsched/bwprogress.cuh>
int main(void) { return bwprogress_init() == -1 ? 0 : 1; }
END
"$NVCC" -I"$inc" -x cu -o "$tmp/host" "$tmp/host.cpp" && "$tmp/host" || exit 1
# and with libbwclient's own helpers (compile only: no link here)
cat > "$tmp/direct.cu" <<'END'
#include <bwsched/bwclient.h>
#include <bwsched/bwprogress.cuh>
__global__ void k(unsigned long long *b) { BWPROGRESS_DONE(b); }
int f(bwc_t *c)
{
	int slot;

	if (bwprogress_init_bwc(c))
		return -1;
	k<<<4, 64>>>(bwprogress_launch_bwc(c, 0, 0, &slot));
	return slot;
}
END
"$NVCC" -I"$inc" -c -o "$tmp/direct.o" "$tmp/direct.cu" || exit 1
ex=$top_builddir/examples/vecadd/vecadd
[ -x "$ex" ] || { echo "examples/vecadd/vecadd was not built"; exit 1; }
exit 0
