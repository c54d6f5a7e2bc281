#!/bin/sh
# absent.sh - no daemon: the application runs normally, every call still
# reaches the driver, and the instrumentation says so exactly once.
. "$top_srcdir/tests/cuda/env.sh"
bin=$top_builddir/tests/cuda/t_interpose
lib=$top_builddir/client/.libs/libbwclient.so.0
if [ -f "$lib" ]; then
	BWSCHED_BWCLIENT_LIB=$lib
	export BWSCHED_BWCLIENT_LIB
fi
: > "$tmp/calls"
LD_PRELOAD=$preload BWSCHED_SOCKET=$tmp/no-daemon.sock \
    FAKECUDA_LOG=$tmp/calls "$bin" quiet "$tmp/calls" 2> "$tmp/err"
rc=$?
cat "$tmp/err"
[ $rc -eq 0 ] || { echo "exit status $rc"; exit 1; }
n=$(grep -c '^bwsched: ' "$tmp/err")
[ "$n" -eq 1 ] || { echo "expected one warning, got $n"; exit 1; }
n=$(grep -c '^call cuLaunchKernel 0x1000' "$tmp/calls")
[ "$n" -eq 3 ] || { echo "expected 3 launches at the driver, got $n"; exit 1; }
n=$(grep -c '^call cuStreamSynchronize 0x1000' "$tmp/calls")
[ "$n" -eq 3 ] || { echo "expected 3 syncs at the driver, got $n"; exit 1; }
exit 0
