"""The seeds' kernels (and the few more the benchmarks time), written once and compiled by both cudajit and numba-cuda in the benchmarks.

``load("cudajit")`` / ``load("numba")`` executes this file as a fresh module whose ``cuda`` is that
library's (kernels must see ``cuda`` as a module global: Numba's simulator swaps it there).
"""
import importlib.util
import os

LIB = globals().get("LIB", "cudajit")
if LIB == "numba":
    from numba import cuda, float32
else:
    from cudajit import cuda, float32

TPB = 16
BLOCK = 256


def load(lib):
    spec = importlib.util.spec_from_file_location(f"seeds_kernels_{lib}", os.path.abspath(__file__))
    mod = importlib.util.module_from_spec(spec)
    mod.LIB = lib
    spec.loader.exec_module(mod)
    return mod


@cuda.jit
def add(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]

@cuda.jit
def naive_mm(A, B, C):
    row, col = cuda.grid(2)
    if row < C.shape[0] and col < C.shape[1]:
        tmp = float32(0.)
        for k in range(A.shape[1]):
            tmp += A[row, k] * B[k, col]
        C[row, col] = tmp

@cuda.jit
def tiled_mm(A, B, C):
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x
    tmp = float32(0.)
    for i in range(bpg):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp

@cuda.jit
def empty3(a, b, c):
    pass


@cuda.jit
def empty0():
    pass


# bench_table.py's rows: saxpy, and two small kernels for a sequence of launches (and its graph)
@cuda.jit
def spin(out, n):
    # one thread busy for a while (n = 16 million: about 70 ms on an H100): launches issued meanwhile queue up
    acc = 0.0
    for i in range(n):
        acc = acc * 0.9999999 + 1.0
    out[0] = acc


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@cuda.jit
def saxpy2(a, x, y, out):
    # two elements per thread (i and i + half): twice the loads in flight of saxpy's one
    i = cuda.grid(1)
    half = out.size // 2
    if i < half:
        out[i] = a * x[i] + y[i]
        out[i + half] = a * x[i + half] + y[i + half]
    if i == 0 and out.size % 2 == 1:
        last = out.size - 1
        out[last] = a * x[last] + y[last]


@cuda.jit
def bump(a, b, c):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] + b[i]


@cuda.jit
def mix(a, b, c):
    i = cuda.grid(1)
    if i < a.size:
        c[i] = a[i] * 0.5 + b[i]


@cuda.jit
def block_sum(a, out):
    buf = cuda.shared.array(BLOCK, dtype=float32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[tid] = a[i] if i < a.size else float32(0)
    cuda.syncthreads()
    s = BLOCK // 2
    while s > 0:
        if tid < s:
            buf[tid] += buf[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        cuda.atomic.add(out, 0, buf[0])

