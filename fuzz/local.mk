# fuzz: the shared driver.  Each part declares its own targets in its
# local.mk, like this (proto's message decoder as the example):
#
#   FUZZ_PROGS += fuzz/fuzz_msg
#   check_PROGRAMS += fuzz/fuzz_msg
#   fuzz_fuzz_msg_SOURCES = fuzz/fuzz_msg.c $(FUZZ_DRIVER)
#   fuzz_fuzz_msg_LDADD = proto/libbwproto.la lib/libbwutil.la $(MSGPACK_LIBS)
#   fuzz_fuzz_msg_CFLAGS = $(AM_CFLAGS) $(FUZZ_COMPILE)
#   fuzz_fuzz_msg_LDFLAGS = $(FUZZ_LINK)
#
# (Makefile.am defines the FUZZ_ variables: libFuzzer with
# --enable-fuzzing, else the driver, and the target runs as a test)
# with seed inputs in fuzz/corpus/fuzz_msg/ (add them to EXTRA_DIST).
EXTRA_DIST += fuzz/driver.c fuzz/driver.h
