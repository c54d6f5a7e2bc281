# kmod: the bwreg kernel module (kmod/Kbuild does the real build), its
# qemu test and the host-side test of the daemon's kmod backend.
#
#   make kmod        build bwreg.ko in $(builddir)/kmod-build against
#                    $(KDIR), default the running kernel's build tree,
#                    else the newest installed Debian headers
#   make check-kmod  boot Debian's kernel under qemu with the module
#                    (tests/kmod/run.sh); a skip prints SKIP, exits 0 and
#                    leaves SKIP in tests/kmod/check-kmod.result, which
#                    scripts/check reports as a skip, not a pass

KMOD_SRC = kmod/Kbuild kmod/bwreg.h kmod/bwreg_main.c kmod/bwreg_core.c \
	kmod/bwreg_plan.c kmod/bwreg_lock.c \
	kmod/bwreg_tfs.c
EXTRA_DIST += $(KMOD_SRC) kmod/Makefile kmod/dkms.conf kmod/uapi/bwreg.h \
	tests/kmod/run.sh tests/kmod/init.sh tests/kmod/bwtest.c \
	tests/kmod/e2e.sh
dist_doc_DATA += doc/kmod.md
noinst_HEADERS += kmod/uapi/bwreg.h

kmod:
	@kdir='$(KDIR)'; \
	if test -z "$$kdir"; then \
		kdir=/lib/modules/`uname -r`/build; \
		test -d "$$kdir" || kdir=`ls -d /usr/src/linux-headers-*-amd64 \
			/usr/src/linux-headers-*-arm64 2>/dev/null | sort -V | tail -1`; \
	fi; \
	if test -z "$$kdir" || test ! -d "$$kdir"; then \
		echo "kmod: no kernel build tree (set KDIR, or install linux-headers-amd64)" >&2; \
		exit 1; \
	fi; \
	rm -rf kmod-build && mkdir -p kmod-build/uapi && \
	for f in $(KMOD_SRC); do \
		cp $(srcdir)/$$f kmod-build/ || exit 1; \
	done && \
	cp $(srcdir)/kmod/uapi/bwreg.h kmod-build/uapi/ && \
	chmod -R u+w kmod-build && \
	echo "kmod: building bwreg.ko against $$kdir" && \
	$(MAKE) -C "$$kdir" M="`cd kmod-build && pwd`" modules

check-kmod: daemon/bwsched tests/kmod/lockhold
	@top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	QEMU='$(QEMU)' CC='$(CC)' $(SHELL) $(srcdir)/tests/kmod/run.sh; \
	rc=$$?; test $$rc -ne 77 || \
		echo "check-kmod: SKIPPED, not passed (tests/kmod/check-kmod.result)"; \
	test $$rc -eq 0 || test $$rc -eq 77

clean-local-kmod:
	rm -rf kmod-build tests/kmod/work tests/kmod/check-kmod.result \
		tests/kmod/results.txt

.PHONY: kmod check-kmod clean-local-kmod

# The daemon's kmod backend, tested on the host (validation, missing
# device); inside the guest run.sh runs it against the real module.
check_PROGRAMS += tests/kmod/regtest
TESTS += tests/kmod/regtest tests/kmod/perfapi.sh
dist_check_SCRIPTS += tests/kmod/perfapi.sh
tests_kmod_regtest_SOURCES = tests/kmod/regtest.c tests/kmod/vmcheck.h \
	daemon/reg_kmod.c daemon/reg_kmod.h \
	daemon/regulator.h
tests_kmod_regtest_CPPFLAGS = $(AM_CPPFLAGS)
tests_kmod_regtest_LDADD = -lm

# A lock-holding client for the daemon end to end in the guest.
check_PROGRAMS += tests/kmod/lockhold
tests_kmod_lockhold_SOURCES = tests/kmod/lockhold.c tests/daemon/tc.c \
	tests/daemon/tc.h
tests_kmod_lockhold_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS) \
	-I$(top_srcdir)/tests/daemon
tests_kmod_lockhold_LDADD = proto/libbwproto.la $(MSGPACK_LIBS)
