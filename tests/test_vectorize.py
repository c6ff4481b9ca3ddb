"""cuda.vectorize / cuda.guvectorize (numba-cuda's GPU ufuncs) on every backend, NumPy as the oracle."""
import math

import numpy as np
import pytest

import cudajit
from cudajit import cuda


@cuda.jit("float32(float32, float32)", device=True)
def scaled_diff(x, y):
    return (x - y) * 0.5


@cudajit.vectorize(["float32(float32, float32)", "float64(float64, float64)"], target="cuda")
def discriminant(a, b):
    return math.sqrt(b * b + 4 * a)


@cuda.vectorize(["float32(float32, float32)"])
def calls_device_function(x, y):
    return scaled_diff(x, y)


@cuda.vectorize
def lazy_sub(x, y):
    return x - y


@cuda.guvectorize(["void(float64[:], float64, float64[:])", "void(float32[:], float32, float32[:])"],
                  "(n),()->(n)")
def axpy_rows(x, c, out):
    for i in range(x.shape[0]):
        out[i] = x[i] * c + i


@cuda.guvectorize(["void(float64[:, :], float64[:, :], float64[:, :])"], "(m,n),(n,p)->(m,p)")
def matmul_core(a, b, c):
    for i in range(c.shape[0]):
        for j in range(c.shape[1]):
            acc = 0.0
            for k in range(a.shape[1]):
                acc += a[i, k] * b[k, j]
            c[i, j] = acc


def test_vectorize_eager_host_and_broadcast(backend, rng):
    a = rng.random((4, 5)).astype(np.float32)
    b = rng.random(5).astype(np.float32)
    got = discriminant(a, b)
    assert isinstance(got, np.ndarray) and got.dtype == np.float32 and got.shape == (4, 5)
    np.testing.assert_allclose(got, np.sqrt(b * b + 4 * a), rtol=1e-6)
    d = discriminant(a.astype(np.float64), 2.5)                 # a Python scalar takes the array's signature
    np.testing.assert_allclose(d, np.sqrt(6.25 + 4 * a.astype(np.float64)), rtol=1e-14)


def test_vectorize_scalars_alone_give_one_element(backend, rng):
    # numba-cuda makes each scalar a 1-element array: a call of scalars alone returns shape (1,) (DLI's
    # `gaussian_pdf(x[0], 0.0, 1.0)`), and a scalar beside a 0-d array broadcasts it to (1,) too
    a, b = rng.random(2)
    got = calls_device_function(np.float32(a), b)              # one signature: every scalar is cast to it
    assert isinstance(got, np.ndarray) and got.shape == (1,) and got.dtype == np.float32
    np.testing.assert_allclose(got[0], (np.float32(a) - np.float32(b)) * 0.5, rtol=1e-6)
    got = discriminant(a, b)                                     # Python floats take the float64 signature
    assert got.shape == (1,) and got.dtype == np.float64
    np.testing.assert_allclose(got, [math.sqrt(b * b + 4 * a)], rtol=1e-14)
    assert discriminant(np.asarray(a), b).shape == (1,)
    assert discriminant(np.asarray(a), np.asarray(b)).shape == ()   # 0-d arrays alone stay 0-d


def test_vectorize_of_a_lambda(backend, rng):
    # its name is '<lambda>', which the generated kernel must not take as its own
    eager = cuda.vectorize(["float64(float64, float64)"])(lambda x, y: x * y - 1.0)
    lazy = cuda.vectorize(lambda x: x + 2)
    x, y = rng.standard_normal(300), rng.standard_normal(300)
    np.testing.assert_allclose(eager(x, y), x * y - 1.0, rtol=1e-15, atol=1e-14)   # the GPU may fuse to an FMA
    n = rng.integers(-100, 100, 300).astype(np.int32)
    np.testing.assert_array_equal(lazy(n), n + 2)


def test_vectorize_device_inputs_stay_on_device(backend, rng):
    x = rng.random(300).astype(np.float32)
    y = rng.random(300).astype(np.float32)
    dx, dy = cuda.to_device(x), cuda.to_device(y)
    got = calls_device_function(dx, y)
    assert isinstance(got, cuda.DeviceNDArray)
    np.testing.assert_allclose(got.copy_to_host(), (x - y) * np.float32(0.5), rtol=1e-6)
    out = cuda.device_array(300, np.float32)
    stream = cuda.stream()
    assert calls_device_function(dx, dy, out=out, stream=stream) is not None
    stream.synchronize()
    np.testing.assert_allclose(out.copy_to_host(), (x - y) * np.float32(0.5), rtol=1e-6)
    host_out = np.zeros(300, np.float32)
    calls_device_function(x, y, out=host_out)
    np.testing.assert_allclose(host_out, (x - y) * np.float32(0.5), rtol=1e-6)


def test_vectorize_lazy_types_per_call(backend, rng):
    i = rng.integers(-1000, 1000, 50, dtype=np.int32)
    f = rng.random(50)
    assert lazy_sub(i, i[::-1]).dtype == np.int64             # Numba: int32 - int32 is int64
    np.testing.assert_array_equal(lazy_sub(i, i[::-1]), i.astype(np.int64) - i[::-1])
    np.testing.assert_allclose(lazy_sub(f, i), f - i)


def _numba_reduce_order(f, a):
    """numba-cuda's reduce order: odd n reduces a[:-1] then folds a[-1]; even n folds the halves and recurses."""
    n = len(a)
    if n == 1:
        return a[0]
    if n % 2:
        return f(_numba_reduce_order(f, a[:-1]), a[-1])
    return _numba_reduce_order(f, f(a[:n // 2], a[n // 2:]))


@pytest.mark.parametrize("n", [1, 2, 7, 100, 513])
def test_reduce_in_numba_cuda_order(backend, rng, n):
    a = rng.integers(-50, 50, n, dtype=np.int64)
    assert lazy_sub.reduce(a) == _numba_reduce_order(np.subtract, a)
    b = rng.random(n)
    assert discriminant.reduce(cuda.to_device(b)) == pytest.approx(
        _numba_reduce_order(lambda p, q: np.sqrt(q * q + 4 * p), b), rel=1e-13)


def test_reduce_errors(backend):
    with pytest.raises(TypeError, match="empty"):
        lazy_sub.reduce(np.zeros(0))
    with pytest.raises(ValueError, match="1-d"):
        lazy_sub.reduce(np.zeros((2, 2)))


def test_vectorize_exact_dtypes(backend):
    with pytest.raises(TypeError, match=r"discriminant\(\): no signature for input dtypes \(int32, int32\)"):
        discriminant(np.zeros(3, np.int32), np.zeros(3, np.int32))


def test_guvectorize_layout_scalar_and_outputs(backend, rng):
    x = rng.random((6, 4))
    got = axpy_rows(x, 3.0)
    np.testing.assert_allclose(got, x * 3.0 + np.arange(4), rtol=1e-14)
    cs = rng.random(6).astype(np.float32)
    out = cuda.device_array((6, 4), np.float32)
    axpy_rows(cuda.to_device(x.astype(np.float32)), cs, out)
    np.testing.assert_allclose(out.copy_to_host(), x.astype(np.float32) * cs[:, None] + np.arange(4), rtol=1e-6)


def test_guvectorize_matmul_broadcast_loop(backend, rng):
    a = rng.random((3, 2, 4))
    b = rng.random((4, 5))
    np.testing.assert_allclose(matmul_core(a, b), a @ b, rtol=1e-13)
    with pytest.raises(ValueError, match="dimension 'n' is 3"):
        matmul_core(a, rng.random((3, 5)))


@cuda.guvectorize(["void(int32[:], int32[:], int32[:])"], "(n),()->(n)")
def add_first(x, y, res):
    for i in range(x.shape[0]):
        res[i] = x[i] + y[0]


def test_guvectorize_loops_as_numba_cuda_over_a_pinned_input(backend, rng):
    """numba-cuda's loop: the first largest outer shape, other inputs the same or (1,)/() (one value for every
    iteration): "(n),()->(n)" over (4,) and (1,) loops over nothing and gives (4,), where NumPy would give (1, 4)."""
    a = rng.integers(-100, 100, 4).astype(np.int32)
    b = rng.integers(-100, 100, 1).astype(np.int32)
    res = np.zeros(4, np.int32)
    assert add_first(a, b, out=res) is res
    np.testing.assert_array_equal(res, a + b[0])
    np.testing.assert_array_equal(add_first(a, b), a + b[0])
    rows = rng.integers(-100, 100, (2, 4)).astype(np.int32)
    np.testing.assert_array_equal(add_first(rows, b), rows + b[0])
    bs = rng.integers(-100, 100, 2).astype(np.int32)
    np.testing.assert_array_equal(add_first(rows, bs), rows + bs[:, None])
    np.testing.assert_array_equal(add_first(a, bs), a[None, :] + bs[:, None])      # broadcast as NumPy
    with pytest.raises(ValueError, match=r"output shape \(1, 4\) should be \(4,\)"):
        add_first(a, b, out=np.zeros((1, 4), np.int32))


def test_vectorize_options_are_numba_cudas():
    def add(a, b):
        return a + b
    with pytest.warns(RuntimeWarning, match="nopython kwarg for cuda target is redundant"):
        f = cuda.vectorize(["float64(float64, float64)"], nopython=True)(add)
    x = np.random.default_rng(8).standard_normal(5)
    np.testing.assert_array_equal(f(x, x), x + x)
    with pytest.raises(KeyError, match="cuda vectorize target does not support option: 'fastmth'"):
        cuda.vectorize(["float64(float64, float64)"], fastmth=True)
    with pytest.raises(TypeError, match="caching is not supported"):
        cuda.vectorize(["float64(float64, float64)"], cache=True)
    layout = ("void(float32[:], float32[:])", "(x)->(x)")
    cuda.guvectorize(*layout, nopython=True)
    with pytest.raises(TypeError, match="nopython flag must be True"):
        cuda.guvectorize(*layout, nopython=False)
    with pytest.raises(TypeError, match="The following target options are not supported: 'what1', 'ever2'"):
        cuda.guvectorize(*layout, what1=True, ever2=False)
    with pytest.raises(TypeError, match="writable_args are not supported"):
        cuda.guvectorize(*layout, writable_args=(0,))
    with pytest.raises(TypeError, match="caching is not supported"):
        cuda.guvectorize(*layout, cache=True)


def test_vectorize_rejects_other_targets():
    with pytest.raises(ValueError, match="target='cuda' only"):
        cuda.vectorize(["float32(float32)"], target="cpu")


@cuda.guvectorize(["void(float32[:], float32[:])"], "(n)->()")
def row_norm32(v, out):
    acc = 0.0
    for x in v:
        acc += x * x
    out[0] = math.sqrt(acc)


def test_guvectorize_casts_wider_host_inputs(backend, rng):
    """numba-cuda picks the first signature whose dtypes cast safely to the inputs' and narrows host data to it."""
    x = rng.random((7, 3))                                         # float64 data, a float32-only gufunc
    got = row_norm32(x)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, np.linalg.norm(x.astype(np.float32), axis=1), rtol=1e-6)
    with pytest.raises(TypeError, match=r"row_norm32\(\): no signature for input dtypes \(float16\)"):
        row_norm32(x.astype(np.float16))                            # float32 does not cast safely to float16
    with pytest.raises(TypeError, match="argument 1 is a device array of float64"):
        row_norm32(cuda.to_device(x))


class Foreign:
    """Another library's device array: seen only through __cuda_array_interface__."""

    def __init__(self, dev):
        self._dev = dev
        self.__cuda_array_interface__ = dev.__cuda_array_interface__


def test_ufuncs_take_cuda_array_interface_operands(backend, rng):
    x, y = rng.random(200).astype(np.float32), rng.random(200).astype(np.float32)
    got = calls_device_function(Foreign(cuda.to_device(x)), y)
    assert isinstance(got, cuda.DeviceNDArray)
    np.testing.assert_allclose(got.copy_to_host(), (x - y) * np.float32(0.5), rtol=1e-6)
    out = cuda.device_array(200, np.float32)
    calls_device_function(x, Foreign(cuda.to_device(y)), out=Foreign(out))
    np.testing.assert_allclose(out.copy_to_host(), (x - y) * np.float32(0.5), rtol=1e-6)


def test_gufuncs_take_cuda_array_interface_operands(backend, rng):
    x = rng.random((3, 7))
    out = cuda.device_array((3, 7))
    axpy_rows(Foreign(cuda.to_device(x)), 2.0, Foreign(out))
    np.testing.assert_allclose(out.copy_to_host(), x * 2.0 + np.arange(7), rtol=1e-14)
    got = axpy_rows(Foreign(cuda.to_device(x)), 3.0)
    assert isinstance(got, cuda.DeviceNDArray)
    np.testing.assert_allclose(got.copy_to_host(), x * 3.0 + np.arange(7), rtol=1e-14)


def test_vectorize_signature_of_argument_types_only(backend, rng):
    """Numba's ``vectorize([(t1, t2)])``: the result type is inferred (a timedelta from two datetimes here)."""
    day = cuda.from_dtype(np.dtype("datetime64[D]"))

    @cuda.vectorize([(day, day), (cuda.float32, cuda.int32)])
    def diff(a, b):
        return b - a

    start = np.datetime64("2005-02-01") + rng.integers(0, 400, 64).astype("timedelta64[D]")
    end = start + rng.integers(0, 10000, 64).astype("timedelta64[D]")
    got = diff(start, end)
    assert got.dtype == np.dtype("timedelta64[D]")
    np.testing.assert_array_equal(got, end - start)
    x, n = rng.standard_normal(20).astype(np.float32), rng.integers(-50, 50, 20).astype(np.int32)
    np.testing.assert_allclose(diff(x, n), n - x.astype(np.float64), rtol=1e-7)


def test_gufunc_argument_count_and_return_type_errors(backend, rng):
    """numba-cuda's words (its test_gufunc.py test_incorrect_number_of_pos_args and test_bad_return_type)."""
    x = rng.integers(-100, 100, 7).astype(np.int32)
    y = rng.integers(-100, 100, 1).astype(np.int32)
    for args, got in (((x,), "Got 1 positional argument."), ((x, y, x, x), "Got 4 positional arguments.")):
        with pytest.raises(TypeError) as info:
            add_first(*args)
        assert str(info.value) == ("add_first(): this gufunc accepts 2 positional arguments (when providing input "
                                   "only) or 3 positional arguments (when providing input and output). " + got)
    np.testing.assert_array_equal(add_first(x, y), x + y[0])      # 2 or 3 arguments run
    with pytest.raises(TypeError, match=r"^guvectorized functions cannot return values: signature .* specifies "
                                        r"int32 return type; declare it void"):
        cuda.guvectorize([cudajit.int32(cudajit.int32[:], cudajit.int32[:])], "(m)->(m)")(lambda a, b: None)


def test_ufunc_of_device_data_copies_nothing_between_host_and_device(backend, rng, monkeypatch):
    """numba-cuda's test_no_transfer_for_device_data, through cudajit's own copy functions: a ufunc whose inputs
    are on the device leaves its result there, with no copy to or from the host."""
    from cudajit import _core
    noise = rng.standard_normal((1, 3, 64, 64)).astype(np.float32)
    other = rng.standard_normal((1, 3, 64, 64)).astype(np.float32)
    d_noise, d_other = cuda.to_device(noise), cuda.to_device(other)
    copies = []
    for name in [n for n in dir(_core) if n.startswith(("copy_htod", "copy_dtoh"))]:
        monkeypatch.setattr(_core, name, lambda *a, _name=name, **k: copies.append(_name))
    got = calls_device_function(d_noise, d_other)
    lazy = lazy_sub(d_noise, d_other)
    assert copies == [] and isinstance(got, cuda.DeviceNDArray) and isinstance(lazy, cuda.DeviceNDArray)
    monkeypatch.undo()
    np.testing.assert_allclose(got.copy_to_host(), (noise - other) * np.float32(0.5), rtol=1e-6)
    np.testing.assert_array_equal(lazy.copy_to_host(), noise - other)
