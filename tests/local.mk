# tests: rules for this part (see Makefile.am)
EXTRA_DIST += tests/check.h
