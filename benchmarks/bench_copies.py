"""Pageable host memory to and from the device (src/staging.cpp) against numba-cuda, which calls the driver's
pageable copies: 1 GiB host->device and device->host (GB/s), a launch with three NumPy 4 KB arrays copied in and
back (us), and cuda.reduce of 2^27 float32 given as a NumPy array (ms). Wall-clock medians; every copy is
synchronous (stream 0), as a user calls it. JSON rows (bench_common.emit).

Run on the device:  python3 benchmarks/bench_copies.py
"""
import os
import sys
import time

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack  # numba-cuda 0.30.4 still names it; NumPy 2.5 removed it

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from numba import cuda as ncuda  # noqa: E402

from cudajit import _core, cuda  # noqa: E402

from bench_common import emit, med, seconds  # noqa: E402

GIB = 1 << 30


def bandwidth_rows(reps=7):
    host = np.random.default_rng(1).integers(0, 256, GIB, dtype=np.uint8)
    for name, lib in (("cudajit", cuda), ("numba_cuda", ncuda)):
        dev = lib.to_device(host)
        into = np.empty_like(host)
        # the host array copy_to_host makes is new memory each time, as a user's would be
        fresh = seconds(lambda: dev.copy_to_host(), reps)
        emit(what="1 GiB pageable", lib=name,
             htod_GBps=GIB / seconds(lambda: dev.copy_to_device(host), reps) / 1e9,
             dtoh_into_GBps=GIB / seconds(lambda: dev.copy_to_host(into), reps) / 1e9,
             dtoh_new_GBps=GIB / fresh / 1e9)
        assert np.array_equal(dev.copy_to_host(), host)
        del dev


def numpy_argument_rows(reps=15, n=1000):
    rng = np.random.default_rng(2)
    a, b, c = (rng.standard_normal(n).astype(np.float32) for _ in range(3))   # 4 KB each

    def body(x, y, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = x[i] + y[i]

    for name, lib in (("cudajit", cuda), ("numba_cuda", ncuda)):
        k = lib.jit(body)
        k[4, 256](a, b, c)
        assert np.array_equal(c, a + b)
        per = []
        for _ in range(reps):
            t0 = time.perf_counter()
            for _ in range(200):
                k[4, 256](a, b, c)
            per.append((time.perf_counter() - t0) / 200)
        emit(what="launch, 3 NumPy 4 KB arrays copied in and back", lib=name, us=med(per) * 1e6)


def reduce_rows(reps=7):
    host = np.random.default_rng(3).standard_normal(1 << 27).astype(np.float32)

    def add(x, y):
        return x + y

    for name, lib in (("cudajit", cuda), ("numba_cuda", ncuda)):
        red = lib.reduce(add)
        emit(what="reduce sum 2^27 float32 from NumPy", lib=name, ms=seconds(lambda: red(host), reps) * 1e3)


if __name__ == "__main__":
    bandwidth_rows()
    numpy_argument_rows()
    reduce_rows()
    staged, direct = _core.staging_counts()
    emit(what="cudajit copies", staged=staged, direct=direct)
