"""Array creation and transfer: ``to_device``, ``device_array(_like)``, ``pinned_array(_like)``,
``mapped_array(_like)``, ``managed_array``, following numba.cuda's signatures ("Memory management").
"""
import contextlib

import numpy as np

from .. import _core
from . import emm
from .emm import defer_cleanup  # noqa: F401  (cuda.defer_cleanup)
from .arraylayout import _c_strides, _check_dtype, _f_strides, _normalize_shape, _normalize_strides, _span_bytes
from .devicearray import DeviceNDArray, DeviceRecord, _backend_id, _init_new
from .streams import stream_handle as _stream_handle

_new_array = DeviceNDArray.__new__


def _strides_for(shape, dtype, strides, order):
    if strides is not None:
        return _normalize_strides(strides, shape)
    if order not in ("C", "F"):
        raise ValueError(f"order must be 'C' or 'F', not {order!r}")
    return (_c_strides if order == "C" else _f_strides)(shape, dtype.itemsize)


def device_array(shape, dtype=np.float64, strides=None, order="C", stream=0):
    """An uninitialised array in device memory (from the stream-ordered pool)."""
    if strides is None and (order == "C" or order == "F"):
        array = _new_array(DeviceNDArray)
        _init_new(array, shape, dtype, order == "F", stream)
        return array
    dtype = _check_dtype(dtype)
    shape = _normalize_shape(shape)
    return DeviceNDArray(shape, _strides_for(shape, dtype, strides, order), dtype, stream=stream)


def device_array_like(ary, stream=0):
    """An uninitialised device array with ``ary``'s shape, dtype and (contiguous) layout; a non-contiguous ``ary``
    gets compact strides in the order of its own (numba-cuda's rule, NumPy's ``empty_like``)."""
    _check_like(ary, "device_array_like")
    order = "F" if _is_f_only(ary) else "C"
    return device_array(ary.shape, ary.dtype, strides=_compact_strides_like(ary), order=order, stream=stream)


def _compact_strides_like(ary):
    """Strides of a compact array whose axes are laid out in the order of ``ary``'s strides (smallest stride
    innermost, a stable sort as numba-cuda's); None where the order's default strides do (contiguous, 1-d)."""
    flags = getattr(ary, "flags", None)
    strides = getattr(ary, "strides", None)
    if len(ary.shape) <= 1 or strides is None or (flags is not None and (flags["C_CONTIGUOUS"] or
                                                                          flags["F_CONTIGUOUS"])):
        return None
    out = [0] * len(ary.shape)
    step = np.dtype(ary.dtype).itemsize
    for axis in sorted(range(len(strides)), key=lambda k: strides[k]):
        out[axis] = step
        step *= ary.shape[axis]
    return tuple(out)


def _check_like(ary, fn):
    if not (hasattr(ary, "shape") and hasattr(ary, "dtype")):
        raise TypeError(f"{fn} needs an array (something with .shape and .dtype), not {type(ary).__name__}")


def _is_f_only(ary):
    flags = getattr(ary, "flags", None)
    if flags is None:
        return False
    return bool(flags["F_CONTIGUOUS"]) and not bool(flags["C_CONTIGUOUS"])


def to_device(obj, stream=0, copy=True, to=None):
    """Copy a NumPy array (or anything ``np.asarray`` takes) to a new device array.

    Numba's rules: the device array keeps the host array's strides when it is contiguous, or a broadcast of a
    contiguous core (its zero strides: the core alone is copied);
    ``to`` copies into an existing device array instead; a device array is returned as is, unless it is on
    another GPU than the current one: then it is copied to the current device (a peer copy).
    """
    if isinstance(obj, DeviceNDArray) and to is None:
        if obj._backend == 1 or obj._device < 0 or obj._device == _core.current_device():
            return obj
        copy = device_array(obj.shape, obj.dtype, strides=_compact_strides_like(obj), stream=stream)
        copy.copy_to_device(obj, stream=stream)
        return copy
    if to is not None:
        if not isinstance(to, DeviceNDArray):
            raise TypeError(f"to_device: 'to' must be a device array, not {type(to).__name__}")
        to.copy_to_device(obj, stream=stream)
        return to
    handle = _stream_handle(stream)
    if isinstance(obj, np.void) and obj.dtype.names is not None:      # numba-cuda: a record gives a DeviceRecord
        rec = DeviceRecord(obj.dtype, stream=stream)
        rec._write_host(np.array(obj), handle)
        return rec
    host = np.asarray(obj)
    if host.dtype.hasobject:
        return ObjectDeviceArray(host, type(obj).__name__)
    if not (host.flags["C_CONTIGUOUS"] or host.flags["F_CONTIGUOUS"]):
        if _broadcast_of_contiguous(host):
            # numba-cuda keeps a broadcast array's zero strides: only the repeated core is copied (and the array's
            # type in a kernel is layout 'A')
            dev = DeviceNDArray(host.shape, host.strides, host.dtype, stream=stream)
            dev._write_host(host, handle)
            return dev
        host = np.ascontiguousarray(host)
    dev = _new_array(DeviceNDArray)
    _init_new(dev, host.shape, host.dtype, not host.flags.c_contiguous, stream)
    if dev.strides != host.strides:   # contiguous with other strides on axes of length 1: Numba keeps them
        dev = DeviceNDArray(host.shape, host.strides, host.dtype, stream=stream)
    dev._write_host(host, handle)
    return dev


def _broadcast_of_contiguous(host):
    """Whether ``host`` repeats a contiguous core along axes of stride 0 (``np.broadcast_to``'s arrays)."""
    if host.size == 0 or not any(st == 0 and n > 1 for n, st in zip(host.shape, host.strides)):
        return False
    core = host[tuple(0 if st == 0 else slice(None) for st in host.strides)]
    return bool(core.flags["C_CONTIGUOUS"] or core.flags["F_CONTIGUOUS"])


class ObjectDeviceArray:
    """What ``cuda.to_device`` makes of Python objects (``to_device(None)``: NumPy's 0-d object array). numba-cuda
    returns a device array of dtype object, and programs pass None for arrays their mode never uses (OpenFDTD's GPU
    solver: its PML arrays under Mur boundaries). Device memory holds numbers, not Python objects: this stand-in has
    the shape and dtype, and any use (a kernel argument, a copy back, indexing) raises TypeError saying why."""

    def __init__(self, host, what):
        self.shape, self.dtype, self.ndim, self.size = host.shape, host.dtype, host.ndim, host.size
        self._what = what

    def __repr__(self):
        return f"<cudajit ObjectDeviceArray shape={self.shape} dtype=object: to_device of a {self._what}>"

    def _refuse(self, use):
        raise TypeError(f"{use}: this is cuda.to_device() of a {self._what}, which NumPy makes an array of Python "
                        f"objects; device memory cannot hold Python objects (numba-cuda copies their pointers), so "
                        f"it can only be kept, not used")

    def copy_to_host(self, *args, **kwargs):
        self._refuse("copy_to_host")

    def __getitem__(self, index):
        self._refuse("indexing")

    def __setitem__(self, index, value):
        self._refuse("indexing")

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def _cudajit_typeof(self):
        from ..errors import TypingError
        raise TypingError(f"a kernel argument is cuda.to_device() of a {self._what} (an array of Python objects), "
                          f"which kernels cannot take; pass a device array of numbers")


def _host_array(nbytes_kind, shape, dtype, strides, order):
    dtype = _check_dtype(dtype)
    shape = _normalize_shape(shape)
    strides = _strides_for(shape, dtype, strides, order)
    nbytes = max(_span_bytes(shape, strides, dtype.itemsize), 1)
    if nbytes >= 1 << 63:
        raise ValueError(f"a host array of shape {shape} and dtype {dtype} needs {nbytes} bytes, more than memory has")
    _backend_id()  # decides the backend before allocating
    buf = emm.host_allocation(nbytes, nbytes_kind == "mapped") if nbytes_kind != "managed" else None
    if buf is None:
        buf = _core.HostBuffer(nbytes, nbytes_kind)
    return np.ndarray(shape, dtype=dtype, buffer=buf, strides=strides), buf


def pinned_array(shape, dtype=np.float64, strides=None, order="C"):
    """A NumPy array in page-locked host memory (fast, asynchronous copies)."""
    return _host_array("pinned", shape, dtype, strides, order)[0]


def pinned_array_like(ary):
    """An uninitialised page-locked host array with the shape, dtype and layout of ``ary``."""
    _check_like(ary, "pinned_array_like")
    return pinned_array(ary.shape, ary.dtype, strides=_compact_strides_like(ary),
                        order="F" if _is_f_only(ary) else "C")


class MappedNDArray(np.ndarray):
    """A NumPy array in page-locked host memory mapped into the device's address space:
    kernels read and write it directly (zero-copy), the host sees their writes after a sync."""

    @property
    def __cuda_array_interface__(self):
        base = self._cudajit_buffer
        if not hasattr(base, "device_ptr"):
            # a NumPy result computed from one (m + 1) is an ordinary host array: no interface, so consumers (and
            # kernels) take it as host memory
            raise AttributeError(f"this {type(self).__name__} is a NumPy result in ordinary host memory, not a view "
                                 f"of mapped or managed memory: it has no __cuda_array_interface__")
        offset = self.__array_interface__["data"][0] - base.host_ptr
        c_contig = self.flags["C_CONTIGUOUS"]
        return {"shape": self.shape, "strides": None if c_contig else self.strides,
                "data": (base.device_ptr + offset, False), "typestr": self.dtype.str,
                "stream": _stream_handle(self.stream) or None, "version": 3}

    @property
    def _cudajit_buffer(self):
        obj = self
        while isinstance(obj, np.ndarray):
            obj = obj.base
        return obj

    def __array_finalize__(self, obj):
        # the stream given when it was made (numba-cuda's .stream, in the interface's "stream"); views keep it
        self.stream = getattr(obj, "stream", 0)


class ManagedNDArray(MappedNDArray):
    """A NumPy array in CUDA managed memory, usable on the host and by kernels."""


def _typed_host_array(kind, cls, shape, dtype, strides, order, stream=0):
    _stream_handle(stream)     # refuses what is not a stream
    ary, _ = _host_array(kind, shape, dtype, strides, order)
    ary = ary.view(cls)
    ary.stream = stream
    return ary


def mapped_array(shape, dtype=np.float64, strides=None, order="C", stream=0, portable=False, wc=False):
    """A host array that kernels access directly (Numba: mapped, page-locked memory)."""
    return _typed_host_array("mapped", MappedNDArray, shape, dtype, strides, order, stream)


def mapped_array_like(ary, stream=0, portable=False, wc=False):
    """A host array mapped into the device's address space, shaped like ``ary`` (same dtype and layout)."""
    _check_like(ary, "mapped_array_like")
    return mapped_array(ary.shape, ary.dtype, strides=_compact_strides_like(ary),
                        order="F" if _is_f_only(ary) else "C", stream=stream)


def managed_array(shape, dtype=np.float64, strides=None, order="C", stream=0, attach_global=True):
    """An array in managed (unified) memory, usable on the host and by kernels."""
    return _typed_host_array("managed", ManagedNDArray, shape, dtype, strides, order, stream)


def _span(ary):
    """(first byte, byte count) of the memory a host array's elements occupy."""
    ary = np.asarray(ary)
    if ary.size == 0:
        return ary.__array_interface__["data"][0], 0
    start = ary.__array_interface__["data"][0]
    lo = start + sum(min(0, (n - 1) * st) for n, st in zip(ary.shape, ary.strides))
    hi = start + sum(max(0, (n - 1) * st) for n, st in zip(ary.shape, ary.strides)) + ary.itemsize
    return lo, hi - lo


def _register(arrays, mapped):
    _backend_id()
    for i, a in enumerate(arrays):
        if not isinstance(a, np.ndarray):
            raise TypeError(f"{'mapped' if mapped else 'pinned'}(): argument {i} must be a NumPy array, "
                            f"not {type(a).__name__}")
    regs = []
    mgr = emm.manager()
    try:
        for a in arrays:
            regs.append(_core.HostRegistration(*_span(a), mapped) if mgr is None else
                        emm.Registration(mgr, a, *_span(a), mapped))
    except BaseException:
        for r in regs:
            r.release()
        raise
    return regs


@contextlib.contextmanager
def pinned(*arrays):
    """Numba's ``cuda.pinned(*arrays)``: page-lock host arrays for a block of code, so copies to and from them
    run at pinned speed and can overlap with kernels."""
    regs = _register(arrays, mapped=False)
    try:
        yield
    finally:
        if any(r.registered for r in regs):
            _core.synchronize()          # no copy in flight may outlive the page-locking
        for r in regs:
            r.release()


@contextlib.contextmanager
def mapped(*arrays, stream=0, portable=False, wc=False):
    """Numba's ``cuda.mapped(*arrays)``: page-lock host arrays and map them into the device's address space for a
    block of code; yields device arrays (one, or a list) that kernels read and write in place (zero-copy)."""
    _stream_handle(stream)                      # refuses what is not a stream before anything is page-locked
    regs = _register(arrays, mapped=True)
    try:
        devs = []
        for a, r in zip(arrays, regs):
            a = np.asarray(a)
            lo, _ = _span(a)
            ptr = r.device_ptr + (a.__array_interface__["data"][0] - lo)
            # portable host memory: every device reaches it
            dev = DeviceNDArray._view_of(ptr, a.shape, a.strides, a.dtype, r, _backend_id(), stream, device=-1)
            dev._readonly = not a.flags.writeable      # kernels may read a read-only array, not write it
            devs.append(dev)
        yield devs[0] if len(devs) == 1 else devs
    finally:
        if any(r.registered for r in regs):
            _core.synchronize()          # kernels still writing must finish before the memory is unmapped
        for r in regs:
            r.release()
