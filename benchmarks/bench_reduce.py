"""cuda.reduce in numba-cuda's fold order: time against numba-cuda's reduce and cp.sum (CUDA events, medians),
for several pass-1 batch depths (loads in flight per thread), and the bits against numba-cuda's result.

Run on the device:  python3 benchmarks/bench_reduce.py
"""
import os
import sys

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack  # numba-cuda 0.30.4 still names it; NumPy 2.5 removed it

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cupy as cp  # noqa: E402
from numba import cuda as ncuda  # noqa: E402

from cudajit import cuda  # noqa: E402
from cudajit.cuda import reduction  # noqa: E402

from bench_common import emit, med  # noqa: E402


def gpu_ms(fn, reps=20):
    s, e = cuda.event(), cuda.event()
    fn()
    cuda.synchronize()
    ts = []
    for _ in range(reps):
        s.record()
        fn()
        e.record()
        e.synchronize()
        ts.append(cuda.event_elapsed_time(s, e))
    return med(ts)


def add(a, b):
    return a + b


rng = np.random.default_rng(7)
nsum = ncuda.reduce(add)
for N in (1 << 20, 1 << 27):
    A = rng.standard_normal(N).astype(np.float32)
    dA, nA, cA = cuda.to_device(A), ncuda.to_device(A), cp.asarray(A)
    want = nsum(nA)
    row = {"N": N, "numba_cuda_ms": gpu_ms(lambda: nsum(nA)), "cupy_sum_ms": gpu_ms(lambda: cp.sum(cA))}
    for batch in (16, 32, 64):
        reduction._BATCH = batch
        red = cuda.reduce(add)
        got = red(dA)
        row[f"cudajit_b{batch}_ms"] = gpu_ms(lambda: red(dA))
        row[f"b{batch}_same_bits"] = np.float32(got).tobytes() == np.float32(want).tobytes()
    emit(what="reduce_sum", **row)
