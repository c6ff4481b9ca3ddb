"""The CPU backend runs the threads of a block as one loop when the kernel needs no fibers (no barrier, warp
collective or grid sync), and as fibers otherwise (kernels/cudajit/thread.h, Entry). These kernels check that both
give the GPU's results: every thread index over 3-d grids and blocks, indices read in device functions, and a
thread that fails an index check ending alone, with the loop going on at the next thread."""
import inspect
import os
import time

import numpy as np
import pytest

from cudajit import cuda, float32


def _line(fn, text):
    lines, first = inspect.getsourcelines(fn.py_func)
    return first + next(k for k, line in enumerate(lines) if text in line)


@cuda.jit
def every_index(a, out):
    x, y, z = cuda.grid(3)
    if x < a.shape[2] and y < a.shape[1] and z < a.shape[0]:
        t = cuda.threadIdx.x + 10 * cuda.threadIdx.y + 100 * cuda.threadIdx.z
        b = cuda.blockIdx.x + 10 * cuda.blockIdx.y + 100 * cuda.blockIdx.z
        d = cuda.blockDim.x + 10 * cuda.blockDim.y + 100 * cuda.blockDim.z
        g = cuda.gridDim.x + 10 * cuda.gridDim.y + 100 * cuda.gridDim.z
        out[z, y, x, 0] = a[z, y, x] * 2 + t
        out[z, y, x, 1] = b
        out[z, y, x, 2] = d * 1000 + g


def _expected_indices(a, block, grid):
    """NumPy's view of what every thread of every_index writes."""
    z, y, x = np.indices(a.shape)
    (bx, by, bz), (gx, gy, gz) = block, grid
    out = np.empty(a.shape + (3,))
    out[..., 0] = a * 2 + (x % bx + 10 * (y % by) + 100 * (z % bz))
    out[..., 1] = x // bx + 10 * (y // by) + 100 * (z // bz)
    out[..., 2] = (bx + 10 * by + 100 * bz) * 1000 + gx + 10 * gy + 100 * gz
    return out


# The last two have enough blocks that a CPU worker takes runs of several (cpu_launch.cpp, Job::chunk), which cross
# rows and planes of the grid.
@pytest.mark.parametrize("block, grid", [((4, 3, 5), (3, 2, 2)), ((32, 1, 1), (2, 5, 3)), ((1, 7, 2), (9, 1, 4)),
                                         ((2, 2, 1), (11, 7, 5)), ((8, 1, 1), (700, 1, 1))])
def test_every_thread_index_over_3d_grids(backend, rng, block, grid):
    bx, by, bz = block
    gx, gy, gz = grid
    shape = (bz * gz - 1, by * gy, bx * gx - 1)          # a ragged edge: some threads fail the kernel's guard
    a = rng.standard_normal(shape)
    out = np.full(shape + (3,), np.nan)
    every_index[grid, block](a, out)
    np.testing.assert_array_equal(out, _expected_indices(a, block, grid))


@cuda.jit(device=True)
def lane_and_row():
    return cuda.laneid + 100 * cuda.threadIdx.y


@cuda.jit
def indices_in_a_device_function(a, out):
    x, y = cuda.grid(2)
    if y < a.shape[0] and x < a.shape[1]:
        out[y, x] = a[y, x] + lane_and_row()


def test_device_functions_read_the_running_thread(backend, rng):
    a = rng.standard_normal((24, 40)).astype(np.float32)
    out = np.zeros(a.shape)
    indices_in_a_device_function[(3, 4), (16, 6)](a, out)
    y, x = np.indices(a.shape)
    linear = x % 16 + 16 * (y % 6)                        # a warp is 32 consecutive linear thread ids
    np.testing.assert_array_equal(out, a.astype(np.float64) + (linear % 32 + 100 * (y % 6)))


@cuda.jit
def transpose_tiles(a, out):
    tile = cuda.shared.array((8, 9), float32)            # fibers: the barrier orders the tile's stores and loads
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    x, y = cuda.grid(2)
    tile[ty, tx] = a[y, x]
    cuda.syncthreads()
    out[cuda.blockIdx.x * 8 + ty, cuda.blockIdx.y * 8 + tx] = tile[tx, ty]


def test_a_kernel_with_barriers_runs_as_fibers(backend, rng):
    a = rng.standard_normal((32, 48)).astype(np.float32)
    out = np.zeros((48, 32), np.float32)
    transpose_tiles[(6, 4), (8, 8)](a, out)
    np.testing.assert_array_equal(out, a.T)


@cuda.jit(boundscheck=True)
def some_threads_read_past_the_end(a, out, stride):
    i = cuda.grid(1)
    j = i + a.size if i % stride == stride - 1 else i     # every stride-th thread reads past `a`
    out[i] = a[j] * 3


@pytest.mark.parametrize("stride", [2, 37, 700])
def test_a_thread_that_fails_a_check_ends_alone(backend, rng, stride):
    a = rng.standard_normal(3 * 256)
    out = np.full_like(a, np.nan)
    with pytest.raises(IndexError) as info:
        some_threads_read_past_the_end[3, 256](a, out, stride)
    msg = str(info.value)
    line = _line(some_threads_read_past_the_end, "out[i] = a[j] * 3")
    assert f"test_cpu_block_loop.py, line {line}," in msg, msg
    assert "is out of bounds for axis 0 with size 768" in msg, msg
    bad = np.arange(a.size) % stride == stride - 1
    np.testing.assert_array_equal(out[~bad], a[~bad] * 3)   # every other thread, before and after, did its store
    assert np.isnan(out[bad]).all()                          # the failing threads ended before their store
    some_threads_read_past_the_end[3, 256](a, out, a.size + 1)   # no failing thread: no error left behind
    np.testing.assert_array_equal(out, a * 3)


@cuda.jit(boundscheck=True)
def fails_in_a_3d_block(a, out, bad):
    x, y, z = cuda.threadIdx.x, cuda.threadIdx.y, cuda.threadIdx.z
    t = x + cuda.blockDim.x * (y + cuda.blockDim.y * z)
    out[z, y, x] = a[t + a.size if t == bad else t] + 1


@pytest.mark.parametrize("bad", [0, 5, 6, 29, 59])          # first thread, end of a row, start of a row, last
def test_the_loop_goes_on_after_the_failing_thread_in_3d(backend, rng, bad):
    a = rng.standard_normal(60)
    out = np.zeros((3, 4, 5))
    with pytest.raises(IndexError, match=rf"tid=\[{bad % 5}, {bad // 5 % 4}, {bad // 20}\]"):
        fails_in_a_3d_block[1, (5, 4, 3)](a, out, bad)
    expected = (a + 1).reshape(3, 4, 5)
    expected.reshape(-1)[bad] = 0
    np.testing.assert_array_equal(out, expected)


def test_a_launch_where_every_thread_fails_raises_and_the_next_runs_whole(backend, rng):
    a = rng.standard_normal(1 << 18)
    out = np.full_like(a, np.nan)
    with pytest.raises(IndexError, match="is out of bounds for axis 0 with size 262144"):
        some_threads_read_past_the_end[a.size // 256, 256](a, out, 1)   # stride 1: every thread fails
    some_threads_read_past_the_end[a.size // 256, 256](a, out, a.size + 1)
    np.testing.assert_array_equal(out, a * 3)                 # no thread of the next launch was skipped


def _exit_code(pid, hung, seconds=60):
    """The exit code of forked child ``pid``; the test fails naming ``hung`` if it has not ended in ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            pytest.fail(hung)
        time.sleep(0.05)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_cpu_launches_in_a_forked_child_make_their_own_pool(rng):
    """A forked child has none of its parent's helper threads: its first launch must make a new pool (counted by
    pthread_atfork), not wait for helpers that are gone."""
    from cudajit import _backend

    @cuda.jit
    def double_into(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = 2 * x[i]

    with _backend.use("cpu"):
        x = rng.standard_normal(4096)
        out = cuda.device_array_like(x)
        double_into[16, 256](cuda.to_device(x), out)          # the parent's pool and its helpers exist now
        assert np.array_equal(out.copy_to_host(), 2 * x)
        pid = os.fork()
        if pid == 0:                                           # the child: exit status 0 only on equal results
            code = 1
            try:
                y = x + 1
                out_child = cuda.device_array_like(y)
                double_into[16, 256](cuda.to_device(y), out_child)
                code = 0 if np.array_equal(out_child.copy_to_host(), 2 * y) else 3
            finally:
                os._exit(code)
        assert _exit_code(pid, "the forked child's launch hung (it waited for its parent's helper threads)") == 0


@pytest.mark.gpu
@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_gpu_use_in_a_child_forked_after_cuda_init_raises(rng):
    """CUDA does not survive fork(): a child forked after its parent used the GPU gets numba-cuda's
    CudaDriverError ("CUDA initialized before forking") from its first GPU call, not a hang or a crash, and exits
    cleanly although it holds the parent's device arrays (their frees make no driver call)."""
    from cudajit import _backend
    from cudajit.errors import CudaAPIError

    with _backend.use("gpu"):
        x = rng.standard_normal(1000)
        held = cuda.to_device(x)                                   # the parent has initialised CUDA
        assert np.array_equal(held.copy_to_host(), x)
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            message = b"no error"
            try:
                cuda.to_device(x)
            except CudaAPIError as e:
                message = str(e).encode()
            except BaseException as e:                             # noqa: BLE001 - reported to the parent
                message = repr(e).encode()
            os.write(w, message[:4000])
            os.close(w)
            del held                                                # a parent's array, dropped without the driver
            os._exit(0)
        os.close(w)
        code = _exit_code(pid, "the forked child's GPU call hung")
        with os.fdopen(r, "rb") as f:
            said = f.read().decode()
        assert code == 0
        assert "CUDA initialized before forking" in said and "spawn" in said, said
        assert np.array_equal(held.copy_to_host(), x)              # the parent's GPU still works
