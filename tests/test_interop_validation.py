"""Malformed ``__cuda_array_interface__`` dicts and DLPack capsules raise a clear error naming the field.

Capsules are built with ctypes (the DLPack ABI and ``PyCapsule_New``), CAI producers are objects
with crafted dicts. Each case runs on every backend: the checks happen before anything reads the
memory, so fake pointers never reach a kernel or a copy.
"""
import ctypes
import gc

import numpy as np
import pytest

from cudajit import cuda

# --- DLPack's ABI, as its specification writes it -------------------------------------------


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER),
                ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


KDLCPU, KDLCUDA = 1, 2
_CODES = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}
_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype = ctypes.c_char_p
_capsule_name.argtypes = [ctypes.py_object]
_NAMES = {False: b"dltensor", True: b"dltensor_versioned"}


class Producer:
    """A DLPack tensor over `array` (NumPy on the CPU backend, a device array on the GPU) whose fields a
    test may spoil before `capsule()`; `deleted` counts calls of its deleter."""

    def __init__(self, backend, array, versioned=False, major=1):
        self.array = array
        self.versioned = versioned
        self.deleted = 0
        self.shape = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
        self.strides = (ctypes.c_int64 * max(array.ndim, 1))(*(s // array.dtype.itemsize for s in array.strides))
        ptr = array.__array_interface__["data"][0] if backend == "cpu" else array._ptr
        self.deleter = DELETER(self._delete)
        if versioned:
            self.managed = DLManagedTensorVersioned(version=DLPackVersion(major, 0), deleter=self.deleter)
        else:
            self.managed = DLManagedTensor(deleter=self.deleter)
        t = self.tensor = self.managed.dl_tensor
        t.data = ptr
        t.device = DLDevice(KDLCPU if backend == "cpu" else KDLCUDA, 0)
        t.ndim = array.ndim
        t.dtype = DLDataType(_CODES[array.dtype.kind], array.dtype.itemsize * 8, 1)
        t.shape, t.strides = self.shape, self.strides

    def _delete(self, _):
        self.deleted += 1

    def capsule(self):
        return _capsule_new(ctypes.addressof(self.managed), _NAMES[self.versioned], None)


def _source(backend, rng, dtype=np.float32, shape=(4, 5)):
    host = rng.standard_normal(shape).astype(dtype)
    return host, (host if backend == "cpu" else cuda.to_device(host))


def test_valid_capsules_share_memory_and_are_released(backend, rng):
    for versioned in (False, True):
        host, src = _source(backend, rng)
        p = Producer(backend, src, versioned=versioned)
        cap = p.capsule()
        view = cuda.from_dlpack(cap)
        np.testing.assert_array_equal(view.copy_to_host(), host)
        assert _capsule_name(cap) == b"used_" + _NAMES[versioned]
        del view
        gc.collect()
        assert p.deleted == 1


def test_null_strides_mean_compact_row_major(backend, rng):
    host, src = _source(backend, rng, shape=(3, 7))
    p = Producer(backend, src)
    p.tensor.strides = None
    np.testing.assert_array_equal(cuda.from_dlpack(p.capsule()).copy_to_host(), host)


def test_dlpack_bool_is_one_byte(backend, rng):
    host, src = _source(backend, rng, dtype=np.bool_, shape=(17,))
    host[:] = rng.integers(0, 2, 17).astype(bool)
    if backend == "gpu":
        src = cuda.to_device(host)
    p = Producer(backend, src)      # held: a producer's tensor must outlive its capsule and the views made of it
    view = cuda.from_dlpack(p.capsule())
    assert view.dtype == np.bool_
    np.testing.assert_array_equal(view.copy_to_host(), host)
    del view                        # before p: the view's release calls p's deleter
    gc.collect()
    assert p.deleted == 1


def _spoil_shape_null(p):
    p.tensor.shape = None


def _spoil_data_null(p):
    p.tensor.data = None


def _spoil_negative_shape(p):
    p.shape[0] = -3


def _spoil_overflowing_shape(p):
    p.shape[0], p.shape[1] = 2 ** 62, 2 ** 62


def _spoil_strides(p):
    p.strides[0] = 2 ** 61


def _spoil_offset(p):
    p.tensor.byte_offset = 2 ** 62


def _spoil_offset_unmapped(p):
    p.tensor.byte_offset = 2 ** 56 - 8      # a plausible address, but not mapped (CPU: the OS knows)


def _spoil_bits(p):
    p.tensor.dtype.bits = 12


def _spoil_bool_bits(p):
    p.tensor.dtype.code, p.tensor.dtype.bits = 6, 1


def _spoil_code(p):
    p.tensor.dtype.code = 3      # kDLOpaqueHandle


def _spoil_bfloat_bits(p):
    p.tensor.dtype.code = 4      # bfloat, of the tensor's 32 bits


def _spoil_lanes(p):
    p.tensor.dtype.lanes = 4


def _spoil_ndim(p):
    p.tensor.ndim = 40


def _spoil_device_type(p):
    p.tensor.device.device_type = 4      # OpenCL


def _spoil_device_id(p):
    p.tensor.device.device_id = -1


@pytest.mark.parametrize("spoil, error, words", [
    (_spoil_shape_null, ValueError, ["shape", "null"]),
    (_spoil_data_null, ValueError, ["data", "null"]),
    (_spoil_negative_shape, ValueError, ["shape[0] = -3", "negative"]),
    (_spoil_overflowing_shape, ValueError, ["overflows"]),
    (_spoil_strides, ValueError, ["strides[0]", str(2 ** 61)]),
    (_spoil_offset, ValueError, ["byte_offset", str(2 ** 62)]),
    (_spoil_offset_unmapped, ValueError, ["data + byte_offset", "not memory of this process"]),
    (_spoil_bits, ValueError, ["dtype.bits = 12", "16, 32, 64"]),
    (_spoil_bool_bits, ValueError, ["dtype.bits = 1", "8 bits"]),
    (_spoil_code, TypeError, ["dtype.code = 3", "bfloat 4"]),
    (_spoil_bfloat_bits, ValueError, ["dtype.bits = 32", "bfloat (code 4), which has 16 bits"]),
    (_spoil_lanes, TypeError, ["dtype.lanes = 4"]),
    (_spoil_ndim, ValueError, ["ndim = 40"]),
    (_spoil_device_type, ValueError, ["device_type = 4"]),
    (_spoil_device_id, ValueError, ["device_id = -1"]),
])
def test_malformed_capsules_are_refused_and_left_to_the_producer(backend, rng, spoil, error, words):
    if spoil is _spoil_offset_unmapped and backend == "gpu":
        pytest.skip("the driver knows the extent of its own allocations only (see the gpu test below)")
    for versioned in (False, True):
        _, src = _source(backend, rng)
        p = Producer(backend, src, versioned=versioned)
        spoil(p)
        cap = p.capsule()
        with pytest.raises(error) as info:
            cuda.from_dlpack(cap)
        for w in words:
            assert w in str(info.value)
        assert _capsule_name(cap) == _NAMES[versioned]      # not consumed: the producer still owns it
        assert p.deleted == 0


def test_unknown_dlpack_major_version(backend, rng):
    _, src = _source(backend, rng)
    p = Producer(backend, src, versioned=True, major=2)
    with pytest.raises(ValueError, match=r"version 2\.0"):
        cuda.from_dlpack(p.capsule())


def test_memory_of_the_other_side_is_refused(backend, rng):
    host, src = _source(backend, rng)
    p = Producer(backend, src)
    if backend == "cpu":
        p.tensor.device.device_type = KDLCUDA
        with pytest.raises(ValueError, match=r"device_type = 2 \(CUDA device memory\).*CPU backend"):
            cuda.from_dlpack(p.capsule())
    else:
        p.tensor.device.device_type = KDLCPU
        with pytest.raises(ValueError, match=r"device_type = 1 \(host memory\).*to_device"):
            cuda.from_dlpack(p.capsule())


def test_a_capsule_is_consumed_once(backend, rng):
    _, src = _source(backend, rng)
    p = Producer(backend, src)      # held: a temporary's tensor (and deleter) would be freed under the capsule
    cap = p.capsule()
    cuda.from_dlpack(cap)
    assert p.deleted == 1           # the view was dropped at once, and the deleter ran then
    with pytest.raises(TypeError, match="already consumed"):
        cuda.from_dlpack(cap)
    with pytest.raises(TypeError, match="not a int"):
        cuda.from_dlpack(5)


# --- __cuda_array_interface__ -----------------------------------------------------------------


class CAI:
    def __init__(self, desc):
        self.__cuda_array_interface__ = desc


def _cai(ptr=0x10000, shape=(4,), typestr="<f4", **extra):
    return {"shape": shape, "typestr": typestr, "data": (ptr, False), "version": 3, **extra}


def test_valid_interface_views_the_memory(backend, rng):
    host = rng.standard_normal((6, 3)).astype(np.float64)
    dev = cuda.to_device(host)
    view = cuda.as_cuda_array(CAI(dict(dev.__cuda_array_interface__)))
    np.testing.assert_array_equal(view.copy_to_host(), host)
    assert view.shape == host.shape and view.dtype == host.dtype


@pytest.mark.parametrize("key", ["shape", "typestr", "data", "version"])
def test_missing_keys_are_named(backend, key):
    desc = _cai()
    del desc[key]
    with pytest.raises(ValueError, match=f"no '{key}' key"):
        cuda.as_cuda_array(CAI(desc))


@pytest.mark.parametrize("desc, error, words", [
    (5, TypeError, ["must be a dict", "int"]),
    (_cai(shape=4), TypeError, ["['shape']", "tuple of ints", "int"]),
    (_cai(shape=(4.0,)), TypeError, ["['shape'][0]", "float"]),
    (_cai(shape=(-4,)), ValueError, ["['shape'][0] = -4", "negative"]),
    (_cai(typestr=4), TypeError, ["['typestr']", "str"]),
    (_cai(typestr="xx"), ValueError, ["['typestr'] = 'xx'"]),
    (_cai(typestr="|O"), ValueError, ["['typestr'] = '|O'"]),
    (_cai(typestr=">f4"), ValueError, ["['typestr'] = '>f4'", "byte order"]),
    (dict(_cai(), data=1234), TypeError, ["['data']", "tuple"]),
    (dict(_cai(), data=("x", False)), TypeError, ["['data'][0]", "str"]),
    (dict(_cai(), data=(1234, "no")), TypeError, ["['data'][1]", "bool"]),
    (dict(_cai(), data=(-8, False)), ValueError, ["['data'][0] = -8"]),
    (_cai(ptr=0), ValueError, ["['data'][0]", "null pointer", "4 elements"]),
    (dict(_cai(), version=9), ValueError, ["['version'] = 9"]),
    (dict(_cai(), version="3"), TypeError, ["['version']", "str"]),
    (_cai(strides=(4, 4)), ValueError, ["['strides'] has 2 entries", "'shape' has 1"]),
    (_cai(strides=4), TypeError, ["['strides']", "int"]),
    (_cai(strides=(2 ** 62,)), ValueError, ["strides[0]", "overflows"]),
    (_cai(ptr=2 ** 64 - 16), ValueError, ["address space"]),
    (_cai(stream="s"), TypeError, ["['stream']", "str"]),
    (_cai(stream=-2), ValueError, ["['stream'] = -2"]),
    (_cai(stream=0), ValueError, ["['stream'] = 0", "disallowed"]),
    (_cai(shape=(2.5,)), TypeError, ["['shape'][0] = 2.5"]),
    (_cai(strides=(8.5,)), TypeError, ["['strides'][0] = 8.5"]),
    (_cai(typestr=8), TypeError, ["['typestr'] = 8"]),
    (dict(_cai(), data=("abc", False)), TypeError, ["['data'][0]", "'abc'"]),
    (_cai(shape=(2 ** 62, 2 ** 62)), ValueError, ["['shape'] = (4611686018427387904, 4611686018427387904)", "bytes"]),
    (_cai(typestr="<c32"), ValueError, ["['typestr'] = '<c32'", "long double"]),
])
def test_malformed_interfaces_are_refused(backend, desc, error, words):
    with pytest.raises(error) as info:
        cuda.as_cuda_array(CAI(desc))
    for w in words:
        assert w in str(info.value)


def test_null_data_is_fine_for_an_empty_array(backend):
    view = cuda.as_cuda_array(CAI(_cai(ptr=0, shape=(0, 3))))
    assert view.shape == (0, 3) and view.copy_to_host().shape == (0, 3)


def test_masked_interfaces_are_not_supported(backend):
    # numba-cuda's words (its test_masked_array)
    with pytest.raises(NotImplementedError, match="Masked arrays are not supported: this __cuda_array_interface__ "
                                                   "has a 'mask'"):
        cuda.as_cuda_array(CAI(_cai(mask=CAI(_cai()))))


def test_kernel_arguments_are_validated_before_launch(backend):
    @cuda.jit
    def fill(a):
        a[0] = 1.0

    with pytest.raises(ValueError, match="null pointer"):
        fill[1, 1](CAI(_cai(ptr=0)))


def test_unmapped_host_memory_is_refused_on_the_cpu(backend):
    if backend != "cpu":
        pytest.skip("on the GPU, memory the driver did not allocate has no known extent")
    with pytest.raises(ValueError, match="not memory of this process"):
        cuda.as_cuda_array(CAI(_cai(ptr=2 ** 50, shape=(8,))))


# --- the producer's stream (CAI v3): the view's default stream, waited for unless told not to -------------------


@pytest.fixture
def stream_waits(monkeypatch):
    """The handles of the streams a Stream.synchronize() waited for, in order."""
    from cudajit.cuda.streams import Stream
    waited = []
    real = Stream.synchronize
    monkeypatch.setattr(Stream, "synchronize", lambda self: (waited.append(self.handle), real(self)))
    return waited


def test_the_producers_stream_becomes_the_views_and_is_waited_for(backend, rng, stream_waits):
    host = rng.standard_normal(10)
    s = cuda.stream()
    producer = cuda.to_device(host, stream=s)
    view = cuda.as_cuda_array(CAI(dict(producer.__cuda_array_interface__)))
    assert view.stream.external and view.stream.handle == s.handle
    assert stream_waits == [s.handle]
    np.testing.assert_array_equal(view.copy_to_host(), host)


def test_no_stream_means_no_wait(backend, rng, stream_waits):
    view = cuda.as_cuda_array(CAI(dict(cuda.to_device(rng.standard_normal(4)).__cuda_array_interface__)))
    assert stream_waits == [] and view.stream == 0


@pytest.mark.parametrize("how", ["sync=False", "config"])
def test_waiting_can_be_turned_off(backend, rng, stream_waits, monkeypatch, how):
    from cudajit import config
    s = cuda.stream()
    desc = dict(cuda.to_device(rng.standard_normal(4), stream=s).__cuda_array_interface__)
    if how == "config":
        monkeypatch.setattr(config, "CUDA_ARRAY_INTERFACE_SYNC", 0)
    view = cuda.as_cuda_array(CAI(desc), sync=how == "config")
    assert stream_waits == [] and view.stream.handle == s.handle


def test_kernel_arguments_wait_for_each_producers_stream(backend, rng, stream_waits):
    @cuda.jit
    def add(x, y, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = x[i] + y[i]

    x, y = rng.standard_normal(50), rng.standard_normal(50)
    s1, s2 = cuda.stream(), cuda.stream()
    producers = [cuda.to_device(x, stream=s1), cuda.to_device(y, stream=s2)]
    out = cuda.device_array(50)
    add[1, 64](*(CAI(dict(p.__cuda_array_interface__)) for p in producers), out)
    assert stream_waits == [s1.handle, s2.handle]
    np.testing.assert_array_equal(out.copy_to_host(), x + y)
