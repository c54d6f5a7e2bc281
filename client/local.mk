# client: libbwclient, bwctl, their man pages, tests and benchmarks.
# They see the protocol and the module's uapi (the lock area is struct
# bwreg_lock, client/lockfile.h).
CLIENT_CPPFLAGS = -I$(top_srcdir)/client -I$(top_srcdir)/proto \
	-I$(top_srcdir)/kmod/uapi
# libbwclient alone also sees the model: bwc_kernel_register_file()
# parses a .bwk profile with the model's parser (profile_parse) and
# turns its gpu directive into a demand (client/bwcgpu.h); bwctl does not.
CLIENT_LIB_CPPFLAGS = $(CLIENT_CPPFLAGS) -I$(top_srcdir)/model
# the tests and benchmarks: the library's view (tests/client/live.c
# registers from a parsed profile too)
CLIENT_TESTS_CPPFLAGS = $(CLIENT_LIB_CPPFLAGS)

lib_LTLIBRARIES += client/libbwclient.la
client_libbwclient_la_SOURCES = client/bwclient.c client/cpage.c \
	client/lockfile.c client/lockfile.h \
	client/cpage.h client/cvalue.c client/cvalue.h \
	client/bwcgpu.c client/bwcgpu.h
client_libbwclient_la_CPPFLAGS = $(AM_CPPFLAGS) $(CLIENT_LIB_CPPFLAGS)
client_libbwclient_la_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS)
client_libbwclient_la_LDFLAGS = $(AM_LDFLAGS) \
	-version-info $(BWCLIENT_LT_VERSION) -export-symbols-regex '^bwc_'
client_libbwclient_la_LIBADD = proto/libbwproto.la model/libbwmodel.la \
	lib/libbwutil.la $(MSGPACK_LIBS) $(LIBM)
pkginclude_HEADERS += include/bwsched/bwclient.h include/bwsched/bwshm.h \
	include/bwsched/bwplan.h
pkgconfig_DATA += client/bwclient.pc
EXTRA_DIST += client/bwclient.pc.in

bin_PROGRAMS += client/bwctl
client_bwctl_SOURCES = client/bwctl.c client/cvalue.c client/cvalue.h \
	client/human.c client/human.h \
	client/bwctl_top.c client/bwctl_top.h \
	client/bwctl_part.c client/bwctl_part.h
client_bwctl_CPPFLAGS = $(AM_CPPFLAGS) $(CLIENT_CPPFLAGS)
client_bwctl_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS)
client_bwctl_LDADD = proto/libbwproto.la lib/libbwutil.la $(MSGPACK_LIBS)

# installed as "bwctl" in the completions directory; the copy lives in
# its own folder so it does not clash with the program
bashcompletion_DATA = client/completion/bwctl
client/completion/bwctl: $(srcdir)/client/bwctl.bash-completion
	$(AM_V_GEN)mkdir -p client/completion && cp $(srcdir)/client/bwctl.bash-completion $@
EXTRA_DIST += client/bwctl.bash-completion
CLEANFILES += client/completion/bwctl

# unit tests: page logic and value encoding
check_PROGRAMS += tests/client/test_cpage
TESTS += tests/client/test_cpage
tests_client_test_cpage_SOURCES = tests/client/test_cpage.c client/cpage.c \
	client/cpage.h client/cvalue.c client/cvalue.h
tests_client_test_cpage_CPPFLAGS = $(AM_CPPFLAGS) $(CLIENT_TESTS_CPPFLAGS)
tests_client_test_cpage_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS)
tests_client_test_cpage_LDADD = proto/libbwproto.la $(MSGPACK_LIBS) $(LIBM)

# integration: libbwclient and bwctl against the real daemon
check_PROGRAMS += tests/client/live
tests_client_live_SOURCES = tests/client/live.c
tests_client_live_CPPFLAGS = $(AM_CPPFLAGS) $(CLIENT_TESTS_CPPFLAGS)
tests_client_live_LDADD = client/libbwclient.la model/libbwmodel.la $(LIBM)
TESTS += tests/client/live.sh tests/client/bwctl.sh tests/client/completion.sh
dist_check_SCRIPTS += tests/client/live.sh tests/client/bwctl.sh \
	tests/client/completion.sh

# benchmarks (make bench): protocol round trips and the page lock
BENCH_PROGS += bench/bench_proto bench/bench_lock bench/bench_ceiling
EXTRA_PROGRAMS += bench/bench_proto bench/bench_lock bench/bench_ceiling
bench_bench_proto_SOURCES = bench/bench_proto.c bench/bdaemon.c bench/bdaemon.h
bench_bench_proto_CPPFLAGS = $(AM_CPPFLAGS) $(CLIENT_TESTS_CPPFLAGS)
bench_bench_proto_LDADD = client/libbwclient.la
bench_bench_lock_SOURCES = bench/bench_lock.c bench/bdaemon.c bench/bdaemon.h
bench_bench_lock_CPPFLAGS = $(AM_CPPFLAGS) $(CLIENT_TESTS_CPPFLAGS)
bench_bench_lock_LDADD = client/libbwclient.la
bench_bench_ceiling_SOURCES = bench/bench_ceiling.c bench/bdaemon.c bench/bdaemon.h
bench_bench_ceiling_CPPFLAGS = $(AM_CPPFLAGS) $(CLIENT_TESTS_CPPFLAGS)
bench_bench_ceiling_LDADD = client/libbwclient.la
CLEANFILES += bench/bench_proto bench/bench_lock bench/bench_ceiling

dist_man_MANS += man/bwctl.8 man/libbwclient.3
