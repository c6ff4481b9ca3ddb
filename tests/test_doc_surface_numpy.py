"""The "NumPy support" section of numba-cuda's page (and the array/scalar rows issue 12 names), row by row: array
attributes, indexing and slicing, the views (.T, .transpose(), .view, .real, .imag, .reshape), every listed ufunc
(one kernel for all of them, each row its own column against NumPy), and what numba-cuda refuses (array creation,
allocating array methods; the whole-array reductions are tests/test_array_reductions.py's), refused here with the user's file:line; datetime64/timedelta64 (one kernel run with host,
device and CAI arrays), np.ndenumerate and a.flat. docs/SUPPORTED.md names each test."""
import numpy as np
import pytest

from cudajit import cuda
from cudajit.compiler import types
from cudajit.errors import TypingError, UnsupportedError
from doc_surface_util import once_per_backend, refused

N = 48
F64 = types.float64[::1]


def _rng():
    return np.random.default_rng(7)


@cuda.jit
def attributes(a, out):
    out[0] = a.shape[0] * 100 + a.shape[1]
    out[1] = a.strides[0] * 100 + a.strides[1]
    out[2] = a.ndim
    out[3] = a.size
    out[4] = a.itemsize
    out[5] = a.nbytes
    out[6] = len(a)


ATTRIBUTES = {"shape": 0, "strides": 1, "ndim": 2, "size": 3, "itemsize": 4, "nbytes": 5, "len": 6}


@pytest.mark.parametrize("row", ATTRIBUTES)
def test_array_attribute(backend, row):
    a = _rng().random((6, 5))
    out = np.zeros(7)
    attributes[1, 1](a, out)
    expected = [a.shape[0] * 100 + a.shape[1], a.strides[0] * 100 + a.strides[1], a.ndim, a.size, a.itemsize,
                a.nbytes, len(a)]
    assert out[ATTRIBUTES[row]] == expected[ATTRIBUTES[row]]


@cuda.jit
def views(a, z, m, out_t, out_tr, out_re, out_im, out_view, out_reshape, out_slice):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        out_t[j, i] = a.T[j, i]
        out_tr[j, i] = a.transpose()[j, i]
        re, im = z.real, z.imag
        out_re[i, j] = re[i, j]
        out_im[i, j] = im[i, j]
        im[i, j] = -im[i, j]                                 # a view: writes reach z
        out_view[i, j] = a.view(np.int64)[i, j]
        out_reshape[i, j] = m.reshape(a.shape[0], -1)[i, j]
        out_slice[i, j] = a[1:, ::2][i % (a.shape[0] - 1), j // 2] + a[-1, j]


@once_per_backend
def _views(backend):
    rng = _rng()
    a = rng.random((5, 6))
    z = rng.random((5, 6)) + 1j * rng.random((5, 6))
    z0 = z.copy()
    m = rng.random(30)
    outs = [np.zeros((6, 5)), np.zeros((6, 5)), np.zeros((5, 6)), np.zeros((5, 6)), np.zeros((5, 6), np.int64),
            np.zeros((5, 6)), np.zeros((5, 6))]
    views[(1, 1), (8, 8)](a, z, m, *outs)
    return a, z0, z, m, outs


def test_transpose_T(backend):
    a, _, _, _, outs = _views(backend)
    np.testing.assert_array_equal(outs[0], a.T)
    np.testing.assert_array_equal(outs[1], a.transpose())


def test_real_imag(backend):
    _, z0, z, _, outs = _views(backend)
    np.testing.assert_array_equal(outs[2], z0.real)
    np.testing.assert_array_equal(outs[3], z0.imag)
    np.testing.assert_array_equal(z, np.conj(z0))


def test_view(backend):
    a, _, _, _, outs = _views(backend)
    np.testing.assert_array_equal(outs[4], a.view(np.int64))


def test_reshape(backend):
    _, _, _, m, outs = _views(backend)
    np.testing.assert_array_equal(outs[5], m.reshape(5, -1))


def test_indexing_and_slicing(backend):
    a, _, _, _, outs = _views(backend)
    i, j = np.indices((5, 6))
    np.testing.assert_array_equal(outs[6], a[1:, ::2][i % 4, j // 2] + a[-1, j])


@cuda.jit
def view_rescaled(a, out):
    v = a.view(np.uint32)                                    # 8-byte elements as twice as many 4-byte ones
    for k in range(v.size):
        out[k] = v[k]


def test_view_other_itemsize(backend):
    a = _rng().random(7)
    out = np.zeros(14, np.uint32)
    view_rescaled[1, 1](a, out)
    np.testing.assert_array_equal(out, a.view(np.uint32))


def array_copy(a):
    b = a.copy()
    a[0] = b[1]


def array_cumsum(a):
    a[0] = a.cumsum()[0]


def array_astype(a):
    b = a.astype(np.float32)


def array_creation(a):
    b = np.empty(3)
    a[0] = b[0]


def array_zeros_like(a):
    b = np.zeros_like(a)


REFUSED = {
    "copy": (array_copy, "a.copy() of an array whose shape is known only at run time", "b = a.copy()"),
    "cumsum": (array_cumsum, "the array method .cumsum() is not supported", "a[0] = a.cumsum()[0]"),
    "astype": (array_astype, "the array method .astype() is not supported", "a.astype"),
    "np.empty": (array_creation, "np.empty() is not supported", "np.empty(3)"),
    "np.zeros_like": (array_zeros_like, "np.zeros_like() is not supported", "np.zeros_like(a)"),
}


@pytest.mark.parametrize("row", REFUSED)
def test_refused(row):
    fn, words, line = REFUSED[row]
    refused(fn, (F64,), UnsupportedError, words, line)


# ---- datetime64 / timedelta64 ----------------------------------------------------------------------------------
@cuda.jit
def datetime_ops(d1, d2, ds, t1, t2, t3, k, f, origin, step, td_D, dt_s, td_ms, td_s, i64, f64, flags):
    i = cuda.grid(1)
    if i < d1.size:
        td_D[0, i] = d2[i] - d1[i]                           # datetime - datetime
        td_D[1, i] = d1[i] - origin                          # a datetime64[D] scalar argument
        dt_s[0, i] = d1[i] + t1[i]                           # datetime[D] + timedelta[s] -> datetime[s]
        dt_s[1, i] = t1[i] + d1[i]
        dt_s[2, i] = ds[i] - t1[i]
        dt_s[3, i] = ds[i] + step                            # a timedelta64[m] scalar argument
        td_ms[0, i] = t1[i] + t2[i]                          # timedelta[s] + timedelta[ms] -> timedelta[ms]
        td_ms[1, i] = t1[i] - t2[i]
        td_ms[2, i] = t1[i]                                  # stored in a finer unit
        td_s[0, i] = t1[i] * k[i]
        td_s[1, i] = k[i] * t1[i]
        td_s[2, i] = t1[i] * f[i]
        td_s[3, i] = t1[i] // k[i] * 2                      # a literal operand too
        td_s[4, i] = t1[i] / f[i]
        td_s[5, i] = -t1[i]
        td_s[6, i] = abs(t1[i])
        td_s[7, i] = t1[i] % t3[i]
        i64[0, i] = t1[i] // t3[i]
        f64[0, i] = t1[i] / t3[i]
        flags[0, i] = d1[i] < d2[i]
        flags[1, i] = d1[i] == d2[i]
        flags[2, i] = d1[i] != d2[i]
        flags[3, i] = t1[i] <= t2[i]
        flags[4, i] = ds[i] > d1[i]                          # datetime[s] against datetime[D]
        flags[5, i] = t1[i] >= t3[i]


def _with_nat(values, rng):
    values[rng.random(values.size) < 0.15] = np.datetime64("NaT") if values.dtype.kind == "M" else np.timedelta64("NaT")
    return values


def _datetime_inputs(n=64):
    rng = np.random.default_rng(12)
    day0 = np.datetime64("2000-01-01", "D")
    d1 = _with_nat(day0 + rng.integers(0, 20000, n).astype("m8[D]"), rng)
    d2 = _with_nat(day0 + rng.integers(0, 20000, n).astype("m8[D]"), rng)
    d2[:4] = d1[:4]                                          # equal days: == is True unless NaT
    ds = _with_nat(np.datetime64("2000-01-01T00:00:00", "s") + rng.integers(0, 2 * 10**9, n).astype("m8[s]"), rng)
    t1 = _with_nat(rng.integers(-10**6, 10**6, n).astype("m8[s]"), rng)
    t2 = _with_nat(rng.integers(-10**9, 10**9, n).astype("m8[ms]"), rng)
    t3 = rng.integers(1, 5000, n).astype("m8[s]") * rng.choice([-1, 1], n)
    k = rng.integers(-50, 50, n)
    k[k == 0] = 3
    f = rng.uniform(-4.0, 4.0, n)
    return d1, d2, ds, t1, t2, t3, k, f, np.datetime64("1999-12-25", "D"), np.timedelta64(90, "m")


def _datetime_outputs(n):
    return (np.zeros((2, n), "m8[D]"), np.zeros((4, n), "M8[s]"), np.zeros((3, n), "m8[ms]"),
            np.zeros((8, n), "m8[s]"), np.zeros((1, n), np.int64), np.zeros((1, n)), np.zeros((6, n), bool))


def _datetime_expected(d1, d2, ds, t1, t2, t3, k, f, origin, step):
    with np.errstate(all="ignore"):
        return {
            "td_D": [d2 - d1, d1 - origin],
            "dt_s": [d1 + t1, t1 + d1, ds - t1, ds + step],
            "td_ms": [t1 + t2, t1 - t2, t1.astype("m8[ms]")],
            "td_s": [t1 * k, k * t1, t1 * f, t1 // k * 2, t1 / f, -t1, abs(t1), t1 % t3],
            "i64": [np.where(np.isnat(t1), 0, t1 // t3)],    # NumPy's NaT // x is 0 (with a warning)
            "f64": [t1 / t3],
            "flags": [d1 < d2, d1 == d2, d1 != d2, t1 <= t2, ds > d1, t1 >= t3],
        }


@once_per_backend
def _datetimes(backend):
    """The kernel run three ways: NumPy arguments (copied in and back), device arrays, foreign CAI arrays."""
    inputs = _datetime_inputs()
    n = inputs[0].size
    runs = {}
    host_outs = _datetime_outputs(n)
    datetime_ops[2, 32](*inputs, *host_outs)
    runs["host"] = host_outs
    dev_in = [cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in inputs]
    dev_outs = [cuda.to_device(o) for o in _datetime_outputs(n)]
    datetime_ops[2, 32](*dev_in, *dev_outs)
    runs["device"] = tuple(o.copy_to_host() for o in dev_outs)
    cai_outs = [cuda.to_device(o) for o in _datetime_outputs(n)]
    foreign = [type("Foreign", (), {"__cuda_array_interface__": a.__cuda_array_interface__, "keep": a})()
               if not isinstance(a, np.generic) else a for a in dev_in[:8] + cai_outs]
    datetime_ops[2, 32](*foreign[:8], *inputs[8:], *foreign[8:])
    runs["cai"] = tuple(o.copy_to_host() for o in cai_outs)
    return _datetime_expected(*inputs), runs


_DT_OUTS = ["td_D", "dt_s", "td_ms", "td_s", "i64", "f64", "flags"]
DATETIME_ROWS = {
    "datetime-minus-datetime": [("td_D", 0)],
    "datetime-plus-minus-timedelta": [("dt_s", 0), ("dt_s", 1), ("dt_s", 2)],
    "timedelta-plus-minus-timedelta": [("td_ms", 0), ("td_ms", 1)],
    "timedelta-times-divided-by-number": [("td_s", 0), ("td_s", 1), ("td_s", 2), ("td_s", 3), ("td_s", 4)],
    "timedelta-unary-abs": [("td_s", 5), ("td_s", 6)],
    "timedelta-by-timedelta": [("td_s", 7), ("i64", 0), ("f64", 0)],
    "comparisons-nat": [("flags", c) for c in range(6)],
    "mixed-units": [("dt_s", 0), ("td_ms", 0), ("td_ms", 2), ("flags", 4)],
    "scalar-arguments": [("td_D", 1), ("dt_s", 3)],
}


@pytest.mark.parametrize("source", ["host", "device", "cai"])
@pytest.mark.parametrize("row", DATETIME_ROWS)
def test_datetime64(backend, row, source):
    expected, runs = _datetimes(backend)
    got = runs[source]
    for out, col in DATETIME_ROWS[row]:
        np.testing.assert_array_equal(got[_DT_OUTS.index(out)][col], expected[out][col], err_msg=f"{out}[{col}]")


def datetime_months_plus_days(a, b, out):
    out[0] = a[0] + b[0]


def datetime_plus_int(a, out):
    out[0] = a[0] + 1


def datetime_into_int(a, out):
    out[0] = a[0]


DATETIME_REFUSED = {
    "months-plus-days": (datetime_months_plus_days, (types.NPTimedelta("M")[::1], types.NPTimedelta("D")[::1],
                                                     types.NPTimedelta("D")[::1]),
                         "no common unit for years or months", "a[0] + b[0]"),
    "datetime-months-plus-days": (datetime_months_plus_days, (types.NPDatetime("M")[::1],
                                                              types.NPTimedelta("D")[::1], types.NPDatetime("D")[::1]),
                                  "no common unit for years or months", "a[0] + b[0]"),
    "datetime-plus-int": (datetime_plus_int, (types.NPDatetime("D")[::1], types.NPDatetime("D")[::1]),
                          "unsupported operand types for +: datetime64[D] and int64", "a[0] + 1"),
    "store-into-int": (datetime_into_int, (types.NPTimedelta("s")[::1], types.int64[::1]),
                       "cannot convert timedelta64[s] to int64", "out[0] = a[0]"),
}


@pytest.mark.parametrize("row", DATETIME_REFUSED)
def test_datetime64_refused(row):
    fn, argtypes, words, line = DATETIME_REFUSED[row]
    refused(fn, argtypes, TypingError, words, line)


# ---- np.ndenumerate and a.flat ------------------------------------------------------------------------------
@cuda.jit
def flat_walks(a1, a2, a3, index, value, flat, doubled):
    if cuda.grid(1) == 0:
        n = 0
        for i, v in np.ndenumerate(a1):
            index[n, 0] = i[0]
            value[n] = v
            n += 1
        for ij, v in np.ndenumerate(a2):
            index[n, 0], index[n, 1] = ij
            value[n] = v
            n += 1
        for ijk, v in np.ndenumerate(a3):
            for d in range(3):
                index[n, d] = ijk[d]
            value[n] = v
            n += 1
        m = 0
        for v in a2.flat:
            flat[m] = v
            m += 1
        for k in range(a3.size):
            doubled.flat[k] = a3.flat[k] * 2


@once_per_backend
def _flat_walks(backend):
    rng = _rng()
    a1 = rng.random(5)
    a2 = rng.random((3, 4)).T                                # F-ordered: iteration still goes in C order
    a3 = rng.random((2, 6, 3))[:, ::2, :]                    # strided
    total = a1.size + a2.size + a3.size
    index, value = np.full((total, 3), -1), np.zeros(total)
    flat, doubled = np.zeros(a2.size), np.zeros(a3.shape)
    flat_walks[1, 1](a1, a2, a3, index, value, flat, doubled)
    return (a1, a2, a3), index, value, flat, doubled


@pytest.mark.parametrize("row", ["ndenumerate-1d", "ndenumerate-2d", "ndenumerate-3d"])
def test_ndenumerate(backend, row):
    arrays, index, value, _, _ = _flat_walks(backend)
    d = int(row[-2])
    start = sum(a.size for a in arrays[:d - 1])
    expected = list(np.ndenumerate(arrays[d - 1]))
    rows = slice(start, start + len(expected))
    np.testing.assert_array_equal(index[rows, :d], [ix for ix, _ in expected])
    np.testing.assert_array_equal(value[rows], [v for _, v in expected])


def test_flat_iteration(backend):
    (_, a2, _), _, _, flat, _ = _flat_walks(backend)
    np.testing.assert_array_equal(flat, list(a2.flat))


def test_flat_index_read_write(backend):
    (_, _, a3), _, _, _, doubled = _flat_walks(backend)
    np.testing.assert_array_equal(doubled, a3 * 2)


# ---- ufuncs ----------------------------------------------------------------------------------------------------
@cuda.jit
def ufuncs(x, y, p, q, out, arr_out):
    i = cuda.grid(1)
    if i < x.size:
        a, b, m, n = x[i], y[i], p[i], q[i]
        out[0, i] = np.sin(a)
        out[1, i] = np.cos(a)
        out[2, i] = np.tan(a)
        out[3, i] = np.arcsin(a)
        out[4, i] = np.arccos(a)
        out[5, i] = np.arctan(a)
        out[6, i] = np.arctan2(a, b)
        out[7, i] = np.hypot(a, b)
        out[8, i] = np.sinh(a)
        out[9, i] = np.cosh(a)
        out[10, i] = np.tanh(a)
        out[11, i] = np.arcsinh(a)
        out[12, i] = np.arccosh(1 + a)
        out[13, i] = np.arctanh(a)
        out[14, i] = np.deg2rad(a * 90)
        out[15, i] = np.radians(a * 90)
        out[16, i] = np.rad2deg(a)
        out[17, i] = np.degrees(a)
        out[18, i] = np.greater(a, b)
        out[19, i] = np.greater_equal(m, n)
        out[20, i] = np.less(a, b)
        out[21, i] = np.less_equal(m, n)
        out[22, i] = np.not_equal(m, n)
        out[23, i] = np.equal(m, n)
        out[24, i] = np.log(b)
        out[25, i] = np.log2(b)
        out[26, i] = np.log10(b)
        out[27, i] = np.logical_and(m, n)
        out[28, i] = np.logical_or(m, n)
        out[29, i] = np.logical_xor(m, n)
        out[30, i] = np.logical_not(m)
        out[31, i] = np.maximum(a, b)
        out[32, i] = np.minimum(a, b)
        out[33, i] = np.fmax(a, b)
        out[34, i] = np.fmin(a, b)
        out[35, i] = np.bitwise_and(m, n)
        out[36, i] = np.bitwise_or(m, n)
        out[37, i] = np.bitwise_xor(m, n)
        out[38, i] = np.invert(m)
        out[39, i] = np.bitwise_not(m)
        out[40, i] = np.left_shift(m, 3)
        out[41, i] = np.right_shift(m, 2)
    if i == 0:
        np.sin(x, arr_out)                                   # an array and its output, as numba-cuda documents


UFUNCS = [
    ("np.sin", lambda a, b, m, n: np.sin(a)), ("np.cos", lambda a, b, m, n: np.cos(a)),
    ("np.tan", lambda a, b, m, n: np.tan(a)), ("np.arcsin", lambda a, b, m, n: np.arcsin(a)),
    ("np.arccos", lambda a, b, m, n: np.arccos(a)), ("np.arctan", lambda a, b, m, n: np.arctan(a)),
    ("np.arctan2", lambda a, b, m, n: np.arctan2(a, b)), ("np.hypot", lambda a, b, m, n: np.hypot(a, b)),
    ("np.sinh", lambda a, b, m, n: np.sinh(a)), ("np.cosh", lambda a, b, m, n: np.cosh(a)),
    ("np.tanh", lambda a, b, m, n: np.tanh(a)), ("np.arcsinh", lambda a, b, m, n: np.arcsinh(a)),
    ("np.arccosh", lambda a, b, m, n: np.arccosh(1 + a)), ("np.arctanh", lambda a, b, m, n: np.arctanh(a)),
    ("np.deg2rad", lambda a, b, m, n: np.deg2rad(a * 90)), ("np.radians", lambda a, b, m, n: np.radians(a * 90)),
    ("np.rad2deg", lambda a, b, m, n: np.rad2deg(a)), ("np.degrees", lambda a, b, m, n: np.degrees(a)),
    ("np.greater", lambda a, b, m, n: np.greater(a, b)), ("np.greater_equal", lambda a, b, m, n: np.greater_equal(m, n)),
    ("np.less", lambda a, b, m, n: np.less(a, b)), ("np.less_equal", lambda a, b, m, n: np.less_equal(m, n)),
    ("np.not_equal", lambda a, b, m, n: np.not_equal(m, n)), ("np.equal", lambda a, b, m, n: np.equal(m, n)),
    ("np.log", lambda a, b, m, n: np.log(b)), ("np.log2", lambda a, b, m, n: np.log2(b)),
    ("np.log10", lambda a, b, m, n: np.log10(b)), ("np.logical_and", lambda a, b, m, n: np.logical_and(m, n)),
    ("np.logical_or", lambda a, b, m, n: np.logical_or(m, n)),
    ("np.logical_xor", lambda a, b, m, n: np.logical_xor(m, n)),
    ("np.logical_not", lambda a, b, m, n: np.logical_not(m)), ("np.maximum", lambda a, b, m, n: np.maximum(a, b)),
    ("np.minimum", lambda a, b, m, n: np.minimum(a, b)), ("np.fmax", lambda a, b, m, n: np.fmax(a, b)),
    ("np.fmin", lambda a, b, m, n: np.fmin(a, b)), ("np.bitwise_and", lambda a, b, m, n: np.bitwise_and(m, n)),
    ("np.bitwise_or", lambda a, b, m, n: np.bitwise_or(m, n)),
    ("np.bitwise_xor", lambda a, b, m, n: np.bitwise_xor(m, n)), ("np.invert", lambda a, b, m, n: np.invert(m)),
    ("np.bitwise_not", lambda a, b, m, n: np.bitwise_not(m)), ("np.left_shift", lambda a, b, m, n: np.left_shift(m, 3)),
    ("np.right_shift", lambda a, b, m, n: np.right_shift(m, 2)),
]


@once_per_backend
def _ufuncs(backend):
    rng = _rng()
    x, y = rng.uniform(-0.95, 0.95, N), rng.uniform(0.1, 3.0, N)
    x[:4] = y[:4] = np.nan                                   # maximum/minimum propagate NaN, fmax/fmin ignore it
    x[4:6] = np.nan
    p, q = rng.integers(-40, 40, N), rng.integers(-3, 3, N)
    out, arr_out = np.zeros((len(UFUNCS), N)), np.zeros(N)
    ufuncs[1, N](x, y, p, q, out, arr_out)
    return x, y, p, q, out, arr_out


@pytest.mark.parametrize("row", [r[0] for r in UFUNCS])
def test_ufunc(backend, row):
    x, y, p, q, out, _ = _ufuncs(backend)
    col = [r[0] for r in UFUNCS].index(row)
    with np.errstate(invalid="ignore"):
        expected = UFUNCS[col][1](x, y, p, q)
    np.testing.assert_allclose(out[col], expected, rtol=1e-13)


def test_ufunc_with_output_array(backend):
    x, _, _, _, _, arr_out = _ufuncs(backend)
    np.testing.assert_allclose(arr_out, np.sin(x), rtol=1e-13)


# ---- complex numbers at inf and nan, as NumPy gives them --------------------------------------------------------
@cuda.jit
def complex_specials(z, w, out):
    i = cuda.grid(1)
    if i < z.size:
        out[0, i] = z[i] * w[i]
        out[1, i] = z[i] + w[i]
        out[2, i] = abs(z[i])
        out[3, i] = z[i].conjugate()


@pytest.mark.parametrize("row,column,oracle", [("complex-mul", 0, np.multiply), ("complex-add", 1, np.add),
                                               ("complex-abs", 2, lambda z, w: np.abs(z)),
                                               ("complex-conjugate", 3, lambda z, w: np.conj(z))])
def test_complex_specials(backend, row, column, oracle):
    specials = [0.0, -0.0, 1.5, np.inf, -np.inf, np.nan]
    z = np.array([complex(r, i) for r in specials for i in specials])
    w = np.roll(z, 7)
    out = np.zeros((4, z.size), np.complex128)
    complex_specials[1, z.size](z, w, out)
    with np.errstate(invalid="ignore"):
        expected = oracle(z, w)
    np.testing.assert_allclose(out[column], expected, rtol=5e-16)      # inf and nan where NumPy has them
