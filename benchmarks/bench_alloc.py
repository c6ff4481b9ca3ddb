"""Allocation benchmark on the GPU, side by side with numba-cuda and CuPy in one run.

Microseconds per 4 KiB device array created and dropped in a loop (the block goes back before the next one is
made, so a caching allocator reuses it): ``cuda.device_array(1024, np.float32)`` against numba-cuda's and
``cp.empty(1024, cp.float32)``, plus cudajit's ``device_array_like`` and ``to_device`` of a 4 KiB NumPy array.
Each value is the median of rounds (bench_common.per_launch). Prints one JSON object per line, then a table.

Run on the device:  python3 benchmarks/bench_alloc.py
"""
import os
import sys

import numpy as np

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack  # numba-cuda 0.30.4 still names it; NumPy 2.5 removed it

from cudajit import cuda

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import emit, per_launch, rows  # noqa: E402

N = 1024
host = np.zeros(N, np.float32)


def measure(what, lib, make, sync):
    make()
    emit(what=what, lib=lib, us=per_launch(make, sync, n=20000, reps=7))


def measure_numba_api(lib, api):
    """The three rows for a library with numba.cuda's API (cudajit.cuda, numba.cuda)."""
    measure("alloc_4KiB_us", lib, lambda: api.device_array(N, np.float32), api.synchronize)
    measure("alloc_like_4KiB_us", lib, lambda: api.device_array_like(host), api.synchronize)
    measure("to_device_4KiB_us", lib, lambda: api.to_device(host), api.synchronize)


measure_numba_api("cudajit", cuda)
try:
    from numba import cuda as ncuda
except ImportError as e:
    emit(what="alloc_4KiB_us", lib="numba-cuda", missing=str(e))
else:
    measure_numba_api("numba-cuda", ncuda)

try:
    import cupy as cp
except ImportError as e:
    emit(what="alloc_4KiB_us", lib="CuPy", missing=str(e))
else:
    measure("alloc_4KiB_us", "CuPy", lambda: cp.empty(N, cp.float32), cp.cuda.Device().synchronize)
    measure("to_device_4KiB_us", "CuPy", lambda: cp.asarray(host), cp.cuda.Device().synchronize)

print("\n| what | lib | µs |\n| --- | --- | --- |")
for r in rows:
    print(f"| {r['what']} | {r['lib']} | {r['us']:.2f} |" if "us" in r else f"| {r['what']} | {r['lib']} | {r} |")
