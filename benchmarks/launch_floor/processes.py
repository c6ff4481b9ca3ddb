"""Is cuLaunchKernel slower in a Python process, or next to cudajit? One C loop of launches of an empty kernel
(/tmp/libloop2.so, built by run.sh from loop_processes.cpp; µs per launch, median of 5 x 20000), called through ctypes
in a process that has: nothing else imported (``bare``), NumPy (``numpy``), or cudajit with its context current and
its own ``k[1, 32]()`` timed the same way (``cudajit``). Three rounds each."""
import ctypes
import statistics
import sys
import time

lib = ctypes.CDLL("/tmp/libloop2.so")
lib.loop.restype = ctypes.c_double
mode = sys.argv[1]
own_launch = None
if mode in ("numpy", "cudajit"):
    import numpy as np  # noqa: F401
if mode == "cudajit":
    from cudajit import cuda

    @cuda.jit
    def empty():
        pass

    empty[1, 32]()
    cuda.synchronize()

    def own_launch(n=20000):
        ts = []
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(n):
                empty[1, 32]()
            cuda.synchronize()
            ts.append((time.perf_counter() - t0) / n * 1e6)
        return statistics.median(ts)
assert lib.init(b"/tmp/empty.cubin", 0 if mode == "cudajit" else 1) == 0  # 1: make the primary context current
for r in range(3):
    extra = f" k[1,32]() {own_launch():.3f} us" if own_launch else ""
    print(f"{mode} round {r} C loop {lib.loop(20000):.3f} us{extra}", flush=True)
