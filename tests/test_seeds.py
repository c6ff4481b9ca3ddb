"""Every kernel of the tutorials in shared/seeds, as a Numba user writes it (decorators and syncthreads lines that
the tutorial text lost are restored), run on each backend and checked against NumPy."""
import math

import numpy as np
import pytest

from cudajit import cuda, float32

TPB = 16


# ---- seed 001: copy kernels (threadIdx form and cuda.grid form) --------------------------------------------
@cuda.jit
def foo_threadidx(input_array, output_array):
    # Thread id in a 1D block
    thread_id = cuda.threadIdx.x
    # Block id in a 1D grid
    block_id = cuda.blockIdx.x
    # Block width, i.e. number of threads per block
    block_width = cuda.blockDim.x
    # Compute flattened index inside the array
    i = thread_id + block_id * block_width
    if i < input_array.size:  # Check array boundaries
        output_array[i] = input_array[i]


@cuda.jit
def foo_grid(input_array, output_array):
    i = cuda.grid(1)
    output_array[i] = input_array[i]


def test_seed_copy_threadidx(backend):
    inp = np.asarray(range(100))
    out = np.zeros(len(inp))
    block_threads = 32
    grid_blocks = (inp.size + (block_threads - 1)) // block_threads
    foo_threadidx[grid_blocks, block_threads](inp, out)
    np.testing.assert_array_equal(out, inp)


def test_seed_copy_grid(backend):
    inp = np.asarray(range(10))
    out = np.zeros(len(inp))
    foo_grid[1, len(inp)](inp, out)
    np.testing.assert_array_equal(out, inp)


# ---- seed 004: vector addition ---------------------------------------------------------------------------
@cuda.jit
def add_vectors(a, b, result):
    i = cuda.grid(1)
    if i < len(a):
        result[i] = a[i] + b[i]


def test_seed_add_vectors(backend):
    a = np.array([1, 2, 3])
    b = np.array([4, 5, 6])
    d_a = cuda.to_device(a)
    d_b = cuda.to_device(b)
    d_result = cuda.device_array_like(a)
    block_size = 32
    grid_size = (len(a) + block_size - 1) // block_size
    add_vectors[grid_size, block_size](d_a, d_b, d_result)
    np.testing.assert_array_equal(d_result.copy_to_host(), [5, 7, 9])


def test_seed_add_vectors_float32_random(backend, rng):
    a = rng.random(1000).astype(np.float32)
    b = rng.random(1000).astype(np.float32)
    out = np.zeros_like(a)
    add_vectors[(a.size + 127) // 128, 128](a, b, out)
    np.testing.assert_array_equal(out, a + b)


# ---- seed 003: my_kernel (the Numba documentation's first kernel) -------------------------------------------
@cuda.jit
def my_kernel(io_array):
    pos = cuda.grid(1)
    if pos < io_array.size:
        io_array[pos] *= 2


def test_seed_my_kernel(backend):
    data = np.ones(256)
    threadsperblock = 32
    blockspergrid = (data.size + (threadsperblock - 1)) // threadsperblock
    my_kernel[blockspergrid, threadsperblock](data)
    np.testing.assert_array_equal(data, np.full(256, 2.0))


# ---- seed 003: matrix products ------------------------------------------------------------------------------
@cuda.jit
def cuda_matmul(A, B, C):
    """Perform matrix multiplication of C = A * B"""
    row, col = cuda.grid(2)
    if row < C.shape[0] and col < C.shape[1]:
        tmp = 0.
        for k in range(A.shape[1]):
            tmp += A[row, k] * B[k, col]
        C[row, col] = tmp


@cuda.jit
def cuda_matmul1(A, B, C):
    """Perform square matrix multiplication of C = A * B"""
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        tmp = 0.
        for k in range(A.shape[1]):
            tmp += A[i, k] * B[k, j]
        C[i, j] = tmp


@cuda.jit
def cuda_fast_matmul(A, B, C):
    # Define an array in the shared memory
    # The size and type of the arrays must be known at compile time
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)

    x, y = cuda.grid(2)

    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x    # blocks per grid

    if x >= C.shape[0] and y >= C.shape[1]:
        # Quit if (x, y) is outside of valid C boundary
        return

    # Each thread computes one element in the result matrix.
    # The dot product is chunked into dot products of TPB-long vectors.
    tmp = 0.
    for i in range(bpg):
        # Preload data into shared memory
        sA[tx, ty] = A[x, ty + i * TPB]
        sB[tx, ty] = B[tx + i * TPB, y]

        # Wait until all threads finish preloading
        cuda.syncthreads()

        # Computes partial product on the shared memory
        for j in range(TPB):
            tmp += sA[tx, j] * sB[j, ty]

        # Wait until all threads finish computing
        cuda.syncthreads()

    C[x, y] = tmp


# The anchors' tiled kernel (shared/anchors/anchors.py): bounds-checked, so any shape works.
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


def _matrices(rng, n, k, m):
    A = rng.normal(0, 10, (n, k)).astype(np.float32)
    B = rng.normal(0, 10, (k, m)).astype(np.float32)
    return A, B, A.astype(np.float64) @ B.astype(np.float64)


@pytest.mark.parametrize("kernel", [cuda_matmul, cuda_matmul1], ids=["cuda_matmul", "cuda_matmul1"])
@pytest.mark.parametrize("shape", [(40, 40, 40), (24, 37, 22)], ids=["square", "non-square"])
def test_seed_naive_matmul(backend, rng, kernel, shape):
    n, k, m = shape
    A, B, ref = _matrices(rng, n, k, m)
    A_gpu, B_gpu = cuda.to_device(A), cuda.to_device(B)
    C_gpu = cuda.device_array((n, m))            # float64, as in the seed
    threadsperblock = (16, 16)
    blockspergrid = (int(math.ceil(n / threadsperblock[0])), int(math.ceil(m / threadsperblock[1])))
    kernel[blockspergrid, threadsperblock](A_gpu, B_gpu, C_gpu)
    C = C_gpu.copy_to_host()
    # Numba's typing: A[i, k] * B[k, j] is a float32 product, accumulated in float64 (tmp = 0. is a float64)
    expect = np.zeros((n, m))
    for kk in range(k):
        expect += np.multiply.outer(A[:, kk], B[kk, :]).astype(np.float32)
    np.testing.assert_allclose(C, expect, rtol=1e-13, atol=1e-12)


def test_seed_fast_matmul_square(backend, rng):
    n = 48                                           # the seed's kernel needs multiples of TPB
    A, B, ref = _matrices(rng, n, n, n)
    C_gpu = cuda.device_array((n, n), np.float32)
    threadsperblock = (TPB, TPB)
    blockspergrid = (int(math.ceil(n / threadsperblock[1])), int(math.ceil(n / threadsperblock[0])))
    cuda_fast_matmul[blockspergrid, threadsperblock](cuda.to_device(A), cuda.to_device(B), C_gpu)
    np.testing.assert_allclose(C_gpu.copy_to_host(), ref, rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("shape", [(64, 64, 64), (50, 33, 70)], ids=["square", "non-square"])
def test_anchor_tiled_matmul(backend, rng, shape):
    n, k, m = shape
    A, B, ref = _matrices(rng, n, k, m)
    C = np.zeros((n, m), np.float32)
    # a square grid covering every dimension: the kernel walks gridDim.x tiles along k
    side = max(math.ceil(n / TPB), math.ceil(m / TPB), math.ceil(k / TPB))
    tiled_mm[(side, side), (TPB, TPB)](A, B, C)
    # float32 accumulation: compare with a float32-rounded tolerance
    np.testing.assert_allclose(C, ref, rtol=1e-4, atol=1e-2)


# ---- seed 002: vector normalization with shared memory ----------------------------------------------------
NORM_TPB = 128


@cuda.jit
def sum_of_squares(x, total):
    """Each block reduces the squares of its part of x in shared memory and adds its sum to total[0]."""
    cache = cuda.shared.array(NORM_TPB, dtype=float32)
    i = cuda.grid(1)
    tid = cuda.threadIdx.x
    if i < x.size:
        cache[tid] = x[i] * x[i]
    else:
        cache[tid] = 0
    cuda.syncthreads()
    s = NORM_TPB // 2
    while s > 0:
        if tid < s:
            cache[tid] += cache[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        cuda.atomic.add(total, 0, cache[0])


@cuda.jit
def normalize(x, total, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] / math.sqrt(total[0])


def test_seed_vector_normalization(backend, rng):
    x = rng.normal(0, 1, 1000).astype(np.float32)
    d_x = cuda.to_device(x)
    total = cuda.to_device(np.zeros(1, np.float32))
    blocks = (x.size + NORM_TPB - 1) // NORM_TPB
    sum_of_squares[blocks, NORM_TPB](d_x, total)
    out = cuda.device_array_like(d_x)
    normalize[blocks, NORM_TPB](d_x, total, out)
    np.testing.assert_allclose(total.copy_to_host()[0], np.sum(x.astype(np.float64) ** 2), rtol=1e-5)
    res = out.copy_to_host()
    np.testing.assert_allclose(res, x / np.linalg.norm(x), rtol=1e-5, atol=1e-6)
    assert abs(np.linalg.norm(res) - 1) < 1e-5


# ---- seed 003: cuda.reduce ----------------------------------------------------------------------------------
def _reduce_or_skip():
    if not hasattr(cuda, "reduce"):
        pytest.skip("cuda.reduce is not available")


def test_seed_sum_reduce(backend, rng):
    _reduce_or_skip()

    @cuda.reduce
    def sum_reduce(a, b):
        return a + b

    A = np.arange(1, 10).astype(np.float32)     # the tutorial's blank run
    assert sum_reduce(A) == 45
    A = rng.normal(loc=0, scale=10, size=100000).astype(np.float32)
    np.testing.assert_allclose(sum_reduce(A), A.astype(np.float64).sum(), rtol=1e-4, atol=1e-2)
    np.testing.assert_allclose(sum_reduce(cuda.to_device(A)), A.astype(np.float64).sum(), rtol=1e-4, atol=1e-2)


def test_seed_abs_sum_reduce(backend, rng):
    _reduce_or_skip()

    @cuda.reduce
    def cuda_reduce(a, b):
        if b < 0:
            return a - b
        else:
            return a + b

    # The tutorial's function treats its first argument as the running sum, so on inputs where every element
    # a partial sum may start from is non-negative it is the plain sum.
    A = np.abs(rng.normal(loc=0, scale=10, size=1000).astype(np.float32))
    np.testing.assert_allclose(cuda_reduce(A), A.astype(np.float64).sum(), rtol=1e-4)
