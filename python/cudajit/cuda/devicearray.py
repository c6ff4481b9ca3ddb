"""DeviceNDArray: an array in device memory (host memory under the CPU backend).

Follows numba.cuda's DeviceNDArray: attributes ``shape strides dtype size ndim nbytes``,
``copy_to_host``/``copy_to_device``, views by slicing, ``reshape ravel view T transpose split``,
``__cuda_array_interface__`` (v3) and DLPack. Pointer, shape and strides live in the C++
``ArrayCore`` base, which the launcher reads directly.
"""
import math
import operator

import numpy as np

from .. import _backend, _core
from ..errors import CudaJitError
from .streams import stream_handle as _stream_handle
from .arraylayout import (_c_strides, _f_strides, _normalize_shape, _check_dtype, _core_typestr, _axis,
                          _span, _check_fits, _c_strides_skip1, _is_f_contig, _same_layout,
                          _host_addr, _normalize_strides, _check_host_target, _check_compatible, _is_array_index,
                          _check_one_value_per_element)


def _backend_id():
    return _backend.current().core_id


def _current_device(backend_id):
    """The device new memory goes to: the thread's current GPU, or -1 on the CPU backend."""
    return -1 if backend_id == 1 else _core.current_device()


def _sync_if_default(stream, device=-1):
    """Numba's rule: a copy on stream 0 is synchronous (on the legacy stream of the memory's device); on a
    stream it is asynchronous."""
    if not stream:
        _core.stream_synchronize(0, device)


# What a dtype argument named -> (its np.dtype, typestr), for arguments seen before (hashable ones): the
# common allocation path then skips np.dtype() and its checks. Filled only by _known_dtype, after it has
# decided the backend, so a hit also means that the core already allocates for the right one.
_KNOWN_DTYPES = {}
_KNOWN_DTYPES_LIMIT = 512


def _known_dtype(dtype):
    """(np.dtype, typestr) of a dtype argument, as ``_check_dtype`` accepts it (same errors)."""
    try:
        return _KNOWN_DTYPES[dtype]
    except (KeyError, TypeError):   # TypeError: an unhashable spec (a list of fields)
        pass
    checked = _check_dtype(dtype)
    _backend_id()
    entry = (checked, _core_typestr(checked))
    # records are not kept: NumPy calls an aligned record dtype equal to a packed one with the same offsets, and the
    # cache would hand one's dtype to the other's arrays
    if checked.names is None and len(_KNOWN_DTYPES) < _KNOWN_DTYPES_LIMIT:
        try:
            _KNOWN_DTYPES[dtype] = entry
        except TypeError:
            pass
    return entry


def _init_new(array, shape, dtype, fortran, stream):
    """Initialise ``array`` (a DeviceNDArray from ``__new__``) as a new compact array: device_array's path, whose
    work is one C++ call (allocation, strides and checks in ArrayCore)."""
    dtype, typestr = _known_dtype(dtype)
    if shape.__class__ is not int or shape < 0:
        shape = _normalize_shape(shape)
    handle = 0 if stream is None or stream.__class__ is int and not stream else _stream_handle(stream)
    _init_core(array, shape, typestr, fortran, handle, dtype)
    array.dtype = dtype
    array.stream = stream


_init_core = _core.ArrayCore.__init__

# cuda.random's state (random.py names it xoroshiro128p_dtype): a record that kernels take as their own type
xoroshiro128p_dtype = np.dtype([("s0", np.uint64), ("s1", np.uint64)], align=True)

_DTYPE_KEYS = {}


def dtype_key(dtype, scalar):
    """The dispatcher's number for a dtype its C++ does not know (records, datetime64/timedelta64 with their
    unit, ml_dtypes' bfloat16 and float8 types, fixed-width strings): equal dtypes share a number; None (convert in
    Python first) for other dtypes and cuda.random's states."""
    if dtype.names is None and dtype.kind not in "MmVfSU" or dtype == xoroshiro128p_dtype:
        return None
    if dtype.kind in "Vf" and dtype.names is None:
        from ..compiler.types import from_dtype
        if from_dtype(dtype) is None:            # a plain void dtype: not a kernel dtype
            return None
    # NumPy calls an aligned record dtype equal to a packed one with the same offsets; their kernel types differ
    aligned = dtype.names is not None and dtype.isalignedstruct
    return _DTYPE_KEYS.setdefault((dtype, aligned, scalar), len(_DTYPE_KEYS))


class DeviceNDArray(_core.ArrayCore):
    """An array in the memory kernels of the current backend read and write."""

    __cuda_ndarray__ = True  # Numba marks its device arrays so
    _record_scalar = False   # a 0-d copy of one record kernel argument (args.py): the kernel sees a record

    @property
    def _cudajit_dtype_key(self):
        """The dispatcher's key part for a dtype of kind kOther (launch.cpp asks only for those): ``dtype_key``."""
        return dtype_key(self.dtype, self._record_scalar)

    def __init__(self, shape, strides, dtype, stream=0, gpu_data=None):
        # Numba's constructor: allocate (or adopt gpu_data, a buffer with .ptr) for shape/strides.
        if strides is None and gpu_data is None:
            _init_new(self, shape, dtype, False, stream)
            return
        dtype = _check_dtype(dtype)
        shape = _normalize_shape(shape)
        strides = _normalize_strides(strides, shape) if strides is not None else _c_strides(shape, dtype.itemsize)
        backend_id = _backend_id()  # decides the backend (and tells the core) before allocating
        lo, hi = _span(shape, strides, dtype.itemsize)
        if gpu_data is None:
            nbytes = hi - lo
            if nbytes >= 1 << 63:
                raise ValueError(f"an array of shape {shape} and dtype {dtype} needs {nbytes} bytes, "
                                 f"more than any device has")
            if lo < 0:     # the data pointer is the allocation's start: no element may lie below it (NumPy's rule)
                raise ValueError(f"strides {strides} reach {-lo} bytes below the first element of a new array of "
                                 f"shape {shape}: a new array's elements must follow its first (as np.ndarray's)")
            gpu_data = _core.DeviceBuffer(nbytes, _stream_handle(stream))
        else:
            _check_fits(gpu_data, lo, hi, shape, strides, dtype)
        device = getattr(gpu_data, "device", None)       # our DeviceBuffer's ordinal; others: the current device
        device = device if isinstance(device, int) else _current_device(backend_id)
        _core.ArrayCore.__init__(self, gpu_data.ptr, shape, strides, _core_typestr(dtype), gpu_data, backend_id,
                                 device)
        self.dtype = dtype
        self.stream = stream

    @classmethod
    def _view_of(cls, ptr, shape, strides, dtype, owner, backend_id, stream=0, device=None):
        """An array over existing memory; ``device``: the GPU it is on, -1 for memory every device reaches, None
        for the current device."""
        self = cls.__new__(cls)
        device = _current_device(backend_id) if device is None else device
        _core.ArrayCore.__init__(self, ptr, tuple(shape), tuple(strides), _core_typestr(dtype), owner, backend_id,
                                 device)
        self.dtype = dtype
        self.stream = stream
        return self

    # --- Numba's attributes ---------------------------------------------------------------
    @property
    def device(self):
        """The ``cuda.gpus`` entry whose memory holds the array (``.id`` is its ordinal); None for memory every
        device reaches (managed, mapped host memory). The CPU backend's arrays are on its pseudo-device 0."""
        from .devices import gpus
        if self._backend == 1:
            return gpus[0]
        return None if self._device < 0 else gpus[self._device]

    def _allocation(self):
        """The object owning the memory this array views: a DeviceBuffer, an EMM plugin's MemoryPointer, or
        another library's array."""
        owner = self._owner
        return getattr(owner, "external", None) or owner

    @property
    def gpu_data(self):
        """The memory this array spans, as in Numba: for an array spanning its whole allocation, the allocation (a
        DeviceBuffer, or an EMM plugin's MemoryPointer where a plugin allocated it); for a view of part of one, a
        ``MemoryPointer`` to the bytes it spans (``device_pointer`` the lowest, ``size`` their count) whose
        ``owner`` is the allocation. Another library's array (``cuda.as_cuda_array``) gives its own object."""
        from .emm import MemoryPointer
        root = self._allocation()
        if isinstance(root, _core.DeviceBuffer):
            start, nbytes = root.ptr, root.nbytes
        elif isinstance(root, MemoryPointer):
            start, nbytes = root.ptr, root.size
        else:
            return root
        lo, hi = self._extent()
        if self._ptr + lo == start and hi - lo == nbytes:
            return root
        cached = self.__dict__.get("_gpu_data_view")
        if cached is None:
            from .devices import gpus
            context = gpus[self._device].get_primary_context() if self._backend != 1 and self._device >= 0 else None
            cached = self.__dict__["_gpu_data_view"] = MemoryPointer(context, self._ptr + lo, hi - lo, owner=root)
        return cached

    @property
    def alloc_size(self):
        """Bytes of device memory the array spans, from its lowest to its highest element."""
        lo, hi = self._extent()
        return hi - lo

    @property
    def device_ctypes_pointer(self):
        """The device address of the first element as a ``ctypes.c_void_p``, as in Numba."""
        import ctypes
        return ctypes.c_void_p(self._ptr)

    @property
    def flags(self):
        """``{'C_CONTIGUOUS': bool, 'F_CONTIGUOUS': bool}``, as NumPy's and Numba's ``flags``."""
        return {"C_CONTIGUOUS": self.is_c_contiguous(), "F_CONTIGUOUS": self.is_f_contiguous()}

    def is_c_contiguous(self):
        """True if the elements lie in row-major (C) order without gaps."""
        return self.size == 0 or self.strides == _c_strides_skip1(self.shape, self.strides, self.dtype.itemsize)

    def is_f_contiguous(self):
        """True if the elements lie in column-major (Fortran) order without gaps."""
        return self.size == 0 or _is_f_contig(self.shape, self.strides, self.dtype.itemsize)

    def _is_contiguous(self):
        return self.is_c_contiguous() or self.is_f_contiguous()

    @property
    def __cuda_array_interface__(self):
        c_contig = self.strides == _c_strides(self.shape, self.dtype.itemsize)
        return {
            "shape": self.shape,
            "strides": None if c_contig else self.strides,
            "data": (self._ptr if self.size else 0, self._readonly),
            "typestr": self.dtype.str,
            "stream": _stream_handle(self.stream) or None,   # the array's stream, as numba-cuda (0: None)
            "version": 3,
        }

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __repr__(self):
        where = _backend.BY_CORE_ID[self._backend].name.upper() + (f" device {self._device}" if self._device >= 0 else "")
        return f"<cudajit.DeviceNDArray shape={self.shape} dtype={self.dtype} on {where}>"

    # --- copies ---------------------------------------------------------------------------
    def copy_to_host(self, ary=None, stream=0):
        """Copy to a new NumPy array (or into ``ary``). Synchronous unless a stream is given."""
        handle = _stream_handle(stream)
        self._check_backend()
        if ary is not None:
            _check_host_target(ary, self)
        lo, hi = self._extent()
        if ary is not None and _same_layout(ary, self):
            _core.copy_dtoh_ptr(_host_addr(ary) + lo, self._ptr + lo, hi - lo, handle, self._device)
            _sync_if_default(handle, self._device)
            return ary
        raw = np.empty(hi - lo, dtype=np.uint8)
        _core.copy_dtoh(raw, self._ptr + lo, hi - lo, handle, self._device)
        _sync_if_default(handle, self._device)
        host = np.ndarray(self.shape, dtype=self.dtype, buffer=raw, offset=-lo, strides=self.strides)
        if ary is None:
            return host
        np.copyto(ary, host.reshape(ary.shape) if ary.shape != self.shape else host)   # axes of length 1 apart
        return ary

    def copy_to_device(self, ary, stream=0):
        """Copy a host array (or another device array) into this array."""
        handle = _stream_handle(stream)
        self._check_backend()
        self._check_writable("copy_to_device")
        if isinstance(ary, DeviceNDArray) or (hasattr(ary, "__cuda_array_interface__") and not isinstance(ary, np.ndarray)):
            src = ary if isinstance(ary, DeviceNDArray) else as_cuda_array(ary)
            if src.size == 0:
                return                          # numba-cuda: nothing to copy, nothing checked
            _check_compatible("copy_to_device", self, src, "source")
            if src.shape != self.shape:         # axes of length 1 apart, the same elements in the same order
                src = src.reshape(self.shape)
            if _same_layout(src, self):
                lo, hi = self._extent()
                # between two devices a peer copy, synchronous on stream 0 (memory.h)
                _core.copy_dtod(self._ptr + lo, src._ptr + lo, hi - lo, handle, self._device, src._device)
                return
            self._write_host(src.copy_to_host(stream=stream), handle)
            return
        host = np.asarray(ary)
        if host.size == 0:
            return
        _check_compatible("copy_to_device", self, host, "source")
        self._write_host(host.reshape(self.shape) if host.shape != self.shape else host, handle)

    def _write_host(self, host, handle):
        shared = [ax for ax, (n, st) in enumerate(zip(self.shape, self.strides)) if st == 0 and n > 1]
        if shared:
            _check_one_value_per_element(self, host, shared)
        lo, hi = self._extent()
        if _same_layout(host, self):
            _core.copy_htod_ptr(self._ptr + lo, _host_addr(host) + lo, hi - lo, handle, self._device)
        else:
            # Different memory layouts: arrange the data in this array's layout on the host first.
            raw = np.empty(hi - lo, dtype=np.uint8)
            if not self._is_dense():
                _core.copy_dtoh(raw, self._ptr + lo, hi - lo, handle, self._device)  # keep the bytes between elements
                _sync_if_default(handle, self._device)
            staged = np.ndarray(self.shape, dtype=self.dtype, buffer=raw, offset=-lo, strides=self.strides)
            np.copyto(staged, host)
            _core.copy_htod(self._ptr + lo, raw, hi - lo, handle, self._device)
        _sync_if_default(handle, self._device)

    def _check_writable(self, what):
        if self._readonly:
            raise ValueError(f"{what}: this device array is read-only (its producer exported it read-only: the "
                             f"__cuda_array_interface__ read-only flag or DLPack's)")

    def _is_dense(self):
        lo, hi = self._extent()
        return hi - lo == self.nbytes

    def _check_backend(self):
        if self._backend != _backend_id():
            raise CudaJitError(f"this array belongs to the {_backend.BY_CORE_ID[self._backend].name.upper()} backend, "
                               f"but the {_backend.name()} backend is in use")

    @property
    def _numba_type_(self):
        """Numba's typing hook: the type a kernel parameter gets for this array (its layout C, F or A)."""
        from ..compiler.typeof import typeof
        return typeof(self)

    def __array__(self, dtype=None, copy=None):
        if copy is False:                       # NumPy 2's protocol: the data is on the device, a copy is needed
            raise ValueError("`copy=False` is not supported: a device array's data must be copied to the host "
                             "(np.asarray(d) or d.copy_to_host())")
        host = self.copy_to_host()
        return host.astype(dtype, copy=False) if dtype is not None else host

    # --- views ----------------------------------------------------------------------------
    def __getitem__(self, key):
        view = self._view(key)
        if view.ndim == 0 and not _is_array_index(key):
            if self.dtype.names is not None:      # a record stays on the device: writes to its fields reach it
                return view._as_record()
            return view.copy_to_host()[()]
        return view

    def _as_record(self):
        rec = DeviceRecord._view_of(self._ptr, (), (), self.dtype, self._owner, self._backend, self.stream,
                                    self._device)
        rec._readonly = self._readonly
        return rec

    def __setitem__(self, key, value):
        self._setitem(key, value, None)

    def _setitem(self, key, value, stream):
        if value is None:
            raise TypeError(f"cannot assign None to elements of a {self.dtype} device array")
        handle = None if stream is None else _stream_handle(stream)       # 0: the array's own stream
        # (a NumPy key compared with `!= ()` gave NumPy's "truth value of an empty array is ambiguous")
        target = self if isinstance(key, tuple) and not key else self._view(key)
        target._check_writable("setitem")
        if isinstance(value, DeviceNDArray) or (hasattr(value, "__cuda_array_interface__") and not isinstance(value, np.ndarray)):
            value = value.copy_to_host() if isinstance(value, DeviceNDArray) else np.asarray(value)
        try:
            host = np.broadcast_to(np.asarray(value, dtype=target.dtype), target.shape)
        except (TypeError, ValueError, OverflowError) as e:
            raise type(e)(f"cannot store {value!r:.60} in a {target.dtype} device array of shape {target.shape}: "
                          f"{e}") from None
        target._write_host(np.ascontiguousarray(host), handle if handle else _stream_handle(target.stream))

    def getitem(self, key, stream=0):
        """``self[key]`` (Numba's method form): an element is read on ``stream`` and waited for; a view's copies
        default to ``stream``."""
        handle = _stream_handle(stream)
        view = self._view(key)
        if view.ndim == 0 and not _is_array_index(key):
            host = view.copy_to_host(stream=stream)
            if handle:                                  # on stream 0 the copy was synchronous already
                _core.stream_synchronize(handle, self._device)
            return host[()]
        return view.bind(stream) if handle else view

    def setitem(self, key, value, stream=0):
        """``self[key] = value`` (Numba's method form): the copy goes on ``stream`` (the array's own when 0)."""
        self._setitem(key, value, stream)

    def _view(self, key):
        """The view that basic indexing ``key`` selects (ints, slices, Ellipsis, None)."""
        if not isinstance(key, tuple):
            key = (key,)
        if sum(k is Ellipsis for k in key) > 1:
            raise IndexError("an index can only have a single ellipsis ('...')")
        if any(k is Ellipsis for k in key):
            i = next(n for n, k in enumerate(key) if k is Ellipsis)
            fill = self.ndim - (len(key) - 1 - sum(k is None for k in key))
            key = key[:i] + (slice(None),) * fill + key[i + 1:]
        ptr, shape, strides, dim = self._ptr, [], [], 0
        for k in key:
            if k is None:
                shape.append(1)
                strides.append(0)
                continue
            if dim >= self.ndim:
                raise IndexError(f"too many indices for an array of {self.ndim} dimensions")
            n, s = self.shape[dim], self.strides[dim]
            if isinstance(k, slice):
                start, stop, step = k.indices(n)
                count = len(range(start, stop, step))
                ptr += start * s if count else 0
                shape.append(count)
                strides.append(s * step if count > 1 else s)   # one element: a huge step's stride is never used
            else:
                try:
                    if isinstance(k, (bool, np.bool_)):
                        raise TypeError
                    i = operator.index(k)
                except TypeError:
                    raise TypeError(f"device arrays support basic indexing only (ints, slices, ..., None), "
                                    f"not {type(k).__name__}") from None
                if i < 0:
                    i += n
                if not 0 <= i < n:
                    raise IndexError(f"index {int(k)} is out of bounds for axis {dim} with size {n}")
                ptr += i * s
            dim += 1
        shape += self.shape[dim:]
        strides += self.strides[dim:]
        return self._derived(ptr, shape, strides)

    def _derived(self, ptr, shape, strides, dtype=None, stream=None):
        """A view of this array's memory (same owner and backend); it stays read-only if this array is."""
        view = DeviceNDArray._view_of(ptr, shape, strides, self.dtype if dtype is None else dtype, self._owner,
                                      self._backend, self.stream if stream is None else stream, self._device)
        view._readonly = self._readonly
        return view

    def bind(self, stream=0):
        """A view of the same memory whose copies default to ``stream`` (Numba's ``bind``)."""
        _stream_handle(stream)  # refuses what is not a stream now, not at the first copy
        return self._derived(self._ptr, self.shape, self.strides, stream=stream)

    def reshape(self, *newshape, order="C"):
        """Numba: only contiguous arrays reshape (without a copy)."""
        if len(newshape) == 1 and isinstance(newshape[0], (tuple, list)):
            newshape = tuple(newshape[0])
        newshape = list(newshape) if isinstance(newshape, (tuple, list)) else [newshape]
        unknown = [d for d, n in enumerate(newshape) if isinstance(n, (int, np.integer)) and n == -1]
        if len(unknown) > 1:
            raise ValueError("reshape: can only specify one unknown dimension (-1)")
        for d in unknown:
            newshape[d] = 0
        newshape = list(_normalize_shape(newshape, "reshape: shape"))
        for d in unknown:
            known = math.prod(newshape[:d] + newshape[d + 1:])
            newshape[d] = self.size // known if known else 0
        newshape = tuple(newshape)
        if math.prod(newshape) != self.size:
            raise ValueError(f"cannot reshape array of size {self.size} into shape {newshape}")
        if order not in ("C", "F", "A"):
            raise ValueError(f"reshape: order must be 'C', 'F' or 'A', not {order!r}")
        if order == "A":
            order = "F" if self.is_f_contiguous() and not self.is_c_contiguous() else "C"
        if (order == "C" and not self.is_c_contiguous()) or (order == "F" and not self.is_f_contiguous()):
            raise NotImplementedError("reshape of a non-contiguous device array (it would need a copy)")
        maker = _c_strides if order == "C" else _f_strides
        return self._derived(self._ptr, newshape, maker(newshape, self.dtype.itemsize))

    def ravel(self, order="C", stream=0):
        """A 1-d view of a contiguous array in ``order`` ('C', 'F' or 'A'); no copy is made."""
        if order not in ("C", "F", "A"):
            raise ValueError("order must be 'C', 'F' or 'A'")
        if not self._is_contiguous():
            raise NotImplementedError("ravel of a non-contiguous device array (it would need a copy)")
        flat = self.reshape(self.size, order=order if order != "A" else "A")
        return flat.bind(stream) if _stream_handle(stream) else flat

    def squeeze(self, axis=None, stream=0):
        """A view without the axes of length one, or without the ``axis`` given (an int or a tuple, negative ones
        counting from the end), each of which must have length one, as ``ndarray.squeeze``; no copy is made."""
        if axis is None:
            drop = {d for d, n in enumerate(self.shape) if n == 1}
        else:
            drop = set()
            for ax in axis if isinstance(axis, tuple) else (axis,):
                if isinstance(ax, (bool, np.bool_)) or not isinstance(ax, (int, np.integer)):
                    raise TypeError(f"squeeze: axis must be an int or a tuple of ints, not {type(ax).__name__}")
                if not -self.ndim <= ax < self.ndim:
                    raise np.exceptions.AxisError(int(ax), self.ndim)
                d = int(ax) % self.ndim
                if self.shape[d] != 1:
                    raise ValueError(f"squeeze: cannot squeeze out axis {int(ax)}, whose length is {self.shape[d]}, "
                                     f"not 1")
                drop.add(d)
        keep = [d for d in range(self.ndim) if d not in drop]
        _stream_handle(stream)
        return self._derived(self._ptr, [self.shape[d] for d in keep], [self.strides[d] for d in keep],
                             stream=stream or None)

    def view(self, dtype):
        """The same memory seen with another dtype (the last axis rescales), as ``ndarray.view``."""
        dtype = _check_dtype(dtype, "view: dtype")
        if dtype.itemsize == self.dtype.itemsize:        # any layout, as NumPy: only the type changes
            return self._derived(self._ptr, self.shape, self.strides, dtype)
        if self.ndim == 0:
            raise ValueError("view: changing the dtype of a 0d array is only supported if the itemsize is unchanged")
        if self.strides[-1] != self.dtype.itemsize and self.shape[-1] != 1:
            raise ValueError(f"view: To change to a dtype of a different size, the last axis must be contiguous "
                             f"(its stride is {self.strides[-1]} bytes, the item {self.dtype.itemsize})")
        last_bytes = self.shape[-1] * self.dtype.itemsize
        if last_bytes % dtype.itemsize:
            raise ValueError(f"view: When changing to a larger dtype, its size must be a divisor of the total size in "
                             f"bytes of the last axis of the array: {last_bytes} bytes is not a multiple of "
                             f"{dtype}'s {dtype.itemsize}")
        shape = self.shape[:-1] + (last_bytes // dtype.itemsize,)
        strides = self.strides[:-1] + (dtype.itemsize,)
        return self._derived(self._ptr, shape, strides, dtype)

    def transpose(self, axes=None):
        """numba-cuda's: a 2-d array's transpose as a new C-ordered array (``cuda.kernels.transpose``, on this
        array's stream), not a view; ``axes`` naming the axes in order returns this array (a negative axis counts
        from the end; NumPy's AxisError for one out of range, numba-cuda's "invalid axes list" for one repeated). Other dimensions raise
        NotImplementedError, as in numba-cuda. (Inside a kernel, ``a.T`` is a view of an array of any dimension.)"""
        if axes is not None:
            if not isinstance(axes, (tuple, list)):
                raise TypeError(f"transpose: axes must be a tuple of ints, not {type(axes).__name__} {axes!r:.40}")
            axes = tuple(axes)
            if not all(isinstance(a, (int, np.integer)) for a in axes) or len(axes) != self.ndim:
                raise ValueError(f"invalid axes {axes} for an array of {self.ndim} dimensions")
            axes = tuple(_axis(a, self.ndim) for a in axes)
            if len(set(axes)) != self.ndim:
                raise ValueError(f"invalid axes list {axes}")      # numba-cuda's words (NumPy: "repeated axis")
            if axes == tuple(range(self.ndim)):
                return self
        if self.ndim != 2:
            raise NotImplementedError(f"transposing a device array of {self.ndim} dimensions is not supported (as in "
                                      "numba-cuda, only 2-d ones, into a copy); a kernel can read a.T of any array")
        return transpose_2d(self)

    @property
    def T(self):
        """The transpose: ``self.transpose()``, a new array (numba-cuda's)."""
        return self.transpose()

    def split(self, section, stream=0):
        """Numba: split a 1-d array into views of ``section`` elements (the last may be shorter)."""
        if self.ndim != 1:
            raise ValueError("only 1-d arrays can be split")
        if isinstance(section, (bool, np.bool_)) or not isinstance(section, (int, np.integer)):
            raise TypeError(f"split: section must be an int number of elements, not {type(section).__name__}")
        if section <= 0:
            raise ValueError(f"split: section must be positive, got {section}")
        bound = _stream_handle(stream) != 0        # numba-cuda's views copy on the stream given
        return [self[i:i + section].bind(stream) if bound else self[i:i + section]
                for i in range(0, self.shape[0], section)]

    def get_ipc_handle(self):
        """An IpcArrayHandle that shares this array with another process on this machine: pickle it there, then
        ``with handle as darr:`` (cuda/ipc.py). Linux, GPU backend."""
        return ipc_array_handle(self)

    # --- DLPack ---------------------------------------------------------------------------
    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        """The array as a DLPack capsule (no copy), for ``np.from_dlpack``, CuPy, PyTorch ... The arguments are the
        Python array API's: ``stream`` an int or None, ``max_version`` None or a (major, minor) tuple,
        ``dl_device`` None or this array's ``__dlpack_device__()``, ``copy`` None or False (True: BufferError).
        A read-only array raises BufferError, as NumPy's does: the unversioned capsule cannot say read-only."""
        if stream is not None and (isinstance(stream, bool) or not isinstance(stream, int)):
            raise TypeError(f"__dlpack__: stream must be an int or None, not {type(stream).__name__}")
        if max_version is not None and not (isinstance(max_version, tuple) and len(max_version) == 2
                                            and all(isinstance(v, int) for v in max_version)):
            raise TypeError(f"__dlpack__: max_version must be None or a (major, minor) tuple of ints, not "
                            f"{max_version!r:.60}")
        if dl_device is not None:
            if not (isinstance(dl_device, tuple) and len(dl_device) == 2):
                raise TypeError(f"__dlpack__: dl_device must be a (device type, device id) tuple, not "
                                f"{dl_device!r:.60}")
            if tuple(dl_device) != self.__dlpack_device__():
                raise BufferError(f"__dlpack__: cannot export to device {dl_device}: the array is on "
                                  f"{self.__dlpack_device__()} and cudajit exports without copies")
        if copy is not None and not isinstance(copy, bool):
            raise TypeError(f"__dlpack__: copy must be True, False or None, not {copy!r:.60}")
        if copy:
            raise BufferError("cudajit exports DLPack without copies")
        if self._readonly:
            raise BufferError("__dlpack__: cannot export a read-only array (its __cuda_array_interface__ or DLPack "
                              "producer marked it so): the DLPack capsule cudajit makes cannot signal read-only")
        if stream is not None and stream != -1 and self._backend == 0:
            _core.stream_synchronize(0, self._device)
        return _core.to_dlpack(self)

    def __dlpack_device__(self):
        if self._backend == 1:
            return (1, 0)  # kDLCPU
        return (2, self._device if self._device >= 0 else _core.current_device())  # kDLCUDA


class DeviceRecord(DeviceNDArray):
    """One record of a structured dtype in device memory (numba-cuda's ``DeviceRecord``): what ``d[i]`` of a record
    device array and ``cuda.to_device(rec)`` of a NumPy record give. ``rec['x']`` copies a scalar field to the host
    and is a view of a nested record or array field; ``rec['x'] = value`` writes the field on the device. Kernels
    take it as a record, by reference."""

    _record_scalar = True

    def __init__(self, dtype, stream=0, gpu_data=None):
        dtype = _check_dtype(dtype)
        if dtype.names is None:
            raise TypeError(f"DeviceRecord needs a structured (record) dtype, not {dtype}")
        super().__init__((), (), dtype, stream, gpu_data)

    def _field(self, key):
        names = self.dtype.names
        if isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_)):
            if not -len(names) <= key < len(names):
                raise IndexError(f"record index {key} out of range: the record has {len(names)} fields")
            key = names[key]
        if not isinstance(key, str):
            raise TypeError(f"a device record is indexed by a field name, not {type(key).__name__}")
        if key not in self.dtype.fields:
            raise KeyError(f"no field of name {key!r}: the record's fields are {', '.join(names)}")
        ftype, offset = self.dtype.fields[key][:2]
        return key, ftype, self._ptr + offset

    def _field_view(self, ftype, ptr):
        if ftype.subdtype is not None:
            base, shape = ftype.subdtype
            return self._derived(ptr, shape, _c_strides(shape, base.itemsize), base)
        view = self._derived(ptr, (), (), ftype)
        return view._as_record() if ftype.names is not None else view

    def __getitem__(self, key):
        return self.getitem(key)

    def getitem(self, key, stream=0):
        """``rec[key]`` (numba-cuda's method form): a scalar field is read on ``stream``; a nested record or array
        field is a view."""
        _, ftype, ptr = self._field(key)
        view = self._field_view(ftype, ptr)
        if ftype.subdtype is None and ftype.names is None:
            return view.copy_to_host(stream=stream)[()]
        return view

    def __setitem__(self, key, value):
        self.setitem(key, value)

    def setitem(self, key, value, stream=0):
        """``rec[key] = value``: the field written on the device (on ``stream``; synchronous on the default)."""
        name, ftype, ptr = self._field(key)
        self._check_writable("setitem")
        view = self._field_view(ftype, ptr)
        try:
            host = np.asarray(value, dtype=view.dtype)
        except (TypeError, ValueError, OverflowError) as e:
            raise type(e)(f"cannot store {value!r:.60} in field '{name}' ({ftype}) of a device record: {e}") from None
        host = np.ascontiguousarray(np.broadcast_to(host, view.shape))
        view._write_host(host, _stream_handle(stream if stream else view.stream))
        _sync_if_default(_stream_handle(stream if stream else view.stream), self._device)

    def copy_to_host(self, ary=None, stream=0):
        """The record as a 0-d NumPy array (numba-cuda's), or copied into ``ary`` (an array or a NumPy record)."""
        if isinstance(ary, np.void):
            host = super().copy_to_host(stream=stream)
            if _stream_handle(stream):
                _core.stream_synchronize(_stream_handle(stream), self._device)
            for name in self.dtype.names:
                ary[name] = host[name]
            return ary
        return super().copy_to_host(ary, stream)

    @property
    def _numba_type_(self):
        """The record's type (numba-cuda's ``from_dtype(dtype)``)."""
        from ..compiler.types import from_dtype
        return from_dtype(self.dtype)


_NUMBA_HELPERS = frozenset({"auto_device", "is_cuda_ndarray", "require_cuda_ndarray", "verify_cuda_ndarray_interface",
                            "array_core", "is_contiguous", "sentry_contiguous", "check_array_compatibility",
                            "from_array_like", "from_record_like", "DeviceNDArrayBase"})


# Hooks of the layers above this one, installed when they are imported (this module imports none of them):
# interop.py (as_cuda_array), ipc.py (array_handle), kernels/transpose.py (transpose) and array_helpers.py,
# numba-cuda's helper functions of its cuda.devicearray (auto_device, is_contiguous ...: _NUMBA_HELPERS), which it
# sets as attributes of this module.
def as_cuda_array(obj):
    raise RuntimeError("cudajit.cuda.interop is not imported")


def ipc_array_handle(darr):
    raise RuntimeError("cudajit.cuda.ipc is not imported")


def transpose_2d(a):
    raise RuntimeError("cudajit.cuda.kernels.transpose is not imported")


