"""cudajit's own host path per call, without a GPU: launches and cuda.reduce against a null libcuda
(tools/null_libcuda: device memory is host memory, a launch does nothing), so that only cudajit's work is timed.

    python3 benchmarks/host_path.py            # builds the null driver with g++, then runs itself under it

Medians of 7 rounds of 200,000 calls (reduce: 20,000), in ns; "a Python call" is an empty function's, the loop's own
cost. Kernels compile with NVRTC as on a GPU (for sm_90), so NVRTC must be installed. Never a test of results.
"""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def build(out_dir):
    src = os.path.join(ROOT, "tools", "null_libcuda")
    lib = os.path.join(out_dir, "libcuda.so.1")
    subprocess.run(["g++", "-O2", "-fPIC", "-shared", "-o", lib, os.path.join(src, "null_libcuda.cpp"),
                    os.path.join(src, "defaults.cpp"), "-Wl,-soname,libcuda.so.1"], check=True)
    return out_dir


def ns(fn, n, reps=7):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn()
        ts.append((time.perf_counter_ns() - t0) / n)
    return sorted(ts)[reps // 2]


def measure():
    import numpy as np
    sys.path.insert(0, HERE)
    from cudajit import cuda
    import seeds_kernels
    if cuda.get_current_device().name != b"Null GPU":     # Numba gives the name as bytes
        sys.exit("host_path.py: the null driver was not loaded (run this script directly)")
    K = seeds_kernels.load("cudajit")
    rng = np.random.default_rng(0)
    a, b, c = (cuda.to_device(rng.random(1024, dtype=np.float32)) for _ in range(3))
    e3, e0 = K.empty3, K.empty0
    e3[1, 32](a, b, c)
    e0[1, 32]()
    l3 = e3[1, 32]

    def nothing():
        pass

    import enum

    class Mode(enum.IntEnum):
        FAST = 3

    @cuda.jit
    def scaled(a, n=2):
        a[0] = n
    scaled[1, 32](a, 5)
    scaled[1, 32](a, Mode.FAST)
    scaled[1, 32](a)
    red = cuda.reduce(lambda x, y: x + y)
    dx = cuda.to_device(rng.standard_normal(1 << 20).astype(np.float32))
    red(dx)
    s = cuda.stream()
    e3[1, 32, s](a, b, c)
    ls3 = e3[1, 32, s]
    rows = [("a Python call", lambda: nothing(), 200_000),
            ("k[1, 32](a, b, c)", lambda: e3[1, 32](a, b, c), 200_000),
            ("k[1, 32]()", lambda: e0[1, 32](), 200_000),
            ("k[1, 32](a, 5)", lambda: scaled[1, 32](a, 5), 200_000),
            ("k[1, 32](a, Mode.FAST), an IntEnum member", lambda: scaled[1, 32](a, Mode.FAST), 200_000),
            ("k[1, 32](a), n=2 left out", lambda: scaled[1, 32](a), 200_000),
            ("l(a, b, c), l = k[1, 32]", lambda: l3(a, b, c), 200_000),
            ("k[1, 32]", lambda: e3[1, 32], 200_000),
            ("k[1, 32, s](a, b, c), s = cuda.stream()", lambda: e3[1, 32, s](a, b, c), 200_000),
            ("k[1, 32, s]", lambda: e3[1, 32, s], 200_000),
            ("k[(1, 1), (32, 1)]", lambda: e3[(1, 1), (32, 1)], 200_000),
            ("k[1, 32, 0, 256]", lambda: e3[1, 32, 0, 256], 200_000),
            ("ls(a, b, c), ls = k[1, 32, s]", lambda: ls3(a, b, c), 200_000),
            ("cuda.reduce, 2^20 float32 on the device", lambda: red(dx), 20_000)]
    for name, fn, n in rows:
        print(f"{name:42s} {ns(fn, n):8.0f} ns")


if __name__ == "__main__":
    if os.environ.get("CUDAJIT_NULL_DRIVER") != "1":
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            env = dict(os.environ, CUDAJIT_NULL_DRIVER="1", OPENBLAS_NUM_THREADS="1",
                       LD_LIBRARY_PATH=os.pathsep.join([build(d), os.environ.get("LD_LIBRARY_PATH", "")]))
            sys.exit(subprocess.run([sys.executable, __file__], env=env).returncode)
    measure()
