"""CUDA intrinsics: thread indexing, shared/local/constant arrays, barriers, globals and closures, print."""
import contextlib
import io
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import cudajit
from cudajit import _backend, cuda, float32, int32
from cudajit.cuda import threadIdx, blockIdx, blockDim, grid

N_LOCAL = 4
WEIGHTS = np.array([0.5, 1.0, 2.0, 4.0], np.float32)
SHAPE = (4, 8)
SCALE = 3
OFFSET = 0.25
PAIR = (2, 5)


@cuda.jit
def indices(out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i, 0] = cuda.threadIdx.x
        out[i, 1] = cuda.blockIdx.x
        out[i, 2] = cuda.blockDim.x
        out[i, 3] = cuda.gridDim.x
        out[i, 4] = cuda.gridsize(1)
        out[i, 5] = cuda.laneid
        out[i, 6] = cuda.warpsize
        out[i, 7] = threadIdx.x + blockIdx.x * blockDim.x     # names imported from cudajit.cuda
        out[i, 8] = grid(1)


def test_thread_indices(backend):
    out = np.zeros((96, 9), np.int64)
    indices[3, 32](out)
    i = np.arange(96)
    np.testing.assert_array_equal(out[:, 0], i % 32)
    np.testing.assert_array_equal(out[:, 1], i // 32)
    np.testing.assert_array_equal(out[:, 2], 32)
    np.testing.assert_array_equal(out[:, 3], 3)
    np.testing.assert_array_equal(out[:, 4], 96)
    np.testing.assert_array_equal(out[:, 5], i % 32)
    np.testing.assert_array_equal(out[:, 6], 32)
    np.testing.assert_array_equal(out[:, 7], i)
    np.testing.assert_array_equal(out[:, 8], i)


@cuda.jit
def grid_2d_3d(out2, out3):
    x, y = cuda.grid(2)
    w, h = cuda.gridsize(2)
    if x < out2.shape[0] and y < out2.shape[1]:
        out2[x, y] = x * 1000 + y + w * 0 + h * 0
    a, b, c = cuda.grid(3)
    if a < out3.shape[0] and b < out3.shape[1] and c < out3.shape[2]:
        out3[a, b, c] = a * 100 + b * 10 + c


def test_grid_2d_and_3d(backend):
    out2 = np.zeros((6, 5), np.int64)
    out3 = np.zeros((3, 4, 2), np.int64)
    grid_2d_3d[(2, 2, 1), (4, 4, 2)](out2, out3)
    np.testing.assert_array_equal(out2, np.add.outer(np.arange(6) * 1000, np.arange(5)))
    expect = np.arange(3)[:, None, None] * 100 + np.arange(4)[None, :, None] * 10 + np.arange(2)[None, None, :]
    np.testing.assert_array_equal(out3, expect)


@cuda.jit
def block_reverse(a, out):
    buf = cuda.shared.array(64, dtype=int32)
    tid = cuda.threadIdx.x
    base = cuda.blockIdx.x * cuda.blockDim.x
    buf[tid] = a[base + tid]
    cuda.syncthreads()
    out[base + tid] = buf[cuda.blockDim.x - 1 - tid]


def test_shared_array_and_syncthreads(backend):
    a = np.arange(128, dtype=np.int32)
    out = np.zeros_like(a)
    block_reverse[2, 64](a, out)
    np.testing.assert_array_equal(out, np.concatenate([a[:64][::-1], a[64:][::-1]]))
    assert block_reverse.inspect_source if hasattr(block_reverse, "inspect_source") else True


@cuda.jit
def shared_2d_from_globals(out):
    tile = cuda.shared.array(SHAPE, dtype=np.float32)       # shape from a global tuple, NumPy dtype
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tile[tx, ty] = tx * 10 + ty
    cuda.syncthreads()
    out[tx, ty] = tile[SHAPE[0] - 1 - tx, ty]


def test_shared_2d_global_shape(backend):
    out = np.zeros(SHAPE, np.float32)
    shared_2d_from_globals[1, SHAPE](out)
    expect = np.add.outer(np.arange(4) * 10, np.arange(8))[::-1]
    np.testing.assert_array_equal(out, expect)


@cuda.jit
def dynamic_shared(a, out):
    buf = cuda.shared.array(0, dtype=float32)
    other = cuda.shared.array(0, dtype=float32)          # aliases the same memory, as in Numba
    tid = cuda.threadIdx.x
    buf[tid] = a[tid] * 2
    cuda.syncthreads()
    out[tid] = other[cuda.blockDim.x - 1 - tid]


def test_dynamic_shared_memory(backend):
    a = np.arange(32, dtype=np.float32)
    out = np.zeros_like(a)
    dynamic_shared[1, 32, 0, 32 * 4](a, out)
    np.testing.assert_array_equal(out, (a * 2)[::-1])


@cuda.jit
def local_scratch(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        tmp = cuda.local.array(N_LOCAL, dtype=np.float64)
        for k in range(N_LOCAL):
            tmp[k] = a[i, k] * WEIGHTS[k]      # WEIGHTS: a global NumPy array, frozen as a constant
        s = 0.0
        for k in range(N_LOCAL - 1, -1, -1):
            s += tmp[k]
        out[i] = s


def test_local_array_and_frozen_global_array(backend, rng):
    a = rng.random((50, N_LOCAL))
    out = np.zeros(50)
    local_scratch[1, 64](a, out)
    expect = np.zeros(50)
    for k in range(N_LOCAL - 1, -1, -1):
        expect += a[:, k] * WEIGHTS[k].astype(np.float64)
    np.testing.assert_array_equal(out, expect)


@cuda.jit
def const_memory(out):
    c = cuda.const.array_like(WEIGHTS)
    i = cuda.grid(1)
    if i < c.size:
        out[i] = c[i] * SCALE + OFFSET + PAIR[1]


def test_const_array_like_and_global_scalars(backend):
    out = np.zeros(4, np.float64)
    const_memory[1, 4](out)
    np.testing.assert_array_equal(out, WEIGHTS.astype(np.float64) * SCALE + OFFSET + PAIR[1])


TABLE = np.arange(24, dtype=np.int64).reshape(12, 2) * 3 + 1


@cuda.jit
def const_of_any_array(w, n, out):
    c = cuda.const.array_like(w)                    # an argument: numba-cuda's call is a no-op returning it
    t = cuda.const.array_like(TABLE[:n])            # a global's view, sliced by a run-time value
    i = cuda.grid(1)
    if i < out.size:
        out[i] = c[i] * t[i % t.shape[0], 1] + TABLE[n - 1, 0]


def test_const_array_like_of_an_argument_and_of_a_view(backend, rng):
    w = rng.standard_normal(40)
    out = np.zeros(40)
    for n in (3, 7, 12):
        const_of_any_array[1, 64](w, n, out)
        # the GPU fuses the multiply-add (one rounding instead of two): within an ulp of the product (up to ~200)
        np.testing.assert_allclose(out, w * TABLE[np.arange(40) % n, 1] + TABLE[n - 1, 0], rtol=1e-15, atol=1e-13)


def make_closure_kernel(factor, table):
    @cuda.jit
    def scaled(a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = a[i] * factor + table[i % table.size]
    return scaled


def test_closure_variables(backend):
    k2 = make_closure_kernel(2, np.array([1.0, -1.0]))
    k5 = make_closure_kernel(5, np.array([0.0, 10.0, 20.0]))
    a = np.arange(6.0)
    out = np.zeros(6)
    k2[1, 6](a, out)
    np.testing.assert_array_equal(out, a * 2 + np.array([1.0, -1.0] * 3))
    k5[1, 6](a, out)
    np.testing.assert_array_equal(out, a * 5 + np.array([0.0, 10.0, 20.0] * 2))


SCALE = 3.0


def make_declaring_kernel(offset):
    @cuda.jit
    def k(a, out):
        global SCALE          # only read: the statements change nothing, as in Numba
        nonlocal offset
        i = cuda.grid(1)
        if i < a.size:
            out[i] = a[i] * SCALE + offset
    return k


def test_global_and_nonlocal_statements_that_only_read(backend):
    a = np.random.default_rng(7).standard_normal(50)
    out = np.zeros(50)
    make_declaring_kernel(4)[1, 64](a, out)
    np.testing.assert_allclose(out, a * 3.0 + 4, rtol=1e-15, atol=1e-15)   # the GPU fuses a multiply-add


def test_assigning_a_nonlocal_is_refused(backend):
    offset = 1

    @cuda.jit
    def k(out):
        nonlocal offset
        offset = 2
        out[0] = offset

    with pytest.raises(cudajit.errors.UnsupportedError, match="(?s)nonlocal variable 'offset'.*frozen"):
        k[1, 1](np.zeros(1))


@cuda.jit
def count_positive(a, out):
    tid = cuda.threadIdx.x
    n = cuda.syncthreads_count(a[tid] > 0)
    every = cuda.syncthreads_and(a[tid] > -100)
    some = cuda.syncthreads_or(a[tid] > 1000)
    if tid == 0:
        out[0] = n
        out[1] = every
        out[2] = some


def test_syncthreads_reductions(backend):
    a = np.array([1, -2, 3, 0, 5, -6, 7, 8], np.int64)
    out = np.zeros(3, np.int64)
    count_positive[1, 8](a, out)
    np.testing.assert_array_equal(out, [5, 1, 0])


@cuda.jit
def fences_and_syncwarp(out):
    i = cuda.grid(1)
    out[i] = i
    cuda.threadfence()
    cuda.threadfence_block()
    cuda.threadfence_system()
    cuda.syncwarp()
    cuda.syncwarp(0xFFFFFFFF)


def test_fences_and_syncwarp(backend):
    out = np.zeros(32, np.int64)
    fences_and_syncwarp[1, 32](out)
    np.testing.assert_array_equal(out, np.arange(32))


@cuda.jit
def printer(x, n):
    if cuda.grid(1) == 0:
        print("value", x, n, True, (1, 2.5))


def test_print(backend, capfd):
    printer[1, 1](1.5, 7)
    cuda.synchronize()
    out = capfd.readouterr().out
    assert "value 1.500000 7 True (1, 2.500000)" in out


@cuda.jit
def print_values(a, rows):
    i = cuda.grid(1)
    if i < a.size:
        for j in range(rows):
            print("thread", i, "row", j, "value", a[i] * (j + 1))


def expected_print_lines(a, rows):
    return sorted(f"thread {i} row {j} value {v * (j + 1):f}" for i, v in enumerate(a) for j in range(rows))


def test_print_of_every_thread_reaches_stdout(backend, rng, capfd):
    # The CPU backend writes what kernels print to Python's sys.stdout (as the simulator's print() does), so a
    # notebook cell, contextlib.redirect_stdout and pytest's capsys see it; the GPU's printf writes to the process's
    # stdout when the host synchronises, as numba-cuda's does.
    a = rng.standard_normal(300)
    if backend == "cpu":
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            print_values[3, 128](a, 2)
        out = buf.getvalue()
        assert capfd.readouterr().out == ""       # nothing went past sys.stdout to the file descriptor
    else:
        print_values[3, 128](a, 2)
        cuda.synchronize()
        out = capfd.readouterr().out
    assert sorted(out.splitlines()) == expected_print_lines(a, 2)


def test_cpu_print_of_a_long_launch_is_written_while_it_runs(rng):
    # A kernel that prints much is neither held in memory whole nor cut: its launching thread writes what was printed
    # whenever 64 KiB are kept and at its signal checks (every 20 ms) while the launch lasts; every line arrives whole
    class Recorder(io.StringIO):
        writes = 0

        def write(self, text):
            Recorder.writes += 1
            return super().write(text)

    a = rng.standard_normal(256)
    buf = Recorder()
    with _backend.use("cpu"), contextlib.redirect_stdout(buf):
        print_values[2, 128](a, 40)            # about 400 KiB
        slow_printer[2, 4](np.zeros(8), 2_000_000)   # seconds: 20 lines a thread, each after a busy loop
    lines = buf.getvalue().splitlines()
    assert sorted(lines[:256 * 40]) == expected_print_lines(a, 40)
    assert sorted(lines[256 * 40:]) == sorted(f"thread {i} line {j}" for i in range(8) for j in range(20))
    assert Recorder.writes > 3


@cuda.jit
def slow_printer(out, spin):
    i = cuda.grid(1)
    acc = 0.0
    for j in range(20):
        for k in range(spin):
            acc = acc * 0.999 + k
        print("thread", i, "line", j)
    out[i] = acc


@cuda.jit
def print_then_index(a, n):
    i = cuda.grid(1)
    print("before the index", i)
    a[i + n] = 1.0


def test_cpu_print_comes_before_the_error_of_its_launch():
    buf = io.StringIO()
    with _backend.use("cpu"), contextlib.redirect_stdout(buf), pytest.raises(IndexError, match="index 9 is out of bounds"):
        print_then_index[1, 2](np.zeros(4), 9)
    assert sorted(buf.getvalue().splitlines()) == ["before the index 0", "before the index 1"]


def test_cpu_print_keeps_its_place_among_the_programs_own_output(tmp_path):
    # stdout a pipe, so Python's own print() is block-buffered: the kernel's lines still come between "before" and
    # "after" (they went straight to the file descriptor before, ahead of everything Python had buffered)
    script = tmp_path / "order.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        from cudajit import cuda

        @cuda.jit
        def k(a):
            print("kernel", cuda.grid(1), a[cuda.grid(1)])

        print("before")
        k[1, 2](np.array([1.5, 2.5]))
        print("after")
    """))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    env["CUDAJIT_BACKEND"] = "cpu"
    env["PYTHONPATH"] = os.pathsep.join([str(Path(cudajit.__file__).parent.parent), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "before" and lines[-1] == "after"
    assert sorted(lines[1:-1]) == ["kernel 0 1.500000", "kernel 1 2.500000"]


@cuda.jit
def dtype_strings(out):
    a = cuda.local.array(2, "float32")
    b = cuda.local.array(2, dtype=cudajit.int16)
    a[0] = 1.5
    b[0] = 300
    out[0] = a[0]
    out[1] = b[0]
    out[2] = 2.25


def test_dtype_spellings(backend):
    out = np.zeros(3)
    dtype_strings[1, 1](out)
    np.testing.assert_array_equal(out, [1.5, 300, 2.25])


def test_uses_barriers_flag():
    from cudajit.compiler import compile_kernel, typeof
    t = typeof(np.zeros(4, np.int32))
    assert compile_kernel(block_reverse.py_func, (t, t)).uses_barriers
    assert not compile_kernel(negative_noop.py_func, (t,)).uses_barriers
    ks = compile_kernel(dynamic_shared.py_func, (typeof(np.zeros(4, np.float32)),) * 2)
    assert ks.uses_dynamic_shared and ks.uses_barriers


@cuda.jit
def negative_noop(a):
    a[0] = 1


def test_global_device_array_captured_by_pointer(backend):
    global CAPTURED
    CAPTURED = cuda.to_device(np.arange(5, dtype=np.float64))

    @cuda.jit
    def read_captured(out):
        i = cuda.grid(1)
        if i < CAPTURED.size:
            out[i] = CAPTURED[i] * 2

    out = np.zeros(5)
    read_captured[1, 5](out)
    np.testing.assert_array_equal(out, np.arange(5) * 2.0)


def test_reduce_with_lambda(backend, rng):
    if not hasattr(cuda, "reduce"):
        pytest.skip("cuda.reduce is not available")
    prod = cuda.reduce(lambda a, b: a * b)
    a = np.array([1, 2, 3, 4, 5], np.int64)
    assert prod(a, init=1) == 120
