task t1 period=10 cpu=1

task t2 period=20 cpu=2 gpu_exec=four
