# model: pure algorithms, no I/O: the bounds, budgets and progress of
# the core, TFS and RTA, the per-period decision, the statistics of
# profiling (K-S, EVT, clustering) and GPU spatial partitioning
# ([PredGPU] chapter 3, doc/partition.md).
# It sees only itself (and AM_CPPFLAGS: include/, lib/); so do its tests,
# fuzzers and benchmark.
MODEL_CPPFLAGS = -I$(top_srcdir)/model
MODEL_TESTS_CPPFLAGS = $(MODEL_CPPFLAGS)
noinst_LTLIBRARIES += model/libbwmodel.la
model_libbwmodel_la_SOURCES = model/wcet.h model/budget.h model/progress.h \
	model/profile.h model/wcet.c model/budget.c model/progress.c \
	model/profile.c model/tfs.c model/tfs.h model/rta.c model/rta.h \
	model/tok.c model/tok.h model/decide.c model/decide.h \
	model/stats.c model/stats.h model/kstest.c model/kstest.h \
	model/evt.c model/evt.h model/cluster.c model/cluster.h \
	model/partition.c model/partition.h model/sat.h
model_libbwmodel_la_CPPFLAGS = $(AM_CPPFLAGS) $(MODEL_CPPFLAGS)
model_libbwmodel_la_LIBADD = $(LIBM)

# Tests (C programs in tests/model and tests/profiling, plus the
# bwanalyze scripts).
model_tests = tests/model/test_wcet tests/model/test_budget \
	tests/model/test_progress tests/model/test_profile \
	tests/model/test_tfs_rta tests/model/test_partition
check_PROGRAMS += $(model_tests)
TESTS += $(model_tests)
model_test_ldadd = model/libbwmodel.la $(LIBM)
tests_model_test_wcet_SOURCES = tests/model/test_wcet.c tests/model/tcheck.h \
	tests/model/exhaustive.h
tests_model_test_wcet_CPPFLAGS = $(AM_CPPFLAGS) $(MODEL_TESTS_CPPFLAGS)
tests_model_test_wcet_LDADD = $(model_test_ldadd)
tests_model_test_budget_SOURCES = tests/model/test_budget.c tests/model/tcheck.h \
	tests/model/exhaustive.h
tests_model_test_budget_CPPFLAGS = $(AM_CPPFLAGS) $(MODEL_TESTS_CPPFLAGS)
tests_model_test_budget_LDADD = $(model_test_ldadd)
tests_model_test_progress_SOURCES = tests/model/test_progress.c \
	tests/model/tcheck.h
tests_model_test_progress_CPPFLAGS = $(AM_CPPFLAGS) $(MODEL_TESTS_CPPFLAGS)
tests_model_test_progress_LDADD = $(model_test_ldadd)
tests_model_test_profile_SOURCES = tests/model/test_profile.c \
	tests/model/tcheck.h
tests_model_test_profile_CPPFLAGS = $(AM_CPPFLAGS) $(MODEL_TESTS_CPPFLAGS)
tests_model_test_profile_LDADD = $(model_test_ldadd)
tests_model_test_tfs_rta_SOURCES = tests/model/test_tfs_rta.c \
	tests/model/tcheck.h
tests_model_test_tfs_rta_CPPFLAGS = $(AM_CPPFLAGS) $(MODEL_TESTS_CPPFLAGS)
tests_model_test_tfs_rta_LDADD = $(model_test_ldadd)
tests_model_test_partition_SOURCES = tests/model/test_partition.c \
	tests/model/tcheck.h
tests_model_test_partition_CPPFLAGS = $(AM_CPPFLAGS) $(MODEL_TESTS_CPPFLAGS)
tests_model_test_partition_LDADD = $(model_test_ldadd)
TESTS += tests/model/bwanalyze.sh tests/model/partition.sh
dist_check_SCRIPTS += tests/model/bwanalyze.sh tests/model/partition.sh
EXTRA_DIST += tests/model/data/example.bwk tests/model/data/interleaved.bwk \
	tests/model/data/bad_line7.bwk tests/model/data/bad_unused.bwk \
	tests/model/data/sched.ts tests/model/data/unsched.ts \
	tests/model/data/bad.ts tests/model/data/part_example.csv \
	tests/model/expect.sh

# the per-period decision (tests/sim: it is checked against the platform)
check_PROGRAMS += tests/sim/test_decide
tests_sim_test_decide_SOURCES = tests/sim/test_decide.c tests/sim/tap.h
tests_sim_test_decide_CPPFLAGS = $(AM_CPPFLAGS) $(MODEL_TESTS_CPPFLAGS)
tests_sim_test_decide_LDADD = $(model_test_ldadd)
TESTS += tests/sim/test_decide

# the statistics of profiling
prof_tests = tests/profiling/test_kstest tests/profiling/test_evt \
	tests/profiling/test_cluster
check_PROGRAMS += $(prof_tests)
TESTS += $(prof_tests)
tests_profiling_test_kstest_SOURCES = tests/profiling/test_kstest.c \
	tests/profiling/pcheck.h
tests_profiling_test_kstest_CPPFLAGS = $(AM_CPPFLAGS) $(MODEL_TESTS_CPPFLAGS)
tests_profiling_test_kstest_LDADD = $(model_test_ldadd)
tests_profiling_test_evt_SOURCES = tests/profiling/test_evt.c \
	tests/profiling/pcheck.h
tests_profiling_test_evt_CPPFLAGS = $(AM_CPPFLAGS) $(MODEL_TESTS_CPPFLAGS)
tests_profiling_test_evt_LDADD = $(model_test_ldadd)
tests_profiling_test_cluster_SOURCES = tests/profiling/test_cluster.c \
	tests/profiling/pcheck.h
tests_profiling_test_cluster_CPPFLAGS = $(AM_CPPFLAGS) $(MODEL_TESTS_CPPFLAGS)
tests_profiling_test_cluster_LDADD = $(model_test_ldadd)

# Fuzz target for the .bwk parser (pattern of fuzz/local.mk).
FUZZ_PROGS += fuzz/fuzz_profile
check_PROGRAMS += fuzz/fuzz_profile
# the model sources are compiled into the target so that libFuzzer's
# coverage instrumentation (FUZZ_CFLAGS) reaches the parser itself
fuzz_fuzz_profile_SOURCES = fuzz/fuzz_profile.c model/profile.c \
	model/wcet.c model/progress.c model/budget.c model/tok.c
fuzz_fuzz_profile_CPPFLAGS = $(AM_CPPFLAGS) $(MODEL_TESTS_CPPFLAGS)
fuzz_fuzz_profile_LDADD = lib/libbwutil.la $(LIBM)
fuzz_fuzz_profile_SOURCES += $(FUZZ_DRIVER)
fuzz_fuzz_profile_CFLAGS = $(AM_CFLAGS) $(FUZZ_COMPILE)
fuzz_fuzz_profile_LDFLAGS = $(FUZZ_LINK)
EXTRA_DIST += fuzz/corpus/fuzz_profile/example.bwk \
	fuzz/corpus/fuzz_profile/interleaved.bwk \
	fuzz/corpus/fuzz_profile/minimal.bwk fuzz/corpus/fuzz_profile/bad.bwk \
	fuzz/corpus/fuzz_profile/gpu.bwk

# Fuzz target for the task-set parser (pattern of fuzz/local.mk).
FUZZ_PROGS += fuzz/fuzz_partition
check_PROGRAMS += fuzz/fuzz_partition
# the model is compiled into the target so libFuzzer instruments it
fuzz_fuzz_partition_SOURCES = fuzz/fuzz_partition.c model/partition.c \
	model/partition.h model/sat.h
fuzz_fuzz_partition_CPPFLAGS = $(AM_CPPFLAGS) $(MODEL_TESTS_CPPFLAGS)
fuzz_fuzz_partition_LDADD = lib/libbwutil.la $(LIBM)
fuzz_fuzz_partition_SOURCES += $(FUZZ_DRIVER)
fuzz_fuzz_partition_CFLAGS = $(AM_CFLAGS) $(FUZZ_COMPILE)
fuzz_fuzz_partition_LDFLAGS = $(FUZZ_LINK)
EXTRA_DIST += fuzz/corpus/fuzz_partition/example.csv \
	fuzz/corpus/fuzz_partition/columns.csv \
	fuzz/corpus/fuzz_partition/bad.csv

# Benchmark (make bench): per-period decision and registration cost.
BENCH_PROGS += bench/bench_model
EXTRA_PROGRAMS += bench/bench_model
CLEANFILES += bench/bench_model
bench_bench_model_SOURCES = bench/bench_model.c
bench_bench_model_CPPFLAGS = $(AM_CPPFLAGS) $(MODEL_TESTS_CPPFLAGS)
bench_bench_model_LDADD = model/libbwmodel.la $(LIBM)

dist_doc_DATA += doc/profile.md doc/analysis.md doc/partition.md
dist_man_MANS += man/bwanalyze.1
