#!/bin/sh
# bwrun.sh - bwrun puts the settings in the environment and execs the
# application; bad options are refused before anything runs.
. "$top_srcdir/tests/cuda/env.sh"
bwrun=$top_builddir/client/bwrun
BWRUN_LIBDIR=$top_builddir/client/cuda/.libs
export BWRUN_LIBDIR
fail() { echo "FAIL: $*"; exit 1; }

: > "$tmp/a.bwk"
: > "$tmp/b.bwk"
"$bwrun" --profile "$tmp/a.bwk" --profile "$tmp/b.bwk" --priority 80 \
    --period-ns 2000000 --socket /run/x.sock --name demo -- env > "$tmp/env" ||
	fail "bwrun env"
real=$(cd "$tmp" && pwd -P)
grep -qx "BWSCHED_PROFILES=$real/a.bwk:$real/b.bwk" "$tmp/env" ||
	fail "profiles: $(grep PROFILES "$tmp/env")"
grep -qx 'BWSCHED_PRIORITY=80' "$tmp/env" || fail priority
grep -qx 'BWSCHED_PERIOD_NS=2000000' "$tmp/env" || fail period
grep -qx 'BWSCHED_SOCKET=/run/x.sock' "$tmp/env" || fail socket
grep -qx 'BWSCHED_TASK_NAME=demo' "$tmp/env" || fail name
grep -q '^LD_PRELOAD=.*libbwcuda\.so' "$tmp/env" || fail preload
if [ -f "$BWRUN_LIBDIR/bwcuda_inject.so" ]; then
	grep -qx "CUDA_INJECTION64_PATH=$BWRUN_LIBDIR/bwcuda_inject.so" \
	    "$tmp/env" || fail injection
fi
# the GPU demand (doc/partition.md) is passed on as it is
"$bwrun" --gpu a_ns=5,class=mi --gpu-refused exit -- env > "$tmp/env3" ||
	fail "--gpu"
grep -qx 'BWSCHED_GPU=a_ns=5,class=mi' "$tmp/env3" || fail gpu
grep -qx 'BWSCHED_GPU_REFUSED=exit' "$tmp/env3" || fail gpu-refused
# an existing LD_PRELOAD is kept, after ours
LD_PRELOAD=libfoo.so "$bwrun" -- env > "$tmp/env2" 2>/dev/null
grep -q '^LD_PRELOAD=.*libbwcuda\.so libfoo\.so$' "$tmp/env2" ||
	fail "kept preload: $(grep LD_PRELOAD "$tmp/env2")"
"$bwrun" --no-inject -- env | grep -q CUDA_INJECTION64_PATH &&
	fail "--no-inject"
# the exit status is the application's
"$bwrun" -- sh -c 'exit 7'; [ $? -eq 7 ] || fail "exit status"
for bad in "--priority 0 -- true" "--priority 100 -- true" \
    "--period-ns x -- true" "--profile $tmp/none.bwk -- true" "--" \
    "--bogus -- true" "--gpu-refused maybe -- true"; do
	# shellcheck disable=SC2086
	"$bwrun" $bad 2>/dev/null; rc=$?
	[ $rc -eq 2 ] || fail "'$bad' gave $rc"
done
"$bwrun" -- "$tmp/no-such-app" 2>/dev/null; [ $? -eq 127 ] || fail "missing app"
exit 0
