# tools/sim.mk: bwsim, its tests, man page, docs and example profile.
bin_PROGRAMS += tools/bwsim
tools_bwsim_SOURCES = tools/bwsim.c tools/bwsim.h tools/bwsim_plot.c
tools_bwsim_LDADD = sim/libbwsim.la model/libbwmodel.la lib/libbwutil.la \
	$(LIBM)

dist_man_MANS += man/bwsim.1
dist_doc_DATA += doc/sim.md doc/results.md
EXTRA_DIST += examples/histo.bwk scripts/results

# C tests of the decision, the platform and the experiments
check_PROGRAMS += tests/sim/test_decide tests/sim/test_sim \
	tests/sim/test_exp
tests_sim_test_decide_SOURCES = tests/sim/test_decide.c tests/sim/tap.h
tests_sim_test_decide_LDADD = model/libbwmodel.la $(LIBM)
tests_sim_test_sim_SOURCES = tests/sim/test_sim.c tests/sim/tap.h
tests_sim_test_sim_LDADD = sim/libbwsim.la model/libbwmodel.la $(LIBM)
tests_sim_test_exp_SOURCES = tests/sim/test_exp.c tests/sim/tap.h
tests_sim_test_exp_LDADD = sim/libbwsim.la model/libbwmodel.la \
	lib/libbwutil.la $(LIBM)
TESTS += tests/sim/test_decide tests/sim/test_sim tests/sim/test_exp \
	tests/sim/bwsim.sh
dist_check_SCRIPTS += tests/sim/bwsim.sh
