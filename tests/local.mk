# tests: rules for this part (see Makefile.am)
EXTRA_DIST += tests/check.h

# the build itself: --enable-debug's flags
TESTS += tests/build/debugflags.sh
dist_check_SCRIPTS += tests/build/debugflags.sh
