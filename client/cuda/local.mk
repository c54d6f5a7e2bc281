# client/cuda: CUDA instrumentation (doc/cuda.md)
#
# libbwcuda.so: state machine, sinks and the driver-API interposer; no
# CUDA headers needed.  bwrun preloads it.  bwcuda_inject.so: the CUPTI
# injection library (CUDA_INJECTION64_PATH), using libbwcuda's state.
#
# It sees only itself and the public headers (bwsched/bwclient.h,
# bwshm.h: AM_CPPFLAGS), not client/'s internals; the CUPTI targets add
# the CUDA headers.  Its tests and benchmark include what they test by
# relative path (../../client/cuda/, ../../fakecuda/).
BWCUDA_CPPFLAGS = -I$(top_srcdir)/client/cuda
BWCUDA_TESTS_CPPFLAGS = $(BWCUDA_CPPFLAGS)

pkglib_LTLIBRARIES += client/cuda/libbwcuda.la
client_cuda_libbwcuda_la_SOURCES = \
	client/cuda/state.c client/cuda/state.h \
	client/cuda/sink.c client/cuda/sink.h client/cuda/dl.c \
	client/cuda/interpose.c client/cuda/interpose.h \
	client/cuda/green.c client/cuda/green.h \
	client/cuda/gpuclock.c client/cuda/gpuclock.h
client_cuda_libbwcuda_la_CPPFLAGS = $(AM_CPPFLAGS) $(BWCUDA_CPPFLAGS) \
	-DBWCUDA_LIBDIR='"$(libdir)"'
client_cuda_libbwcuda_la_LDFLAGS = $(AM_LDFLAGS) -avoid-version
client_cuda_libbwcuda_la_LIBADD = -ldl

if HAVE_CUPTI
pkglib_LTLIBRARIES += client/cuda/bwcuda_inject.la
client_cuda_bwcuda_inject_la_SOURCES = client/cuda/inject.c \
	client/cuda/inject.h
client_cuda_bwcuda_inject_la_CPPFLAGS = $(AM_CPPFLAGS) $(BWCUDA_CPPFLAGS) \
	-isystem $(CUDA_DIR)/include
client_cuda_bwcuda_inject_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version \
	-L$(CUDA_DIR)/lib64 -Wl,-rpath,$(CUDA_DIR)/lib64
client_cuda_bwcuda_inject_la_LIBADD = client/cuda/libbwcuda.la -lcupti
else
EXTRA_DIST += client/cuda/inject.c client/cuda/inject.h
endif

bin_PROGRAMS += client/bwrun
dist_man_MANS += man/bwrun.1
client_bwrun_SOURCES = client/bwrun.c
client_bwrun_CPPFLAGS = $(AM_CPPFLAGS) $(BWCUDA_CPPFLAGS)

pkginclude_HEADERS += include/bwsched/bwprogress.cuh
dist_doc_DATA += doc/cuda.md

# ---- tests ---------------------------------------------------------------

# against the fake driver and runtime (fakecuda/)
check_PROGRAMS += tests/cuda/t_state tests/cuda/t_interpose \
	tests/cuda/t_gpuclock
tests_cuda_t_gpuclock_SOURCES = tests/cuda/t_gpuclock.c \
	client/cuda/gpuclock.c
tests_cuda_t_gpuclock_CPPFLAGS = $(AM_CPPFLAGS) $(BWCUDA_TESTS_CPPFLAGS)
tests_cuda_t_gpuclock_LDADD = fakecuda/libfakecuda.la -ldl
tests_cuda_t_gpuclock_LDFLAGS = $(AM_LDFLAGS) -no-install
tests_cuda_t_state_SOURCES = tests/cuda/t_state.c client/cuda/state.c \
	client/cuda/sink.c client/cuda/dl.c client/cuda/green.c \
	client/cuda/gpuclock.c
tests_cuda_t_state_CPPFLAGS = $(AM_CPPFLAGS) $(BWCUDA_TESTS_CPPFLAGS)
tests_cuda_t_state_LDADD = -ldl
tests_cuda_t_interpose_SOURCES = tests/cuda/t_interpose.c
tests_cuda_t_interpose_CPPFLAGS = $(AM_CPPFLAGS) $(BWCUDA_TESTS_CPPFLAGS)
tests_cuda_t_interpose_LDADD = fakecuda/libfakecudart.la \
	fakecuda/libfakecuda.la -ldl
tests_cuda_t_interpose_LDFLAGS = $(AM_LDFLAGS) -no-install
check_PROGRAMS += tests/cuda/t_green
tests_cuda_t_green_SOURCES = tests/cuda/t_green.c
tests_cuda_t_green_CPPFLAGS = $(AM_CPPFLAGS) $(BWCUDA_TESTS_CPPFLAGS)
tests_cuda_t_green_LDADD = fakecuda/libfakecuda.la -ldl
tests_cuda_t_green_LDFLAGS = $(AM_LDFLAGS) -no-install

cuda_sh_tests = tests/cuda/interpose.sh tests/cuda/absent.sh \
	tests/cuda/bwrun.sh tests/cuda/nvcc.sh tests/cuda/realrt.sh \
	tests/cuda/live.sh tests/cuda/green.sh
TESTS += tests/cuda/t_state tests/cuda/t_gpuclock $(cuda_sh_tests)
dist_check_SCRIPTS += $(cuda_sh_tests) tests/cuda/env.sh
EXTRA_DIST += tests/cuda/progress_kernel.cu

if HAVE_CUPTI
check_PROGRAMS += tests/cuda/t_inject
TESTS += tests/cuda/t_inject
tests_cuda_t_inject_SOURCES = tests/cuda/t_inject.c client/cuda/inject.c
tests_cuda_t_inject_CPPFLAGS = $(AM_CPPFLAGS) $(BWCUDA_TESTS_CPPFLAGS) -isystem $(CUDA_DIR)/include
tests_cuda_t_inject_LDADD = client/cuda/libbwcuda.la -ldl
tests_cuda_t_inject_LDFLAGS = $(AM_LDFLAGS) -no-install
else
EXTRA_DIST += tests/cuda/t_inject.c
endif
if HAVE_CUDA
check_PROGRAMS += tests/cuda/t_greenabi
TESTS += tests/cuda/t_greenabi
tests_cuda_t_greenabi_SOURCES = tests/cuda/t_greenabi.c
tests_cuda_t_greenabi_CPPFLAGS = $(AM_CPPFLAGS) $(BWCUDA_TESTS_CPPFLAGS) -isystem $(CUDA_DIR)/include
else
EXTRA_DIST += tests/cuda/t_greenabi.c
endif

# ---- benchmark -------------------------------------------------------------

BENCH_PROGS += bench/bench_intercept
EXTRA_PROGRAMS += bench/bench_intercept
bench_bench_intercept_SOURCES = bench/bench_intercept.c
bench_bench_intercept_CPPFLAGS = $(AM_CPPFLAGS) $(BWCUDA_TESTS_CPPFLAGS)
bench_bench_intercept_LDADD = fakecuda/libfakecuda.la -ldl
bench_bench_intercept_LDFLAGS = $(AM_LDFLAGS) -no-install
