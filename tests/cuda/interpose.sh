#!/bin/sh
# interpose.sh - every t_interpose scenario in its own process, through
# the preloaded interposer, with the recording sink and the fake driver
# writing one shared log.
. "$top_srcdir/tests/cuda/env.sh"
bin=$top_builddir/tests/cuda/t_interpose
fail=0
for s in $("$bin" list x); do
	log=$tmp/$s.log
	: > "$log"
	if ! LD_PRELOAD=$preload BWSCHED_CUDA_SINK=record:$log \
	    FAKECUDA_LOG=$log BWSCHED_PROFILES=/nowhere/vecadd.bwk \
	    "$bin" "$s" "$log"; then
		echo "FAIL $s; log:"; tail -n 40 "$log"
		fail=1
	else
		echo "ok $s"
	fi
done
exit $fail
