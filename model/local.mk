# model: pure algorithms, no I/O.
noinst_LTLIBRARIES += model/libbwmodel.la
model_libbwmodel_la_SOURCES = model/wcet.h model/budget.h model/progress.h \
	model/profile.h
