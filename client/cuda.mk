# client/cuda.mk: CUDA instrumentation (issue 6)
