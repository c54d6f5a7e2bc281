# daemon/engine.mk - the regulation engine (issue 4): the period thread,
# its rings, the per-launch log, the live sim backend, the demo GPU
# client, bwctl top/trace, tests and the benchmark.  Included by the top
# Makefile.am after daemon/local.mk (it appends to that fragment's
# daemon library).
daemon_libbwdaemon_la_SOURCES += daemon/period.c daemon/period.h \
	daemon/ring.c daemon/ring.h daemon/lathist.c daemon/lathist.h \
	daemon/engine.c daemon/engine.h daemon/launchlog.c daemon/launchlog.h \
	daemon/leadctl.c daemon/leadctl.h daemon/lockslot.c daemon/lockslot.h
daemon_libbwdaemon_la_LIBADD += sim/libbwsim.la
pkginclude_HEADERS += include/bwsched/bwsimstate.h
dist_doc_DATA += doc/engine.md

# the demo GPU client (examples/demo-live.sh, tests/engine/live.sh)
noinst_PROGRAMS += examples/demo_gpu
examples_demo_gpu_SOURCES = examples/demo_gpu.c
examples_demo_gpu_LDADD = client/libbwclient.la model/libbwmodel.la \
	lib/libbwutil.la $(LIBM)
dist_noinst_SCRIPTS += examples/demo-live.sh

# tests: the engine against a fake clock and a fake backend
check_PROGRAMS += tests/engine/test_period
tests_engine_test_period_SOURCES = tests/engine/test_period.c
tests_engine_test_period_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS)
tests_engine_test_period_LDADD = daemon/libbwdaemon.la
check_PROGRAMS += tests/engine/test_parts
tests_engine_test_parts_SOURCES = tests/engine/test_parts.c
tests_engine_test_parts_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS)
tests_engine_test_parts_LDADD = daemon/libbwdaemon.la
TESTS += tests/engine/test_period tests/engine/test_parts tests/engine/live.sh \
	tests/engine/lockload.sh
dist_check_SCRIPTS += tests/engine/live.sh tests/engine/lockload.sh

# benchmark (make bench): engine CPU per period, wake-up lateness
BENCH_PROGS += bench/bench_period
EXTRA_PROGRAMS += bench/bench_period
CLEANFILES += bench/bench_period
bench_bench_period_SOURCES = bench/bench_period.c
bench_bench_period_CPPFLAGS = $(AM_CPPFLAGS) \
	-DHISTO_BWK='"$(abs_top_srcdir)/examples/histo.bwk"'
bench_bench_period_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS)
bench_bench_period_LDADD = daemon/libbwdaemon.la
