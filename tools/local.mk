# tools: bwanalyze.  tools/profiling.mk and tools/sim.mk add to it.
bin_PROGRAMS += tools/bwanalyze
tools_bwanalyze_SOURCES = tools/bwanalyze.c tools/bwanalyze.h \
	tools/an_model.c tools/an_profiling.c
tools_bwanalyze_LDADD = model/libbwmodel.la lib/libbwutil.la $(LIBM)
