# tests: rules for this part (see Makefile.am)
EXTRA_DIST += tests/check.h

# the build itself: --enable-debug's flags, the daemon's layering
TESTS += tests/build/debugflags.sh tests/build/layering.sh
dist_check_SCRIPTS += tests/build/debugflags.sh tests/build/layering.sh
