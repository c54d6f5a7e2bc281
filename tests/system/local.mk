# tests/system: the Debian packages (debian/, scripts/package) and the
# system test that installs them in a Debian 12 machine with systemd as
# PID 1 under qemu (tests/system/run.sh; doc/system-test.md).
#
#   make check-system   build the packages, boot the machine, run the
#                       operator steps; needs root, exits 0 when skipped

check-system: examples/demo_gpu$(EXEEXT)
	@top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	QEMU='$(QEMU)' $(SHELL) $(srcdir)/tests/system/run.sh; \
	rc=$$?; test $$rc -eq 0 || test $$rc -eq 77

clean-local-system:
	rm -rf packages tests/system/work tests/system/transcript.txt \
		tests/system-package.log

.PHONY: check-system clean-local-system

EXTRA_DIST += tests/system/run.sh tests/system/mkimage.sh \
	tests/system/guest.sh tests/system/systest.service \
	tests/system/holdlock.c scripts/package \
	debian/changelog debian/control debian/copyright debian/rules \
	debian/source/format debian/not-installed debian/bwreg-dkms.dkms \
	debian/bwsched.install debian/libbwclient0.install \
	debian/libbwclient-dev.install debian/bwsched-tools.install \
	debian/bwsched-cuda.install debian/bwsched.docs \
	debian/bwsched-tools.docs debian/bwsched-cuda.docs \
	debian/bwreg-dkms.docs
dist_doc_DATA += doc/system-test.md
