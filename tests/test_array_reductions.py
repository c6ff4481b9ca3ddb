"""NumPy's whole-array reductions in kernels and device functions (numba-cuda 0.30 runs them with NRT): np.sum,
np.prod, np.mean, np.var, np.std, np.min/max/amin/amax, np.all/any, np.argmin/argmax, the nan* family and
np.count_nonzero, as functions and as array methods, over arguments of every layout (C, F, strided views, 0-d to
3-d), local, shared and frozen global arrays. NumPy is the oracle; the result types are numba-cuda's (checked
against a table taken from its implementations run by Numba)."""
import inspect
import os
import warnings

import numpy as np
import pytest

from cudajit import cuda
from cudajit.compiler import compile_device, compile_kernel, types
from cudajit.cuda import literal_unroll
from cudajit.errors import TypingError, UnsupportedError


def _line(fn, text):
    lines, first = inspect.getsourcelines(getattr(fn, "py_func", fn))
    return first + next(k for k, line in enumerate(lines) if text in line)


# ---- every reduction of real arrays ---------------------------------------------------------------------------
@cuda.jit
def real_reductions(a, fo, io):
    fo[0] = np.sum(a)
    fo[1] = a.prod()
    fo[2] = np.mean(a)
    fo[3] = a.var()
    fo[4] = np.std(a)
    fo[5] = a.min()
    fo[6] = np.max(a)
    fo[7] = np.amin(a)
    fo[8] = np.amax(a)
    fo[9] = np.nansum(a)
    fo[10] = np.nanprod(a)
    fo[11] = np.nanmean(a)
    fo[12] = np.nanvar(a)
    fo[13] = np.nanstd(a)
    fo[14] = np.nanmin(a)
    fo[15] = np.nanmax(a)
    fo[16] = a.sum() - np.sum(a) + a.mean() - np.mean(a) + a.std() - np.std(a) + a.max() - np.amax(a)
    io[0] = a.argmin()
    io[1] = np.argmax(a)
    io[2] = np.count_nonzero(a)
    io[3] = a.all()
    io[4] = np.any(a)
    io[5] = np.argmin(a) - a.argmin() + a.argmax() - np.argmax(a)


def _real_expected(a):
    """What numba-cuda computes, from NumPy: its mean of float32 divides a float32 sum in float64 (NumPy's
    rounding of the sum is within the tolerance)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        fo = [np.sum(a), np.prod(a), np.mean(a, dtype=np.float64), np.var(a, dtype=np.float64),
              np.std(a, dtype=np.float64), np.min(a), np.max(a), np.amin(a), np.amax(a), np.nansum(a), np.nanprod(a),
              np.nanmean(a, dtype=np.float64), np.nanvar(a, dtype=np.float64), np.nanstd(a, dtype=np.float64),
              np.nanmin(a), np.nanmax(a)]
        fo.append(0.0 * (fo[0] + fo[2] + fo[4] + fo[6]))     # x - x of each: NaN where x is inf or NaN
    io = [np.argmin(a), np.argmax(a), np.count_nonzero(a), np.all(a), np.any(a), 0]
    return np.array(fo, dtype=np.float64), np.array(io, dtype=np.int64)


def _layouts(base):
    """(name, array) views of ``base`` (a 3-d array): every layout the kernel's argument can have."""
    return {
        "1d-C": base.ravel()[:37].copy(),
        "1d-strided": base.ravel()[3:90:3],
        "1d-reversed": base.ravel()[::-1][:29],
        "2d-C": np.ascontiguousarray(base[0]),
        "2d-F": np.asfortranarray(base[1]),
        "2d-strided": base[2, ::2, 1::3],
        "2d-transposed": base[0].T,
        "3d-C": base.copy(),
        "3d-strided": base[::2, 1:, ::-2],
        "0d": np.array(base.ravel()[5]),
    }


LAYOUTS = list(_layouts(np.zeros((4, 6, 7))))


def _check_real(a, tol):
    """The kernel's results against NumPy's, within ``tol`` (relative and absolute: the data are of order 1)."""
    fo, io = np.zeros(17), np.zeros(6, np.int64)
    real_reductions[1, 1](a, fo, io)
    efo, eio = _real_expected(a)
    np.testing.assert_allclose(fo, efo, rtol=tol, atol=tol)
    np.testing.assert_array_equal(io, eio)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_float64_layouts(backend, rng, layout):
    a = _layouts(rng.normal(size=(4, 6, 7)))[layout]
    _check_real(a, 1e-12)


@pytest.mark.parametrize("layout", ["1d-strided", "2d-F", "3d-strided"])
def test_float32_layouts(backend, rng, layout):
    a = _layouts(rng.normal(size=(4, 6, 7)).astype(np.float32))[layout]
    _check_real(a, 1e-5)                  # float32 sums are sequential here, pairwise in NumPy


def test_device_array_views(backend, rng):
    """Strided views of device arrays (not staged copies): a slice with steps and an F-order 2-d array."""
    host = rng.normal(size=(9, 8))
    d = cuda.to_device(host)
    _check_real(d[1::2, ::3], 1e-12)
    _check_real(host[1::2, ::3], 1e-12)
    f = cuda.to_device(np.asfortranarray(host))
    _check_real(f, 1e-12)


def test_nan_and_inf(backend, rng):
    """NaN propagates through min/max/sum (NumPy), nan* leave it out, argmin/argmax give the first NaN."""
    a = rng.normal(size=40)
    a[[7, 23]] = np.nan
    a[3] = np.inf
    _check_real(a, 1e-12)
    b = rng.normal(size=(5, 6))
    b[2, 4] = np.nan
    _check_real(np.asfortranarray(b), 1e-12)        # the first NaN in C order, not in memory order
    _check_real(np.full(6, np.nan), 1e-12)          # nanmin of all-NaN is NaN, nanmean/nanvar NaN, nansum 0
    _check_real(np.array([np.inf, -np.inf, 1.0]), 1e-12)


# ---- integers and bools: exact ----------------------------------------------------------------------------------
@cuda.jit
def int_reductions(a, io, fo):
    io[0] = np.sum(a)
    io[1] = a.prod()
    io[2] = a.min()
    io[3] = np.max(a)
    io[4] = np.nansum(a)
    io[5] = np.nanprod(a)
    io[6] = np.nanmin(a)
    io[7] = np.nanmax(a)
    io[8] = np.argmin(a)
    io[9] = a.argmax()
    io[10] = np.count_nonzero(a)
    io[11] = np.all(a)
    io[12] = a.any()
    fo[0] = a.mean()
    fo[1] = np.var(a)
    fo[2] = a.std()
    fo[3] = np.nanmean(a)
    fo[4] = np.nanvar(a)
    fo[5] = np.nanstd(a)


def _int64_bits(values):
    """Python ints as the int64 an int64 output holds (two's complement, as a uint64 result stored there)."""
    return np.array([int(v) % 2**64 for v in values], dtype=np.uint64).view(np.int64)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.bool_])
@pytest.mark.parametrize("layout", ["1d-strided", "2d-F", "3d-C"])
def test_integers_and_bools(backend, rng, dtype, layout):
    base = rng.integers(-3, 4, size=(4, 6, 7)) if dtype != np.uint8 else rng.integers(0, 4, size=(4, 6, 7))
    if dtype != np.bool_:
        base[base == 0] = 2                                # products that are not 0 (they wrap in 3d-C)...
        base[1, 2, 3] = 0                                  # ... but one zero in 2d-F's view: all() is false
    a = _layouts(base.astype(dtype))[layout]
    io, fo = np.zeros(13, np.int64), np.zeros(6)
    int_reductions[1, 1](a, io, fo)
    wide = np.int64 if dtype != np.uint8 else np.uint64      # Numba's sum/prod types (a bool sum counts)
    with np.errstate(over="ignore"):
        expect_io = [np.sum(a, dtype=wide), np.prod(a, dtype=wide), np.min(a), np.max(a),
                     np.sum(a, dtype=np.int64), np.prod(a, dtype=np.int64), np.min(a), np.max(a), np.argmin(a),
                     np.argmax(a), np.count_nonzero(a), np.all(a), np.any(a)]
    np.testing.assert_array_equal(io, _int64_bits(expect_io))
    f = a.astype(np.float64)
    np.testing.assert_allclose(fo, [f.mean(), f.var(), f.std(), f.mean(), f.var(), f.std()], rtol=1e-13)


def test_integer_sums_wrap(backend):
    """Accumulators are int64 (wrapping, as Numba's): an int32 sum does not overflow at 2**31, an int64 one
    wraps."""
    io, fo = np.zeros(13, np.int64), np.zeros(6)
    int_reductions[1, 1](np.array([2**30, 2**30, 2**30, 3], dtype=np.int32), io, fo)
    assert io[0] == 3 * 2**30 + 3 and io[1] == 3 * 2**90 % 2**64
    int_reductions[1, 1](np.array([2**62, 2**62, 2**62], dtype=np.int64), io, fo)
    assert io[0] == io[4] == -2**62


# ---- complex ------------------------------------------------------------------------------------------------------
@cuda.jit
def complex_reductions(a, co, fo, io):
    co[0] = np.sum(a)
    co[1] = a.prod()
    co[2] = a.mean()
    co[3] = np.nansum(a)
    co[4] = np.nanprod(a)
    co[5] = np.nanmean(a)
    co[6] = a.min()
    co[7] = np.max(a)
    co[8] = np.nanmin(a)
    co[9] = np.nanmax(a)
    fo[0] = a.var()
    fo[1] = np.std(a)
    fo[2] = np.nanvar(a)
    fo[3] = np.nanstd(a)
    io[0] = np.argmin(a)
    io[1] = a.argmax()
    io[2] = np.count_nonzero(a)
    io[3] = a.all()
    io[4] = np.any(a)


@pytest.mark.parametrize("dtype, rtol", [(np.complex128, 1e-12), (np.complex64, 2e-5)])
@pytest.mark.parametrize("nan", [False, True])
def test_complex(backend, rng, dtype, rtol, nan):
    a = (rng.normal(size=(5, 6)) + 1j * rng.normal(size=(5, 6))).astype(dtype)
    a[1, 1] = a[3, 2].real + 1j * (a[3, 2].imag + 1)      # a tie of real parts: the imaginary part decides
    a[0, 1] = 0
    if nan:
        a[2, 3] = complex(1.0, np.nan)
        a[4, 1] = complex(np.nan, 0.0)
    v = a[::-1, 1:]
    co, fo, io = np.zeros(10, np.complex128), np.zeros(4), np.zeros(5, np.int64)
    complex_reductions[1, 1](v, co, fo, io)
    w = v.astype(np.complex128)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expect_co = [np.sum(v), np.prod(v), np.mean(w), np.nansum(v), np.nanprod(v), np.nanmean(w), np.min(v),
                     np.max(v), np.nanmin(v), np.nanmax(v)]
        expect_fo = [np.var(w), np.std(w), np.nanvar(w), np.nanstd(w)]
    np.testing.assert_allclose(co, expect_co, rtol=rtol, atol=rtol)
    np.testing.assert_allclose(fo, expect_fo, rtol=rtol, atol=rtol)
    np.testing.assert_array_equal(io, [np.argmin(v), np.argmax(v), np.count_nonzero(v), np.all(v), np.any(v)])


# ---- empty arrays -----------------------------------------------------------------------------------------------
@cuda.jit
def empty_reductions(a, fo, io):
    fo[0] = np.sum(a)
    fo[1] = np.prod(a)
    fo[2] = np.mean(a)
    fo[3] = np.var(a)
    fo[4] = np.nansum(a)
    fo[5] = np.nanmean(a)
    fo[6] = np.min(a)
    fo[7] = np.nanmax(a)
    io[0] = np.count_nonzero(a)
    io[1] = np.all(a)
    io[2] = np.any(a)
    io[3] = np.argmin(a)
    io[4] = np.argmax(a)


@cuda.jit
def empty_int_minimum(a, io):
    io[0] = a.min()
    io[1] = a.sum()


def test_empty_arrays(backend):
    """sum 0, prod 1, mean/var NaN, all True, any False (NumPy); min/max/argmin/argmax, which raise ValueError in
    NumPy and Numba, give NaN (or 0 for integers) and -1 without debug=True."""
    fo, io = np.full(8, 7.0), np.full(5, 7, np.int64)
    empty_reductions[1, 1](np.zeros((3, 0)), fo, io)
    np.testing.assert_array_equal(fo, [0.0, 1.0, np.nan, np.nan, 0.0, np.nan, np.nan, np.nan])
    np.testing.assert_array_equal(io, [0, 1, 0, -1, -1])
    out = np.full(2, 7, np.int64)
    empty_int_minimum[1, 1](np.zeros(0, np.int32), out)
    np.testing.assert_array_equal(out, [0, 0])


@cuda.jit(debug=True, opt=False)
def min_of_slice(a, n, out):
    out[0] = np.min(a[:n])


@cuda.jit(debug=True, opt=False)
def argmax_of_slice(a, n, out):
    out[0] = a[:n].argmax()


@cuda.jit(device=True)
def spread(a):
    return np.nanmax(a) - np.nanmin(a)


@cuda.jit(debug=True, opt=False)
def spread_of_slice(a, n, out):
    out[0] = spread(a[:n])


@pytest.mark.parametrize("kernel, message, text", [
    (min_of_slice, "zero-size array to reduction operation minimum which has no identity", "np.min(a[:n])"),
    (argmax_of_slice, "attempt to get argmax of an empty sequence", "a[:n].argmax()"),
    (spread_of_slice, "zero-size array to reduction operation not possible", "np.nanmax(a) - np.nanmin(a)"),
])
def test_empty_raises_under_debug(backend, kernel, message, text):
    a, out = np.arange(5.0), np.zeros(1)
    kernel[1, 1](a, 3, out)
    assert out[0] == {min_of_slice: 0.0, argmax_of_slice: 2, spread_of_slice: 2.0}[kernel]
    with pytest.raises(ValueError) as info:
        kernel[1, 1](a, 0, out)
    msg = str(info.value)
    fn = spread if kernel is spread_of_slice else kernel
    assert message in msg and f"test_array_reductions.py, line {_line(fn, text)}," in msg, msg


# ---- local, shared and global arrays; device functions; one reduction per thread --------------------------------
@cuda.jit(device=True)
def centred_range(row):
    return row.max() - row.mean()


@cuda.jit
def per_thread(a, out_sum, out_range, out_local, out_shared):
    i = cuda.threadIdx.x
    row = a[i]
    out_sum[i] = np.sum(row)
    out_range[i] = centred_range(row)
    loc = cuda.local.array((3, 4), np.float64)
    for p in range(3):
        for q in range(4):
            loc[p, q] = row[p * 4 + q] * (i + 1)
    out_local[i, 0] = loc.sum()
    out_local[i, 1] = np.var(loc[:, 1:])
    out_local[i, 2] = loc.T.argmax()
    sh = cuda.shared.array((8, 12), np.float64)
    for q in range(12):
        sh[i, q] = row[q]
    cuda.syncthreads()
    out_shared[i, 0] = sh.max()
    out_shared[i, 1] = np.mean(sh[:, i])
    out_shared[i, 2] = np.argmin(sh)


def test_local_shared_and_views_per_thread(backend, rng):
    a = rng.normal(size=(8, 12))
    out_sum, out_range = np.zeros(8), np.zeros(8)
    out_local, out_shared = np.zeros((8, 3)), np.zeros((8, 3))
    per_thread[1, 8](a, out_sum, out_range, out_local, out_shared)
    np.testing.assert_allclose(out_sum, a.sum(axis=1), rtol=1e-12)
    np.testing.assert_allclose(out_range, a.max(axis=1) - a.mean(axis=1), rtol=1e-12)
    loc = a.reshape(8, 3, 4) * np.arange(1, 9)[:, None, None]
    np.testing.assert_allclose(out_local[:, 0], loc.sum(axis=(1, 2)), rtol=1e-12)
    np.testing.assert_allclose(out_local[:, 1], loc[:, :, 1:].var(axis=(1, 2)), rtol=1e-12)
    np.testing.assert_array_equal(out_local[:, 2], [np.argmax(m.T) for m in loc])
    np.testing.assert_array_equal(out_shared[:, 0], np.full(8, a.max()))
    np.testing.assert_allclose(out_shared[:, 1], a[:, :8].mean(axis=0), rtol=1e-12)
    np.testing.assert_array_equal(out_shared[:, 2], np.full(8, np.argmin(a)))


GLOBAL_ARRAYS = (
    np.array([3.5, -1.0, 2.25, np.nan, 0.0]),
    np.arange(12, dtype=np.int32).reshape(3, 4) - 5,
    np.array([[True, False], [True, True]]),
    np.array(2.5),
    np.zeros(0, np.int64),
    np.array([1 + 2j, -3 + 0.5j, 1 + 1j]),
)
WEIGHTS = np.array([0.5, 1.5, -2.0, 4.0])


@cuda.jit
def global_reductions(out, counts):
    i = 0
    for arr in literal_unroll(GLOBAL_ARRAYS):
        out[i, 0] = np.nansum(arr).real
        out[i, 1] = np.nanmax(arr).real if arr.size > 0 else -1.0
        counts[i] = np.count_nonzero(arr)
        i += 1
    out[i, 0] = WEIGHTS.sum()
    out[i, 1] = np.std(WEIGHTS)


def test_global_arrays_and_literal_unroll(backend):
    """Frozen global arrays (0-d and empty too), a tuple of them of different dtypes and dimensions with
    literal_unroll: each copy of the body has its own type for the loop variable."""
    n = len(GLOBAL_ARRAYS)
    out, counts = np.zeros((n + 1, 2)), np.zeros(n, np.int64)
    global_reductions[1, 1](out, counts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expect = [[np.nansum(x).real, np.nanmax(x).real if x.size else -1.0] for x in GLOBAL_ARRAYS]
    expect.append([WEIGHTS.sum(), WEIGHTS.std()])
    np.testing.assert_allclose(out, expect, rtol=1e-13)
    np.testing.assert_array_equal(counts, [np.count_nonzero(x) for x in GLOBAL_ARRAYS])


def test_literal_unroll_closure_tuple(backend):
    """numba-cuda's own tests capture a tuple of arrays from the enclosing function."""
    cases = (np.float64([1.0, 0.0, np.inf]), np.float64([[1.0, 1.5], [np.nan, 2.0]]), np.int64([4, -2, 7]),
             np.array(0))

    @cuda.jit
    def kernel(out):
        i = 0
        for case in literal_unroll(cases):
            out[i] = np.all(case) + 2 * case.any() + 4 * case.argmax()
            i += 1

    out = np.zeros(len(cases), np.int64)
    kernel[1, 1](out)
    np.testing.assert_array_equal(out, [np.all(c) + 2 * np.any(c) + 4 * np.argmax(c) for c in cases])


# ---- result types: numba-cuda's ----------------------------------------------------------------------------------
NAMES = ["sum", "prod", "mean", "var", "std", "min", "max", "amin", "amax", "all", "any", "argmin", "argmax",
         "nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmin", "nanmax", "count_nonzero"]
DTYPES = ["bool", "int8", "uint8", "int32", "uint32", "int64", "uint64", "float32", "float64", "complex64",
          "complex128"]
# numba-cuda 0.30.4's implementations (np/arraymath.py and its sum typing) typed by Numba: the return type per
# dtype, in DTYPES' order ("=" the dtype itself).
NUMBA_TYPES = {
    "sum": "int64 int64 uint64 int64 uint64 int64 uint64 = = = =",
    "prod": "int64 int64 uint64 int64 uint64 int64 uint64 = = = =",
    "mean": "float64 float64 float64 float64 float64 float64 float64 float64 float64 complex128 complex128",
    "var": " ".join(["float64"] * 11), "std": " ".join(["float64"] * 11),
    "min": " ".join(["="] * 11), "max": " ".join(["="] * 11), "amin": " ".join(["="] * 11),
    "amax": " ".join(["="] * 11), "all": " ".join(["bool"] * 11), "any": " ".join(["bool"] * 11),
    "argmin": " ".join(["int64"] * 11), "argmax": " ".join(["int64"] * 11),
    "nansum": "int64 int64 int64 int64 int64 int64 int64 = = = =",
    "nanprod": "int64 int64 int64 int64 int64 int64 int64 = = = =",
    "nanmean": "float64 float64 float64 float64 float64 float64 float64 float64 float64 complex128 complex128",
    "nanvar": " ".join(["float64"] * 11), "nanstd": " ".join(["float64"] * 11),
    "nanmin": " ".join(["="] * 11), "nanmax": " ".join(["="] * 11), "count_nonzero": " ".join(["int64"] * 11),
}


def _reducer(name):
    fn = getattr(np, name)

    def reduce_it(a):
        return fn(a)
    return reduce_it


def test_result_types_are_numbas():
    wrong = []
    for name in NAMES:
        for dtype, want in zip(DTYPES, NUMBA_TYPES[name].split()):
            got = compile_device(_reducer(name), (types.from_dtype(dtype)[:, :],)).return_type
            if str(got) != (dtype if want == "=" else want):
                wrong.append(f"np.{name}({dtype}) -> {got}, Numba's {want}")
    assert not wrong, wrong


def method_max(a):
    return a.max() + a.sum()


def test_method_types():
    assert str(compile_device(method_max, (types.int16[::1],)).return_type) == "int64"
    assert str(compile_device(method_max, (types.float32[:, ::1],)).return_type) == "float32"


# ---- errors -------------------------------------------------------------------------------------------------------
def sum_axis(a, out):
    out[0] = np.sum(a, axis=0)


def mean_dtype(a, out):
    out[0] = a.mean(dtype=np.float32)


def max_out(a, out):
    out[0] = np.max(a, None, out)


def std_ddof(a, out):
    out[0] = np.std(a, ddof=1)


def cumsum(a, out):
    out[0] = a.cumsum()[0]


def sum_scalar(a, out):
    out[0] = np.sum(a[0])


def defaults_written_out(a, out):
    out[0] = np.sum(a, axis=None, keepdims=False) + a.var(ddof=0) + np.min(a, out=None)


def _refused(fn, argtypes, exc, words, line_text):
    with pytest.raises(exc) as info:
        compile_kernel(fn, argtypes)
    msg = str(info.value)
    assert words in msg, msg
    assert f"{os.path.basename(__file__)}:{_line(fn, line_text)}:" in msg, msg


F2 = types.float64[:, ::1]
OUT = types.float64[::1]


def sum_half(a, out):
    out[0] = np.sum(a)


@pytest.mark.parametrize("fn, argtypes, exc, words, text", [
    (sum_axis, (F2, OUT), UnsupportedError, "np.sum() with axis= is not supported", "np.sum(a, axis=0)"),
    (mean_dtype, (F2, OUT), UnsupportedError, "a.mean() with dtype= is not supported", "a.mean(dtype"),
    (max_out, (F2, OUT), UnsupportedError, "np.max() with out= is not supported", "np.max(a, None, out)"),
    (std_ddof, (F2, OUT), UnsupportedError, "np.std() with ddof= is not supported", "np.std(a, ddof=1)"),
    (cumsum, (F2, OUT), UnsupportedError, "the array method .cumsum() is not supported", "a.cumsum()"),
    (sum_scalar, (OUT, OUT), TypingError, "np.sum() takes an array in CUDA kernels, not float64", "np.sum(a[0])"),
    (sum_half, (types.float16[:, ::1], OUT), UnsupportedError, "np.sum() of an array of float16 is not supported",
     "np.sum(a)"),
])
def test_refused(fn, argtypes, exc, words, text):
    _refused(fn, argtypes, exc, words, text)


def test_defaults_written_out(backend, rng):
    a = rng.normal(size=(3, 4))
    out = np.zeros(1)
    cuda.jit(defaults_written_out)[1, 1](a, out)
    np.testing.assert_allclose(out[0], a.sum() + a.var() + a.min(), rtol=1e-12)
