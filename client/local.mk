# client: libbwclient, bwctl, their man pages, tests and benchmarks.

lib_LTLIBRARIES += client/libbwclient.la
client_libbwclient_la_SOURCES = client/bwclient.c client/cpage.c \
	client/cpage.h client/cvalue.c client/cvalue.h
client_libbwclient_la_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS)
client_libbwclient_la_LDFLAGS = $(AM_LDFLAGS) \
	-version-info $(BWCLIENT_LT_VERSION) -export-symbols-regex '^bwc_'
client_libbwclient_la_LIBADD = proto/libbwproto.la model/libbwmodel.la \
	lib/libbwutil.la $(MSGPACK_LIBS) $(LIBM)
pkginclude_HEADERS += include/bwsched/bwclient.h include/bwsched/bwshm.h
pkgconfig_DATA += client/bwclient.pc
EXTRA_DIST += client/bwclient.pc.in

bin_PROGRAMS += client/bwctl
client_bwctl_SOURCES = client/bwctl.c client/cvalue.c client/cvalue.h
client_bwctl_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS)
client_bwctl_LDADD = proto/libbwproto.la lib/libbwutil.la $(MSGPACK_LIBS)

# installed as "bwctl" in the completions directory; the copy lives in
# its own folder so it does not clash with the program
bashcompletion_DATA = client/completion/bwctl
client/completion/bwctl: $(srcdir)/client/bwctl.bash-completion
	$(AM_V_GEN)mkdir -p client/completion && cp $(srcdir)/client/bwctl.bash-completion $@
EXTRA_DIST += client/bwctl.bash-completion
CLEANFILES += client/completion/bwctl
