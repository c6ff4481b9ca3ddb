"""Numba's Optional: a value that is None on one path and a number on another (a variable, a device function's
return) is ``OptionalType(T)``. ``is None`` / ``is not None`` read its flag; any other use needs a T: when the
value is None there, numba-cuda's TypeError status ends the thread (every device function returns, then the
kernel), and with debug=True the launch raises TypeError('expected T, got None') naming the line of the use."""
import inspect

import numpy as np
import pytest

from cudajit import cuda
from cudajit.compiler import compile_kernel, types
from cudajit.errors import TypingError
from doc_surface_util import refused


def _line(fn, text):
    lines, first = inspect.getsourcelines(getattr(fn, "py_func", fn))
    return first + next(k for k, line in enumerate(lines) if text in line)


# ---- numba-examples' GPU histogram ---------------------------------------------------------------------------
@cuda.jit(device=True)
def compute_bin(x, n, xmin, xmax):
    if x == xmax:          # special case to mirror NumPy behavior for last bin
        return n - 1
    bin = np.int32(n * (x - xmin) / (xmax - xmin))
    if bin < 0 or bin >= n:
        return None
    else:
        return bin


@cuda.jit
def histogram(x, xmin, xmax, histogram_out):
    nbins = histogram_out.shape[0]
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        bin_number = compute_bin(x[i], nbins, xmin, xmax)
        if bin_number >= 0 and bin_number < histogram_out.shape[0]:
            cuda.atomic.add(histogram_out, bin_number, 1)


def _bins(x, n, xmin, xmax):
    """compute_bin in NumPy: float64 arithmetic in the kernel's order, truncated toward zero as np.int32 does
    (so values just below xmin land in bin 0); -1 where it returns None."""
    x64 = x.astype(np.float64)
    b = np.trunc(n * (x64 - xmin) / (xmax - xmin))
    b = np.where((b < 0) | (b >= n), -1, b).astype(np.int64)
    return np.where(x64 == xmax, n - 1, b)


def _histogram_model(x, n, xmin, xmax, nthreads):
    """What each thread counts: i = t, t + stride, ... up to its first element whose bin is None, where the use of
    that None (``bin_number >= 0``) ends the thread."""
    bins = _bins(x, n, xmin, xmax)
    counts = np.zeros(n, np.int64)
    for t in range(nthreads):
        for b in bins[t::nthreads]:
            if b < 0:
                break
            counts[b] += 1
    return counts


def _histogram_data(rng, size, xmax):
    x = rng.normal(0.0, 1.5, size).astype(np.float32)
    x[rng.choice(size, 7, replace=False)] = xmax          # the last bin's special case
    return x


def test_histogram_grid_stride_threads_end_at_their_first_none(backend, rng):
    xmin, xmax, nbins, blocks, threads = -2.0, 2.0, 10, 4, 32
    x = _histogram_data(rng, 5000, xmax)
    out = np.zeros(nbins, np.int32)
    histogram[blocks, threads](x, xmin, xmax, out)
    expected = _histogram_model(x, nbins, xmin, xmax, blocks * threads)
    np.testing.assert_array_equal(out, expected)
    # the thread's end is visible: counting every in-range element would give more
    in_range = _bins(x, nbins, xmin, xmax)
    assert out.sum() < (in_range >= 0).sum()


def test_histogram_one_element_per_thread_is_numpys(backend, rng):
    xmin, xmax, nbins = -2.0, 2.0, 10
    x = _histogram_data(rng, 4000, xmax)
    out = np.zeros(nbins, np.int32)
    histogram[(x.size + 127) // 128, 128](x, xmin, xmax, out)
    x64 = x.astype(np.float64)
    inside = x64[(x64 >= xmin) & (x64 <= xmax)]
    expected, _ = np.histogram(inside, bins=nbins, range=(xmin, xmax))
    # np.int32() truncates toward zero: values less than a bin's width below xmin count in bin 0
    width = (xmax - xmin) / nbins
    expected[0] += np.count_nonzero((x64 < xmin) & (x64 > xmin - width))
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(out, _histogram_model(x, nbins, xmin, xmax, x.size))


# ---- is None / is not None, loops, defaults --------------------------------------------------------------------
@cuda.jit
def best_below(x, limit, out, found):
    i = cuda.grid(1)
    if i >= out.shape[0]:
        return
    best = None
    for j in range(x.shape[1]):
        v = x[i, j]
        if v > limit:
            continue
        if best is None or v > best:
            best = v
    if best is not None:
        out[i] = best
        found[i] = 1
    else:
        found[i] = 0


def test_loop_finds_the_best_value(backend, rng):
    x = rng.random((100, 6))
    out, found = np.zeros(100), np.zeros(100, np.int32)
    best_below[4, 32](x, 0.3, out, found)
    below = x <= 0.3
    np.testing.assert_array_equal(found, below.any(axis=1))
    assert 0 < found.sum() < 100                        # both branches run
    expected = np.where(below, x, -np.inf).max(axis=1)
    np.testing.assert_array_equal(out[found == 1], expected[found == 1])
    np.testing.assert_array_equal(out[found == 0], 0)


@cuda.jit(device=True)
def index_of(a, t):
    for k in range(a.shape[0]):
        if a[k] == t:
            return k
    return None


@cuda.jit(device=True)
def doubled_or(r, fallback):
    if r is None:
        return fallback
    return r * 2


@cuda.jit(device=True)
def positive(v):
    if v > 0:
        return v                  # falls off the end otherwise: Python's None


@cuda.jit
def lookups(a, targets, out):
    i = cuda.grid(1)
    if i < targets.shape[0]:
        r = index_of(a, targets[i])
        out[i, 0] = -1 if r is None else r
        out[i, 1] = doubled_or(r, -7)                   # an Optional argument, tested inside
        p = positive(targets[i] - 10)
        if p is not None:
            out[i, 2] = p
        else:
            out[i, 2] = -3


def test_device_function_returning_optional(backend, rng):
    a = rng.integers(0, 30, 25)
    targets = rng.integers(0, 40, 60)
    out = np.zeros((60, 3), np.int64)
    lookups[2, 32](a, targets, out)
    pos = np.array([list(a).index(t) if t in a else -1 for t in targets])
    assert (pos >= 0).any() and (pos < 0).any()
    np.testing.assert_array_equal(out[:, 0], pos)
    np.testing.assert_array_equal(out[:, 1], np.where(pos >= 0, pos * 2, -7))
    np.testing.assert_array_equal(out[:, 2], np.where(targets > 10, targets - 10, -3))


@cuda.jit
def none_on_some_paths(a, out, flags, z):
    i = cuda.grid(1)
    if i < a.shape[0]:
        x = a[i]
        if a[i] % 3 == 0:
            x = None
        out[i, 0] = 0 if x is None else x
        flag = None
        if a[i] % 2 == 0:
            flag = a[i] > 4
        flags[i] = 2 if flag is None else flag          # a bool Optional
        c = None
        if a[i] > 0:
            c = 1j * a[i] + 0.5
        if c is not None:
            z[i] = c
        s = None
        for j in range(max(a[i], 0)):
            if s is None:
                s = 0
            s += j                                       # an Optional updated in place
        out[i, 1] = -1 if s is None else s


def test_variables_none_on_some_paths(backend, rng):
    a = rng.integers(-6, 12, 50)
    out, flags, z = np.zeros((50, 2), np.int64), np.zeros(50, np.int8), np.zeros(50, np.complex128)
    none_on_some_paths[2, 32](a, out, flags, z)
    np.testing.assert_array_equal(out[:, 0], np.where(a % 3 == 0, 0, a))
    np.testing.assert_array_equal(flags, np.where(a % 2 == 0, a > 4, 2))
    np.testing.assert_array_equal(z, np.where(a > 0, 1j * a + 0.5, 0))
    np.testing.assert_array_equal(out[:, 1], [sum(range(v)) if v > 0 else -1 for v in a])


@cuda.jit(device=True)
def times(v, s=None):
    if s is None:
        s = 3
    return v * s


@cuda.jit(device=True)
def times_if_big(v, s):
    if v > 0.5:
        s = 4.0                      # None on the other path: an Optional
    return v if s is None else v * s


@cuda.jit
def scaled(a, out, scale=None):
    i = cuda.grid(1)
    if scale is None:
        scale = 2.5
    if i < a.shape[0]:
        out[i] = a[i] * scale + times(a[i]) + times(a[i], 2) + times(a[i], None) * 10 + times_if_big(a[i], None)


def test_none_default_reassigned(backend, rng):
    a = rng.random(40)
    out = np.zeros(40)
    tail = a * 35 + np.where(a > 0.5, a * 4, a)
    scaled[2, 32](a, out)
    np.testing.assert_allclose(out, a * 2.5 + tail, rtol=1e-15)
    scaled[2, 32](a, out, 4.0)
    np.testing.assert_allclose(out, a * 4.0 + tail, rtol=1e-15)


# ---- a use of None ends the thread; debug=True raises ------------------------------------------------------------
@cuda.jit(device=True)
def next_after(a, t):
    k = index_of(a, t)
    return a[k + 1]                 # k None: the thread ends here, its callers never resume


@cuda.jit
def ends_thread(a, targets, out):
    i = cuda.grid(1)
    if i < targets.shape[0]:
        out[i, 0] = 1
        out[i, 1] = next_after(a, targets[i])
        out[i, 2] = 1


def test_none_used_ends_the_thread(backend, rng):
    a = rng.permutation(50)[:20]
    targets = rng.integers(0, 50, 64)
    targets[targets == a[-1]] = a[0]                    # a[k + 1] stays in range
    out = np.zeros((64, 3), np.int64)
    ends_thread[2, 32](a, targets, out)
    hit = np.isin(targets, a[:-1])
    assert hit.any() and (~hit).any()
    np.testing.assert_array_equal(out[:, 0], 1)
    nxt = [a[list(a).index(t) + 1] if h else 0 for t, h in zip(targets, hit)]
    np.testing.assert_array_equal(out[:, 1], nxt)
    np.testing.assert_array_equal(out[:, 2], hit)       # nothing after the None's use ran


@cuda.jit(debug=True, opt=False)
def ends_thread_debug(a, targets, out):
    i = cuda.grid(1)
    if i < targets.shape[0]:
        r = index_of(a, targets[i])
        out[i] = r + 1


@cuda.jit(device=True)
def half_or_none(v):
    if v < 0:
        return None
    return np.float32(v) / np.float32(2)


@cuda.jit(debug=True, opt=False)
def float_debug(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        h = half_or_none(a[i])
        out[i] = h


def test_debug_raises_type_error_at_the_use(backend, rng):
    a = rng.permutation(30)
    targets = a[:10].copy()
    out = np.zeros(10, np.int64)
    ends_thread_debug[1, 32](a, targets, out)                 # every target found: no error
    np.testing.assert_array_equal(out, np.arange(1, 11))
    targets[6] = 99
    with pytest.raises(TypeError) as info:
        ends_thread_debug[1, 32](a, targets, out)
    msg = str(info.value)
    assert "expected int64, got None" in msg, msg
    assert f"test_optional.py, line {_line(ends_thread_debug, 'out[i] = r + 1')}" in msg, msg
    assert "In function 'ends_thread_debug'" in msg and "tid=[6, 0, 0]" in msg, msg

    x = rng.random(20)
    outf = np.zeros(20, np.float32)
    float_debug[1, 32](x, outf)
    np.testing.assert_allclose(outf, (x.astype(np.float32) / 2), rtol=1e-6)
    x[3] = -1.0
    with pytest.raises(TypeError) as info:
        float_debug[1, 32](x, outf)
    msg = str(info.value)
    assert "expected float32, got None" in msg, msg
    assert f"line {_line(float_debug, 'out[i] = h')}" in msg, msg


# ---- typing and what stays refused ------------------------------------------------------------------------------
def test_types_are_numbas():
    ks = compile_kernel(histogram.py_func, (types.float32[::1], types.float64, types.float64, types.int32[::1]))
    assert "compute_bin (float32, int64, float64, float64) -> OptionalType(int64)" in ks.source
    assert "cj::Optional<int64_t> bin_number" in ks.source


def _maybe_next(x):
    if x > 0:
        return x + 1
    else:
        return


def test_cuda_compile_of_a_function_returning_optional():
    # numba-cuda's test_compile_cabi_calling_device_function_returning_optional, as PTX: the C wrapper declared to
    # return int32 unwraps the Optional(int64) its callee returns
    from cudajit import _core
    if not _core.nvrtc_available()[0]:
        pytest.skip("NVRTC not found")
    maybe = cuda.jit(device=True)(_maybe_next)

    def wrapper(x):
        return maybe(x)
    ptx, restype = cuda.compile(wrapper, types.int32(types.int32), output="ptx", abi="c")
    assert restype == types.int32 and ".visible .func" in ptx and "wrapper" in ptx
    ptx, restype = cuda.compile(wrapper, (types.int32,), output="ptx", abi="numba")
    assert str(restype) == "OptionalType(int64)"


def optional_tuple(a):
    t = None
    if a[0] > 0:
        t = (a[0], a[1])
    a[2] = 0.0 if t is None else t[0]


def print_optional(a):
    x = None
    if a[0] > 0:
        x = a[0]
    print(x)


@cuda.jit(device=True)
def optional_pair(v):
    if v > 0:
        return (v, v)
    return None


def returns_optional_pair(a):
    p = optional_pair(a[0])
    a[1] = p[0]


@pytest.mark.parametrize("fn, words, line", [
    (optional_tuple, "variable 't' is None on one path and UniTuple(float64 x 2) on another", "a[2] = 0.0 if t"),
    (print_optional, "print() of a value that may be None (OptionalType(float64)", "print(x)"),
    (returns_optional_pair, "'optional_pair' returns None on one path and UniTuple(float64 x 2) on another",
     "return None"),
])
def test_refused_optional(fn, words, line):
    if fn is returns_optional_pair:                 # the error is in the device function's own file and line
        with pytest.raises(TypingError) as info:
            compile_kernel(fn, (types.float64[::1],))
        msg = str(info.value)
        assert words in msg and f"test_optional.py:{_line(optional_pair, line)}:" in msg, msg
        return
    msg = refused(fn, (types.float64[::1],), TypingError, words, line)
    assert "booleans and numbers" in msg or "print(float(x))" in msg, msg
