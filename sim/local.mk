# sim: the simulated platform (doc/design.md section 5, doc/sim.md) and the
# experiments bwsim runs on it; the daemon's sim backend links it too.
noinst_LTLIBRARIES += sim/libbwsim.la
sim_libbwsim_la_SOURCES = sim/sim.c sim/sim.h sim/exp.c sim/exp.h
sim_libbwsim_la_LIBADD = model/libbwmodel.la $(LIBM)

# The per-period decision is part of the model library (pure).
model_libbwmodel_la_SOURCES += model/decide.c model/decide.h
