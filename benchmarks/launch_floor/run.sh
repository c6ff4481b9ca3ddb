#!/usr/bin/env bash
# Where does a launch's time go, on a GPU machine? (run from the repository root; cudajit installed or on PYTHONPATH)
#   launch.cu : the driver's launch paths in a C++ process (legacy, per-thread and created streams, kernelParams or
#               the "extra" buffer, cuLaunchKernelEx, the runtime's <<<>>>), 3 rounds of medians of 5 x 20000
#   inproc.py : in one Python process with cudajit loaded, a C loop of cuLaunchKernel (libloop.so), one launch per
#               ctypes call, and cudajit's k[1, 32]() and k[1, 32](a, b, c), round by round
set -eu
d=benchmarks/launch_floor
nvcc -O2 -arch=sm_90 $d/launch.cu -lcuda -o /tmp/launchprobe && /tmp/launchprobe
nvcc -cubin -arch=sm_90 $d/empty.cu -o /tmp/empty.cubin
g++ -O2 -shared -fPIC $d/loop.cpp -I/usr/local/cuda/include -L/usr/local/cuda/lib64/stubs -lcuda -o /tmp/libloop.so
python3 $d/inproc.py
g++ -O2 -shared -fPIC $d/loop_processes.cpp -I/usr/local/cuda/include -L/usr/local/cuda/lib64/stubs -lcuda -o /tmp/libloop2.so
g++ -O2 -DMAIN $d/loop_processes.cpp -I/usr/local/cuda/include -L/usr/local/cuda/lib64/stubs -lcuda -o /tmp/loop2
for pass in 1 2; do
  /tmp/loop2 /tmp/empty.cubin
  for mode in bare numpy cudajit; do python3 $d/processes.py $mode; done
done
