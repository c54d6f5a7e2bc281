# model: pure algorithms, no I/O.
noinst_LTLIBRARIES += model/libbwmodel.la
model_libbwmodel_la_SOURCES = model/wcet.h model/budget.h model/progress.h \
	model/profile.h model/wcet.c model/budget.c model/progress.c \
	model/profile.c model/tfs.c model/tfs.h model/rta.c model/rta.h \
	model/tok.c model/tok.h
model_libbwmodel_la_LIBADD = $(LIBM)

# Tests (C programs in tests/model, plus the bwanalyze script).
model_tests = tests/model/test_wcet tests/model/test_budget \
	tests/model/test_progress tests/model/test_profile \
	tests/model/test_tfs_rta
check_PROGRAMS += $(model_tests)
TESTS += $(model_tests)
model_test_ldadd = model/libbwmodel.la $(LIBM)
tests_model_test_wcet_SOURCES = tests/model/test_wcet.c tests/model/tcheck.h \
	tests/model/exhaustive.h
tests_model_test_wcet_LDADD = $(model_test_ldadd)
tests_model_test_budget_SOURCES = tests/model/test_budget.c tests/model/tcheck.h \
	tests/model/exhaustive.h
tests_model_test_budget_LDADD = $(model_test_ldadd)
tests_model_test_progress_SOURCES = tests/model/test_progress.c \
	tests/model/tcheck.h
tests_model_test_progress_LDADD = $(model_test_ldadd)
tests_model_test_profile_SOURCES = tests/model/test_profile.c \
	tests/model/tcheck.h
tests_model_test_profile_LDADD = $(model_test_ldadd)
tests_model_test_tfs_rta_SOURCES = tests/model/test_tfs_rta.c \
	tests/model/tcheck.h
tests_model_test_tfs_rta_LDADD = $(model_test_ldadd)
TESTS += tests/model/bwanalyze.sh
dist_check_SCRIPTS += tests/model/bwanalyze.sh
EXTRA_DIST += tests/model/data/example.bwk tests/model/data/interleaved.bwk \
	tests/model/data/bad_line7.bwk tests/model/data/bad_unused.bwk \
	tests/model/data/sched.ts tests/model/data/unsched.ts \
	tests/model/data/bad.ts

# Fuzz target for the .bwk parser (pattern of fuzz/local.mk).
FUZZ_PROGS += fuzz/fuzz_profile
check_PROGRAMS += fuzz/fuzz_profile
# the model sources are compiled into the target so that libFuzzer's
# coverage instrumentation (FUZZ_CFLAGS) reaches the parser itself
fuzz_fuzz_profile_SOURCES = fuzz/fuzz_profile.c model/profile.c \
	model/wcet.c model/progress.c model/budget.c model/tok.c
fuzz_fuzz_profile_LDADD = lib/libbwutil.la $(LIBM)
if ENABLE_FUZZING
fuzz_fuzz_profile_CFLAGS = $(AM_CFLAGS) $(FUZZ_CFLAGS)
fuzz_fuzz_profile_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_CFLAGS)
else
# set in both branches: a conditional definition alone would replace
# AM_LDFLAGS (and the sanitizer flags) with nothing here
fuzz_fuzz_profile_CFLAGS = $(AM_CFLAGS)
fuzz_fuzz_profile_LDFLAGS = $(AM_LDFLAGS)
fuzz_fuzz_profile_SOURCES += fuzz/driver.c fuzz/driver.h
TESTS += fuzz/fuzz_profile
endif
EXTRA_DIST += fuzz/corpus/fuzz_profile/example.bwk \
	fuzz/corpus/fuzz_profile/interleaved.bwk \
	fuzz/corpus/fuzz_profile/minimal.bwk fuzz/corpus/fuzz_profile/bad.bwk

# Benchmark (make bench): per-period decision and registration cost.
BENCH_PROGS += bench/bench_model
EXTRA_PROGRAMS += bench/bench_model
CLEANFILES += bench/bench_model
bench_bench_model_SOURCES = bench/bench_model.c
bench_bench_model_LDADD = model/libbwmodel.la $(LIBM)

dist_doc_DATA += doc/profile.md doc/analysis.md
dist_man_MANS += man/bwanalyze.1
