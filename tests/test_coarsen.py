"""Block coarsening of elementwise kernels (compiler/coarsen.py, src/launch.cpp's takes_coarse).

Which kernels get the coarsened entry and which parameters load through __ldg is decided by the compiler for the
GPU target: checked here on the generated source, and on the PTX NVRTC makes of it (where NVRTC is present). The
launches run on every backend against NumPy, with grids large enough that the GPU takes the coarsened entry, a
user grid not divisible by 4, and aliasing arguments that must make it launch the user's grid as it is."""
import numpy as np
import pytest

from cudajit import cuda
from cudajit.compiler import CompileOptions, compile_kernel, coarsen, types as T
from cudajit.cuda import build

GPU = CompileOptions().for_backend("gpu")
F4, I4 = T.float32, T.int32
A1 = T.Array(F4, 1, "C")
A2 = T.Array(F4, 2, "C")


def gpu_source(kernel, argtypes, options=GPU):
    return compile_kernel(kernel.py_func, argtypes, options)


def ptx_of(ks):
    """The PTX of the unit with the coarsened entry."""
    try:
        ptx = build.nvrtc(ks.coarse[2], "k.cu", build.nvrtc_options(GPU), 90, False)
    except Exception as e:            # no NVRTC on this machine
        pytest.skip(f"NVRTC is not usable here: {e}")
    return ptx.decode() if isinstance(ptx, bytes) else ptx


def entry_text(ptx, name):
    start = ptx.index(f".entry {name}(")
    end = ptx.find(".entry ", start + 1)
    return ptx[start:] if end < 0 else ptx[start:end]


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i >= out.size:
        return
    out[i] = a * x[i] + y[i]


@cuda.jit
def scale_in_place(x, a):
    i = cuda.grid(1)
    if i < x.shape[0]:
        x[i] = x[i] * a


def test_saxpy_gets_the_coarsened_entry_with_nc_loads():
    ks = gpu_source(saxpy, (F4, A1, A1, A1))
    name, read_only, unit = ks.coarse
    assert name == ks.entry + "_x4" and read_only == [1, 2]        # x and y; out is written
    assert "cj::ld_nc<cj_nc>(x_(i_))" in unit and "cj::ld_nc<cj_nc>(out" not in unit
    assert "_x4" not in ks.source                                  # the first compile's unit: the plain entry only
    ptx = ptx_of(ks)
    assert entry_text(ptx, ks.entry).count("ld.global.nc") == 0
    assert entry_text(ptx, name).count("ld.global.nc") >= 2 * coarsen.COARSE       # unrolled: each block's x, y


def test_cpu_source_is_not_coarsened():
    ks = compile_kernel(saxpy.py_func, (F4, A1, A1, A1), CompileOptions().for_backend("cpu"))
    assert ks.coarse is None and "ld_nc" not in ks.source and "_x4" not in ks.source


def _k_slice(x, out):
    i = cuda.grid(1)
    v = x[1:]
    out[i] = x[i] + v[0]


def test_sliced_parameter_is_coarsened_without_nc_loads():
    ks = compile_kernel(_k_slice, (A1, A1), GPU)
    assert ks.coarse[:2] == (ks.entry + "_x4", []) and "ld_nc" not in ks.coarse[2]


def test_written_parameter_is_not_read_only():
    ks = gpu_source(scale_in_place, (A1, F4))
    assert ks.coarse[:2] == (ks.entry + "_x4", []) and "ld_nc" not in ks.coarse[2]


@cuda.jit(device=True)
def twice(v):
    return v + v


@cuda.jit(device=True)
def where_am_i():
    return cuda.grid(1)


def _k_loop(x, out):
    i = cuda.grid(1)
    for k in range(3):
        out[i] += x[i]


def _k_sync(x, out):
    i = cuda.grid(1)
    cuda.syncthreads()
    out[i] = x[i]


def _k_shared(x, out):
    s = cuda.shared.array(32, np.float32)
    i = cuda.grid(1)
    s[0] = x[i]
    out[i] = s[0]


def _k_atomic(x, out):
    i = cuda.grid(1)
    cuda.atomic.add(out, 0, x[i])


def _k_y_axis(x, out):
    i = cuda.grid(1)
    out[i] = x[i] + cuda.threadIdx.y


def _k_identity_in_device_function(x, out):
    i = cuda.grid(1)
    out[i] = x[where_am_i()]


def _k_row_of_read_only(x, out):
    # x[i] of a 2-d x looks like an element but is a row view, which a kernel may write through
    i = cuda.grid(1)
    row = x[i]
    out[i] = row[0]


@pytest.mark.parametrize("fn", [_k_loop, _k_sync, _k_shared, _k_atomic, _k_y_axis, _k_identity_in_device_function,
                                _k_row_of_read_only], ids=lambda f: f.__name__[3:])
def test_not_elementwise_is_not_coarsened(fn):
    ks = compile_kernel(fn, (A2 if fn is _k_row_of_read_only else A1, A1), GPU)
    assert ks.coarse is None


@pytest.mark.parametrize("options", [dict(boundscheck=True), dict(debug=True, opt=False)], ids=["boundscheck", "debug"])
def test_checked_kernels_are_not_coarsened(options):
    ks = compile_kernel(saxpy.py_func, (F4, A1, A1, A1), CompileOptions(**options).for_backend("gpu"))
    assert ks.coarse is None


def _k_uses(x, y, z, w, out):
    i = cuda.grid(1)
    alias = z
    if i < len(x) and i < y.shape[0]:
        out[i] = x[i] + twice(y[i]) + alias[i] + w[i][0]


def test_read_only_is_decided_on_every_use():
    # x: len and elements; y: shape and an element passed by value: read-only. z is bound to another name and w is
    # indexed one axis at a time (w[i] is a view): neither is.
    ks = compile_kernel(_k_uses, (A1, A1, A1, A2, A1), GPU)
    assert ks.coarse[1] == [0, 1]
    ptx = ptx_of(ks)
    assert entry_text(ptx, ks.coarse[0]).count("ld.global.nc") >= 2 * coarsen.COARSE


def _k_two_d(x, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i, 0] = x[i, 0] * x[i, 1]


def test_two_dimensional_elements_are_read_only():
    ks = compile_kernel(_k_two_d, (A2, A2), GPU)
    assert ks.coarse[1] == [0]


# ---- launches, every backend -----------------------------------------------------------------------------------
N = (1 << 22) + (1 << 20) + 3      # 20481 blocks of 256: past the H100's threshold, and not divisible by 4
TPB = 256


def blocks(n):
    return (n + TPB - 1) // TPB


def coarse_launches(dispatcher):
    return sum(o.kernel.coarse_launches for o in dispatcher.overloads.values())


@cuda.jit
def identity(tid, bid, bdim, gdim, g, gs):
    i = cuda.grid(1)
    if i >= g.size:
        return
    tid[i] = cuda.threadIdx.x
    bid[i] = cuda.blockIdx.x
    bdim[i] = cuda.blockDim.x
    gdim[i] = cuda.gridDim.x
    g[i] = i
    gs[i] = cuda.gridsize(1)


def test_identity_is_the_users_grid(backend):
    outs = [cuda.device_array(N, np.int32) for _ in range(4)] + [cuda.device_array(N, np.int64) for _ in range(2)]
    before = coarse_launches(identity)
    identity[blocks(N), TPB](*outs)
    tid, bid, bdim, gdim, g, gs = (o.copy_to_host() for o in outs)
    i = np.arange(N)
    np.testing.assert_array_equal(tid, i % TPB)
    np.testing.assert_array_equal(bid, i // TPB)
    np.testing.assert_array_equal(bdim, np.full(N, TPB))
    np.testing.assert_array_equal(gdim, np.full(N, blocks(N)))
    np.testing.assert_array_equal(g, i)
    np.testing.assert_array_equal(gs, np.full(N, blocks(N) * TPB))
    if backend == "gpu":
        assert coarse_launches(identity) == before + 1


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8, np.float16, np.int64])
def test_saxpy_matches_numpy(backend, dtype):
    rng = np.random.default_rng(7)
    xh = (rng.random(N) * 100).astype(dtype)
    yh = (rng.random(N) * 100).astype(dtype)
    a = dtype(3)
    x, y = cuda.to_device(xh), cuda.to_device(yh)
    out = cuda.device_array(N, dtype)
    before = coarse_launches(saxpy)
    saxpy[blocks(N), TPB](a, x, y, out)
    want = a * xh + yh
    if np.issubdtype(dtype, np.floating):
        np.testing.assert_allclose(out.copy_to_host(), want, rtol=2e-3 if dtype == np.float16 else 1e-6)
    else:
        np.testing.assert_array_equal(out.copy_to_host(), want)
    if backend == "gpu":
        assert coarse_launches(saxpy) == before + 1


def test_aliasing_arguments_launch_the_users_grid(backend):
    rng = np.random.default_rng(8)
    xh, yh = rng.random(N, dtype=np.float32), rng.random(N, dtype=np.float32)
    x, y = cuda.to_device(xh), cuda.to_device(yh)
    before = coarse_launches(saxpy)
    saxpy[blocks(N), TPB](np.float32(2), x, y, x)                 # out is x: x[i] is read after other blocks wrote
    np.testing.assert_allclose(x.copy_to_host(), np.float32(2) * xh + yh, rtol=1e-6)
    both = cuda.to_device(np.concatenate([xh, yh]))
    saxpy[blocks(N), TPB](np.float32(2), both[:N], both[N:], both[N // 2:N // 2 + N])  # out overlaps x and y
    want = np.concatenate([xh, yh])
    np.testing.assert_allclose(both.copy_to_host()[:N // 2], want[:N // 2])
    if backend == "gpu":
        assert coarse_launches(saxpy) == before


def test_small_two_dimensional_and_shared_memory_launches_as_given(backend):
    rng = np.random.default_rng(9)
    xh, yh = rng.random(N, dtype=np.float32), rng.random(N, dtype=np.float32)
    x, y = cuda.to_device(xh), cuda.to_device(yh)
    out = cuda.device_array(N, np.float32)
    before = coarse_launches(saxpy)
    saxpy[(blocks(N) // 2, 2), TPB](np.float32(2), x, y, out)     # 2-d grid: blockIdx.y is not read, so half
    got = out.copy_to_host()
    half = blocks(N) // 2 * TPB
    np.testing.assert_allclose(got[:half], (np.float32(2) * xh + yh)[:half], rtol=1e-6)
    shared = cuda.device_array(N, np.float32)
    saxpy[blocks(N), TPB, 0, 64](np.float32(2), x, y, shared)     # dynamic shared memory it does not use
    np.testing.assert_allclose(shared.copy_to_host(), np.float32(2) * xh + yh, rtol=1e-6)
    small = cuda.device_array(1000, np.float32)
    saxpy[4, 256](np.float32(2), x[:1000], y[:1000], small)
    np.testing.assert_allclose(small.copy_to_host(), (np.float32(2) * xh + yh)[:1000], rtol=1e-6)
    if backend == "gpu":
        assert coarse_launches(saxpy) == before


@cuda.jit
def clipped(x, out, lo, hi):
    i = cuda.grid(1)
    if i >= out.size:
        return
    v = x[i]
    if v < lo:
        out[i] = lo
        return
    out[i] = twice(v) if v < hi else hi


def test_early_returns_and_device_functions(backend):
    xh = np.random.default_rng(10).random(N, dtype=np.float32)
    x, out = cuda.to_device(xh), cuda.device_array(N, np.float32)
    before = coarse_launches(clipped)
    clipped[blocks(N), TPB](x, out, np.float32(0.25), np.float32(0.75))
    want = np.where(xh < 0.25, np.float32(0.25), np.where(xh < 0.75, xh + xh, np.float32(0.75)))
    np.testing.assert_array_equal(out.copy_to_host(), want)
    if backend == "gpu":
        assert coarse_launches(clipped) == before + 1


@cuda.jit
def add_one(x, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] + 1


def test_graph_capture_before_and_after_the_coarsened_entry_exists(backend):
    # The coarsened unit is compiled by the first launch that takes it, never inside a capture: a capture before it
    # exists records the plain entry, one after it the coarsened one; both replay the same work.
    xh = np.random.default_rng(11).random(N, dtype=np.float32)
    x = cuda.to_device(xh)
    outs = [cuda.device_array(N, np.float32) for _ in range(3)]
    s = cuda.stream()
    with cuda.graph(s) as g1:
        add_one[blocks(N), TPB, s](x, outs[0])
    captured_first = coarse_launches(add_one)
    add_one[blocks(N), TPB](x, outs[1])
    with cuda.graph(s) as g2:
        add_one[blocks(N), TPB, s](x, outs[2])
    g1.launch()
    g2.launch()
    s.synchronize()
    for out in outs:
        np.testing.assert_array_equal(out.copy_to_host(), xh + 1)
    if backend == "gpu":
        assert captured_first == 0 and coarse_launches(add_one) == 2
