# fuzz: the shared driver.  Each part declares its own targets in its
# local.mk, like this (proto's message decoder as the example):
#
#   FUZZ_PROGS += fuzz/fuzz_msg
#   check_PROGRAMS += fuzz/fuzz_msg
#   fuzz_fuzz_msg_SOURCES = fuzz/fuzz_msg.c
#   fuzz_fuzz_msg_LDADD = proto/libbwproto.la lib/libbwutil.la $(MSGPACK_LIBS)
#   if ENABLE_FUZZING
#   fuzz_fuzz_msg_CFLAGS = $(AM_CFLAGS) $(FUZZ_CFLAGS)
#   fuzz_fuzz_msg_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_CFLAGS)
#   else
#   fuzz_fuzz_msg_CFLAGS = $(AM_CFLAGS)
#   fuzz_fuzz_msg_LDFLAGS = $(AM_LDFLAGS)
#   fuzz_fuzz_msg_SOURCES += fuzz/driver.c fuzz/driver.h
#   TESTS += fuzz/fuzz_msg
#   endif
#
# with seed inputs in fuzz/corpus/fuzz_msg/ (add them to EXTRA_DIST).
EXTRA_DIST += fuzz/driver.c fuzz/driver.h
