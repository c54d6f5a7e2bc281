# proto: the wire format shared by the daemon, libbwclient and bwctl.
# It sees only itself (and AM_CPPFLAGS: include/, lib/).
PROTO_CPPFLAGS = -I$(top_srcdir)/proto
# its tests and fuzzer: the validators they check are the daemon's
# (daemon/validate.c is compiled into them)
PROTO_TESTS_CPPFLAGS = $(PROTO_CPPFLAGS) -I$(top_srcdir)/daemon
noinst_LTLIBRARIES += proto/libbwproto.la
proto_libbwproto_la_SOURCES = proto/bwproto.h proto/msg.c proto/msg.h \
	proto/mpdec.c proto/mpdec.h \
	include/bwsched/bwshm.h \
	proto/wire.c proto/wire.h
proto_libbwproto_la_CPPFLAGS = $(AM_CPPFLAGS) $(PROTO_CPPFLAGS)
proto_libbwproto_la_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS)
proto_libbwproto_la_LIBADD = $(MSGPACK_LIBS)

# unit tests of the reader, validators and framing
check_PROGRAMS += tests/daemon/test_proto
TESTS += tests/daemon/test_proto
tests_daemon_test_proto_SOURCES = tests/daemon/test_proto.c \
	tests/daemon/jmp.c tests/daemon/jmp.h daemon/validate.c daemon/validate.h
tests_daemon_test_proto_CPPFLAGS = $(AM_CPPFLAGS) $(PROTO_TESTS_CPPFLAGS)
tests_daemon_test_proto_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS)
tests_daemon_test_proto_LDADD = proto/libbwproto.la $(MSGPACK_LIBS)

# the msgpack decoder against msgpack-c's
check_PROGRAMS += tests/daemon/test_mpdec
TESTS += tests/daemon/test_mpdec
tests_daemon_test_mpdec_SOURCES = tests/daemon/test_mpdec.c \
	fuzz/mpdiff.c fuzz/mpdiff.h
tests_daemon_test_mpdec_CPPFLAGS = $(AM_CPPFLAGS) $(PROTO_CPPFLAGS) -I$(top_srcdir)/fuzz
tests_daemon_test_mpdec_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS)
tests_daemon_test_mpdec_LDADD = proto/libbwproto.la $(MSGPACK_LIBS) -lm

# fuzz target: the daemon's decode + validate path, and the msgpack
# decoder against msgpack-c's on every input
FUZZ_PROGS += fuzz/fuzz_msg
check_PROGRAMS += fuzz/fuzz_msg
fuzz_fuzz_msg_SOURCES = fuzz/fuzz_msg.c daemon/validate.c daemon/validate.h \
	fuzz/mpdiff.c fuzz/mpdiff.h
fuzz_fuzz_msg_CPPFLAGS = $(AM_CPPFLAGS) $(PROTO_TESTS_CPPFLAGS)
fuzz_fuzz_msg_LDADD = proto/libbwproto.la lib/libbwutil.la $(MSGPACK_LIBS)
fuzz_fuzz_msg_SOURCES += $(FUZZ_DRIVER)
fuzz_fuzz_msg_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS) $(FUZZ_COMPILE)
fuzz_fuzz_msg_LDFLAGS = $(FUZZ_LINK)
EXTRA_DIST += fuzz/corpus/fuzz_msg
