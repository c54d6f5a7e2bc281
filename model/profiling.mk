# model/profiling.mk: K-S, EVT, clustering (issue 7).  Pure code in
# libbwmodel; the trace reader lives in tools/ (it does I/O).
model_libbwmodel_la_SOURCES += model/stats.c model/stats.h \
	model/kstest.c model/kstest.h model/evt.c model/evt.h \
	model/cluster.c model/cluster.h
