# sim: the simulated platform (doc/design.md section 5, doc/sim.md) and the
# experiments bwsim runs on it; the daemon's sim backend links it too.
# It sees the model (its platform runs the model's decision and bounds);
# so do its tests.
SIM_CPPFLAGS = -I$(top_srcdir)/sim -I$(top_srcdir)/model
SIM_TESTS_CPPFLAGS = $(SIM_CPPFLAGS)
noinst_LTLIBRARIES += sim/libbwsim.la
sim_libbwsim_la_SOURCES = sim/sim.c sim/sim.h sim/exp.c sim/exp.h \
	sim/partexp.c sim/partexp.h
sim_libbwsim_la_CPPFLAGS = $(AM_CPPFLAGS) $(SIM_CPPFLAGS)
sim_libbwsim_la_LIBADD = model/libbwmodel.la $(LIBM)

# C tests of the platform and the experiments
check_PROGRAMS += tests/sim/test_sim tests/sim/test_exp \
	tests/sim/test_partexp
tests_sim_test_sim_SOURCES = tests/sim/test_sim.c tests/sim/tap.h
tests_sim_test_sim_CPPFLAGS = $(AM_CPPFLAGS) $(SIM_TESTS_CPPFLAGS)
tests_sim_test_sim_LDADD = sim/libbwsim.la model/libbwmodel.la $(LIBM)
tests_sim_test_exp_SOURCES = tests/sim/test_exp.c tests/sim/tap.h
tests_sim_test_exp_CPPFLAGS = $(AM_CPPFLAGS) $(SIM_TESTS_CPPFLAGS)
tests_sim_test_exp_LDADD = sim/libbwsim.la model/libbwmodel.la \
	lib/libbwutil.la $(LIBM)
tests_sim_test_partexp_SOURCES = tests/sim/test_partexp.c tests/sim/tap.h
tests_sim_test_partexp_CPPFLAGS = $(AM_CPPFLAGS) $(SIM_TESTS_CPPFLAGS)
tests_sim_test_partexp_LDADD = sim/libbwsim.la model/libbwmodel.la $(LIBM)
TESTS += tests/sim/test_sim tests/sim/test_exp tests/sim/test_partexp

dist_doc_DATA += doc/sim.md doc/results.md
EXTRA_DIST += scripts/results
