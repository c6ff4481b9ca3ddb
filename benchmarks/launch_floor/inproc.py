"""In one Python process with cudajit loaded: cuLaunchKernel in a C loop (/tmp/libloop.so, built by run.sh), one
cuLaunchKernel per ctypes call, and cudajit's launches, round by round (µs per launch, medians of 5 x 20000)."""
import ctypes
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cudajit import cuda  # noqa: E402
import seeds_kernels  # noqa: E402

lib = ctypes.CDLL("/tmp/libloop.so")
lib.loop.restype = ctypes.c_double
K = seeds_kernels.load("cudajit")
a, b, c = (cuda.to_device(np.random.rand(1024).astype(np.float32)) for _ in range(3))
K.empty0[1, 32]()
K.empty3[1, 32](a, b, c)
cuda.synchronize()
assert lib.init(b"/tmp/empty.cubin") == 0        # loads the cubin into the context cudajit made current


def per(fn, n=20000):
    ts = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        cuda.synchronize()
        ts.append((time.perf_counter() - t0) / n * 1e6)
    return statistics.median(ts)


l0, l3 = K.empty0[1, 32], K.empty3[1, 32]
for r in range(3):
    row = {"C loop f0": statistics.median(lib.loop(0, 20000) for _ in range(5)),
           "C loop f3": statistics.median(lib.loop(1, 20000) for _ in range(5)),
           "ctypes one(0) per call": per(lambda: lib.one(0)),
           "k[1,32]()": per(lambda: K.empty0[1, 32]()), "k[1,32](a,b,c)": per(lambda: K.empty3[1, 32](a, b, c)),
           "l0()": per(lambda: l0()), "l3(a,b,c)": per(lambda: l3(a, b, c)),
           "C loop f0 after": statistics.median(lib.loop(0, 20000) for _ in range(5))}
    print(r, " ".join(f"{k}={v:.3f}" for k, v in row.items()), flush=True)
