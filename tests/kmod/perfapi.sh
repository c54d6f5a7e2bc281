#!/bin/sh
# perfapi.sh - the module drives its counter through the exported perf
# API only (doc/kmod.md, "Counter"): no pmu callbacks, no fields of
# struct perf_event's hardware state, no unexported perf functions.  A
# source check, so it runs on the host without a kernel; the qemu test
# (run.sh) shows the API path really throttles.
set -u
src=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/kmod
fail=0

# Internals the module used to touch (pmu->stop/start, hw.period_left,
# state, oncpu) and anything else of that kind.
bad=$(grep -nE -- '->pmu\b|->hw\b|\bhw\.|period_left|->oncpu|(event|e)->state\b|perf_event_read_local|__perf_' \
	"$src"/*.c "$src"/*.h)
if [ -n "$bad" ]; then
	echo "FAIL: perf internals used:"
	echo "$bad"
	fail=1
fi

# Every perf_* function called must be one of the exported API calls.
allowed='perf_event_create_kernel_counter perf_event_release_kernel perf_event_pause perf_event_period perf_event_enable perf_event_disable perf_event_read_value'
for f in $(grep -ohE '\bperf_[a-z_]+\(' "$src"/*.c | tr -d '(' | sort -u); do
	case " $allowed " in
	*" $f "*) ;;
	*)	echo "FAIL: $f is not part of the API the module may use"
		fail=1 ;;
	esac
done

# With the kernel headers at hand: those calls are exported.
symvers=$(ls /usr/src/linux-headers-*/Module.symvers 2>/dev/null | head -1)
if [ -n "$symvers" ]; then
	for f in $(grep -ohE '\bperf_[a-z_]+\(' "$src"/*.c | tr -d '(' | sort -u); do
		grep -qE "[[:space:]]$f[[:space:]]" "$symvers" ||
			{ echo "FAIL: $f is not exported by $symvers"; fail=1; }
	done
fi
[ $fail -eq 0 ] && echo "PASS: the perf API only"
exit $fail
