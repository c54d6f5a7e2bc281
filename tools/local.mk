# tools: bwanalyze (profiles, bounds, EVT, partitioning, PTX), bwsim
# (experiments on the simulated platform and the GPU model) and
# bwtracegen (synthetic traces).
# They see the model, the simulated platform and the GPU model, nothing
# of the daemon, the protocol or the client; so do their tests, fuzzer
# and benchmark (which include tools/trace.h).
TOOLS_CPPFLAGS = -I$(top_srcdir)/tools -I$(top_srcdir)/model \
	-I$(top_srcdir)/sim -I$(top_srcdir)/gpu
TOOLS_TESTS_CPPFLAGS = $(TOOLS_CPPFLAGS)
bin_PROGRAMS += tools/bwanalyze
tools_bwanalyze_SOURCES = tools/bwanalyze.c tools/bwanalyze.h \
	tools/an_model.c tools/an_partition.c \
	tools/an_profiling.c tools/an_profiling.h tools/an_evt.c \
	tools/an_cluster.c tools/an_plot.c \
	tools/an_ptx.c tools/gpu_cli.c tools/gpu_cli.h \
	tools/trace.c tools/trace.h
tools_bwanalyze_CPPFLAGS = $(AM_CPPFLAGS) $(TOOLS_CPPFLAGS)
tools_bwanalyze_LDADD = model/libbwmodel.la lib/libbwutil.la $(LIBM) \
	gpu/libbwgpu.la

bin_PROGRAMS += tools/bwsim
tools_bwsim_SOURCES = tools/bwsim.c tools/bwsim.h tools/bwsim_plot.c \
	tools/bwsim_part.c tools/bwsim_gpu.c tools/gpu_cli.c tools/gpu_cli.h
tools_bwsim_CPPFLAGS = $(AM_CPPFLAGS) $(TOOLS_CPPFLAGS)
tools_bwsim_LDADD = sim/libbwsim.la model/libbwmodel.la lib/libbwutil.la \
	$(LIBM) gpu/libbwgpu.la

# Synthetic traces and sample files with known answers (tests, bench).
check_PROGRAMS += tools/bwtracegen
tools_bwtracegen_SOURCES = tools/bwtracegen.c tools/trace.c tools/trace.h
tools_bwtracegen_CPPFLAGS = $(AM_CPPFLAGS) $(TOOLS_CPPFLAGS)
tools_bwtracegen_LDADD = model/libbwmodel.la $(LIBM)

dist_man_MANS += man/bwsim.1
dist_doc_DATA += doc/profiling.md
EXTRA_DIST += examples/histo.bwk
pkginclude_HEADERS += include/bwsched/bwprofile.cuh

# the trace reader
check_PROGRAMS += tests/profiling/test_trace
TESTS += tests/profiling/test_trace
tests_profiling_test_trace_SOURCES = tests/profiling/test_trace.c \
	tests/profiling/pcheck.h tools/trace.c tools/trace.h
tests_profiling_test_trace_CPPFLAGS = $(AM_CPPFLAGS) $(TOOLS_TESTS_CPPFLAGS)
tests_profiling_test_trace_LDADD = model/libbwmodel.la $(LIBM)

# End-to-end scripts: bwtracegen -> bwanalyze, SciPy references, plots,
# the device header under nvcc; bwsim and its partitioning experiment.
prof_scripts = tests/profiling/cluster.sh tests/profiling/evt.sh \
	tests/profiling/scipy.sh tests/profiling/plot.sh \
	tests/profiling/nvcc.sh
TESTS += $(prof_scripts)
dist_check_SCRIPTS += $(prof_scripts)
EXTRA_DIST += tests/profiling/lib.sh tests/profiling/scipy_ref.py tests/profiling/nvcc_test.cu \
	tests/profiling/data/too_few.csv tests/profiling/data/bad_header.csv
TESTS += tests/sim/bwsim.sh tests/sim/partition.sh
dist_check_SCRIPTS += tests/sim/bwsim.sh tests/sim/partition.sh

# Fuzz target for the trace reader (pattern of fuzz/local.mk).
FUZZ_PROGS += fuzz/fuzz_trace
check_PROGRAMS += fuzz/fuzz_trace
fuzz_fuzz_trace_SOURCES = fuzz/fuzz_trace.c tools/trace.c tools/trace.h
fuzz_fuzz_trace_CPPFLAGS = $(AM_CPPFLAGS) $(TOOLS_TESTS_CPPFLAGS)
# tools/trace.c is compiled into the target, so libFuzzer instruments it
fuzz_fuzz_trace_LDADD = lib/libbwutil.la $(LIBM)
fuzz_fuzz_trace_SOURCES += $(FUZZ_DRIVER)
fuzz_fuzz_trace_CFLAGS = $(AM_CFLAGS) $(FUZZ_COMPILE)
fuzz_fuzz_trace_LDFLAGS = $(FUZZ_LINK)
EXTRA_DIST += fuzz/corpus/fuzz_trace/small.csv \
	fuzz/corpus/fuzz_trace/small.bin fuzz/corpus/fuzz_trace/bad.csv

# Benchmark (make bench): 100,000 blocks x 1,000 runs per condition.
BENCH_PROGS += bench/bench_cluster
EXTRA_PROGRAMS += bench/bench_cluster
CLEANFILES += bench/bench_cluster
bench_bench_cluster_SOURCES = bench/bench_cluster.c
bench_bench_cluster_CPPFLAGS = $(AM_CPPFLAGS) $(TOOLS_TESTS_CPPFLAGS)
EXTRA_bench_bench_cluster_DEPENDENCIES = tools/bwtracegen$(EXEEXT) \
	tools/bwanalyze$(EXEEXT)
