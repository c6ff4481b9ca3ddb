"""cudajit demo: the tutorials' kernels, unchanged but for the import, checked against NumPy.

Runs on the GPU when one is present, else on the CPU backend.
"""
import math
import time

import numpy as np

import cudajit
from cudajit import cuda, float32

TPB = 16


@cuda.jit
def add_vectors(a, b, result):
    i = cuda.grid(1)
    if i < len(a):
        result[i] = a[i] + b[i]


@cuda.jit
def fast_matmul(A, B, C):
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x
    tmp = float32(0.)
    for i in range(bpg):
        sA[tx, ty] = 0
        sB[tx, ty] = 0
        if x < A.shape[0] and ty + i * TPB < A.shape[1]:
            sA[tx, ty] = A[x, ty + i * TPB]
        if y < B.shape[1] and tx + i * TPB < B.shape[0]:
            sB[tx, ty] = B[tx + i * TPB, y]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[tx, j] * sB[j, ty]
        cuda.syncthreads()
    if x < C.shape[0] and y < C.shape[1]:
        C[x, y] = tmp


@cuda.reduce
def sum_reduce(a, b):
    return a + b


def main():
    print(f"cudajit {cudajit.__version__}, backend: {cudajit.backend()}")
    rng = np.random.default_rng(0)

    a = rng.standard_normal(1_000_000).astype(np.float32)
    b = rng.standard_normal(a.size).astype(np.float32)
    d_result = cuda.device_array_like(a)
    t0 = time.perf_counter()
    add_vectors[(a.size + 255) // 256, 256](cuda.to_device(a), cuda.to_device(b), d_result)
    ok = np.allclose(d_result.copy_to_host(), a + b)
    print(f"vector add of {a.size:,} elements: {'matches NumPy' if ok else 'WRONG'} "
          f"({time.perf_counter() - t0:.2f} s with compile)")

    A = rng.standard_normal((200, 130)).astype(np.float32)
    B = rng.standard_normal((130, 170)).astype(np.float32)
    C = cuda.device_array((200, 170), np.float32)
    grid = (math.ceil(200 / TPB), math.ceil(170 / TPB))
    fast_matmul[grid, (TPB, TPB)](cuda.to_device(A), cuda.to_device(B), C)
    ok = np.allclose(C.copy_to_host(), A @ B, rtol=1e-4, atol=1e-3)
    print(f"shared-memory matmul 200x130 @ 130x170: {'matches NumPy' if ok else 'WRONG'}")

    total = sum_reduce(cuda.to_device(a))
    ok = np.isclose(total, a.astype(np.float64).sum(), rtol=1e-4, atol=1e-2)
    print(f"cuda.reduce sum: {total:.4f} ({'matches NumPy' if ok else 'WRONG'})")


if __name__ == "__main__":
    main()
