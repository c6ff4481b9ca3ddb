"""saxpy 2^26 float32 on the GPU, plain and with numba-cuda's streaming cache hints (cuda.ldcs / cuda.stcs): GB/s by
the issue's method (one launch between two events) / the kernel's own time (each timed launch queued behind one).

    python3 benchmarks/saxpy_hints.py        # on a GPU machine, from the repository root
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cudajit import cuda  # noqa: E402
from bench_common import event_ms  # noqa: E402
import seeds_kernels  # noqa: E402

K = seeds_kernels.load("cudajit")


@cuda.jit
def saxpy_cs(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        cuda.stcs(out, i, a * cuda.ldcs(x, i) + cuda.ldcs(y, i))


@cuda.jit
def saxpy_st(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        cuda.stcs(out, i, a * x[i] + y[i])


n = 1 << 26
rng = np.random.default_rng(0)
x, y = (cuda.to_device(rng.random(n, dtype=np.float32)) for _ in range(2))
o = cuda.device_array(n, np.float32)
g = (n + 255) // 256
f = np.float32(2.5)
for rep in range(3):
    row = []
    for name, k in (("plain", K.saxpy), ("ldcs+stcs", saxpy_cs), ("stcs only", saxpy_st)):
        t1 = event_ms(cuda.event, cuda.event_elapsed_time, cuda.synchronize, lambda: k[g, 256](f, x, y, o), 50)
        t2 = event_ms(cuda.event, cuda.event_elapsed_time, cuda.synchronize, lambda: k[g, 256](f, x, y, o), 50, True)
        row.append(f"{name}: {12 * n / t1 / 1e6:.0f} / {12 * n / t2 / 1e6:.0f}")
    print(rep, " | ".join(row), flush=True)
xh, yh = x.copy_to_host(), y.copy_to_host()
print("equal to NumPy (within the fused multiply-add's rounding):",
      np.allclose(o.copy_to_host(), 2.5 * xh.astype(np.float64) + yh, rtol=1e-6, atol=1e-6))
