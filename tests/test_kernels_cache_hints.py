"""numba.cuda's cache hints, cuda.ldca ... cuda.stwt: the value loaded and stored is array[i] for every dtype
Numba allows, with int, negative and tuple indices, on global, shared and local arrays; Numba's type errors."""
import inspect

import numpy as np
import pytest

from cudajit import cuda
from cudajit.compiler import types
from cudajit.errors import TypingError
from doc_surface_util import refused

DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
          np.float16, np.float32, np.float64]


@cuda.jit
def every_hint(x, out):
    # out[k, i] = x[i] through load hint k; out[5 + k, i] = x[i] stored with store hint k
    i = cuda.grid(1)
    if i < x.size:
        out[0, i] = cuda.ldca(x, i)
        out[1, i] = cuda.ldcg(x, i)
        out[2, i] = cuda.ldcs(x, i)
        out[3, i] = cuda.ldlu(x, i)
        out[4, i] = cuda.ldcv(x, (i,))
        v = x[i]
        cuda.stcg(out, (5, i), v)
        cuda.stcs(out, (6, i), v)
        cuda.stwb(out, (7, i), v)
        cuda.stwt(out, (8, i), v)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_every_hint_every_dtype(backend, rng, dtype):
    info = np.finfo(dtype) if np.issubdtype(dtype, np.floating) else np.iinfo(dtype)
    lo, hi = (-1000, 1000) if np.issubdtype(dtype, np.floating) else (info.min, info.max)
    x = rng.uniform(lo, hi, 300).astype(dtype) if np.issubdtype(dtype, np.floating) else \
        rng.integers(lo, hi, 300, dtype=dtype, endpoint=True)
    out = np.zeros((9, x.size), dtype)
    every_hint[3, 128](x, out)
    np.testing.assert_array_equal(out, np.broadcast_to(x, out.shape))


@cuda.jit
def saxpy_streaming(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        cuda.stcs(out, i, a * cuda.ldcs(x, i) + cuda.ldcs(y, i))


def test_streaming_saxpy_on_device_arrays(backend, rng):
    x, y = (rng.standard_normal(5000).astype(np.float32) for _ in range(2))
    dx, dy = cuda.to_device(x), cuda.to_device(y)
    dout = cuda.device_array_like(dx)
    saxpy_streaming[(x.size + 255) // 256, 256](np.float32(2.5), dx, dy, dout)
    # the GPU contracts a * x + y into one fused multiply-add (as numba-cuda does): within an ulp of NumPy's
    np.testing.assert_allclose(dout.copy_to_host(), 2.5 * x.astype(np.float64) + y, rtol=1e-6, atol=1e-6)


@cuda.jit
def hints_2d_negative_and_converted(m, out):
    # 2-d tuple indices, a negative one wrapping as m[i, -1] does, and a float64 value stored into int32
    i = cuda.grid(1)
    if i < m.shape[0]:
        out[i, 0] = cuda.ldcg(m, (i, -1))
        cuda.stwt(out, (i, 1), cuda.ldcs(m, (i, 0)) * 1.5)


def test_tuple_negative_index_and_conversion(backend, rng):
    m = rng.integers(-1000, 1000, (70, 5)).astype(np.int32)
    out = np.zeros((70, 2), np.int32)
    hints_2d_negative_and_converted[1, 128](m, out)
    np.testing.assert_array_equal(out[:, 0], m[:, -1])
    np.testing.assert_array_equal(out[:, 1], (m[:, 0] * 1.5).astype(np.int32))


@cuda.jit
def hints_on_shared_and_local(x, out):
    # a hint names global memory; on a shared or local array the access is plain, and still correct
    tile = cuda.shared.array(128, np.float64)
    mine = cuda.local.array(2, np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    cuda.stcs(tile, t, x[i])
    cuda.stwb(mine, 0, x[i] * 2.0)
    cuda.syncthreads()
    out[i] = cuda.ldcs(tile, 127 - t) + cuda.ldcv(mine, 0)


def test_shared_and_local_arrays(backend, rng):
    x = rng.standard_normal(256)
    out = np.zeros_like(x)
    hints_on_shared_and_local[2, 128](x, out)
    want = x.reshape(2, 128)[:, ::-1].ravel() + 2.0 * x
    np.testing.assert_array_equal(out, want)


def test_out_of_range_index_raises_with_the_line(backend):
    @cuda.jit(boundscheck=True)
    def reads_past(x, out):
        out[0] = cuda.ldcs(x, x.size)

    line = inspect.getsourcelines(reads_past.py_func)[1] + 2
    with pytest.raises(IndexError, match=rf"In function 'reads_past', file .*test_kernels_cache_hints\.py, line {line}, "
                                         rf"tid=.*: index 4 is out of bounds for axis 0 with size 4"):
        reads_past[1, 1](np.arange(4.0), np.zeros(1))
        cuda.synchronize()


def ld_bool(b, out):
    out[0] = cuda.ldcs(b, 0)


def ld_complex(c, out):
    out[0] = cuda.ldcs(c, 0).real


def ld_float_index(x, out):
    out[0] = cuda.ldcg(x, 0.5)


def ld_too_few(m, out):
    out[0] = cuda.ldcg(m, 0)


def st_too_many(m, out):
    cuda.stcs(m, (0, 0, 0), 1.0)


def ld_not_array(x, out):
    out[0] = cuda.ldca(3.0, 0)


def st_read_only(ro, out):
    cuda.stwb(ro, 0, 1.0)


F64 = types.Array(types.float64, 1, "C")


@pytest.mark.parametrize("fn, arg, words, line", [
    (ld_bool, types.Array(types.boolean, 1, "C"), "requires array of integer or float type, not bool", "ldcs"),
    (ld_complex, types.Array(types.complex128, 1, "C"), "integer or float type, not complex128", "ldcs"),
    (ld_float_index, F64, "float64 is not a valid index", "ldcg"),
    (ld_too_few, types.Array(types.float64, 2, "C"), "Expected 2 indices, got a scalar", "ldcg"),
    (st_too_many, types.Array(types.float64, 2, "C"), "Expected 2 indices, got 3", "stcs"),
    (ld_not_array, F64, "operates on arrays or pointers", "ldca"),
    (st_read_only, types.Array(types.float64, 1, "C", readonly=True), "read-only", "stwb"),
], ids=["bool", "complex", "float-index", "too-few", "too-many", "not-array", "read-only"])
def test_numba_type_errors(fn, arg, words, line):
    refused(fn, (arg, F64), TypingError, words, line)


def hinted(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = cuda.ldca(x, i) + cuda.ldcg(x, i) + cuda.ldcs(x, i) + cuda.ldlu(x, i) + cuda.ldcv(x, i)
        cuda.stcg(out, i, v)
        cuda.stcs(out, i, v)
        cuda.stwb(out, i, v)
        cuda.stwt(out, i, v)


@pytest.mark.parametrize("dtype, bits", [("int8", 8), ("float16", 16), ("float32", 32), ("uint64", 64)])
def test_ptx_has_each_hinted_instruction(dtype, bits):
    # what the hints are for: the GPU code carries each one (compile_ptx needs NVRTC, not a GPU)
    import re
    ptx, _ = cuda.compile_ptx(hinted, f"void({dtype}[::1], {dtype}[::1])")
    found = set(re.findall(r"\b((?:ld|st)\.global\.[a-z]{2})\.[a-z]\d+", ptx))
    assert found == {f"ld.global.{op}" for op in ("ca", "cg", "cs", "lu", "cv")} | \
        {f"st.global.{op}" for op in ("cg", "cs", "wb", "wt")}, (found, bits)
