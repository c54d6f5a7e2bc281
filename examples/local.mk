# examples: the walking-skeleton demo (scripts/demo runs examples/demo.sh)
# They see the public headers (AM_CPPFLAGS) and the model: demo_gpu
# parses its .bwk profile with the model's parser (profile_parse) to
# drive its simulated kernel, and publishes its emulated GPU clock with
# libbwcuda's calibration (client/cuda/gpuclock.c).
EXAMPLES_CPPFLAGS = -I$(top_srcdir)/model -I$(top_srcdir)/client/cuda
noinst_PROGRAMS += examples/demo_client
examples_demo_client_SOURCES = examples/demo_client.c
examples_demo_client_CPPFLAGS = $(AM_CPPFLAGS) $(EXAMPLES_CPPFLAGS)
examples_demo_client_LDADD = client/libbwclient.la
dist_noinst_SCRIPTS += examples/demo.sh

# the demo GPU client (examples/demo-live.sh, tests/engine/live.sh)
noinst_PROGRAMS += examples/demo_gpu
examples_demo_gpu_SOURCES = examples/demo_gpu.c client/cuda/gpuclock.c
examples_demo_gpu_CPPFLAGS = $(AM_CPPFLAGS) $(EXAMPLES_CPPFLAGS)
examples_demo_gpu_LDADD = client/libbwclient.la model/libbwmodel.la \
	lib/libbwutil.la $(LIBM)
dist_noinst_SCRIPTS += examples/demo-live.sh

# a CUDA program with progress marks (include/bwsched/bwprogress.cuh),
# built when nvcc is there
EXTRA_DIST += examples/vecadd/vecadd.cu examples/vecadd/README.md
if HAVE_NVCC
noinst_PROGRAMS += examples/vecadd/vecadd
examples_vecadd_vecadd_SOURCES =
examples_vecadd_vecadd_LDADD = examples/vecadd/vecadd.o
examples_vecadd_vecadd_LINK = $(NVCC) -o $@
examples/vecadd/vecadd.o: $(srcdir)/examples/vecadd/vecadd.cu \
		$(srcdir)/include/bwsched/bwprogress.cuh
	@$(MKDIR_P) examples/vecadd
	$(NVCC) -I$(top_srcdir)/include -c -o $@ \
		$(srcdir)/examples/vecadd/vecadd.cu
CLEANFILES += examples/vecadd/vecadd.o
endif
