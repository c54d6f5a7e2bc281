# bwsched taskset: one task per line, highest priority first; times in ns
task t1 period=10 cpu=1 gpu_mem=1 gpu_exec=2
task t2 period=20 cpu=2 gpu_exec=4
task t3 period=50 cpu=5 gpu_exec=5
