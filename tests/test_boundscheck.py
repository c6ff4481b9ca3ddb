"""Bounds checks (``cuda.jit(boundscheck=...)``, ``CUDAJIT_BOUNDSCHECK``): an index out of range in any array
(argument, shared, dynamic shared, local, constant) raises IndexError on the host naming the kernel, the line,
the thread, the index, the axis and the shape, instead of touching memory. On by default on the CPU backend,
off by default on the GPU (the GPU cases here force it on)."""
import inspect
import math
import re

import numpy as np
import pytest

from cudajit import cuda, float32
from cudajit.compiler import CompileOptions, compile_kernel, typeof
from test_seeds import TPB, cuda_fast_matmul


def _checked(fn, backend):
    """``fn``'s kernel with the backend's default on the CPU, and with checks forced on the GPU."""
    return fn if backend == "cpu" else cuda.jit(boundscheck=True)(fn.py_func)


def _line(fn, text):
    lines, first = inspect.getsourcelines(getattr(fn, "py_func", fn))
    return first + next(k for k, line in enumerate(lines) if text in line)


def test_seed_matmul_off_the_tile_raises_instead_of_corrupting(backend, rng):
    n = 1000                                          # not a multiple of TPB: the seed's kernel runs off its arrays
    A = rng.standard_normal((n, n)).astype(np.float32)
    B = rng.standard_normal((n, n)).astype(np.float32)
    kernel = _checked(cuda_fast_matmul, backend)
    grid = (math.ceil(n / TPB), math.ceil(n / TPB))
    with pytest.raises(IndexError) as info:
        kernel[grid, (TPB, TPB)](cuda.to_device(A), cuda.to_device(B), cuda.device_array((n, n), np.float32))
    msg = str(info.value)
    assert "In function 'cuda_fast_matmul', file " in msg and "test_seeds.py, line " in msg, msg
    assert re.search(r"tid=\[\d+, \d+, 0\] ctaid=\[\d+, \d+, 0\]: index 10\d\d is out of bounds for axis [01] "
                     r"with size 1000 \(array shape \(1000, 1000\)\)", msg), msg
    m = 48                                            # the process is intact: a multiple of the tile still works
    A, B = A[:m, :m].copy(), B[:m, :m].copy()
    C = cuda.device_array((m, m), np.float32)
    kernel[(m // TPB, m // TPB), (TPB, TPB)](cuda.to_device(A), cuda.to_device(B), C)
    np.testing.assert_allclose(C.copy_to_host(), A @ B, rtol=1e-4, atol=1e-4)


@cuda.jit
def strided_store(x):
    i = cuda.grid(1)
    x[i * 1000] = i


def test_stray_store_raises(backend):
    x = np.zeros(5000, np.int64)
    with pytest.raises(IndexError) as info:
        _checked(strided_store, backend)[1, 32](x)
    msg = str(info.value)
    assert f"test_boundscheck.py, line {_line(strided_store, 'x[i * 1000] = i')}," in msg, msg
    assert re.search(r"index \d+000 is out of bounds for axis 0 with size 5000 \(array shape \(5000,\)\)", msg), msg
    np.testing.assert_array_equal(x[::1000], np.arange(5) * 1)   # the threads in range did their stores


TABLE = np.arange(10.0)


def memory_kinds(a, out, where, k):
    """``where`` picks which kind of array gets index ``k``; every other index is in range."""
    sm = cuda.shared.array(32, float32)
    dyn = cuda.shared.array(0, float32)
    loc = cuda.local.array((2, 3), float32)
    i = cuda.threadIdx.x
    sm[i] = a[i, 0]
    dyn[i] = a[i, 1]
    for r in range(2):
        for c in range(3):
            loc[r, c] = r * 3 + c
    cuda.syncthreads()
    s = sm[k if where == 0 else i] + dyn[k if where == 1 else i] + loc[1, k if where == 2 else 2]
    s += TABLE[k if where == 3 else i % 10]
    out[i, k if where == 4 else 0] = s
    cuda.atomic.add(out, (i, k if where == 5 else 1), 1.0)


_KINDS = [(0, -33, 0, 32), (1, 32, 0, 32), (2, 3, 1, 3), (3, 10, 0, 10), (4, 2, 1, 2), (5, -3, 1, 2)]


@pytest.mark.parametrize("where,k,axis,size", _KINDS, ids=["shared", "dynamic-shared", "local", "constant",
                                                          "argument", "atomic"])
def test_every_kind_of_array_is_checked(backend, rng, where, k, axis, size):
    kernel = cuda.jit(boundscheck=True)(memory_kinds)
    a = rng.standard_normal((32, 2)).astype(np.float32)
    out = np.zeros((32, 2))
    kernel[1, 32, 0, 32 * 4](a, out, 9, 0)           # where=9: all in range
    expect = a[:, 0].astype(np.float64) + a[:, 1] + np.float32(5) + np.arange(32) % 10
    np.testing.assert_allclose(out[:, 0], expect, rtol=1e-6)
    np.testing.assert_array_equal(out[:, 1], 1.0)
    with pytest.raises(IndexError, match=rf"index {k} is out of bounds for axis {axis} with size {size} "):
        kernel[1, 32, 0, 32 * 4](a, out, where, k)


@cuda.jit(boundscheck=True)
def wrap_read(a, out, k):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[k - i]                             # negative indices count from the end, as in Python


def test_negative_indices_wrap_before_the_check(backend, rng):
    a = rng.standard_normal(16)
    out = np.zeros(8)
    wrap_read[1, 8](a, out, -1)
    np.testing.assert_array_equal(out, a[-1 - np.arange(8)])
    with pytest.raises(IndexError, match=r"index -17 is out of bounds for axis 0 with size 16"):
        wrap_read[1, 8](a, out, -10)                  # thread 7 reads a[-17]


def _source(fn, options, backend):
    t = typeof(np.zeros(4))
    return compile_kernel(fn, (t, t, typeof(1)), options.for_backend(backend)).source


def test_default_is_on_for_the_cpu_and_off_for_the_gpu():
    assert ".checked<" in _source(wrap_read.py_func, CompileOptions(), "cpu")
    assert ".checked<" not in _source(wrap_read.py_func, CompileOptions(), "gpu")
    assert ".checked<" in _source(wrap_read.py_func, CompileOptions(debug=True), "gpu")
    assert ".checked<" not in _source(wrap_read.py_func, CompileOptions(debug=True, boundscheck=False), "gpu")
    assert ".checked<" not in _source(wrap_read.py_func, CompileOptions(boundscheck=False), "cpu")
    assert ".checked<" in _source(wrap_read.py_func, CompileOptions(boundscheck=True), "gpu")


def test_checks_add_no_debug_flags():
    from cudajit.cuda import build
    options = CompileOptions(boundscheck=True).for_backend("gpu")
    assert build.nvrtc_options(options) == build.nvrtc_options(CompileOptions())
    assert build.host_options(options) == build.host_options(CompileOptions())


def test_environment_variable_overrides_the_decorator(monkeypatch):
    monkeypatch.setenv("CUDAJIT_BOUNDSCHECK", "0")
    assert cuda.jit(boundscheck=True)(wrap_read.py_func)._options.for_backend("cpu").boundscheck is False
    monkeypatch.setenv("CUDAJIT_BOUNDSCHECK", "1")
    assert cuda.jit(boundscheck=False)(wrap_read.py_func)._options.for_backend("gpu").boundscheck is True
    monkeypatch.setenv("CUDAJIT_BOUNDSCHECK", "")
    assert cuda.jit(wrap_read.py_func)._options.for_backend("gpu").boundscheck is False
    # malformed: Numba's warning for a NUMBA_* variable it cannot parse, and the variable is ignored
    monkeypatch.setenv("CUDAJIT_BOUNDSCHECK", "maybe")
    with pytest.warns(RuntimeWarning, match="'CUDAJIT_BOUNDSCHECK' is defined but its associated value 'maybe' "
                                            "could not be parsed"):
        ignored = cuda.jit(boundscheck=True)(wrap_read.py_func)
    assert ignored._options.for_backend("gpu").boundscheck is True
    monkeypatch.delenv("CUDAJIT_BOUNDSCHECK")
    with pytest.raises(TypeError, match="boundscheck"):
        cuda.jit(boundscheck="on")


def test_unchecked_kernel_on_the_cpu_when_asked(backend, rng):
    unchecked = cuda.jit(boundscheck=False)(wrap_read.py_func)
    a = rng.standard_normal(16)
    out = np.zeros(8)
    unchecked[1, 8](a, out, 7)
    np.testing.assert_array_equal(out, a[7 - np.arange(8)])
    assert ".checked<" not in unchecked.inspect_source(unchecked.signatures[0])


@cuda.jit(boundscheck=True)
def oob_before_barrier(a, out, bad):
    sm = cuda.shared.array(64, float32)
    i = cuda.threadIdx.x
    sm[i] = a[i + 64 if i == bad else i]              # thread `bad` reads past `a`: on the GPU it ends here
    cuda.syncthreads()                                # ... and the barrier still releases the others
    out[i] = sm[63 - i] * 2


def test_a_thread_that_raises_does_not_hold_up_a_barrier(backend, rng):
    a = rng.standard_normal(64).astype(np.float32)
    out = np.zeros(64, np.float32)
    oob_before_barrier[1, 64](a, out, -1)
    np.testing.assert_array_equal(out, a[::-1] * 2)
    out[:] = 0
    with pytest.raises(IndexError, match=r"index 69 is out of bounds for axis 0 with size 64"):
        oob_before_barrier[1, 64](a, out, 5)
    ok = ~np.isin(np.arange(64), (5, 63 - 5))         # all but the raiser and the thread reading its cell
    np.testing.assert_array_equal(out[ok], (a[::-1] * 2)[ok])


@cuda.jit(boundscheck=True)
def oob_before_grid_sync(a, out, bad):
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    v = a[i + a.size if i == bad else i]              # the raiser runs on in a cooperative kernel (grid sync)
    g.sync()
    out[i] = v + 1


def test_an_index_error_in_a_cooperative_kernel_does_not_hang_grid_sync(backend, rng):
    a = rng.standard_normal(4 * 32)
    out = np.zeros_like(a)
    oob_before_grid_sync[4, 32](a, out, -1)
    np.testing.assert_array_equal(out, a + 1)
    with pytest.raises(IndexError, match=r"index 128 is out of bounds for axis 0 with size 128"):
        oob_before_grid_sync[4, 32](a, out, 0)        # thread 0 of block 0 arrives for its block


# The CPU backend proves grid-indexed axes for a whole block at once (thread.h, Entry::run_fits): a block whose
# cuda.grid indices all lie inside the parameter arrays they index runs without those checks, any other block
# with them. These kernels run off their arrays in some blocks and not in others.
@cuda.jit(boundscheck=True)
def grid_add(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


@pytest.mark.parametrize("na", [1000, 700, 300])
def test_grid_indexed_arrays_are_checked_in_the_blocks_that_leave_them(backend, rng, na):
    a = rng.standard_normal(na).astype(np.float32)
    b = rng.standard_normal(1000).astype(np.float32)
    c = np.full(1000, -7.0, np.float32)
    want = c.copy()
    want[:na] = a + b[:na]
    if na == 1000:                                    # 4 blocks of 256: the last one partly past c, guarded
        grid_add[4, 256](a, b, c)
    else:
        with pytest.raises(IndexError, match=rf"index \d+ is out of bounds for axis 0 with size {na} ") as err:
            grid_add[4, 256](a, b, c)
        index = int(re.search(r"index (\d+) is out of bounds", str(err.value)).group(1))
        assert na <= index < 1000, str(err.value)     # a thread past a's end, inside the guard on c
    np.testing.assert_array_equal(c, want)            # every thread in range stored, no thread past a did


@cuda.jit(boundscheck=True)
def grid_transpose(src, dst):
    row, col = cuda.grid(2)
    row, col = col, row                               # the names follow the values: row is now grid y
    dst[row, col] = src[col, row] * 2


def test_grid_indices_follow_their_values_through_a_swap(backend, rng):
    src = rng.standard_normal((64, 48))
    dst = np.zeros((48, 64))
    grid_transpose[(4, 3), (16, 16)](src, dst)        # every block inside both arrays
    np.testing.assert_array_equal(dst, src.T * 2)
    src, dst = src[:, :40].copy(), np.zeros((40, 64))  # the last column of blocks runs off both
    with pytest.raises(IndexError, match=r"index 4\d is out of bounds for axis [01] with size 40"):
        grid_transpose[(4, 3), (16, 16)](src, dst)
    np.testing.assert_array_equal(dst, src.T * 2)


@cuda.jit(boundscheck=True)
def grid_shifted(a, out, k):
    i = cuda.grid(1)
    if k > 0:
        i = i + k                                     # on this path i is no longer the grid index
    out[i] = a[i]


@cuda.jit(boundscheck=True)
def grid_walk(a, out):
    i = cuda.grid(1)
    for _ in range(2):
        out[i] = a[i] * 3                             # the second time round, i comes from the line below
        i = i + out.size // 2 + 1


@cuda.jit(boundscheck=True)
def grid_rebound(a, b, out):
    i = cuda.grid(1)
    if i % 2 == 1:
        a = b                                         # the parameter no longer holds its argument here
    out[i] = a[i]


def test_a_reassigned_grid_index_or_parameter_stays_checked(backend, rng):
    a = rng.standard_normal(512)
    out = np.zeros(512)
    grid_shifted[2, 256](a, out, 0)
    np.testing.assert_array_equal(out, a)
    with pytest.raises(IndexError, match=r"index 51[2-6] is out of bounds for axis 0 with size 512"):
        grid_shifted[2, 256](a, out, 5)
    out[:] = 0
    with pytest.raises(IndexError, match=r"index \d+ is out of bounds for axis 0 with size 512"):
        grid_walk[2, 256](a, out)
    np.testing.assert_array_equal(out, a * 3)         # the first round stored everywhere; past it, nothing
    b = rng.standard_normal(300)
    out[:] = 0
    with pytest.raises(IndexError, match=r"index \d+ is out of bounds for axis 0 with size 300"):
        grid_rebound[2, 256](a, b, out)
    odd = np.arange(512) % 2 == 1
    np.testing.assert_array_equal(out[~odd], a[~odd])
    np.testing.assert_array_equal(out[odd & (np.arange(512) < 300)], b[1:300:2])


def test_only_grid_indexed_parameter_axes_are_proved_per_block():
    t, n = typeof(np.zeros(4)), typeof(1)
    cpu = CompileOptions().for_backend("cpu")
    src = compile_kernel(grid_add.py_func, (typeof(np.zeros(4, np.float32)),) * 3, cpu).source
    assert src.count(".checked_in<0, 1u>(cj_fits, ") == 3 and "CJ_FITS_TEMPLATE CJ_GLOBAL void" in src, src
    assert "CJ_ENTRY_FITS(cj_k_grid_add_0, (CJ_FIT(0, 0, 0), CJ_FIT(1, 0, 0), CJ_FIT(2, 0, 0))," in src, src
    src = compile_kernel(grid_transpose.py_func, (typeof(np.zeros((2, 2))),) * 2, cpu).source
    assert "(CJ_FIT(0, 0, 0), CJ_FIT(0, 1, 1), CJ_FIT(1, 0, 1), CJ_FIT(1, 1, 0))" in src, src
    for fn, types in ((grid_shifted, (t, t, n)), (grid_walk, (t, t))):
        src = compile_kernel(fn.py_func, types, cpu).source
        assert "cj_fits" not in src and ".checked<" in src, src
    src = compile_kernel(grid_rebound.py_func, (t, t, t), cpu).source
    assert "= a_.checked<0>(0, i_);" in src and "(CJ_FIT(2, 0, 0))" in src, src   # out only
    gpu = CompileOptions(boundscheck=True).for_backend("gpu")   # the same source: config.h decides
    assert compile_kernel(grid_add.py_func, (typeof(np.zeros(4, np.float32)),) * 3, gpu).source == \
        compile_kernel(grid_add.py_func, (typeof(np.zeros(4, np.float32)),) * 3, CompileOptions(
            boundscheck=True).for_backend("cpu")).source
