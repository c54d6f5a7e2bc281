# tools/profiling.mk: bwanalyze cluster/evt/plot, bwtracegen (issue 7)
tools_bwanalyze_SOURCES += tools/trace.c tools/trace.h

# Synthetic traces and sample files with known answers (tests, bench).
check_PROGRAMS += tools/bwtracegen
tools_bwtracegen_SOURCES = tools/bwtracegen.c tools/trace.c tools/trace.h
tools_bwtracegen_LDADD = model/libbwmodel.la $(LIBM)

# Unit tests of the statistics and the trace reader.
prof_tests = tests/profiling/test_kstest tests/profiling/test_evt \
	tests/profiling/test_cluster tests/profiling/test_trace
check_PROGRAMS += $(prof_tests)
TESTS += $(prof_tests)
prof_ldadd = model/libbwmodel.la $(LIBM)
tests_profiling_test_kstest_SOURCES = tests/profiling/test_kstest.c \
	tests/profiling/pcheck.h
tests_profiling_test_kstest_LDADD = $(prof_ldadd)
tests_profiling_test_evt_SOURCES = tests/profiling/test_evt.c \
	tests/profiling/pcheck.h
tests_profiling_test_evt_LDADD = $(prof_ldadd)
tests_profiling_test_cluster_SOURCES = tests/profiling/test_cluster.c \
	tests/profiling/pcheck.h
tests_profiling_test_cluster_LDADD = $(prof_ldadd)
tests_profiling_test_trace_SOURCES = tests/profiling/test_trace.c \
	tests/profiling/pcheck.h tools/trace.c tools/trace.h
tests_profiling_test_trace_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools
tests_profiling_test_trace_LDADD = $(prof_ldadd)

# End-to-end scripts: bwtracegen -> bwanalyze, SciPy references, plots,
# the device header under nvcc.
prof_scripts = tests/profiling/cluster.sh tests/profiling/evt.sh \
	tests/profiling/scipy.sh tests/profiling/plot.sh \
	tests/profiling/nvcc.sh
TESTS += $(prof_scripts)
dist_check_SCRIPTS += $(prof_scripts)
EXTRA_DIST += tests/profiling/lib.sh tests/profiling/scipy_ref.py tests/profiling/nvcc_test.cu \
	tests/profiling/data/too_few.csv tests/profiling/data/bad_header.csv
pkginclude_HEADERS += include/bwsched/bwprofile.cuh

# Fuzz target for the trace reader (pattern of fuzz/local.mk).
FUZZ_PROGS += fuzz/fuzz_trace
check_PROGRAMS += fuzz/fuzz_trace
fuzz_fuzz_trace_SOURCES = fuzz/fuzz_trace.c tools/trace.c tools/trace.h
fuzz_fuzz_trace_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools
# tools/trace.c is compiled into the target, so libFuzzer instruments it
fuzz_fuzz_trace_LDADD = lib/libbwutil.la $(LIBM)
if ENABLE_FUZZING
fuzz_fuzz_trace_CFLAGS = $(AM_CFLAGS) $(FUZZ_CFLAGS)
fuzz_fuzz_trace_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_CFLAGS)
else
fuzz_fuzz_trace_CFLAGS = $(AM_CFLAGS)
fuzz_fuzz_trace_LDFLAGS = $(AM_LDFLAGS)
fuzz_fuzz_trace_SOURCES += fuzz/driver.c fuzz/driver.h
TESTS += fuzz/fuzz_trace
endif
EXTRA_DIST += fuzz/corpus/fuzz_trace/small.csv \
	fuzz/corpus/fuzz_trace/small.bin fuzz/corpus/fuzz_trace/bad.csv

# Benchmark (make bench): 100,000 blocks x 1,000 runs per condition.
BENCH_PROGS += bench/bench_cluster
EXTRA_PROGRAMS += bench/bench_cluster
CLEANFILES += bench/bench_cluster
bench_bench_cluster_SOURCES = bench/bench_cluster.c

dist_doc_DATA += doc/profiling.md
EXTRA_bench_bench_cluster_DEPENDENCIES = tools/bwtracegen$(EXEEXT) \
	tools/bwanalyze$(EXEEXT)
