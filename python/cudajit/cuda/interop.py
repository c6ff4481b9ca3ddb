"""Exchange with other GPU array libraries: ``__cuda_array_interface__`` (v3) and DLPack.

``as_cuda_array`` views any object exposing the CUDA Array Interface (CuPy, PyTorch, JAX,
Numba) without a copy; ``from_dlpack`` does the same for DLPack producers. Every field is
checked before the memory is used: a malformed description raises ``TypeError`` (a field of the
wrong type) or ``ValueError`` (a wrong value) naming the field, never a crash later in a kernel.
"""
import math
import operator

import numpy as np

from .. import _core, config
from . import devicearray
from .arraylayout import _c_strides
from .devicearray import DeviceNDArray, _backend_id
from .streams import _external

_CAI = "__cuda_array_interface__"
_CAI_VERSIONS = range(0, 4)   # versions 0 to 3 share these keys; 3 added 'stream'
_WIDEST_FLOAT = {"f": 8, "c": 16}   # bytes of double and complex<double>: wider is long double, not on CUDA devices
_DEVICE_MEMORY = 2            # _core.pointer_memory_type: CU_MEMORYTYPE_DEVICE (not managed)
_DL_CUDA = 2                  # DLPack's kDLCUDA: memory of the one device device_id names
_DL_GPU_DEVICES = (2, 3, 13)  # kDLCUDA, kDLCUDAHost (pinned), kDLCUDAManaged
_DL_CPU = 1
# ml_dtypes.bfloat16's dtype.str, which numba-cuda, CuPy and cudajit write as the interface's typestr of bfloat16
# arrays: NumPy itself never gives a byte order to an unstructured void ('|V2'), so it names nothing else.
_BF16_TYPESTR = "<V2"


def is_cuda_array(obj):
    """True if ``obj`` exposes the CUDA Array Interface."""
    return hasattr(obj, _CAI)


def from_cuda_array_interface(desc, owner=None, sync=True):
    """A DeviceNDArray viewing the memory a CUDA Array Interface dict describes (no copy)."""
    shape, dtype, strides, ptr, readonly, stream = _parse_cai(desc)
    backend_id = _backend_id()
    # GPU memory remembers its device, so a launch on another device is refused before it faults
    device = _core.pointer_device(ptr) if backend_id == 0 else -1
    try:
        view = DeviceNDArray._view_of(ptr, shape, strides, dtype, owner, backend_id, device=device)
    except ValueError as e:       # strides or data beyond what an address can be (checked in C++)
        raise ValueError(f"{_CAI}: {str(e).removeprefix('array: ')}") from None
    lo, hi = view._extent()
    if backend_id == 1 and hi and _core.pointer_memory_type(ptr) == _DEVICE_MEMORY:
        raise ValueError(f"{_CAI}: data {ptr:#x} is CUDA device memory, which the CPU backend cannot read: "
                         f"copy it to the host first")
    what = (f"{_CAI} (data {ptr:#x}, typestr {desc['typestr']!r}, shape {shape}, strides "
            f"{desc.get('strides')})")
    _core.check_span_is_memory(ptr, lo, hi, what)
    if backend_id == 1 and hi:
        _check_within_owner(owner, ptr, lo, hi, what)
    if stream is not None:
        # As numba-cuda: the view's default stream is the producer's, and it is waited for (the producer may still be
        # writing; CAI v3) unless the caller or config.CUDA_ARRAY_INTERFACE_SYNC says not to.
        view.stream = _external(stream, device)
        if sync and config.CUDA_ARRAY_INTERFACE_SYNC:
            view.stream.synchronize()
    view._readonly = readonly                    # kernels that write it do not compile (Numba's readonly arrays)
    return view


def _check_within_owner(owner, ptr, lo, hi, what):
    """CPU backend, host memory: where the exporter exposes its own buffer (the buffer protocol: a NumPy array or
    subclass, a bytearray, ...) and the data pointer lies in it, the elements must lie in it too: a typestr wider than
    the exporter's items or a negative stride reaching before its start would read and write beyond it (issue 37)."""
    if isinstance(owner, np.ndarray):
        arr = owner
        while isinstance(arr.base, np.ndarray):
            arr = arr.base                      # the whole array the exporter views
        start, end = _byte_bounds(arr)
    else:
        try:
            view = memoryview(owner)
        except TypeError:
            return                              # no buffer exposed: its extent is unknown
        with view:
            start, end = _byte_bounds(np.asarray(view))
    if not start <= ptr < max(end, start + 1):
        return                                  # the data is not this buffer's
    if ptr + lo < start or ptr + hi > end:
        raise ValueError(f"{what}: the elements span [{ptr + lo:#x}, {ptr + hi:#x}), beyond the buffer "
                         f"[{start:#x}, {end:#x}) of the exporting {type(owner).__name__} ({end - start} bytes) that "
                         f"holds the data: describe that buffer's items with their own typestr and strides")


def _byte_bounds(arr):
    try:
        from numpy.lib.array_utils import byte_bounds     # NumPy >= 2
    except ImportError:                                     # pragma: no cover - NumPy 1.x
        byte_bounds = np.byte_bounds
    return byte_bounds(arr)


def _parse_cai(desc):
    """(shape, dtype, strides, ptr, readonly, stream) of a CAI dict, each checked (TypeError/ValueError naming the key)."""
    if not isinstance(desc, dict):
        raise TypeError(f"{_CAI} must be a dict, not {type(desc).__name__}")
    for key in ("shape", "typestr", "data", "version"):
        if key not in desc:
            raise ValueError(f"{_CAI} has no '{key}' key (v3 needs shape, typestr, data and version)")
    version = desc["version"]
    if type(version) is not int:
        raise TypeError(f"{_CAI}['version'] must be an int, not {type(version).__name__}")
    if version not in _CAI_VERSIONS:
        raise ValueError(f"{_CAI}['version'] = {version} is not a version cudajit reads (0 to 3)")
    if desc.get("mask") is not None:
        raise NotImplementedError(f"Masked arrays are not supported: this {_CAI} has a 'mask' (cudajit reads "
                                  f"unmasked arrays only)")
    shape = _int_tuple(desc["shape"], "shape")
    for d, n in enumerate(shape):
        if n < 0:
            raise ValueError(f"{_CAI}['shape'][{d}] = {n} is negative")
    dtype = _dtype(desc["typestr"])
    nbytes = math.prod(shape) * dtype.itemsize      # before strides, which would be computed from it
    if nbytes >= 1 << 63:
        raise ValueError(f"{_CAI}['shape'] = {shape} of {dtype.itemsize}-byte items spans {nbytes} bytes, "
                         f"more than an address space holds")
    strides = desc.get("strides")
    if strides is None:
        strides = _c_strides(shape, dtype.itemsize)
    else:
        strides = _int_tuple(strides, "strides")
        if len(strides) != len(shape):
            raise ValueError(f"{_CAI}['strides'] has {len(strides)} entries, but 'shape' has {len(shape)}")
    ptr, readonly = _data_pointer(desc["data"], math.prod(shape))
    # A misaligned element faults on the GPU ("misaligned address") and is undefined behaviour in the CPU backend's C++
    if math.prod(shape) and ptr % dtype.alignment:
        raise ValueError(f"{_CAI}['data'][0] = {ptr:#x} is not aligned to {dtype.alignment} bytes, as typestr "
                         f"{desc['typestr']!r} needs")
    for d, (n, st) in enumerate(zip(shape, strides)):
        if n > 1 and st % dtype.alignment:
            raise ValueError(f"{_CAI}['strides'][{d}] = {st} is not a multiple of {dtype.alignment} bytes, as typestr "
                             f"{desc['typestr']!r} needs (its elements would be misaligned)")
    stream = desc.get("stream")
    if stream is not None:
        if type(stream) is not int:
            raise TypeError(f"{_CAI}['stream'] must be an int or None, not {type(stream).__name__}")
        if stream == 0:
            raise ValueError(f"{_CAI}['stream'] = 0 is disallowed by the CUDA Array Interface (v3): it is ambiguous "
                             f"between None and the legacy or per-thread default stream (use None, 1 or 2)")
        if stream < 0:
            raise ValueError(f"{_CAI}['stream'] = {stream} is not a stream handle")
    return shape, dtype, strides, ptr, readonly, stream


def _int_tuple(value, key):
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{_CAI}['{key}'] must be a tuple of ints, not {type(value).__name__}")
    out = []
    for d, n in enumerate(value):
        if isinstance(n, (bool, np.bool_)):       # an int to operator.index, but never an extent or a stride
            raise TypeError(f"{_CAI}['{key}'][{d}] = {n!r} must be an int, not bool")
        try:
            out.append(operator.index(n))
        except TypeError:
            raise TypeError(f"{_CAI}['{key}'][{d}] = {n!r:.40} must be an int, not {type(n).__name__}") from None
    return tuple(out)


def _bfloat16(what):
    """ml_dtypes' bfloat16 dtype, which bfloat16 device memory is viewed as (TypeError naming ``what`` without it)."""
    try:
        import ml_dtypes
    except ImportError:
        raise TypeError(f"{what} holds bfloat16 values, which need ml_dtypes (pip install ml_dtypes)") from None
    return np.dtype(ml_dtypes.bfloat16)


def _dtype(typestr):
    if not isinstance(typestr, str):
        raise TypeError(f"{_CAI}['typestr'] = {typestr!r:.40} must be a str, not {type(typestr).__name__}")
    if typestr == _BF16_TYPESTR:
        return _bfloat16(f"{_CAI}['typestr'] = {typestr!r}")
    try:
        dtype = np.dtype(typestr)
    except TypeError:
        raise ValueError(f"{_CAI}['typestr'] = {typestr!r} is not a NumPy type string") from None
    if dtype.hasobject or dtype.itemsize == 0:
        raise ValueError(f"{_CAI}['typestr'] = {typestr!r} cannot describe device memory")
    if not dtype.isnative:
        raise ValueError(f"{_CAI}['typestr'] = {typestr!r} is not in the machine's byte order")
    if dtype.itemsize > _WIDEST_FLOAT.get(dtype.kind, dtype.itemsize):
        raise ValueError(f"{_CAI}['typestr'] = {typestr!r} is a C long double type, which CUDA devices do not have")
    return dtype


def _data_pointer(data, size):
    if data is None and size == 0:
        return 0, False
    if not isinstance(data, (tuple, list)) or len(data) != 2:
        raise TypeError(f"{_CAI}['data'] must be a tuple (pointer, read_only), not {data!r:.60}")
    ptr, read_only = data
    if type(ptr) is not int:
        raise TypeError(f"{_CAI}['data'][0] (the pointer) = {ptr!r:.40} must be an int, not {type(ptr).__name__}")
    if not isinstance(read_only, (bool, np.bool_)):
        raise TypeError(f"{_CAI}['data'][1] (read-only) must be a bool, not {type(read_only).__name__}")
    if ptr < 0 or ptr >= 1 << 64:
        raise ValueError(f"{_CAI}['data'][0] = {ptr} is not a pointer value")
    if ptr == 0 and size:
        raise ValueError(f"{_CAI}['data'][0] is a null pointer, but the shape has {size} elements")
    return ptr, bool(read_only)


def as_cuda_array(obj, sync=True):
    """View ``obj`` (any ``__cuda_array_interface__`` exporter) as a DeviceNDArray, without a copy."""
    if isinstance(obj, DeviceNDArray):
        return obj
    if not is_cuda_array(obj):
        raise TypeError(f"{type(obj).__name__} does not expose {_CAI}")
    return from_cuda_array_interface(getattr(obj, _CAI), owner=obj, sync=sync)


def from_dlpack(obj):
    """A DeviceNDArray sharing the memory of a DLPack producer (``__dlpack__``) or capsule.

    The C++ consumer checks the capsule (version, device, dtype, shape, strides, offset) before it
    takes ownership: memory the current backend cannot use raises ``ValueError``.
    """
    backend_id = _backend_id()
    capsule = _dlpack_capsule(obj) if hasattr(obj, "__dlpack__") else obj
    ptr, shape, strides, typestr, device_type, device_id, keep, readonly = _core.from_dlpack(capsule, backend_id)
    device = device_id if backend_id == 0 and device_type == _DL_CUDA else -1   # pinned, managed: every device
    dtype = _bfloat16("the DLPack tensor") if typestr == _BF16_TYPESTR else np.dtype(typestr)
    view = DeviceNDArray._view_of(ptr, shape, strides, dtype, keep, backend_id, device=device)
    view._readonly = readonly      # DLPack 1.x's read-only flag (NumPy sets it on a non-writeable array)
    return view


def foreign_array(obj, sync=True):
    """A kernel argument another library made, as a DeviceNDArray view, or None if ``obj`` is none: its
    ``__cuda_array_interface__``; or, where reading that raises (PyTorch's bfloat16 tensors have none to give), its
    DLPack export when it is in GPU memory (host memory under the CPU backend)."""
    try:
        desc = getattr(obj, _CAI)
    except AttributeError:
        return None
    except Exception:
        if not _dlpack_on_gpu(obj):
            raise
        return from_dlpack(obj)
    return from_cuda_array_interface(desc, owner=obj, sync=sync)


def _dlpack_on_gpu(obj):
    """True for a DLPack producer whose memory is the GPU's (or, under the CPU backend, the host's)."""
    try:
        kind = obj.__dlpack_device__()[0]
    except Exception:       # noqa: BLE001 - no usable __dlpack_device__: not a DLPack producer then
        return False
    return kind in _DL_GPU_DEVICES or (kind == _DL_CPU and _backend_id() == 1)


def _dlpack_capsule(obj):
    kwargs = {"stream": None} if _accepts_stream(obj) else {}
    try:
        return obj.__dlpack__(max_version=(1, 0), **kwargs)   # DLPack 1.x producers give a versioned capsule
    except TypeError:
        return obj.__dlpack__(**kwargs)                       # producers older than the max_version keyword


def _accepts_stream(obj):
    try:
        import inspect
        return "stream" in inspect.signature(obj.__dlpack__).parameters
    except (TypeError, ValueError):
        return True


devicearray.as_cuda_array = as_cuda_array   # installs copy_to_device's reader of foreign arrays (a layer below)
