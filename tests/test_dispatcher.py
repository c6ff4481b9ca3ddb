"""The decorator and kernel-object API (``cuda.jit`` and what it returns), against NumPy on random data:
lazy specialization per argument types, eager signatures, options, kernel-object methods (specialize,
inspect_*, forall, launch configurations), launch errors, argument kinds (device, NumPy, In/Out/InOut,
``__cuda_array_interface__``) and tuple arguments.

Kernels are few and shared (each kernel and signature is a C++ compile); tests that count signatures or
compiles use a fresh dispatcher over the same Python function, whose code the disk cache already holds.
"""
import io
import math
import os
import re

import numpy as np
import pytest

from cudajit import _core, boolean, complex128, cuda, float32, float64, int16, int32, int64, void
from cudajit import compiler as cj_compiler
from cudajit.errors import CudaSupportError, LaunchError, TypingError

UniTuple, Tuple = cuda.types.UniTuple, cuda.types.Tuple


# ---- shared kernels ----------------------------------------------------------------------------------

@cuda.jit
def axpy(out, a, x):
    i = cuda.grid(1)
    if i < out.size:                      # no grid-stride loop: forall must launch a thread per element
        out[i] = a * x[i] + out[i]


@cuda.jit
def scale2d(out, x, a):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = x[i, j] * a


@cuda.jit
def bump(a, b):
    # Reads a, writes b, and overwrites a: shows which way each array was copied.
    i = cuda.grid(1)
    if i < a.size:
        b[i] = a[i] * 2.0 + 1.0
        a[i] = -a[i]


@cuda.jit
def reverse_blocks(out, x):
    buf = cuda.shared.array(0, dtype=np.float64)     # dynamic shared memory: size from the launch
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if i < x.size:
        buf[t] = x[i]
    cuda.syncthreads()
    if i < x.size:
        out[i] = buf[cuda.blockDim.x - 1 - t]


@cuda.jit
def sum12(out, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11):
    # thirteen arrays: a dispatch key longer than the core's stack buffer for one (launch.h, DispatchKey)
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a0[i] + a1[i] + a2[i] + a3[i] + a4[i] + a5[i] + a6[i] + a7[i] + a8[i] + a9[i] + a10[i] + a11[i]


def add_into(r, x, y):              # compiled per test with its own signatures (cuda.jit(...)(add_into))
    r[0] = x + y


@cuda.jit("void(float32[:], int32)")
def fill(a, v):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = v * (i + 1)


@cuda.jit(["void(float32[:], int32)", "void(float64[:], float64)"])
def fill_multi(a, v):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = v * (i + 1)


@cuda.jit(void(float32[:, ::1], int64))
def fill2d(a, v):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        a[i, j] = v + i * a.shape[1] + j


@cuda.jit
def tup_affine(t, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = t[0] * i + t[1]


@cuda.jit
def tup_nested(t, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = t[0] + t[1][0] * t[1][1] * i


@cuda.jit
def tup_arrays(p, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = p[0][i] + p[1][i]
        p[1][i] = p[0][i] * 3.0


@cuda.jit
def tup_horner(coef, x, out):
    i = cuda.grid(1)
    if i < out.size:
        s = 0.0
        for j in range(len(coef)):        # the tuple indexed by a loop variable
            s = s * x[i] + coef[j]
        out[i] = s


def opt_body(out, x):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = math.sqrt(x[i]) / (x[i] + 1.0)


def opt_ref(x):
    return (np.sqrt(x) / (x.astype(np.float64) + 1.0)).astype(np.float32)


@cuda.jit(device=True)
def dev_plain(x):
    return x * x + 1.0


@cuda.jit(device=True, inline=True)
def dev_inline(x):
    return 2.0 * x


@cuda.jit(device=True, inline="always")
def dev_always(x):
    return x - 0.5


@cuda.jit("float64(float64)", device=True)
def dev_eager(x):
    return x / 4.0


@cuda.jit
def dev_calls(out, x):
    i = cuda.grid(1)
    if i < out.size:
        v = x[i]
        out[i] = dev_plain(v) + dev_inline(v) * dev_always(v) + dev_eager(v)


# ---- helpers -----------------------------------------------------------------------------------------

@pytest.fixture
def compiles(monkeypatch):
    """Counts the compiler's kernel translations (each new specialization is one)."""
    calls = []
    real = cj_compiler.compile_kernel

    def counting(pyfunc, argtypes, options=None):
        calls.append(tuple(argtypes))
        return real(pyfunc, argtypes, options)
    monkeypatch.setattr(cj_compiler, "compile_kernel", counting)
    return calls


def ptx_of(kernel, sig):
    """The kernel's PTX, or None where NVRTC is missing (then inspect_asm must say so clearly)."""
    if not _core.nvrtc_available()[0]:
        with pytest.raises(CudaSupportError, match="NVRTC"):
            kernel.inspect_asm(sig)
        return None
    return kernel.inspect_asm(sig)


def randn(rng, n, dtype=np.float64):
    return (rng.random(n) + 0.5).astype(dtype)


# ---- lazy compilation: one specialization per argument types ---------------------------------------

def test_lazy_one_specialization_per_scalar_type(backend, rng, compiles):
    k = cuda.jit(axpy.py_func)
    assert k.signatures == [] and k.overloads == {}
    n = 40
    x = randn(rng, n, np.complex128) + 1j * randn(rng, n)
    out0 = randn(rng, n, np.complex128)
    c1 = complex128[::1]
    cases = [(int(rng.integers(2, 9)), int64), (float(rng.uniform(1, 2)), float64), (True, boolean),
             (complex(rng.uniform(1, 2), -rng.uniform(1, 2)), complex128),
             (np.float32(rng.uniform(1, 2)), float32), (np.int16(rng.integers(2, 9)), int16)]
    for rnd in range(2):                  # the second round finds every specialization compiled
        for a, t in cases:
            out = out0.copy()
            k[1, 64](out, a, x)
            np.testing.assert_allclose(out, a * x + out0, rtol=1e-12)
        assert k.signatures == [(c1, t, c1) for _, t in cases]
        assert set(k.overloads) == set(k.signatures)
        assert compiles == k.signatures
    # np.int64, np.longlong (another class of int64's dtype on Linux, what a 'q' array's elements are) and a Python
    # int are one type: a new dispatch key, but no new compile
    for a in (np.int64(3), np.array([4], "q")[0]):
        out = out0.copy()
        k[1, 64](out, a, x)
        np.testing.assert_allclose(out, int(a) * x + out0, rtol=1e-12)
    assert len(compiles) == len(cases) == len(k.signatures)


def test_lazy_one_specialization_per_array_type(backend, rng, compiles):
    k = cuda.jit(scale2d.py_func)
    base = rng.random((10, 14)) + 0.5
    a = float(rng.uniform(1, 3))
    views = [("C", base[:5, :7].copy()), ("F", np.asfortranarray(base[:5, :7])),
             ("A", cuda.to_device(base)[::2, ::2])]          # a strided device view has layout A
    for rnd in range(2):
        for layout, x in views:
            out = cuda.device_array((5, 7))
            k[(2, 2), (4, 4)](out, x, a)
            host = x.copy_to_host() if hasattr(x, "copy_to_host") else x
            np.testing.assert_array_equal(out.copy_to_host(), host * a)
    assert k.signatures == [(float64[:, ::1], float64[:, ::1], float64), (float64[:, ::1], float64[::1, :], float64),
                            (float64[:, ::1], float64[:, :], float64)]
    assert len(compiles) == 3
    # dtype and ndim are part of the type too
    k1 = cuda.jit(axpy.py_func)
    for dt in (np.float32, np.float64):
        x, out = randn(rng, 30, dt), randn(rng, 30, dt)
        ref = np.float32(2) * x + out if dt == np.float32 else 2.0 * x + out
        k1[1, 32](out, dt(2), x)
        np.testing.assert_allclose(out, ref, rtol=1e-6)
    assert [s[0] for s in k1.signatures] == [float32[::1], float64[::1]]


# ---- eager signatures ------------------------------------------------------------------------------

def test_eager_string_signature(backend, rng, compiles):
    assert fill.signatures == [(float32[:], int32)]
    a = randn(rng, 50, np.float32)
    for v in (int(rng.integers(2, 99)), np.int32(rng.integers(2, 99)), np.int64(rng.integers(2, 99))):
        fill[1, 64](a, v)                 # a Python int converts to the declared int32
        np.testing.assert_array_equal(a, np.float32(int(v) * np.arange(1, 51)))
    assert fill.signatures == [(float32[:], int32)]
    assert set(compiles) <= {(float32[:], int32)}   # at most the declared one (for another backend)
    for bad in [(randn(rng, 50), 3), (randn(rng, (5, 10), np.float32), 3), (a, 2.5), (a, 1 + 2j)]:
        with pytest.raises(TypeError, match=r"fill.*No matching definition"):
            fill[1, 64](*bad)
    assert fill.signatures == [(float32[:], int32)]


def test_eager_tuple_of_argument_types(backend, rng):
    k = cuda.jit((float32[:], int32))(fill.py_func)   # one signature, no return type (Numba's form)
    assert k.signatures == [(float32[:], int32)] and k.specialized
    a = randn(rng, 12, np.float32)
    v = int(rng.integers(2, 99))
    k[1, 16](a, v)
    np.testing.assert_array_equal(a, np.float32(v * np.arange(1, 13)))


def test_eager_single_signature_is_specialized(backend, rng):
    # Numba: one signature (not a list) makes a specialized dispatcher: it has one kernel, its get_*
    # methods answer for it without a signature, and it cannot be specialized again.
    assert fill.specialized and fill2d.specialized and not fill_multi.specialized
    assert fill.get_max_threads_per_block() == fill.get_max_threads_per_block(fill.signatures[0]) > 0
    assert isinstance(fill_multi.get_max_threads_per_block(), dict)
    with pytest.raises(RuntimeError):
        fill.specialize(randn(rng, 4, np.float32), 1)


@cuda.jit("void(int32[:, :], int32[:], int32)")
def sub_and_bits(a, bits, mask):
    # a -= 1 by atomics; bits[i] = mask & (a value's bits), bits[-1] = clz(mask)
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        old = cuda.atomic.sub(a, (i, j), 1)
        bits[i * a.shape[1] + j] = old & mask
    if i == 0 and j == 0:
        bits[bits.size - 1] = cuda.clz(mask)


@cuda.jit("void(uint32[:], uint32)")
def put_u32(out, v):
    out[0] = v


@cuda.jit("void(int64[:], int64, uint64[:], uint64)")
def put_64(out, v, uout, u):
    out[0] = v
    uout[0] = u


def test_eager_specialized_signature_takes_what_numba_cuda_passes(backend, rng):
    # A dispatcher of one signature launches as numba-cuda's does: an integer array of the other sign (uint32 for
    # int32[:, :]) is read as the declared type, and a Python int passes as its bit pattern in the parameter's width
    # (0xFFFFFFFF for int32 is -1, as ctypes packs it). Values beyond the width and arrays of another size or ndim
    # are refused.
    ary = rng.integers(0, 2 ** 32, size=(4, 8), dtype=np.uint32)
    orig = ary.copy()
    bits = np.zeros(33, np.uint32)
    mask = int(rng.integers(2 ** 31, 2 ** 32))          # past int32: its 32-bit pattern
    sub_and_bits[1, (4, 8)](ary, bits, mask)
    np.testing.assert_array_equal(ary, orig - np.uint32(1))           # uint32 arithmetic: 0 - 1 wraps
    np.testing.assert_array_equal(bits[:32], orig.ravel() & np.uint32(mask))
    assert bits[32] == 0                                  # clz of a negative int32
    d = cuda.to_device(ary)
    sub_and_bits[1, (4, 8)](d, cuda.to_device(bits), -1)
    np.testing.assert_array_equal(d.copy_to_host(), orig - np.uint32(2))
    out = np.zeros(1, np.uint32)
    v = int(rng.integers(1, 2 ** 31))
    put_u32[1, 1](out, -v)                                # a negative int for uint32: its pattern
    assert out[0] == 2 ** 32 - v
    o64, u64 = np.zeros(1, np.int64), np.zeros(1, np.uint64)
    big = int(rng.integers(2 ** 63, 2 ** 64, dtype=np.uint64))
    put_64[1, 1](o64, big, u64, -v)
    assert o64[0] == big - 2 ** 64 and u64[0] == 2 ** 64 - v
    for bad, where in ((2 ** 32, "4294967296 is out of range for int32"), (-2 ** 31 - 1, "-2147483649 is out")):
        with pytest.raises(OverflowError, match=f"sub_and_bits.*mask.*{where}"):
            sub_and_bits[1, 1](ary, bits, bad)
    with pytest.raises(OverflowError, match="18446744073709551616 is out of range for int64"):
        put_64[1, 1](o64, 2 ** 64, u64, 0)
    with pytest.raises(OverflowError, match=r"-9223372036854775809 is out of range for uint64.*from -9223372036854775808"):
        put_64[1, 1](o64, 0, u64, -2 ** 63 - 1)
    for wrong in (ary.astype(np.float32), ary.astype(np.int16), ary.ravel()):
        with pytest.raises(TypeError, match="sub_and_bits.*No matching definition"):
            sub_and_bits[1, 1](wrong, bits, 1)
    with pytest.raises(TypeError, match="No matching definition"):    # a list of signatures matches by type
        cuda.jit(["void(int32[:, :], int32[:], int32)"])(sub_and_bits.py_func)[1, 1](ary, bits, 1)


def test_eager_signature_list_picks_the_matching_one(backend, rng):
    assert fill_multi.signatures == [(float32[:], int32), (float64[:], float64)]
    a32, a64 = randn(rng, 30, np.float32), randn(rng, 30)
    v = int(rng.integers(2, 99))
    fill_multi[1, 32](a32, v)
    np.testing.assert_array_equal(a32, np.float32(v * np.arange(1, 31)))
    w = float(rng.uniform(1, 2))           # not an int: the float64 overload must run
    fill_multi[1, 32](a64, w)
    np.testing.assert_array_equal(a64, w * np.arange(1, 31))
    with pytest.raises(TypeError, match="No matching definition"):
        fill_multi[1, 32](a32.astype(np.int64), v)
    assert len(fill_multi.signatures) == 2


def test_eager_prefers_exact_match_over_narrowing(backend, rng):
    # The float32 overload comes first, but a Python float is float64: Numba picks the exact match.
    k = cuda.jit(["void(float64[:], float32)", "void(float64[:], float64)"])(fill.py_func)
    a = randn(rng, 20)
    w = float(rng.uniform(0.1, 0.2))
    k[1, 32](a, w)
    np.testing.assert_array_equal(a, w * np.arange(1, 21))
    k[1, 32](a, np.float32(w))
    np.testing.assert_array_equal(a, np.float64(np.float32(w)) * np.arange(1, 21))


def test_eager_choice_is_typeconvs_resolution(backend, rng):
    # int32 -> int64 is a promotion, int32 -> float64 a safe conversion: typeconv.resolve (the compiler's overload
    # ranking) prefers the promotion though the float64 overload is declared first, and the dispatcher asks it.
    from cudajit.compiler import typeconv, types
    sigs = ["void(float64[:], float64)", "void(float64[:], int64)"]
    assert typeconv.resolve([(None, (types.float64[:], t)) for t in (types.float64, types.int64)],
                            [types.float64[::1], types.int32])[1][1] == types.int64
    k = cuda.jit(sigs)(fill.py_func)
    a = randn(rng, 20)
    v = np.int32(rng.integers(2, 99))
    k[1, 32](a, v)
    np.testing.assert_array_equal(a, v * np.arange(1, 21))
    assert k._eager_match((float64[::1], int32)).signature.args[1] == int64      # the overload the call ran


def test_eager_ambiguous_signatures_raise_numbas_type_error(backend, rng):
    # float64 arguments to (float32, float64) and (float64, float32): one unsafe conversion each, rated alike. Numba
    # refuses to pick ("Ambiguous overloading"), naming the two best and not the int64 one; an exact or a better
    # match among the same signatures still launches.
    k = cuda.jit(["void(float64[::1], float32, float64)", "void(float64[::1], float64, float32)",
                  "void(float64[::1], int64, int64)"])(add_into)
    r = np.zeros(1)
    with pytest.raises(TypeError, match="Ambiguous overloading") as e:
        k[1, 1](r, 1.0, 2.0)
    assert "float32, float64" in str(e.value) and "float64, float32" in str(e.value)
    assert "int64" not in str(e.value)
    x, y = float(rng.uniform(1, 2)), float(rng.uniform(1, 2))
    k[1, 1](r, np.float32(x), y)                              # exact: the first signature
    assert r[0] == np.float64(np.float32(x)) + y
    k[1, 1](r, x, np.float32(y))                              # exact: the second
    assert r[0] == x + np.float64(np.float32(y))
    a, b = (int(v) for v in rng.integers(-99, 99, 2))
    k[1, 1](r, a, b)
    assert r[0] == a + b


def test_eager_type_objects(backend, rng):
    assert fill2d.signatures == [(float32[:, ::1], int64)]
    a = rng.random((6, 9)).astype(np.float32) + 0.5
    v = int(rng.integers(2, 99))
    fill2d[(1, 2), (8, 8)](a, v)
    np.testing.assert_array_equal(a, (v + np.arange(54)).reshape(6, 9).astype(np.float32))
    with pytest.raises(TypeError, match="fill2d"):
        fill2d[(1, 2), (8, 8)](np.asfortranarray(a), v)          # declared C-contiguous
    with pytest.raises(TypeError, match="fill2d"):
        fill2d[(1, 2), (8, 8)](cuda.to_device(a)[:, ::2], v)     # layout A


def test_kernel_signature_must_return_void():
    with pytest.raises(TypeError, match="void"):
        cuda.jit("int32(float32[:])")(fill.py_func)


@pytest.mark.parametrize("keyword", ["argtypes", "restype", "bind"])
def test_removed_signature_keywords_say_what_replaces_them(keyword):
    """numba-cuda's DeprecationError for the first API's keywords (``cuda.jit(argtypes=(float32[:],))``)."""
    from cudajit.core.errors import DeprecationError
    with pytest.raises(DeprecationError, match=f"`{keyword}`.*first positional argument"):
        cuda.jit(**{keyword: (float32[:],)})(fill.py_func)


# ---- options ---------------------------------------------------------------------------------------

def _run_opt(k, rng, block=64, n=100):
    x = randn(rng, n, np.float32)
    out = np.zeros(n, np.float32)
    k[(n + block - 1) // block, block](out, x)
    return out, opt_ref(x)


def test_fastmath(backend, rng):
    k = cuda.jit(fastmath=True)(opt_body)
    out, ref = _run_opt(k, rng)
    np.testing.assert_allclose(out, ref, rtol=2e-6)
    ptx = ptx_of(k, k.signatures[0])
    if ptx is not None:
        assert re.search(r"sqrt\.approx", ptx)                   # --use_fast_math reached NVRTC
        plain = cuda.jit(opt_body)
        _run_opt(plain, rng)
        assert not re.search(r"sqrt\.approx", plain.inspect_asm(plain.signatures[0]))


def test_fastmath_keeps_nan_checks(backend, rng):
    # numba-cuda's fastmath is flush-to-zero, approximate division and sqrt, and FMA contraction: NaN checks stay.
    k = cuda.jit(fastmath=True)(_nan_to_neg)
    x = randn(rng, 16)
    x[::3] = np.nan
    out = np.zeros(16)
    k[1, 16](out, x)
    np.testing.assert_array_equal(out, np.where(np.isnan(x), -1.0, x))
    # Loading a fastmath kernel must leave this process's floating point alone (no flush-to-zero of subnormals).
    assert np.float64(1e-310) * np.float64(0.5) != 0.0


def _nan_to_neg(out, x):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = -1.0 if math.isnan(x[i]) else x[i]


def test_lineinfo(backend, rng):
    k = cuda.jit(lineinfo=True)(opt_body)
    out, ref = _run_opt(k, rng)
    np.testing.assert_array_equal(out, ref)
    sig = k.signatures[0]
    assert f'"{__file__}"' in k.inspect_source(sig)          # #line directives point at this file
    ptx = ptx_of(k, sig)
    if ptx is not None:
        assert re.search(r"\.loc\s", ptx) and os.path.basename(__file__) in ptx


def test_debug_without_opt(backend, rng):
    k = cuda.jit(debug=True, opt=False)(opt_body)
    out, ref = _run_opt(k, rng)
    np.testing.assert_array_equal(out, ref)
    ptx = ptx_of(k, k.signatures[0])
    if ptx is not None:
        assert ".debug_info" in ptx


def test_max_registers(backend, rng):
    k = cuda.jit(max_registers=32)(opt_body)
    out, ref = _run_opt(k, rng)
    np.testing.assert_array_equal(out, ref)
    if backend == "gpu":
        assert 0 < k.get_regs_usage(k.signatures[0]) <= 32
        assert k.get_regs_per_thread() == {k.signatures[0]: k.get_regs_usage(k.signatures[0])}


def _cached_body(out, x):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] * 3.0 - 1.0


def test_cache(backend, rng, tmp_path, monkeypatch):
    monkeypatch.setenv("CUDAJIT_CACHE_DIR", str(tmp_path))
    x = randn(rng, 50)
    k = cuda.jit(cache=True)(_cached_body)
    out = np.zeros(50)
    k[1, 64](out, x)
    np.testing.assert_allclose(out, x * 3.0 - 1.0, rtol=1e-15)    # the GPU may contract to an FMA
    def entries():    # the kernel's files; the host compiler's precompiled header is built beside them meanwhile
        return sorted(f for f in os.listdir(tmp_path) if not f.startswith(("pch-", "tmp-")))
    stored = entries()
    assert stored, "a cache=True kernel left nothing in the disk cache"
    k2 = cuda.jit(cache=True)(_cached_body)          # a new dispatcher loads the same code from disk
    out2 = np.zeros(50)
    k2[1, 64](out2, x)
    np.testing.assert_array_equal(out2, out)
    assert entries() == stored


@pytest.mark.parametrize("bounds, text, ptx_pats", [
    (128, "CJ_LAUNCH_BOUNDS(128, 0)", [r"\.maxntid 128, 1, 1"]),
    ((256, 2), "CJ_LAUNCH_BOUNDS(256, 2)", [r"\.maxntid 256, 1, 1", r"\.minnctapersm 2"]),
])
def test_launch_bounds(backend, rng, bounds, text, ptx_pats):
    k = cuda.jit(launch_bounds=bounds)(opt_body)
    block = bounds if isinstance(bounds, int) else bounds[0]
    out, ref = _run_opt(k, rng, block=block, n=3 * block + 5)
    np.testing.assert_array_equal(out, ref)
    sig = k.signatures[0]
    assert text in k.inspect_source(sig)
    ptx = ptx_of(k, sig)
    if ptx is not None:
        for pat in ptx_pats:
            assert re.search(pat, ptx), pat
    assert k.get_max_threads_per_block(sig) <= block
    with pytest.raises(LaunchError, match=r"kernel 'opt_body': \d+ threads per block exceed"):
        k[1, 2 * block](np.zeros(8, np.float32), randn(rng, 8, np.float32))   # over the bound, on both backends


def test_device_functions_and_inline(backend, rng):
    x = randn(rng, 70)
    out = np.zeros(70)
    dev_calls[2, 64](out, x)
    np.testing.assert_allclose(out, (x * x + 1.0) + (2.0 * x) * (x - 0.5) + x / 4.0, rtol=1e-15)
    src = dev_calls.inspect_source(dev_calls.signatures[0])
    for name, qual in [("dev_inline", "CJ_FORCEINLINE_DEVICE"), ("dev_always", "CJ_FORCEINLINE_DEVICE"),
                       ("dev_plain", "CJ_DEVICE"), ("dev_eager", "CJ_DEVICE")]:
        assert re.search(rf"^{qual} double cj_dev_{name}_\d+\(", src, re.M), name
    with pytest.raises(TypeError, match="dev_plain"):
        dev_plain(1.5)                    # device functions run only inside kernels
    assert dev_eager.py_func(2.0) == 0.5


# ---- kernel-object methods -------------------------------------------------------------------------

def test_specialize(backend, rng):
    n = 50
    x, out0 = randn(rng, n), randn(rng, n)
    a = float(rng.uniform(1, 2))
    sk = axpy.specialize(out0, a, x)
    assert sk.specialized and not axpy.specialized
    assert sk.signatures == [(float64[::1], float64, float64[::1])]
    assert axpy.specialize(out0, a, x) is sk
    out = out0.copy()
    sk[1, 64](out, a, x)
    np.testing.assert_allclose(out, a * x + out0, rtol=1e-15)
    dout = cuda.to_device(out0)
    sk[1, 64](dout, a, cuda.to_device(x))                   # device arrays of the same type
    np.testing.assert_allclose(dout.copy_to_host(), a * x + out0, rtol=1e-15)
    assert len(sk.signatures) == 1
    with pytest.raises(TypeError, match="axpy"):
        sk[1, 64](out.astype(np.float32), a, x.astype(np.float32))
    with pytest.raises(RuntimeError, match="Dispatcher already specialized"):   # numba-cuda's words
        sk.specialize(out0, a, x)
    assert any(d is sk for d in axpy.specializations.values())


def test_specialize_for_types(backend, rng):
    # numba-cuda's specialize also takes types: one dispatcher per argument types, kept in ``specializations``.
    k = cuda.jit(axpy.py_func)
    assert len(k.specializations) == 0
    s64 = k.specialize(float64[::1], float64, float64[::1])
    assert k.specialize(float64[::1], float64, float64[::1]) is s64 and len(k.specializations) == 1
    s32 = k.specialize(float32[::1], float32, float32[::1])
    assert s32 is not s64 and len(k.specializations) == 2
    assert s32.signatures == [(float32[::1], float32, float32[::1])]
    x, out0 = rng.random(40).astype(np.float32), rng.random(40).astype(np.float32)
    out = out0.copy()
    s32[1, 64](out, np.float32(2.5), x)
    np.testing.assert_allclose(out, np.float32(2.5) * x + out0, rtol=1e-6)   # the GPU fuses a multiply-add
    with pytest.raises(RuntimeError, match="Dispatcher already specialized"):
        s32.specialize(float64[::1], float64, float64[::1])


@pytest.mark.parametrize("carveout, percent", [("MaxL1", 0), ("maxshared", 100), ("default", -1), (0, 0),
                                               (50, 50), (100, 100), (-1, -1)])
def test_shared_memory_carveout(backend, rng, carveout, percent):
    # numba-cuda's option: a percentage of the unified L1/shared memory (or its names); the GPU's function gets it
    # (a hint: results are the same), the CPU backend keeps only the check.
    k = cuda.jit(shared_memory_carveout=carveout)(axpy.py_func)
    assert k.targetoptions["shared_memory_carveout"] == percent
    x, out0 = randn(rng, 300), randn(rng, 300)
    out = out0.copy()
    k[3, 128](out, 1.5, x)
    np.testing.assert_allclose(out, 1.5 * x + out0, rtol=1e-15)   # the GPU fuses a multiply-add
    kernel = next(iter(k.overloads.values())).kernel
    assert kernel.shared_memory_carveout == percent


@pytest.mark.parametrize("carveout, error, text", [(150, ValueError, "must be between -1 and 100"),
                                                   (-2, ValueError, "must be between -1 and 100"),
                                                   ("InvalidOption", ValueError, "Invalid carveout value"),
                                                   (1.5, TypeError, "must be str or int, got float")])
def test_shared_memory_carveout_refused(carveout, error, text):
    with pytest.raises(error, match=text):
        cuda.jit(shared_memory_carveout=carveout)(axpy.py_func)
    with pytest.raises(error, match=text):
        cuda.jit("void(float64[::1], float64, float64[::1])", shared_memory_carveout=carveout)(axpy.py_func)
    with pytest.raises(ValueError, match="between -1 and 100"):     # the core checks too
        next(iter(cuda.jit("void(float64[::1], float64, float64[::1])")(axpy.py_func).overloads.values())) \
            .kernel.shared_memory_carveout = 101


def test_inspect_types_and_source(backend, rng, capsys):
    x, out = randn(rng, 8), randn(rng, 8)
    axpy[1, 8](out, 2.0, x)
    sig = (float64[::1], float64, float64[::1])
    assert sig in axpy.signatures
    buf = io.StringIO()
    axpy.inspect_types(file=buf, signature=sig)
    text = buf.getvalue()
    assert "axpy" in text and "array(float64, 1d, C)" in text and "i :: int64" in text
    axpy.inspect_types()                                    # every signature, to stdout
    assert "array(float64, 1d, C)" in capsys.readouterr().out

    sources = axpy.inspect_source()
    assert isinstance(sources, dict) and set(sources) == set(axpy.signatures)
    src = sources[sig]
    assert "#include <cudajit/runtime.h>" in src and re.search(r"CJ_GLOBAL void cj_k_axpy_\d+\(", src)
    assert "cj::Array<double, 1, cj::C>" in src
    assert axpy.inspect_source(sig) == src
    assert axpy.inspect_source(void(*sig)) == src
    assert axpy.inspect_source("void(float64[::1], float64, float64[::1])") == src
    with pytest.raises(KeyError):
        axpy.inspect_source((int16[::1], int16, int16[::1]))


def test_inspect_asm(backend, rng):
    x, out = randn(rng, 8), randn(rng, 8)
    axpy[1, 8](out, 2.0, x)
    sig = (float64[::1], float64, float64[::1])
    if backend == "cpu" and not _core.nvrtc_available()[0]:
        with pytest.raises(CudaSupportError, match="NVRTC"):
            axpy.inspect_asm(sig)
        return
    ptx = axpy.inspect_asm(sig)           # on the CPU backend: PTX for sm_90, as documented
    assert re.search(r"\.visible \.entry cj_k_axpy_\d+\(", ptx)
    if backend == "cpu":
        assert re.search(r"\.target sm_90", ptx)
    everything = axpy.inspect_asm()
    assert set(everything) == set(axpy.signatures) and everything[sig] == ptx


def test_inspect_asm_of_a_device_function():
    """A device function's PTX, with its own options (numba-cuda's device dispatcher): fastmath reaches NVRTC,
    and opt=False leaves a * b + c unfused as NVVM's -opt=0 does (results then match numba-cuda's)."""
    def mul_add(x, y, z):
        return x * y + z

    sig = (float64, float64, float64)
    plain = cuda.jit(sig, device=True)(mul_add)
    if not _core.nvrtc_available()[0]:
        with pytest.raises(CudaSupportError, match="NVRTC"):
            plain.inspect_asm(sig)
        return
    ptx = plain.inspect_asm(sig)
    assert re.search(r"\.visible \.func .*mul_add", ptx) and "fma.rn.f64" in ptx
    assert plain.inspect_asm() == {sig: ptx}
    assert "fma.rn.f64" not in cuda.jit(sig, device=True, opt=False)(mul_add).inspect_asm(sig)
    f32 = (float32,)
    fast = cuda.jit(f32, device=True, fastmath=True)(_sqrt_of)
    assert "sqrt.approx" in fast.inspect_asm(f32)
    assert "sqrt.approx" not in cuda.jit(f32, device=True)(_sqrt_of).inspect_asm()[f32]


def _sqrt_of(x):
    return math.sqrt(x)


def test_forall(backend, rng):
    n = 1000                                      # not a multiple of any block size
    x, out0 = randn(rng, n), randn(rng, n)
    a = float(rng.uniform(1, 2))
    for launcher in (axpy.forall(n), axpy.forall(n, tpb=64), axpy.forall(n, 96, 0, 0)):
        out = out0.copy()
        launcher(out, a, x)
        np.testing.assert_allclose(out, a * x + out0, rtol=1e-15)
    out = out0.copy()
    axpy.forall(0)(out, a, x)                     # nothing to do
    np.testing.assert_array_equal(out, out0)


def test_stream_and_dynamic_shared_memory(backend, rng):
    tpb, blocks = 64, 5
    n = tpb * blocks
    x = randn(rng, n)
    s = cuda.stream()
    dx = cuda.to_device(x, stream=s)
    dout = cuda.device_array(n, stream=s)
    reverse_blocks[blocks, tpb, s, tpb * x.itemsize](dout, dx)
    s.synchronize()
    np.testing.assert_array_equal(dout.copy_to_host(), x.reshape(blocks, tpb)[:, ::-1].ravel())


def test_tuple_grid_and_block(backend, rng):
    x = rng.random((19, 23)) + 0.5
    a = float(rng.uniform(1, 3))
    for grid, block in [((3, 4), (8, 8)), ((2, 2, 1), (16, 16, 1)), ([10, 12], [2, 2])]:
        out = np.zeros_like(x)
        scale2d[grid, block](out, x, a)
        np.testing.assert_array_equal(out, x * a)


# ---- launch errors ---------------------------------------------------------------------------------

def test_call_without_launch_configuration(backend, rng):
    x = randn(rng, 4)
    with pytest.raises(ValueError, match=r"axpy.*launch configuration"):
        axpy(x, 1.0, x)
    with pytest.raises(ValueError, match="launch configuration"):
        fill(x.astype(np.float32), 1)
    for bad in ((1,), (1, 2, 3, 4, 5)):
        with pytest.raises(ValueError):
            axpy[bad]


def test_a_device_function_is_not_a_kernel():
    @cuda.jit(device=True)
    def helper(v):
        return v + 1

    # numba-cuda's words first (its test_device_func_as_kernel_disallowed / test_inspect_sass_disallowed)
    with pytest.raises(RuntimeError, match="^Cannot compile a device function as a kernel: device function 'helper' "
                                           "cannot be launched"):
        helper[1, 1](np.zeros(3))
    with pytest.raises(RuntimeError, match="^Cannot inspect SASS of a device function: 'helper' .*SASS exists for "
                                           "kernels only"):
        helper.inspect_sass(("int32",))


def test_a_launcher_called_with_a_tuple_or_keywords(backend, rng):
    """A launcher is called through CPython's vectorcall; a call that brings a tuple (the type's __call__) launches
    the same, and keyword arguments are refused either way, by name."""
    n = 37
    x, out0 = cuda.to_device(randn(rng, n)), randn(rng, n)
    a = float(rng.uniform(1, 2))
    launcher = axpy[1, 64]
    out = cuda.to_device(out0)
    type(launcher).__call__(launcher, out, a, x)
    np.testing.assert_allclose(out.copy_to_host(), a * x.copy_to_host() + out0, rtol=1e-12)
    args = (out, a, x)
    launcher(*args)
    np.testing.assert_allclose(out.copy_to_host(), 2 * a * x.copy_to_host() + out0, rtol=1e-12)
    for call in (lambda: launcher(out, a, x=x), lambda: type(launcher).__call__(launcher, out, a, x=x)):
        with pytest.raises(TypeError, match=r"kernel 'axpy' takes positional arguments only.*\('x' given\)"):
            call()
    with pytest.raises(TypeError):
        type("Sub", (type(launcher),), {})       # final: a subclass's fields could cover the vectorcall slot


def test_many_arguments_alternating_types(backend, rng, compiles):
    """Thirteen arrays make a dispatch key longer than the core's stack buffer: each dtype still finds its own
    kernel, launch after launch, alternating."""
    k = cuda.jit(sum12.py_func)
    n = 45
    for rnd in range(3):
        for dt in (np.float32, np.float64):
            xs = [rng.standard_normal(n).astype(dt) for _ in range(12)]
            out = cuda.device_array(n, dt)
            k[1, 64](out, *[cuda.to_device(x) for x in xs])
            want = xs[0]
            for x in xs[1:]:
                want = want + x                  # the kernel's order, in the kernel's dtype
            np.testing.assert_array_equal(out.copy_to_host(), want)
    assert [s[0] for s in k.signatures] == [float32[::1], float64[::1]]
    assert len(compiles) == 2


def test_a_converter_that_lets_an_argument_through_is_caught(backend, rng):
    """The core's backstop behind Python's prepare_args: a converted argument the dispatcher still cannot key is
    a TypeError naming its position and type, before anything compiles or launches."""
    compiled = []

    def prepare(args, stream, capture=False):
        return (args[0], object()), None         # the second argument left unconverted

    core = _core.Dispatcher(lambda args: compiled.append(args), prepare, ["x", "y"])
    with pytest.raises(TypeError, match="kernel argument 1 of type object cannot be passed to a kernel"):
        core.configure(1, 1)(cuda.device_array(3), rng.random(3))   # a NumPy array: prepare runs
    assert compiled == []


def test_wrong_number_of_arguments(backend, rng):
    x = randn(rng, 4)
    with pytest.raises(TypeError, match=r"'axpy' takes 3 arguments"):
        axpy[1, 4](x, 1.0)
    with pytest.raises(TypeError, match=r"'axpy' takes 3 arguments"):
        axpy[1, 4](x, 1.0, x, x)
    with pytest.raises(TypeError, match=r"'fill' takes 2 arguments"):
        fill[1, 4](x.astype(np.float32))
    with pytest.raises(TypeError, match=r"'tup_affine' takes 2 arguments"):
        tup_affine[1, 4]((1, 2), x, x)


# ---- argument kinds --------------------------------------------------------------------------------

def test_device_and_numpy_arrays(backend, rng):
    n = 33
    x, out0 = randn(rng, n), randn(rng, n)
    a = float(rng.uniform(1, 2))
    dx, dout = cuda.to_device(x), cuda.to_device(out0)
    axpy[1, 64](dout, a, dx)
    np.testing.assert_allclose(dout.copy_to_host(), a * x + out0, rtol=1e-15)
    out, x_before = out0.copy(), x.copy()
    axpy[1, 64](out, a, x)                         # copied in before and back after, in place
    np.testing.assert_allclose(out, a * x + out0, rtol=1e-15)
    np.testing.assert_array_equal(x, x_before)
    mixed = out0.copy()
    axpy[1, 64](mixed, a, dx)                      # NumPy and device arrays together
    np.testing.assert_allclose(mixed, a * x + out0, rtol=1e-15)


def test_in_out_inout(backend, rng):
    n = 40
    a0, b0 = randn(rng, n), randn(rng, n)
    a, b = a0.copy(), b0.copy()
    bump[1, 64](cuda.In(a), cuda.Out(b))
    np.testing.assert_array_equal(a, a0)           # In: the kernel's write to a is not copied back
    np.testing.assert_array_equal(b, a0 * 2.0 + 1.0)   # Out: the result is copied back
    b = b0.copy()
    bump[1, 64](cuda.InOut(a), b)
    np.testing.assert_array_equal(a, -a0)
    np.testing.assert_array_equal(b, a0 * 2.0 + 1.0)
    b = b0.copy()
    bump[1, 64](cuda.InOut(a), cuda.In(b))         # b's new values stay on the device
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(b, b0)


class Foreign:
    """A minimal foreign array: only ``__cuda_array_interface__`` (as CuPy or PyTorch offer)."""

    def __init__(self, dev):
        self._dev = dev

    @property
    def __cuda_array_interface__(self):
        return self._dev.__cuda_array_interface__


def test_cuda_array_interface_objects(backend, rng):
    n = 25
    a0 = randn(rng, n)
    da, db = cuda.to_device(a0), cuda.to_device(randn(rng, n))
    bump[1, 32](da, db)
    np.testing.assert_array_equal(db.copy_to_host(), a0 * 2.0 + 1.0)
    sigs = list(bump.signatures)
    da2, db2 = cuda.to_device(a0), cuda.to_device(randn(rng, n))
    bump[1, 32](Foreign(da2), Foreign(db2))        # viewed without a copy: writes land in da2, db2
    np.testing.assert_array_equal(da2.copy_to_host(), -a0)
    np.testing.assert_array_equal(db2.copy_to_host(), a0 * 2.0 + 1.0)
    assert bump.signatures == sigs                 # typed like the device arrays they wrap


# ---- tuple arguments -------------------------------------------------------------------------------

def test_tuple_of_ints(backend, rng):
    t = (int(rng.integers(2, 20)), int(rng.integers(2, 20)))
    out = randn(rng, 20)
    tup_affine[1, 32](t, out)
    np.testing.assert_array_equal(out, t[0] * np.arange(20) + t[1])
    assert (UniTuple(int64, 2), float64[::1]) in tup_affine.signatures


def test_nested_tuple(backend, rng):
    t = (float(rng.uniform(1, 2)), (int(rng.integers(2, 9)), float(rng.uniform(0.1, 1))))
    out = randn(rng, 17)
    tup_nested[1, 32](t, out)
    np.testing.assert_allclose(out, t[0] + t[1][0] * t[1][1] * np.arange(17), rtol=1e-15)
    assert tup_nested.signatures == [(Tuple([float64, Tuple([int64, float64])]), float64[::1])]


def test_tuple_of_arrays(backend, rng):
    n = 30
    x, y0 = randn(rng, n), randn(rng, n)
    x0, y, out = x.copy(), y0.copy(), np.zeros(n)
    tup_arrays[1, 32]((x, y), out)                 # NumPy arrays in a tuple: copied in and back
    np.testing.assert_array_equal(out, x0 + y0)
    np.testing.assert_array_equal(y, x0 * 3.0)
    np.testing.assert_array_equal(x, x0)
    dx, dy = cuda.to_device(x0), cuda.to_device(y0)
    dout = cuda.device_array(n)
    tup_arrays[1, 32]((dx, dy), dout)
    np.testing.assert_array_equal(dout.copy_to_host(), x0 + y0)
    np.testing.assert_array_equal(dy.copy_to_host(), x0 * 3.0)
    assert tup_arrays.signatures == [(UniTuple(float64[::1], 2), float64[::1])]


def test_tuple_indexed_by_loop_variable(backend, rng):
    coef = tuple(float(c) for c in rng.uniform(-2, 2, 4))
    x = randn(rng, 45)
    out = np.zeros(45)
    tup_horner[1, 64](coef, x, out)
    np.testing.assert_allclose(out, np.polyval(coef, x), rtol=1e-13)


def test_eager_tuple_signature(backend, rng):
    k = cuda.jit("void(UniTuple(int64, 2), float64[:])")(tup_affine.py_func)
    assert k.signatures == [(UniTuple(int64, 2), float64[:])]
    t = (int(rng.integers(2, 20)), int(rng.integers(2, 20)))
    out = randn(rng, 20)
    k[1, 32](t, out)
    np.testing.assert_array_equal(out, t[0] * np.arange(20) + t[1])
    k[1, 32]((np.int32(t[0]), True), out)          # elements convert like scalars
    np.testing.assert_array_equal(out, t[0] * np.arange(20) + 1)
    for bad in [(1, 2, 3), 4, (1.5, 2), ((1, 2), 3)]:
        with pytest.raises(TypeError, match="tup_affine.*No matching definition"):
            k[1, 32](bad, out)
    assert len(k.signatures) == 1


@cuda.jit
def _scale_into(x, out, k):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] * k


def test_launch_configurations_reuse_and_refuse(backend, rng):
    """kern[g, b] with two ints comes from the core's cache of launchers (dispatcher.py installs the lookup); other
    forms (tuples, NumPy ints, streams) are made by _configure; a float dimension is refused, not taken for the int
    it equals (they hash alike)."""
    x = rng.standard_normal(300)
    first = _scale_into[3, 128]
    assert _scale_into[3, 128] is first
    for config in ((3, 128), ((3,), (128,)), (np.int64(3), np.int32(128)), (3, 128, 0), (3, 128, 0, 0)):
        out = np.zeros_like(x)
        _scale_into[config](x, out, 2.5)
        np.testing.assert_array_equal(out, x * 2.5)
    assert _scale_into[3, 128] is first
    with pytest.raises(TypeError, match="griddim must be an int"):
        _scale_into[3.0, 128]
    with pytest.raises(TypeError, match="blockdim must be an int"):
        _scale_into[3, 128.0]
    with pytest.raises(LaunchError, match="a launch configuration is"):
        _scale_into[3]


def test_launch_dimension_errors_use_numba_cudas_words(backend, rng):
    """numba-cuda's phrases first (its test_errors.py::TestJitErrors), then which entry is wrong; the dimensions
    are shown as numba-cuda shows them, a list."""
    x = rng.standard_normal(300)
    cases = [
        (((1, 2, 3, 4), (5, 6)), LaunchError, "griddim must be a sequence of 1, 2 or 3 integers, got [1, 2, 3, 4] "
                                              "(4 dimensions)"),
        (((1, 2), [3, 4, 5, 6]), LaunchError, "blockdim must be a sequence of 1, 2 or 3 integers, got [3, 4, 5, 6]"),
        (((), 32), LaunchError, "griddim must be a sequence of 1, 2 or 3 integers, got [] (0 dimensions)"),
        ((2.0, 3), TypeError, "griddim must be a sequence of integers, got [2.0]: griddim must be an int or a tuple "
                              "of 1 to 3 ints, not float"),
        ((2, 3.0), TypeError, "blockdim must be a sequence of integers, got [3.0]"),
        (((2, 3.5), 4), TypeError, "griddim must be a sequence of integers, got [2, 3.5]: griddim.y must be an int, "
                                   "not float"),
        ((2, [32, "a"]), TypeError, "blockdim must be a sequence of integers, got [32, 'a']: blockdim.y must be an "
                                    "int, not str"),
    ]
    for config, error, words in cases:
        with pytest.raises(error) as info:
            _scale_into[config]
        assert str(info.value).startswith(words), str(info.value)
    with pytest.raises(LaunchError, match=r"got \[1, 1, 1, .*, \.\.\.\] \(300 dimensions\)$"):
        _scale_into[(1,) * 300, 1]              # a long one is cut short
    out = np.zeros_like(x)
    _scale_into[[3], (128,)](x, out, -1.5)      # lists and tuples of 1 to 3 ints launch
    np.testing.assert_array_equal(out, x * -1.5)


def test_too_many_launch_bounds():
    # numba-cuda's words first (its TestLaunchBounds.test_too_many_launch_bounds)
    with pytest.raises(ValueError, match=r"^Got 4 launch bounds: \(128, 2, 4, 8\)\. cuda.jit\(launch_bounds=...\) "
                                         r"must be an int or a tuple of 1 to 3 ints: \(max_threads_per_block, "
                                         r"min_blocks_per_sm, max_blocks_per_cluster\)"):
        cuda.jit("void()", launch_bounds=(128, 2, 4, 8))(lambda: None)
    with pytest.raises(ValueError, match=r"^Got 0 launch bounds: \(\)"):
        cuda.jit(launch_bounds=())(lambda: None)


@cuda.jit
def _add_one(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


def test_pre_launch_callbacks_run_before_each_launch_of_their_configuration(backend, rng):
    """numba-cuda's configured-launch callbacks: callback(kernel, launcher) in order, before the launch; a kept
    launcher given callbacks is no longer handed out for its configuration (numba-cuda configures afresh)."""
    import pickle
    x = rng.standard_normal(100)
    want = x.copy()
    seen = []
    cfg = _add_one[1, 128]
    assert _add_one[1, 128] is cfg
    cfg.pre_launch_callbacks.append(lambda k, c: seen.append(("first", k.argument_types, c.griddim, x[0])))
    cfg.pre_launch_callbacks.append(lambda k, c: seen.append(("second", c is cfg)))
    assert _add_one[1, 128] is not cfg and not _add_one[1, 128].pre_launch_callbacks
    _add_one[1, 128](x)                                   # another configuration: no callbacks
    assert seen == []
    cfg(x)
    assert [s[0] for s in seen] == ["first", "second"] and seen[1][1]
    assert len(seen[0][1]) == 1 and "float64" in str(seen[0][1][0]) and seen[0][2] == (1, 1, 1)
    assert seen[0][3] == want[0] + 1                      # the first launch had run, the second not yet
    np.testing.assert_array_equal(x, want + 1 + 1)
    with pytest.raises(pickle.PicklingError, match="pre-launch callbacks"):
        pickle.dumps(cfg)

    def refuse(kernel, launcher):
        raise RuntimeError("not now")
    cfg.pre_launch_callbacks = [refuse]
    with pytest.raises(RuntimeError, match="not now"):
        cfg(x)
    np.testing.assert_array_equal(x, want + 1 + 1)        # no launch after a callback raised
    with pytest.raises(TypeError, match="pre_launch_callbacks must be a list"):
        cfg.pre_launch_callbacks = refuse
    from cudajit.cuda.raw import RawKernel
    raw = RawKernel('extern "C" __global__ void f() {}', "f")[1, 32]     # CuPy's kind of kernel: numba has none
    with pytest.raises(AttributeError, match="pre_launch_callbacks are those of @cuda.jit"):
        raw.pre_launch_callbacks


@cuda.jit
def scaled_shift(a, out, scale=2.5, shift=3, clamp=False):
    # A particle kernel's r_min_sq: float = 1e-10: parameters with defaults may be left out of a launch, as in
    # numba-cuda, where each is a constant of the specialisation (types.Omitted)
    i = cuda.grid(1)
    if i < a.size:
        v = a[i] * scale + shift
        out[i] = min(v, 1.0) if clamp else v


def test_kernel_parameters_with_defaults(backend, rng):
    a = rng.integers(-1000, 1000, 50) / 8     # eighths: a * scale + shift is exact, fused (GPU) or not
    out = np.zeros(50)
    for args, (scale, shift, clamp) in [((), (2.5, 3, False)), ((0.5,), (0.5, 3, False)),
                                        ((0.5, -1), (0.5, -1, False)), ((0.5, -1, True), (0.5, -1, True))]:
        scaled_shift[1, 64](a, out, *args)
        v = a * scale + shift
        np.testing.assert_array_equal(out, np.minimum(v, 1.0) if clamp else v)
    eager = cuda.jit("void(float64[:], float64[:], float64, int64, boolean)")(scaled_shift.py_func)
    eager[1, 64](a, out)
    np.testing.assert_array_equal(out, a * 2.5 + 3)
    with pytest.raises(TypingError, match=r"takes 5 arguments \(a, out, scale, shift, clamp\), 1 given"):
        scaled_shift[1, 64](a)
    with pytest.raises(TypingError, match=r"takes 5 arguments \(a, out, scale, shift, clamp\), 6 given"):
        scaled_shift[1, 64](a, out, 1, 2, True, 4)


TILE = np.array([0.5, -1.25, 3.0, 8.0])


@cuda.jit
def omitted_constants(x, out, scale=None, flag=False, table=TILE, n=16, shape=(4, 8)):
    # numba-cuda types a left-out parameter as Omitted(default): a constant, so `is None` and `if flag` fold (the
    # branch not taken is not typed: `x * None` would not compile) and n sizes a shared array
    s = cuda.shared.array(n, np.float64)
    loc = cuda.local.array(shape, np.float64)
    i = cuda.threadIdx.x
    s[i] = x[i]
    cuda.syncthreads()
    loc[3, 7] = s[n - 1 - i]
    if scale is None:
        v = loc[3, 7]
    else:
        v = loc[3, 7] * scale
    if flag:
        v = -v
    out[i] = v + table[i % 4]


def test_left_out_parameters_are_constants_of_the_specialisation(backend, rng):
    x = rng.standard_normal(16)
    out = np.zeros(16)
    rev = x[::-1] + np.resize(TILE, 16)
    omitted_constants[1, 16](x, out)
    np.testing.assert_array_equal(out, rev)
    omitted_constants[1, 16](x, out, 2.0)
    np.testing.assert_array_equal(out, x[::-1] * 2.0 + np.resize(TILE, 16))
    omitted_constants[1, 16](x, out, 2.0, True, np.array([1.0, 2.0, 3.0, 4.0]))
    np.testing.assert_array_equal(out, -x[::-1] * 2.0 + np.resize([1.0, 2.0, 3.0, 4.0], 16))
    # each count of arguments is its own specialisation, named as numba-cuda names it
    sigs = [tuple(map(str, sig)) for sig in omitted_constants.signatures]
    assert sigs[0][2:4] == ("omitted(default=None)", "omitted(default=False)")
    assert sigs[1][2:4] == ("float64", "omitted(default=False)")
    assert sigs[2][2:6] == ("float64", "bool", "array(float64, 1d, C)", "omitted(default=16)")
    with pytest.raises(TypingError, match="cuda.shared.array shape must be a constant"):
        omitted_constants[1, 16](x, out, 2.0, True, TILE, 16)     # given, n is a run-time value (numba-cuda too)
    # the kernel takes no parameter for them
    assert "scale" not in omitted_constants.inspect_source(omitted_constants.signatures[0]).split("{")[0]


def test_defaults_are_read_in_one_place(backend, rng):
    # The core keys a launch by the arguments given; the defaults' values come from _spec_for_args alone, taken when
    # the kernel is made (numba-cuda's dispatcher takes its signature then too)
    def k(out, v=5):
        out[0] = v

    kern = cuda.jit(k)
    assert not hasattr(kern._core, "set_defaults")
    k.__defaults__ = (7,)
    out = np.zeros(1, np.int64)
    kern[1, 1](out)
    assert out[0] == 5
    cuda.jit(k)[1, 1](out)              # a kernel made now takes the new default
    assert out[0] == 7
    value = int(rng.integers(100, 1000))
    kern[1, 1](out, value)
    assert out[0] == value and len(kern._core) == 2


@cuda.jit(device=True)
def with_defaults(x, table=TILE, scale=None, n=4):
    acc = cuda.local.array(n, np.float64)
    for i in range(n):
        acc[i] = x * table[i]
    s = acc[0] + acc[1] + acc[2] + acc[3]
    return s if scale is None else s * scale


def test_device_function_defaults_are_constants_too(backend, rng):
    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i, 0] = with_defaults(x[i])
            out[i, 1] = with_defaults(x[i], scale=0.5)
            out[i, 2] = with_defaults(x[i], TILE, 2.0)

    x = rng.standard_normal(40)
    out = np.zeros((40, 3))
    k[1, 64](x, out)
    s = x * TILE.sum()
    np.testing.assert_allclose(out, np.stack([s, s * 0.5, s * 2.0], axis=1), rtol=1e-15)
