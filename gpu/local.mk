# gpu: the warp-level GPU model (doc/gpu-model.md): the PTX analyzer, L1
# miss-rate and warp-segment WCET estimation of [Reorder], the SM model
# with the LRR, GTO and RT-PAWS warp schedulers of [PredGPU] chapter 4.
# Pure code; the commands in tools/ (bwanalyze ptx, bwsim sm and bwsim
# warps) read the files.  It sees only itself (and AM_CPPFLAGS:
# include/, lib/); so do its tests and fuzzer.
GPU_CPPFLAGS = -I$(top_srcdir)/gpu
GPU_TESTS_CPPFLAGS = $(GPU_CPPFLAGS)
noinst_LTLIBRARIES += gpu/libbwgpu.la
gpu_libbwgpu_la_SOURCES = gpu/ptx.c gpu/ptx.h gpu/gtrace.c gpu/gtrace.h \
	gpu/wexec.c gpu/wexec.h gpu/l1.c gpu/l1.h gpu/order.c gpu/order.h \
	gpu/est.c gpu/est.h gpu/wsched.c gpu/wsched.h gpu/sm.c gpu/sm.h \
	gpu/fig41.c gpu/fig41.h
gpu_libbwgpu_la_CPPFLAGS = $(AM_CPPFLAGS) $(GPU_CPPFLAGS)
gpu_libbwgpu_la_LIBADD = $(LIBM)

dist_doc_DATA += doc/gpu-model.md

# The example kernels: the PTX is committed so that everything runs
# without CUDA; with nvcc, make compiles the sources again into
# examples/kernels/built/ and tests/gpu/nvcc.sh checks that the analyzer
# sees the same kernels in both.
GPU_KERNELS = vecadd transpose stencil pathfinder histogram
GPU_ARCH = sm_75
EXTRA_DIST += scripts/results-gpu examples/kernels/README.md examples/kernels/launches \
	$(GPU_KERNELS:%=examples/kernels/%.cu) \
	$(GPU_KERNELS:%=examples/kernels/%.ptx)
if HAVE_NVCC
GPU_BUILT_PTX = $(GPU_KERNELS:%=examples/kernels/built/%.ptx)
noinst_DATA += $(GPU_BUILT_PTX)
CLEANFILES += $(GPU_BUILT_PTX)
examples/kernels/built/%.ptx: $(srcdir)/examples/kernels/%.cu
	@$(MKDIR_P) examples/kernels/built
	$(NVCC) -arch=$(GPU_ARCH) -ptx -o $@ $<
endif

# Tests: the parser, the analyzer, the cache, the schedulers and Fig. 4.1,
# the estimates against the simulator, and the commands.
gpu_tests = tests/gpu/test_ptx tests/gpu/test_wexec tests/gpu/test_l1 \
	tests/gpu/test_sched tests/gpu/test_bound
check_PROGRAMS += $(gpu_tests)
TESTS += $(gpu_tests) tests/gpu/cli.sh tests/gpu/nvcc.sh
dist_check_SCRIPTS += tests/gpu/cli.sh tests/gpu/nvcc.sh
gpu_test_ldadd = gpu/libbwgpu.la lib/libbwutil.la $(LIBM)
tests_gpu_test_ptx_SOURCES = tests/gpu/test_ptx.c tests/gpu/gcheck.h
tests_gpu_test_ptx_CPPFLAGS = $(AM_CPPFLAGS) $(GPU_TESTS_CPPFLAGS)
tests_gpu_test_ptx_LDADD = $(gpu_test_ldadd)
tests_gpu_test_wexec_SOURCES = tests/gpu/test_wexec.c tests/gpu/gcheck.h
tests_gpu_test_wexec_CPPFLAGS = $(AM_CPPFLAGS) $(GPU_TESTS_CPPFLAGS)
tests_gpu_test_wexec_LDADD = $(gpu_test_ldadd)
tests_gpu_test_l1_SOURCES = tests/gpu/test_l1.c tests/gpu/gcheck.h
tests_gpu_test_l1_CPPFLAGS = $(AM_CPPFLAGS) $(GPU_TESTS_CPPFLAGS)
tests_gpu_test_l1_LDADD = $(gpu_test_ldadd)
tests_gpu_test_sched_SOURCES = tests/gpu/test_sched.c tests/gpu/gcheck.h
tests_gpu_test_sched_CPPFLAGS = $(AM_CPPFLAGS) $(GPU_TESTS_CPPFLAGS)
tests_gpu_test_sched_LDADD = $(gpu_test_ldadd)
tests_gpu_test_bound_SOURCES = tests/gpu/test_bound.c tests/gpu/gcheck.h
tests_gpu_test_bound_CPPFLAGS = $(AM_CPPFLAGS) $(GPU_TESTS_CPPFLAGS)
tests_gpu_test_bound_LDADD = $(gpu_test_ldadd)

# Fuzz target for the PTX parser and analyzer (pattern of fuzz/local.mk)
FUZZ_PROGS += fuzz/fuzz_ptx
check_PROGRAMS += fuzz/fuzz_ptx
# the parser and analyzer are compiled into the target so that
# libFuzzer's coverage instrumentation reaches them
fuzz_fuzz_ptx_SOURCES = fuzz/fuzz_ptx.c gpu/ptx.c gpu/wexec.c gpu/gtrace.c \
	gpu/l1.c gpu/order.c gpu/est.c gpu/sm.c gpu/wsched.c
fuzz_fuzz_ptx_CPPFLAGS = $(AM_CPPFLAGS) $(GPU_TESTS_CPPFLAGS)
fuzz_fuzz_ptx_LDADD = lib/libbwutil.la $(LIBM)
fuzz_fuzz_ptx_SOURCES += $(FUZZ_DRIVER)
fuzz_fuzz_ptx_CFLAGS = $(AM_CFLAGS) $(FUZZ_COMPILE)
fuzz_fuzz_ptx_LDFLAGS = $(FUZZ_LINK)
EXTRA_DIST += fuzz/corpus/fuzz_ptx
