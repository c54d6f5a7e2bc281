# model: pure algorithms, no I/O.
noinst_LTLIBRARIES += model/libbwmodel.la
model_libbwmodel_la_SOURCES = model/wcet.h model/budget.h model/progress.h \
	model/profile.h model/wcet.c model/budget.c model/progress.c \
	model/profile.c model/tfs.c model/tfs.h model/rta.c model/rta.h
