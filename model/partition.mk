# model/partition.mk: GPU spatial partitioning ([PredGPU] chapter 3,
# doc/partition.md): the model, bwanalyze partition/classify, bwsim
# partition, their tests, the fuzz target and the docs.
model_libbwmodel_la_SOURCES += model/partition.c model/partition.h

check_PROGRAMS += tests/model/test_partition
TESTS += tests/model/test_partition
tests_model_test_partition_SOURCES = tests/model/test_partition.c \
	tests/model/tcheck.h
tests_model_test_partition_LDADD = model/libbwmodel.la $(LIBM)

# bwanalyze partition, bwanalyze classify
tools_bwanalyze_SOURCES += tools/an_partition.c

# Fuzz target for the task-set parser (pattern of fuzz/local.mk).
FUZZ_PROGS += fuzz/fuzz_partition
check_PROGRAMS += fuzz/fuzz_partition
# the model is compiled into the target so libFuzzer instruments it
fuzz_fuzz_partition_SOURCES = fuzz/fuzz_partition.c model/partition.c \
	model/partition.h
fuzz_fuzz_partition_LDADD = lib/libbwutil.la $(LIBM)
if ENABLE_FUZZING
fuzz_fuzz_partition_CFLAGS = $(AM_CFLAGS) $(FUZZ_CFLAGS)
fuzz_fuzz_partition_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_CFLAGS)
else
fuzz_fuzz_partition_CFLAGS = $(AM_CFLAGS)
fuzz_fuzz_partition_LDFLAGS = $(AM_LDFLAGS)
fuzz_fuzz_partition_SOURCES += fuzz/driver.c fuzz/driver.h
TESTS += fuzz/fuzz_partition
endif
EXTRA_DIST += fuzz/corpus/fuzz_partition/example.csv \
	fuzz/corpus/fuzz_partition/columns.csv \
	fuzz/corpus/fuzz_partition/bad.csv

TESTS += tests/model/partition.sh
dist_check_SCRIPTS += tests/model/partition.sh
EXTRA_DIST += tests/model/data/part_example.csv

# bwsim partition, bwsim plot partition (the experiment lives in sim/)
sim_libbwsim_la_SOURCES += sim/partexp.c sim/partexp.h
tools_bwsim_SOURCES += tools/bwsim_part.c

TESTS += tests/sim/partition.sh
dist_check_SCRIPTS += tests/sim/partition.sh

check_PROGRAMS += tests/sim/test_partexp
TESTS += tests/sim/test_partexp
tests_sim_test_partexp_SOURCES = tests/sim/test_partexp.c tests/sim/tap.h
tests_sim_test_partexp_LDADD = sim/libbwsim.la model/libbwmodel.la $(LIBM)

dist_doc_DATA += doc/partition.md

# Admission control in the daemon, the plan page clients map.
daemon_libbwdaemon_la_SOURCES += daemon/admit.c daemon/admit.h
pkginclude_HEADERS += include/bwsched/bwplan.h
client_bwctl_SOURCES += client/bwctl_part.c client/bwctl_part.h

TESTS += tests/daemon/admit.sh
dist_check_SCRIPTS += tests/daemon/admit.sh
EXTRA_DIST += tests/daemon/admit_client.py
EXTRA_DIST += fuzz/corpus/fuzz_profile/gpu.bwk

# libbwclient: GPU demands, the plan page
client_libbwclient_la_SOURCES += client/bwcgpu.c client/bwcgpu.h

# CUDA layer: green contexts (client/cuda/green.c)
client_cuda_libbwcuda_la_SOURCES += client/cuda/green.c client/cuda/green.h
tests_cuda_t_state_SOURCES += client/cuda/green.c
tests_cuda_libfakecuda_la_SOURCES += tests/cuda/fakegreen.c
check_PROGRAMS += tests/cuda/t_green
tests_cuda_t_green_SOURCES = tests/cuda/t_green.c
tests_cuda_t_green_LDADD = tests/cuda/libfakecuda.la -ldl
tests_cuda_t_green_LDFLAGS = $(AM_LDFLAGS) -no-install
TESTS += tests/cuda/green.sh
dist_check_SCRIPTS += tests/cuda/green.sh
if HAVE_CUDA
check_PROGRAMS += tests/cuda/t_greenabi
TESTS += tests/cuda/t_greenabi
tests_cuda_t_greenabi_SOURCES = tests/cuda/t_greenabi.c
tests_cuda_t_greenabi_CPPFLAGS = $(AM_CPPFLAGS) -isystem $(CUDA_DIR)/include
else
EXTRA_DIST += tests/cuda/t_greenabi.c
endif
model_libbwmodel_la_SOURCES += model/sat.h
fuzz_fuzz_partition_SOURCES += model/sat.h
EXTRA_DIST += tests/model/expect.sh
