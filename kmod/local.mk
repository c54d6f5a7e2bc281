# kmod: the bwreg kernel module (kmod/Kbuild does the real build), its
# qemu test and the host-side test of the daemon's kmod backend.
#
#   make kmod        build bwreg.ko in $(builddir)/kmod-build against
#                    $(KDIR), default the running kernel's build tree,
#                    else the newest installed Debian headers
#   make kmod ARCH=arm64   cross-build it (CROSS_COMPILE default
#                    aarch64-linux-gnu-) against $(KDIR), default Debian
#                    12's arm64 headers fetched into the cache
#   make check-kmod  the kernel matrix: boot each of $(KMOD_KERNELS) under
#                    qemu with the module (tests/kmod/matrix.sh, run.sh);
#                    a kernel that cannot be fetched is a SKIP row
#   make check-kmod-arm64  the same on Debian 12's arm64 kernels with the
#                    hardware PMU, and the cross-built daemon end to end
#   make cross-arm64 the daemon and test client for aarch64 (cross-arm64/)
#                    (a row that is skipped says SKIP and why, and the
#                    matrix writes tests/kmod/check-kmod.result, which
#                    scripts/check reports as a skip, not a pass)

KMOD_SRC = kmod/Kbuild kmod/bwreg.h kmod/bwreg_main.c kmod/bwreg_core.c \
	kmod/bwreg_plan.c kmod/bwreg_lock.c \
	kmod/bwreg_tfs.c
EXTRA_DIST += $(KMOD_SRC) kmod/Makefile kmod/dkms.conf kmod/uapi/bwreg.h \
	kmod/bwreg-modules-load.conf \
	tests/kmod/run.sh tests/kmod/init.sh tests/kmod/bwtest.c \
	tests/kmod/e2e.sh tests/kmod/kernels.sh tests/kmod/matrix.sh \
	tests/kmod/cross.sh tests/kmod/thrlat.c
dist_doc_DATA += doc/kmod.md
noinst_HEADERS += kmod/uapi/bwreg.h

KMOD_KERNELS = amd64-6.1 amd64-6.12 amd64-6.12-rt
KMOD_KERNELS_ARM64 = arm64-6.1 arm64-6.1-rt

# ARCH=arm64 without KDIR builds in the cached arm64 chroot (Debian 12's
# cross compiler and arm64 headers, tests/kmod/kernels.sh).
kmod:
	@kdir='$(KDIR)'; kargs=; chr=; \
	if test "$(ARCH)" = arm64 && test "`uname -m`" != aarch64; then \
		kargs="CROSS_COMPILE=$${CROSS_COMPILE:-aarch64-linux-gnu-}"; \
		if test -z "$$kdir"; then \
			out=`$(SHELL) $(srcdir)/tests/kmod/kernels.sh arm64-6.1` || \
				{ echo "kmod: $$out" >&2; exit 1; }; \
			eval "$$out"; kdir=$$KDIR; chr=$$KCHROOT; \
		fi; \
	fi; \
	if test -z "$$kdir"; then \
		kdir=/lib/modules/`uname -r`/build; \
		test -d "$$kdir" || kdir=`ls -d /usr/src/linux-headers-*-amd64 \
			/usr/src/linux-headers-*-arm64 2>/dev/null | sort -V | tail -1`; \
	fi; \
	if test -z "$$kdir" || test ! -d "$$chr$$kdir"; then \
		echo "kmod: no kernel build tree (set KDIR, or install linux-headers-amd64)" >&2; \
		exit 1; \
	fi; \
	rm -rf kmod-build && mkdir -p kmod-build/uapi && \
	for f in $(KMOD_SRC); do \
		cp $(srcdir)/$$f kmod-build/ || exit 1; \
	done && \
	cp $(srcdir)/kmod/uapi/bwreg.h kmod-build/uapi/ && \
	chmod -R u+w kmod-build && \
	echo "kmod: building bwreg.ko against $$chr$$kdir" && \
	if test -n "$$chr"; then \
		t=/tmp/bwreg-kmod-$$$$; rm -rf "$$chr$$t" && \
		cp -r kmod-build "$$chr$$t" && \
		chroot "$$chr" env -u MAKEFLAGS -u MFLAGS make -C "$$kdir" \
			M="$$t" ARCH=arm64 $$kargs modules && \
		cp "$$chr$$t"/bwreg.ko kmod-build/; \
		rc=$$?; rm -rf "$$chr$$t"; exit $$rc; \
	fi; \
	$(MAKE) -C "$$kdir" M="`cd kmod-build && pwd`" $$kargs modules

check-kmod: daemon/bwsched tests/kmod/lockhold
	@top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	QEMU='$(QEMU)' CC='$(CC)' $(SHELL) $(srcdir)/tests/kmod/matrix.sh \
		$(KMOD_KERNELS)

# The arm64 userspace is optional for the module checks: without it the
# rows run and report the daemon end to end as skipped.
check-kmod-arm64:
	@$(MAKE) $(AM_MAKEFLAGS) cross-arm64 || \
		echo "check-kmod-arm64: no arm64 daemon: the end to end is skipped"
	@top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	ARM64_BUILD='$(abs_top_builddir)/cross-arm64' \
	KMOD_RESULT=check-kmod-arm64.result \
	$(SHELL) $(srcdir)/tests/kmod/matrix.sh $(KMOD_KERNELS_ARM64)

cross-arm64:
	@$(SHELL) $(srcdir)/tests/kmod/cross.sh '$(abs_top_builddir)/cross-arm64'

clean-local-kmod:
	rm -rf kmod-build tests/kmod/work-* tests/kmod/row-* cross-arm64 \
		tests/kmod/check-kmod*.result tests/kmod/results-*.txt

.PHONY: kmod check-kmod check-kmod-arm64 cross-arm64 clean-local-kmod

# The daemon's kmod backend, tested on the host (validation, missing
# device); inside the guest run.sh runs it against the real module.
# Its tests see what they test: the backend (daemon/), the module's uapi,
# and the test client's helpers (tests/daemon/tc.h, which sees proto/).
KMOD_TESTS_CPPFLAGS = -I$(top_srcdir)/daemon -I$(top_srcdir)/kmod/uapi \
	-I$(top_srcdir)/tests/daemon -I$(top_srcdir)/proto
check_PROGRAMS += tests/kmod/regtest
TESTS += tests/kmod/regtest tests/kmod/perfapi.sh
dist_check_SCRIPTS += tests/kmod/perfapi.sh
tests_kmod_regtest_SOURCES = tests/kmod/regtest.c tests/kmod/vmcheck.h \
	daemon/reg_kmod.c daemon/reg_kmod.h \
	daemon/regulator.h
tests_kmod_regtest_CPPFLAGS = $(AM_CPPFLAGS) $(KMOD_TESTS_CPPFLAGS)
tests_kmod_regtest_LDADD = -lm

# A lock-holding client for the daemon end to end in the guest.
check_PROGRAMS += tests/kmod/lockhold
tests_kmod_lockhold_SOURCES = tests/kmod/lockhold.c tests/daemon/tc.c \
	tests/daemon/tc.h
tests_kmod_lockhold_CPPFLAGS = $(AM_CPPFLAGS) $(KMOD_TESTS_CPPFLAGS)
tests_kmod_lockhold_CFLAGS = $(AM_CFLAGS) $(MSGPACK_CFLAGS)
tests_kmod_lockhold_LDADD = proto/libbwproto.la $(MSGPACK_LIBS)
