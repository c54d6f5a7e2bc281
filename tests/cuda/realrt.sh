#!/bin/sh
# realrt.sh - the real CUDA runtime (statically linked by nvcc into the
# example) against the fake driver, through the interposer: every entry
# point the instrumentation needs is handed back wrapped, for the legacy
# and the per-thread variants, whatever version the runtime asks for.
# The runtime then stops (the fake has no devices): no launch happens.
[ -n "$NVCC" ] || { echo "no nvcc: skipped"; exit 77; }
. "$top_srcdir/tests/cuda/env.sh"
ex=$top_builddir/examples/vecadd/vecadd
[ -x "$ex" ] || { echo "examples/vecadd/vecadd was not built"; exit 1; }
LD_PRELOAD=$foreign_preload BWSCHED_CUDA_SINK=none BWSCHED_CUDA_DEBUG=1 \
    FAKECUDA_LOG=$tmp/log "$ex" 16 1 > /dev/null 2> "$tmp/err"
rc=$?
[ $rc -ne 0 ] || { echo "vecadd succeeded without a driver?"; exit 1; }
grep -q 'dlsym(cuGetProcAddress' "$tmp/err" || {
	echo "the runtime's dlsym of cuGetProcAddress was not wrapped"
	cat "$tmp/err"; exit 1; }
fail=0
for sym in cuLaunchKernel cuLaunchKernelEx cuStreamSynchronize \
    cuMemcpyHtoD cuMemcpyDtoH cuMemcpyHtoDAsync cuMemcpyAsync cuGraphLaunch \
    cuEventRecord cuStreamQuery; do
	for fl in 0 0x2; do
		grep -q "(${sym}, [0-9]*, $fl): wrapped" "$tmp/err" && continue
		echo "not wrapped: $sym flags $fl"
		fail=1
	done
done
for sym in cuCtxSynchronize cuEventSynchronize cuStreamDestroy; do
	grep -q "(${sym}, [0-9]*, 0): wrapped" "$tmp/err" && continue
	echo "not wrapped: $sym"
	fail=1
done
# what the runtime asked for, for the record
grep -o '(cu[A-Za-z]*, [0-9]*, 0x*[0-9]*)' "$tmp/err" | sort -u | tr '\n' ' '
echo
exit $fail
