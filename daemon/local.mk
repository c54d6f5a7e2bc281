# daemon: bwsched(8).  Everything but main.c is a convenience library so
# the unit tests link the same code.  It sees the protocol, the model,
# the simulated platform (its sim regulator backend runs it) and the
# module's uapi (the kmod backend; the lock pages are struct bwreg_lock).
DAEMON_CPPFLAGS = -I$(top_srcdir)/daemon -I$(top_srcdir)/proto \
	-I$(top_srcdir)/model -I$(top_srcdir)/sim -I$(top_srcdir)/kmod/uapi
# its tests and benchmark: the daemon's, and the test client's helpers
# (tests/daemon/tc.h, jmp.h)
DAEMON_TESTS_CPPFLAGS = $(DAEMON_CPPFLAGS) -I$(top_srcdir)/tests/daemon
noinst_LTLIBRARIES += daemon/libbwdaemon.la
daemon_libbwdaemon_la_SOURCES = \
	daemon/bwsched.h daemon/ceiling.c daemon/ceiling.h daemon/conf.c daemon/conf.h \
	daemon/log.c daemon/log.h daemon/metrics.c daemon/metrics.h \
	daemon/ops.c daemon/ops.h daemon/peer.c daemon/peer.h \
	daemon/regulator.c daemon/regulator.h daemon/reg_sim.c daemon/reg_sim.h daemon/reg_kmod.c daemon/reg_kmod.h \
	daemon/sd.c daemon/sd.h daemon/server.c daemon/server.h \
	daemon/service.c daemon/service.h \
	daemon/tasks.c daemon/tasks.h daemon/validate.c daemon/validate.h \
	daemon/admit.c daemon/admit.h
daemon_libbwdaemon_la_CPPFLAGS = $(AM_CPPFLAGS) $(DAEMON_CPPFLAGS)
# the regulation engine (doc/engine.md): the period thread, its rings,
# the per-launch log, the live sim backend
daemon_libbwdaemon_la_SOURCES += daemon/period.c daemon/period.h \
	daemon/ring.c daemon/ring.h daemon/lathist.c daemon/lathist.h \
	daemon/engine.c daemon/engine.h daemon/launchlog.c daemon/launchlog.h \
	daemon/leadctl.c daemon/leadctl.h daemon/lockslot.c daemon/lockslot.h
daemon_libbwdaemon_la_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS) $(SYSTEMD_CFLAGS)
daemon_libbwdaemon_la_LIBADD = proto/libbwproto.la model/libbwmodel.la \
	lib/libbwutil.la $(MSGPACK_LIBS) $(SYSTEMD_LIBS) $(LIBEV_LIBS) $(LIBM) \
	sim/libbwsim.la
pkginclude_HEADERS += include/bwsched/bwsimstate.h

sbin_PROGRAMS += daemon/bwsched
daemon_bwsched_SOURCES = daemon/main.c
daemon_bwsched_CPPFLAGS = $(AM_CPPFLAGS) $(DAEMON_CPPFLAGS)
daemon_bwsched_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS) $(SYSTEMD_CFLAGS)
daemon_bwsched_LDADD = daemon/libbwdaemon.la

dist_man_MANS += man/bwsched.8 man/bwsched.conf.5
dist_doc_DATA += doc/protocol.md doc/engine.md

# tests: unit tests, the protocol test client and the integration suites
check_PROGRAMS += tests/daemon/test_config tests/daemon/test_tasks \
	tests/daemon/bwtest
tests_daemon_test_tasks_SOURCES = tests/daemon/test_tasks.c
tests_daemon_test_tasks_CPPFLAGS = $(AM_CPPFLAGS) $(DAEMON_TESTS_CPPFLAGS)
tests_daemon_test_tasks_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS)
tests_daemon_test_tasks_LDADD = daemon/libbwdaemon.la
tests_daemon_test_config_SOURCES = tests/daemon/test_config.c
tests_daemon_test_config_CPPFLAGS = $(AM_CPPFLAGS) $(DAEMON_TESTS_CPPFLAGS)
tests_daemon_test_config_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS)
tests_daemon_test_config_LDADD = daemon/libbwdaemon.la
tests_daemon_bwtest_SOURCES = tests/daemon/bwtest.c tests/daemon/tc.c \
	tests/daemon/tc.h
tests_daemon_bwtest_CPPFLAGS = $(AM_CPPFLAGS) $(DAEMON_TESTS_CPPFLAGS)
tests_daemon_bwtest_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS)
tests_daemon_bwtest_LDADD = proto/libbwproto.la $(MSGPACK_LIBS)
TESTS += tests/daemon/test_config tests/daemon/test_tasks tests/daemon/basic.sh
dist_check_SCRIPTS += tests/daemon/basic.sh
TESTS += tests/daemon/errors.sh tests/daemon/metrics.sh
dist_check_SCRIPTS += tests/daemon/errors.sh tests/daemon/metrics.sh
EXTRA_DIST += tests/daemon/lib.sh
check_PROGRAMS += tests/abuse/abuse
tests_abuse_abuse_SOURCES = tests/abuse/abuse.c tests/daemon/tc.c \
	tests/daemon/tc.h tests/daemon/jmp.c tests/daemon/jmp.h
tests_abuse_abuse_CPPFLAGS = $(AM_CPPFLAGS) $(DAEMON_TESTS_CPPFLAGS)
tests_abuse_abuse_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS)
tests_abuse_abuse_LDADD = proto/libbwproto.la $(MSGPACK_LIBS)
TESTS += tests/abuse/abuse.sh
dist_check_SCRIPTS += tests/abuse/abuse.sh
TESTS += tests/daemon/notify.sh tests/daemon/activate.sh tests/daemon/reload.sh \
	tests/daemon/single.sh tests/daemon/admin.sh \
	tests/daemon/pyclient.sh tests/daemon/endevent.sh
dist_check_SCRIPTS += tests/daemon/notify.sh tests/daemon/activate.sh \
	tests/daemon/reload.sh tests/daemon/pyclient.sh tests/daemon/single.sh \
	tests/daemon/admin.sh tests/daemon/endevent.sh
EXTRA_DIST += tests/daemon/notifyd.py tests/daemon/thirdparty.py \
	tests/daemon/endclient.py
check_PROGRAMS += tests/daemon/ceiltest
tests_daemon_ceiltest_SOURCES = tests/daemon/ceiltest.c
tests_daemon_ceiltest_CPPFLAGS = $(AM_CPPFLAGS) $(DAEMON_TESTS_CPPFLAGS)
tests_daemon_ceiltest_LDADD = client/libbwclient.la
TESTS += tests/daemon/ceiling.sh
dist_check_SCRIPTS += tests/daemon/ceiling.sh
TESTS += tests/daemon/admit.sh
dist_check_SCRIPTS += tests/daemon/admit.sh
EXTRA_DIST += tests/daemon/admit_client.py

# tests: the engine against a fake clock and a fake backend
check_PROGRAMS += tests/engine/test_period
tests_engine_test_period_SOURCES = tests/engine/test_period.c
tests_engine_test_period_CPPFLAGS = $(AM_CPPFLAGS) $(DAEMON_TESTS_CPPFLAGS)
tests_engine_test_period_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS)
tests_engine_test_period_LDADD = daemon/libbwdaemon.la
check_PROGRAMS += tests/engine/test_parts
tests_engine_test_parts_SOURCES = tests/engine/test_parts.c
tests_engine_test_parts_CPPFLAGS = $(AM_CPPFLAGS) $(DAEMON_TESTS_CPPFLAGS)
tests_engine_test_parts_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS)
tests_engine_test_parts_LDADD = daemon/libbwdaemon.la
TESTS += tests/engine/test_period tests/engine/test_parts tests/engine/live.sh \
	tests/engine/lockload.sh
dist_check_SCRIPTS += tests/engine/live.sh tests/engine/lockload.sh

# benchmark (make bench): engine CPU per period, wake-up lateness
BENCH_PROGS += bench/bench_period
EXTRA_PROGRAMS += bench/bench_period
CLEANFILES += bench/bench_period
bench_bench_period_SOURCES = bench/bench_period.c
bench_bench_period_CPPFLAGS = $(AM_CPPFLAGS) $(DAEMON_TESTS_CPPFLAGS) \
	-DHISTO_BWK='"$(abs_top_srcdir)/examples/histo.bwk"'
bench_bench_period_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS)
bench_bench_period_LDADD = daemon/libbwdaemon.la
