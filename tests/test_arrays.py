"""Device arrays on every backend: creation, copies, views, setitem, reshape, interop (NumPy is the oracle)."""
import numpy as np
import pytest

from cudajit import cuda


DTYPES = [np.float32, np.float64, np.int32, np.int64, np.uint8, np.complex64, np.bool_]


@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trip(backend, rng, dtype):
    a = (rng.standard_normal((7, 5)) * 100).astype(dtype)
    d = cuda.to_device(a)
    assert d.shape == a.shape and d.strides == a.strides and d.dtype == a.dtype
    assert d.size == a.size and d.ndim == 2 and d.nbytes == a.nbytes and len(d) == 7
    np.testing.assert_array_equal(d.copy_to_host(), a)
    out = np.empty_like(a)
    assert d.copy_to_host(out) is out
    np.testing.assert_array_equal(out, a)
    np.testing.assert_array_equal(np.asarray(d), a)


def test_fortran_order_kept(backend, rng):
    a = np.asfortranarray(rng.standard_normal((6, 4)))
    d = cuda.to_device(a)
    assert d.is_f_contiguous() and not d.is_c_contiguous()
    np.testing.assert_array_equal(d.copy_to_host(), a)
    like = cuda.device_array_like(a)
    assert like.strides == a.strides


@cuda.jit
def _twice_2d(x, out):
    i, j = cuda.grid(2)
    if i < x.shape[0] and j < x.shape[1]:
        out[i, j] = x[i, j] * 2


def test_broadcast_arrays_keep_their_zero_strides(backend, rng):
    """numba-cuda's to_device keeps a broadcast array's strides (its core alone is copied) and types it layout 'A'
    (its test_devicearray_typing_order_broadcasted); before, cudajit copied it compact (layout 'C')."""
    one = cuda.to_device(np.broadcast_to(np.array([rng.integers(1, 100)]), (10,)))
    assert one.strides == (0,) and one.alloc_size == 8 and one._numba_type_.layout == "A"
    for a, core_bytes in ((np.broadcast_to(rng.standard_normal(7), (50, 7)), 7 * 8),           # rows repeated
                          (np.broadcast_to(rng.standard_normal((50, 1)), (50, 7)), 50 * 8)):   # columns repeated
        d = cuda.to_device(a)
        assert d.shape == a.shape and d.strides == a.strides and d.alloc_size == core_bytes
        assert str(d._numba_type_) == "array(float64, 2d, A)"
        np.testing.assert_array_equal(d.copy_to_host(), a)
        out = np.zeros(a.shape)
        _twice_2d[(4, 1), (16, 8)](d, out)
        np.testing.assert_array_equal(out, a * 2)
    # copying in again: values that agree along the shared axis (a broadcast, or a full array of equal rows) are
    # taken; values that differ there would lose all but one row, and are refused with the data left as it was
    d = cuda.to_device(np.broadcast_to(rng.standard_normal(7), (50, 7)))
    y = rng.standard_normal(7)
    d.copy_to_device(np.broadcast_to(y, (50, 7)))
    np.testing.assert_array_equal(d.copy_to_host(), np.broadcast_to(y, (50, 7)))
    d.copy_to_device(np.tile(y * 3, (50, 1)))
    np.testing.assert_array_equal(d.copy_to_host(), np.broadcast_to(y * 3, (50, 7)))
    full = rng.standard_normal((50, 7))
    for src in (full, cuda.to_device(full)):
        with pytest.raises(ValueError, match=r"share memory along axis 0 \(strides \(0, 8\).*would be lost"):
            d.copy_to_device(src)
        np.testing.assert_array_equal(d.copy_to_host(), np.broadcast_to(y * 3, (50, 7)))
    # a broadcast of a strided core is still copied compact (numba-cuda refuses it)
    strided = np.broadcast_to(rng.standard_normal(14)[::2], (3, 7))
    d = cuda.to_device(strided)
    assert d.is_c_contiguous() and str(d._numba_type_) == "array(float64, 2d, C)"
    np.testing.assert_array_equal(d.copy_to_host(), strided)


def test_device_array_and_copy_to_device(backend, rng):
    d = cuda.device_array((3, 4), dtype=np.float32)
    a = rng.standard_normal((3, 4)).astype(np.float32)
    d.copy_to_device(a)
    np.testing.assert_array_equal(d.copy_to_host(), a)
    e = cuda.device_array_like(d)
    e.copy_to_device(d)
    np.testing.assert_array_equal(e.copy_to_host(), a)
    with pytest.raises((ValueError, TypeError)):
        d.copy_to_device(np.zeros((5, 5), np.float32))


def test_copies_refuse_another_shape_as_numba_cuda(backend, rng):
    # numba-cuda's check_array_compatibility: the same shape once axes of length 1 are left out, the same dtype;
    # a same-size array of another shape was reshaped silently before
    a = rng.standard_normal((2, 3))
    d = cuda.to_device(a)
    shape = r"incompatible shape: \(2, 3\) vs\. \({}\)"
    with pytest.raises(ValueError, match="copy_to_device: " + shape.format("6,")):
        d.copy_to_device(np.ones(6))
    with pytest.raises(ValueError, match="copy_to_device: " + shape.format("3, 2")):
        cuda.to_device(np.ones((3, 2)), to=d)
    with pytest.raises(ValueError, match="copy_to_device: " + shape.format("6,")):
        d.copy_to_device(cuda.to_device(np.ones(6)))                   # device to device
    with pytest.raises(ValueError, match="copy_to_host: " + shape.format("6,")):
        d.copy_to_host(np.empty(6))
    with pytest.raises(TypeError, match=r"copy_to_device: incompatible dtype: float64 vs\. float32"):
        d.copy_to_device(np.ones((2, 3), np.float32))
    with pytest.raises(TypeError, match=r"copy_to_device: incompatible dtype: float64 vs\. int64"):
        d.copy_to_device(cuda.to_device(np.ones((2, 3), np.int64)))
    with pytest.raises(TypeError, match=r"copy_to_host: incompatible dtype: float64 vs\. float32"):
        d.copy_to_host(np.empty((2, 3), np.float32))
    np.testing.assert_array_equal(d.copy_to_host(), a)                # nothing was written
    # axes of length 1 may differ, as in numba-cuda; an empty source copies nothing
    b = rng.standard_normal((1, 2, 3))
    d.copy_to_device(b)
    np.testing.assert_array_equal(d.copy_to_host(), b[0])
    d.copy_to_device(cuda.to_device(a[:, None, :]))
    np.testing.assert_array_equal(d.copy_to_host(), a)
    out = np.empty((2, 1, 3))
    assert d.copy_to_host(out) is out
    np.testing.assert_array_equal(out[:, 0], a)
    d.copy_to_device(np.empty((0, 4)))
    np.testing.assert_array_equal(d.copy_to_host(), a)


@pytest.mark.parametrize("key", [
    np.s_[2:9], np.s_[::3], np.s_[::-1], np.s_[-4:], np.s_[1:-1, ::2], np.s_[:, 3], np.s_[4, ::-2],
    np.s_[..., 1], np.s_[3:1:-1, 2:5], np.s_[None, 2],
])
def test_views_match_numpy(backend, rng, key):
    a = rng.standard_normal((10, 6))
    d = cuda.to_device(a)
    v = d[key]
    np.testing.assert_array_equal(v.copy_to_host(), a[key])
    assert v.shape == a[key].shape


def test_scalar_index_returns_value(backend, rng):
    a = rng.standard_normal((4, 3))
    d = cuda.to_device(a)
    assert d[2, 1] == a[2, 1] and d[-1, -1] == a[-1, -1]
    with pytest.raises(IndexError):
        d[4, 0]


@pytest.mark.parametrize("key,value", [
    (np.s_[:], 3.5), (np.s_[2:5], -1.0), (np.s_[::2], 7.0), (np.s_[1, :], "row"), (np.s_[:, ::-2], "block"),
])
def test_setitem(backend, rng, key, value):
    a = rng.standard_normal((6, 8))
    d = cuda.to_device(a)
    if value == "row":
        value = rng.standard_normal(8)
    elif value == "block":
        value = rng.standard_normal((6, 4))
    a[key] = value
    d[key] = value
    np.testing.assert_array_equal(d.copy_to_host(), a)


def test_setitem_from_device_array(backend, rng):
    a = rng.standard_normal(10)
    b = rng.standard_normal(5)
    d = cuda.to_device(a)
    d[::2] = cuda.to_device(b)
    a[::2] = b
    np.testing.assert_array_equal(d.copy_to_host(), a)


def test_reshape_ravel_view_transpose_split(backend, rng):
    a = rng.standard_normal((4, 6)).astype(np.float32)
    d = cuda.to_device(a)
    np.testing.assert_array_equal(d.reshape(3, 8).copy_to_host(), a.reshape(3, 8))
    np.testing.assert_array_equal(d.reshape((2, -1)).copy_to_host(), a.reshape(2, -1))
    np.testing.assert_array_equal(d.ravel().copy_to_host(), a.ravel())
    np.testing.assert_array_equal(d.view(np.int32).copy_to_host(), a.view(np.int32))
    np.testing.assert_array_equal(d.T.copy_to_host(), a.T)
    np.testing.assert_array_equal(d.transpose((1, 0)).copy_to_host(), a.transpose(1, 0))
    t = d.T                                   # numba-cuda's: a C-ordered copy, not a view
    assert t.is_c_contiguous() and t.shape == (6, 4) and t.strides == (16, 4)
    t[0, 0] = 99.0
    assert d.copy_to_host()[0, 0] == a[0, 0]
    assert d.transpose((0, 1)) is d
    with pytest.raises(NotImplementedError, match="3 dimensions"):
        cuda.to_device(a.reshape(2, 3, 4)).T
    with pytest.raises(NotImplementedError):
        d[:, ::2].reshape(12)
    with pytest.raises(NotImplementedError):
        d[:, ::2].ravel()
    parts = cuda.to_device(a.ravel()).split(10)
    assert [p.shape[0] for p in parts] == [10, 10, 4]
    np.testing.assert_array_equal(np.concatenate([p.copy_to_host() for p in parts]), a.ravel())


def test_pinned_mapped_managed(backend, rng):
    p = cuda.pinned_array((5, 3), np.float32)
    p[:] = rng.standard_normal((5, 3))
    d = cuda.to_device(p)
    np.testing.assert_array_equal(d.copy_to_host(), p)
    q = cuda.pinned_array_like(p)
    d.copy_to_host(q)
    np.testing.assert_array_equal(q, p)
    m = cuda.mapped_array(16, np.int32)
    m[:] = np.arange(16)
    assert cuda.is_cuda_array(m)
    view = cuda.as_cuda_array(m)
    np.testing.assert_array_equal(view.copy_to_host(), np.arange(16))
    g = cuda.managed_array((4, 4), np.float64)
    g[:] = 2.5
    np.testing.assert_array_equal(cuda.as_cuda_array(g).copy_to_host(), np.full((4, 4), 2.5))


def test_mapped_and_managed_arrays_keep_their_stream(backend, rng):
    """numba-cuda: the stream given when a mapped or managed array is made is its .stream and its interface's
    "stream" (None for the default stream); a NumPy result computed from one is ordinary host memory."""
    s = cuda.stream()
    for make in (cuda.mapped_array, cuda.managed_array):
        a = make(8, np.float64, stream=s)
        assert a.stream is s and a.__cuda_array_interface__["stream"] == s.handle
        assert a[2:].stream is s and a[2:].__cuda_array_interface__["stream"] == s.handle
        assert make(8).__cuda_array_interface__["stream"] is None
        a[:] = rng.standard_normal(8)
        total = a + 1
        assert not hasattr(total, "__cuda_array_interface__") and not cuda.is_cuda_array(total)
        np.testing.assert_array_equal(np.asarray(total), np.asarray(a) + 1)
    like = cuda.mapped_array_like(np.zeros((2, 3), np.float32), stream=s)
    assert like.stream is s and like.shape == (2, 3)
    with pytest.raises(TypeError):
        cuda.mapped_array(4, stream="fast")


def test_device_array_api_details_as_numba_cuda(backend, rng):
    """A NumPy array of ints as a shape; a view of the same item size on any layout; np.array(d, copy=False)
    refused (NumPy 2's protocol: the data must be copied); _numba_type_ gives the kernel type."""
    assert cuda.device_array(shape=np.array([3, 4]), dtype=np.bool_).shape == (3, 4)
    host = rng.integers(-1000, 1000, (4, 8)).astype(np.int16)
    strided = cuda.to_device(host)[:, ::2]
    np.testing.assert_array_equal(strided.view(np.uint16).copy_to_host(), host[:, ::2].view(np.uint16))
    with pytest.raises(ValueError, match="To change to a dtype of a different size, the last axis must be contiguous"):
        strided.view(np.int32)
    with pytest.raises(ValueError, match="its size must be a divisor of the total size in bytes of the last axis"):
        cuda.to_device(host[:, :3].copy()).view(np.int32)
    d = cuda.to_device(rng.standard_normal(3))
    if np.lib.NumpyVersion(np.__version__) >= "2.0.0":     # NumPy 1's copy=False means "copy if needed"
        with pytest.raises(ValueError, match="`copy=False` is not supported"):
            np.array(d, copy=False)
    np.testing.assert_array_equal(np.array(d), d.copy_to_host())
    assert str(d._numba_type_) == "array(float64, 1d, C)"
    assert cuda.to_device(np.asfortranarray(host))._numba_type_.layout == "F"
    assert strided._numba_type_.layout == "A"


def test_cuda_array_interface_round_trip(backend, rng):
    a = rng.standard_normal((3, 4))
    d = cuda.to_device(a)
    cai = d.__cuda_array_interface__
    assert cai["version"] == 3 and cai["shape"] == (3, 4) and cai["typestr"] == "<f8"
    v = cuda.from_cuda_array_interface(cai, owner=d)
    np.testing.assert_array_equal(v.copy_to_host(), a)
    t = d[:, ::2]
    assert t.__cuda_array_interface__["strides"] == t.strides == (32, 16)
    assert cuda.is_cuda_array(d) and not cuda.is_cuda_array(a)


def test_dlpack_round_trip(backend, rng):
    a = rng.standard_normal(12).astype(np.float32)
    d = cuda.to_device(a)
    e = cuda.from_dlpack(d)
    assert e._ptr == d._ptr
    del d
    np.testing.assert_array_equal(e.copy_to_host(), a)
    assert e.__dlpack_device__()[0] in (1, 2)


def test_streamed_copies(backend, rng):
    s = cuda.stream()
    a = rng.standard_normal(1000)
    p = cuda.pinned_array_like(a)
    d = cuda.to_device(a, stream=s)
    d.copy_to_host(p, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(p, a)


def test_backend_mismatch_is_an_error(backend):
    from cudajit import _backend
    from cudajit.errors import CudaJitError
    if len(_backend.available()) < 2:
        pytest.skip("needs both backends")
    d = cuda.to_device(np.arange(4.0))
    other = "gpu" if backend == "cpu" else "cpu"
    with _backend.use(other):
        with pytest.raises(CudaJitError):
            d.copy_to_host()


@cuda.jit
def _scale_into(src, dst, factor):
    i, j = cuda.grid(2)
    if i < dst.shape[0] and j < dst.shape[1]:
        dst[i, j] = src[i, j] * factor


def test_pinned_context_page_locks_for_the_block(backend, rng):
    from cudajit import _core
    a = rng.standard_normal((64, 48))
    out = np.zeros((64, 24))
    view = a[:, ::2]                                   # a strided view: its whole span is locked
    with cuda.pinned(a, out, view):
        if backend == "gpu":
            # Already page-locked by the block: registering again is refused as 'already registered'.
            assert not _core.HostRegistration(a.ctypes.data, a.nbytes).registered
        s = cuda.stream()
        d = cuda.to_device(view, stream=s)
        r = cuda.device_array_like(out, stream=s)
        _scale_into[(8, 4), (8, 8), s](d, r, 3.0)
        r.copy_to_host(out, stream=s)
        s.synchronize()
    np.testing.assert_array_equal(out, view * 3.0)
    reg = _core.HostRegistration(a.ctypes.data, a.nbytes)   # unlocked again after the block
    assert reg.registered == (backend == "gpu")
    reg.release()


def test_mapped_context_is_zero_copy(backend, rng):
    a = rng.standard_normal((32, 16))
    out = np.zeros((32, 16))
    with cuda.mapped(a, out) as (da, dout):
        # Mapped memory is addressed in place (unified addressing: the same pointer as the host's).
        assert dout.__cuda_array_interface__["data"][0] == out.ctypes.data
        _scale_into[(4, 2), (8, 8)](da, dout, -2.0)
        cuda.synchronize()
        np.testing.assert_array_equal(out, a * -2.0)     # written by the kernel, no copy
    strided = np.zeros((32, 32))[:, 1::2]
    with cuda.mapped(strided) as ds:
        _scale_into[(4, 2), (8, 8)](cuda.to_device(a), ds, 0.5)
    np.testing.assert_array_equal(strided, a * 0.5)


@cuda.jit
def _scaled_copy(out, src, factor):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = src[i] * factor


def test_same_numpy_array_twice_is_one_device_array(backend, rng):
    a = rng.standard_normal(37)
    want = a * 3
    _scaled_copy[1, 64](a, a, 3.0)                 # one copy in, one back: the kernel sees one array
    np.testing.assert_array_equal(a, want)
    b, c = rng.standard_normal(37), rng.standard_normal(37)
    want_b = c * 2
    _scaled_copy[1, 64](b, c, 2.0)                 # distinct arrays are still distinct
    np.testing.assert_array_equal(b, want_b)


def test_to_device_of_python_objects_is_kept_but_not_used(backend):
    # numba-cuda's to_device(None) is a 0-d device array of dtype object; OpenFDTD's GPU solver makes them for the
    # arrays its mode never uses (PML arrays under Mur boundaries, K1Ex.. without -vector) and only keeps them.
    # cudajit keeps a stand-in with the shape and dtype; every use says why it cannot be one.
    d = cuda.to_device(None)
    assert d.shape == () and d.dtype == np.dtype(object) and d.ndim == 0 and d.size == 1
    objs = cuda.to_device([object(), None, 3])
    assert objs.shape == (3,) and len(objs) == 3 and objs.dtype == np.dtype(object)

    @cuda.jit
    def k(a, b):
        a[0] = 1

    with pytest.raises(TypeError, match="Python objects"):
        d.copy_to_host()
    with pytest.raises(TypeError, match="Python objects"):
        objs[1]
    with pytest.raises(TypeError, match=r"argument 1 \(b\).*to_device\(\) of a NoneType"):
        k[1, 1](np.zeros(1), d)
