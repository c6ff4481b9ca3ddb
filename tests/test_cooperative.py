"""Cooperative groups (numba.cuda.cg): ``cuda.cg.this_grid()``, ``g.sync()``, the automatic cooperative launch,
``max_cooperative_grid_blocks`` and the LaunchError for a grid that cannot be co-resident, on every backend.
The CPU backend runs every block of a cooperative launch at once (one OS thread per block, threads as fibers):
grids stay small here."""
import os
import sys

import numpy as np
import pytest

from cudajit import cuda, int32, float64
from cudajit.errors import LaunchError

sys.path.insert(0, os.path.dirname(__file__))
from numba_parity_kernels import grid_sync_rotate  # noqa: E402  (also run against numba-cuda on the GPU)

ROTATE_SIG = (float64[::1], int32, float64[::1])
# Each step reads an element another block wrote in the step before: right only if the grid syncs.
rotate_accumulate = cuda.jit(ROTATE_SIG)(grid_sync_rotate.py_func)


def rotate_reference(a, steps, block):
    a = a.copy()
    for _ in range(steps):
        a = np.roll(a, -(block + 1)) * 0.5 + a
    return a


@pytest.mark.parametrize("grid,block", [(4, 32), (7, 64)])
def test_grid_sync_makes_other_blocks_writes_visible(backend, rng, grid, block):
    n, steps = grid * block, 9
    a = rng.standard_normal(n)
    out = np.zeros(n)
    d_a = cuda.to_device(a)
    rotate_accumulate[grid, block](d_a, steps, out)
    np.testing.assert_array_equal(out, rotate_reference(a, steps, block))
    np.testing.assert_array_equal(d_a.copy_to_host(), out)


@cuda.jit(device=True)
def grid_barrier():
    return cuda.cg.this_grid().sync()


@cuda.jit
def block_sums_then_total(x, partial, total, status):
    """Block sums in shared memory, a grid sync (in a device function), then block 0 adds the partials."""
    tmp = cuda.shared.array(64, float64)
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    tmp[t] = x[cuda.grid(1)]
    cuda.syncthreads()
    if t == 0:
        s = 0.0
        for k in range(cuda.blockDim.x):
            s += tmp[k]
        partial[b] = s
    status[cuda.grid(1)] = grid_barrier()
    if b == 0 and t == 0:
        s = 0.0
        for k in range(cuda.gridDim.x):
            s += partial[k]
        total[0] = s


def test_grid_sync_in_a_device_function_with_shared_memory(backend, rng):
    grid, block = 6, 64
    x = rng.standard_normal(grid * block)
    partial, total = np.zeros(grid), np.zeros(1)
    status = np.full(grid * block, -1, np.int32)
    block_sums_then_total[grid, block](x, partial, total, status)
    sums = np.zeros(grid)
    for b in range(grid):                        # the kernel's order: left to right within a block
        for v in x[b * block:(b + 1) * block]:
            sums[b] += v
    np.testing.assert_array_equal(partial, sums)
    expected = 0.0
    for v in sums:
        expected += v
    assert total[0] == expected
    assert (status == 0).all()                   # GridGroup.sync() returns 0, as Numba's


def test_numba_cuda_documented_example(backend):
    """numba-cuda's "Cooperative Groups" example (test_ex_grid_sync), as written there but for the import."""
    # magictoken.ex_grid_sync_kernel.begin
    from cudajit import cuda, int32
    import numpy as np

    sig = (int32[:, ::1],)

    @cuda.jit(sig)
    def sequential_rows(M):
        col = cuda.grid(1)
        g = cuda.cg.this_grid()

        rows = M.shape[0]
        cols = M.shape[1]

        for row in range(1, rows):
            opposite = cols - col - 1
            # Each row's elements are one greater than the previous row
            M[row, col] = M[row - 1, opposite] + 1
            # Wait until all threads have written their column element,
            # and that the write is visible to all other threads
            g.sync()

    # magictoken.ex_grid_sync_kernel.end

    # magictoken.ex_grid_sync_data.begin
    # Empty input data
    A = np.zeros((1024, 1024), dtype=np.int32)
    # A somewhat arbitrary choice (one warp), but generally smaller block sizes
    # allow more blocks to be launched (noting that other limitations on
    # occupancy apply such as shared memory size)
    blockdim = 32
    griddim = A.shape[1] // blockdim
    # magictoken.ex_grid_sync_data.end

    mb = sequential_rows.overloads[sig].max_cooperative_grid_blocks(blockdim)
    assert mb >= griddim

    # magictoken.ex_grid_sync_launch.begin
    # Kernel launch - this is implicitly a cooperative launch
    sequential_rows[griddim, blockdim](A)
    # magictoken.ex_grid_sync_launch.end

    reference = np.tile(np.arange(1024), (1024, 1)).T
    np.testing.assert_equal(A, reference)


def test_overloads_say_whether_they_are_cooperative(backend):
    @cuda.jit("void(int32[:])")
    def plain(a):
        a[cuda.grid(1)] += 1

    assert rotate_accumulate.overloads[ROTATE_SIG].cooperative is True     # it syncs its grid
    assert plain.overloads[plain.signatures[0]].cooperative is False


def test_max_cooperative_grid_blocks(backend):
    spec = rotate_accumulate.overloads[ROTATE_SIG]
    counts = [spec.max_cooperative_grid_blocks(b) for b in (32, 128, 1024)]
    assert all(isinstance(c, int) and c >= 1 for c in counts)
    assert counts[0] >= counts[1] >= counts[2]                 # bigger blocks: fewer fit at once
    assert spec.max_cooperative_grid_blocks((16, 2)) == counts[0]   # only the number of threads counts
    assert spec.max_cooperative_grid_blocks(blockdim=32, dynsmemsize=0) == counts[0]
    if backend == "cpu":
        # The CPU backend's documented bound: at most 256 blocks and 16384 threads.
        assert counts == [256, 16384 // 128, 16384 // 1024]
    with pytest.raises(LaunchError, match="blockdim.x must be positive"):
        spec.max_cooperative_grid_blocks(0)


def test_a_grid_of_exactly_the_limit_runs(backend, rng):
    block = 128
    grid = rotate_accumulate.overloads[ROTATE_SIG].max_cooperative_grid_blocks(block)
    a = rng.standard_normal(grid * block)
    out = np.zeros_like(a)
    rotate_accumulate[grid, block](a.copy(), 2, out)
    np.testing.assert_array_equal(out, rotate_reference(a, 2, block))


@pytest.mark.parametrize("shape", [lambda mb: mb + 1, lambda mb: (mb // 2 + 1, 2)])
def test_a_grid_too_large_to_be_co_resident_is_refused_before_launching(backend, rng, shape):
    block = 64
    mb = rotate_accumulate.overloads[ROTATE_SIG].max_cooperative_grid_blocks(block)
    grid = shape(mb)
    blocks = int(np.prod(grid))
    a = rng.standard_normal(blocks * block)
    out = np.zeros_like(a)
    with pytest.raises(LaunchError) as info:
        rotate_accumulate[grid, block](a, 1, out)
    msg = str(info.value)
    assert "grid_sync_rotate" in msg and f"{blocks} blocks" in msg and f"at most {mb} blocks" in msg
    assert "blockdim (64, 1, 1)" in msg and "griddim (" in msg
    assert not out.any()                                        # nothing ran


def test_a_kernel_without_grid_sync_is_not_limited(backend):
    @cuda.jit
    def plain(out):
        out[cuda.grid(1)] = cuda.blockIdx.x

    mb = rotate_accumulate.overloads[ROTATE_SIG].max_cooperative_grid_blocks(32)
    grid = mb + 3
    out = np.zeros(grid * 32, np.int64)
    plain[grid, 32](out)
    np.testing.assert_array_equal(out, np.repeat(np.arange(grid), 32))


def test_cpu_threads_split_between_syncthreads_and_grid_sync_report_a_deadlock(backend):
    if backend != "cpu":
        pytest.skip("on a GPU this hangs, as CUDA does; the CPU backend reports it")

    @cuda.jit
    def split(out):
        g = cuda.cg.this_grid()
        if cuda.threadIdx.x == 0:
            cuda.syncthreads()
        else:
            g.sync()
        out[0] = 1

    with pytest.raises(cuda.KernelRuntimeError, match=r"deadlock.*grid\.sync\(\)"):
        split[2, 32](np.zeros(1))
