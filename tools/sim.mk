# tools/sim.mk: bwsim
