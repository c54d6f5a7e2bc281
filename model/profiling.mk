# model/profiling.mk: K-S, EVT, clustering, traces (issue 7)
