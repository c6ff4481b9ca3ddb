"""cuda.atomic.*: every operation on the types Numba allows, with tuple indices, returning the old value."""
import numpy as np
import pytest

from cudajit import cuda, float64


@cuda.jit
def atomic_sum(a, total):
    i = cuda.grid(1)
    if i < a.size:
        cuda.atomic.add(total, 0, a[i])


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.uint64, np.float32, np.float64])
def test_atomic_add_types(backend, rng, dtype):
    a = rng.integers(0, 100, 1000).astype(dtype)
    total = np.zeros(1, dtype)
    atomic_sum[8, 128](a, total)
    assert total[0] == a.sum(dtype=dtype)


@cuda.jit
def atomic_ops(a, res, old):
    i = cuda.grid(1)
    if i < a.size:
        v = a[i]
        old[i, 0] = cuda.atomic.max(res, 0, v)
        cuda.atomic.min(res, 1, v)
        cuda.atomic.sub(res, 2, v)
        cuda.atomic.and_(res, 3, v | 0xF0)
        cuda.atomic.or_(res, 4, v)
        cuda.atomic.xor(res, 5, v)
        cuda.atomic.exch(res, 6, 42)
        cuda.atomic.add(res, (7,), 1)          # a tuple index


def test_atomic_int_ops(backend, rng):
    a = rng.integers(0, 2**20, 256).astype(np.int64)
    res = np.array([-1, 2**40, 0, -1, 0, 0, 0, 0], np.int64)
    old = np.zeros((256, 1), np.int64)
    atomic_ops[2, 128](a, res, old)
    x = 0
    for v in a:
        x ^= int(v)
    andv = -1
    for v in a:
        andv &= int(v) | 0xF0
    orv = 0
    for v in a:
        orv |= int(v)
    np.testing.assert_array_equal(res, [a.max(), a.min(), -a.sum(), andv, orv, x, 42, 256])
    assert old[:, 0].min() == -1 and (old[:, 0] <= a.max()).all()


@cuda.jit
def atomic_2d(hist, idx):
    i = cuda.grid(1)
    if i < idx.shape[0]:
        cuda.atomic.add(hist, (idx[i, 0], idx[i, 1]), 1)


def test_atomic_histogram_2d(backend, rng):
    idx = rng.integers(0, 4, (2000, 2))
    hist = np.zeros((4, 4), np.int32)
    atomic_2d[16, 128](hist, idx)
    expect = np.zeros((4, 4), np.int32)
    np.add.at(expect, (idx[:, 0], idx[:, 1]), 1)
    np.testing.assert_array_equal(hist, expect)


@cuda.jit
def float_minmax(a, res):
    i = cuda.grid(1)
    if i < a.size:
        cuda.atomic.max(res, 0, a[i])
        cuda.atomic.min(res, 1, a[i])
        cuda.atomic.nanmax(res, 2, a[i])
        cuda.atomic.nanmin(res, 3, a[i])


def test_atomic_float_min_max(backend, rng):
    a = rng.normal(size=500)
    res = np.array([-np.inf, np.inf, -np.inf, np.inf])
    float_minmax[4, 128](a, res)
    np.testing.assert_array_equal(res, [a.max(), a.min(), a.max(), a.min()])


@cuda.jit
def counters(c, out):
    i = cuda.grid(1)
    out[i, 0] = cuda.atomic.inc(c, 0, 9)       # wraps to 0 after 9
    out[i, 1] = cuda.atomic.dec(c, 1, 100)


def test_atomic_inc_dec(backend):
    c = np.array([0, 50], np.uint32)
    out = np.zeros((25, 2), np.uint32)
    counters[1, 25](c, out)
    assert c[0] == 25 % 10
    assert c[1] == 25
    assert sorted(out[:, 0]) == sorted([k % 10 for k in range(25)])


@cuda.jit
def cas_lock(lock, counter, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = cuda.atomic.compare_and_swap(lock, 0, i + 1)
        cuda.atomic.cas(counter, 0, 0, 7)


def test_compare_and_swap(backend):
    lock = np.zeros(1, np.int32)
    counter = np.zeros(1, np.int64)
    out = np.full(16, -1, np.int32)
    cas_lock[1, 16](lock, counter, out)
    assert lock[0] in range(1, 17)
    assert (out == 0).sum() == 1             # exactly one thread saw the old value 0
    assert counter[0] == 7



@cuda.jit
def chained_prefix(x, out, flags):
    # Each thread waits until the one before it in its block has published its partial sum, then publishes its
    # own: a thread spinning on a flag another thread of its block sets (a Monte Carlo wealth-exchange kernel
    # locks neighbours this way). The GPU's threads progress independently; on the CPU backend a spinning while
    # loop hands over to the other fibers of its block (every OS thread's, not only the launching one's, whose
    # fibers also yield at its periodic signal checks). Reads and the flag go through atomics, so that no load is
    # hoisted out of the loop.
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * cuda.blockDim.x
    sx = cuda.shared.array(128, float64)
    sx[t] = x[base + t]
    cuda.syncthreads()                         # a barrier: the block runs as fibers, the last to arrive first
    prev = 0.0
    if t > 0:
        while cuda.atomic.add(flags, base + t - 1, 0) == 0:
            pass
        prev = cuda.atomic.add(out, base + t - 1, 0.0)
    out[base + t] = prev + sx[t]
    cuda.threadfence()
    cuda.atomic.exch(flags, base + t, 1)


def test_threads_of_a_block_wait_for_each_other_in_while_loops(backend, rng):
    for n in (32, 96):
        blocks = 16
        x = rng.integers(-50, 50, (blocks, n)).astype(np.float64)
        out = np.zeros(blocks * n)
        flags = np.zeros(blocks * n, np.int32)
        chained_prefix[blocks, n](x.ravel(), out, flags)
        np.testing.assert_array_equal(out.reshape(blocks, n), np.cumsum(x, axis=1))
        np.testing.assert_array_equal(flags, 1)
