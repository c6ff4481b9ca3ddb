"""Kernel arguments that need Python before a launch: NumPy arrays (copied to the device and
back, as Numba does), ``cuda.In/Out/InOut`` wrappers, and foreign ``__cuda_array_interface__``
arrays (CuPy, PyTorch: viewed without a copy). The C++ dispatcher calls ``prepare_args`` only
when a call has such an argument and is not one it converts itself: plain NumPy arrays of an already launched
kernel are copied in and back in C++ (src/host_args.cpp).
"""
import enum

import numpy as np

from .. import _core
from ..errors import StreamCaptureError
from .arrays import device_array
from .arraylayout import _host_addr
from .devicearray import DeviceNDArray
from .random import as_kernel_states, xoroshiro128p_dtype
from . import perfwarnings


class _Direction:
    """Wraps a host array to say which way it is copied around a launch (numba-cuda's ``ArgHint``)."""

    copy_in = copy_out = True

    def __init__(self, ary):
        self.ary = ary

    @property
    def value(self):
        """The wrapped array (numba-cuda's name for it)."""
        return self.ary

    def to_device(self, retr, stream=0):
        """The device array the kernel gets for the wrapped array (numba-cuda's ``ArgHint.to_device``): a host
        array's copy, copied in on ``stream`` as this direction says, with its copy back appended to ``retr`` (a
        list of calls to make after the launch); a device or ``__cuda_array_interface__`` array as it is."""
        from .streams import stream_handle
        a = self.ary
        if isinstance(a, DeviceNDArray):
            return a
        if hasattr(a, "__cuda_array_interface__"):
            from .interop import as_cuda_array
            return as_cuda_array(a)
        host = a if isinstance(a, np.ndarray) else np.asarray(a)
        if not _launchable_dtype(host.dtype):
            raise _refuse(host, _Where(None, ("value",), (0,)))
        hosts = _HostCopies(stream_handle(stream))
        dev = hosts.add(host, self.copy_in, self.copy_out)
        hosts.copy_in()
        if hosts.outs:
            retr.append(hosts.copy_back)
        return dev


class In(_Direction):
    """Copy to the device before the launch only (Numba's ``cuda.In``)."""
    copy_out = False


class Out(_Direction):
    """Copy back to the host after the launch only (Numba's ``cuda.Out``)."""
    copy_in = False


class InOut(_Direction):
    """Copy both ways (what a plain NumPy argument gets)."""


ArgHint = _Direction


def wrap_arg(value, default=InOut):
    """``value`` if it is already wrapped (``cuda.In/Out/InOut``), else ``default(value)`` (numba-cuda's)."""
    return value if isinstance(value, _Direction) else default(value)


# Numba's scalar types: what kernel parameters (and array elements) can be. Not longdouble, records, strings.
_KERNEL_SCALARS = (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
                   np.float16, np.float32, np.float64, np.complex64, np.complex128)
_KERNEL_DTYPES = frozenset(np.dtype(t) for t in _KERNEL_SCALARS)


def _register_scalar_types():
    # np.longlong/np.ulonglong are other classes of the same dtypes where int64 is C's long (Linux): a 'q' array's
    # elements are np.longlong
    for t in dict.fromkeys(_KERNEL_SCALARS + (np.longlong, np.ulonglong)):
        _core.register_scalar_type(t, np.dtype(t).str)


_register_scalar_types()


def prepare_args(args, stream=0, kernel=None, params=(), capture=False):
    """Returns (converted args, write-back callable or None).

    ``stream``: the launch's stream (a handle); NumPy arrays are copied in and back on it, as Numba does.
    ``kernel`` and ``params`` (the kernel's name and parameter names) only name an argument that
    cannot be passed, in the TypeError raised for it. ``capture``: the launch stream is being captured
    into a CUDA graph (cuda.graph), so host arrays, which are copied synchronously, are refused.
    """
    writebacks = []
    hosts = _HostCopies(stream)
    out = _convert_all(args, writebacks, _Where(kernel, params, capture=capture), {}, hosts)
    hosts.copy_in()
    if hosts.outs:
        writebacks.insert(0, hosts.copy_back)
    if not writebacks:
        return out, None

    def write_back():
        for copy_back in writebacks:
            copy_back()
    return out, write_back


_PY_SCALARS = (bool, int, float, complex)


class _Where:
    """Names an argument in messages: the kernel, the parameter's position and name, tuple elements."""

    def __init__(self, kernel, params, path=(), capture=False):
        self.kernel, self.params, self.path, self.capture = kernel, tuple(params), path, capture

    def element(self, i):
        return _Where(self.kernel, self.params, self.path + (i,), self.capture)

    def refuse_host_copy(self, what):
        """StreamCaptureError: a host argument is copied around the launch, synchronously, which no graph records."""
        if self.capture:
            raise StreamCaptureError(
                f"{self.describe()} is {what}, copied to the device before the launch and back after it "
                f"synchronously, which cannot be captured into a CUDA graph: copy it with cuda.to_device before "
                f"the capture and pass the device array")

    def describe(self):
        top = self.path[0]
        name = f" ({self.params[top]})" if top < len(self.params) else ""
        inner = "".join(f", element {i}" for i in self.path[1:])
        where = f"kernel '{self.kernel}': " if self.kernel else ""
        return f"{where}argument {top}{name}{inner}"


def _launchable_dtype(dtype):
    # native byte order only: np.dtype('>f8') != np.dtype('<f8'); records whose fields are all such scalars;
    # datetime64/timedelta64 of one unit; ml_dtypes.bfloat16 and its float8 types (float8_e5m2 is of kind 'f');
    # fixed-width strings ('S'/'U': array elements, not scalar arguments)
    if dtype in _KERNEL_DTYPES:
        return True
    from ..compiler.types import from_dtype
    return (dtype.names is not None or dtype.kind in "MmVfSU") and from_dtype(dtype) is not None


_TAGGED_SCALAR_TYPES = {}     # datetime dtype or Enum class -> the number subclass the launcher takes for it


def _tagged_scalar_type(key, name, base, typestr, kernel_type):
    """A subclass of ``base`` (int, float) for one kind of argument packed as ``typestr``: the dispatcher keys it
    apart (a registered tag of its own) and ``typeof`` types it as ``kernel_type``."""
    cls = _TAGGED_SCALAR_TYPES.get(key)
    if cls is None:
        cls = type(name, (base,), {"__slots__": (), "_cudajit_typeof": lambda self, t=kernel_type: t})
        _core.register_scalar_type(cls, typestr, len(_TAGGED_SCALAR_TYPES) + 1)
        _TAGGED_SCALAR_TYPES[key] = cls
    return cls


def _time_scalar(value):
    """A datetime64/timedelta64 scalar as the launcher takes it: its int64 count (NaT: INT64_MIN), typed as its
    dtype."""
    from ..compiler.types import from_dtype
    t = from_dtype(value.dtype)
    return _tagged_scalar_type(value.dtype, f"{t}_count", int, "i8", t)(int(value.astype(np.int64)))


def _bfloat16_scalar(value):
    """An ml_dtypes.bfloat16 scalar as the launcher takes it: its bits, packed as a uint16, typed as bfloat16."""
    from ..compiler import types as T
    bits = int(np.asarray(value).view(np.uint16))
    return _tagged_scalar_type("bfloat16", "bfloat16_bits", int, "u2", T.bfloat16)(bits)


def _fp8_scalar(value):
    """An ml_dtypes float8 scalar (float8_e4m3fn, float8_e5m2, float8_e8m0fnu) as the launcher takes it: its bits,
    packed as a uint8, typed as fp8_e4m3, fp8_e5m2 or fp8_e8m0."""
    from ..compiler.types import from_dtype
    t = from_dtype(value.dtype)
    bits = int(np.asarray(value).view(np.uint8))
    return _tagged_scalar_type(t.name, f"{t.name}_bits", int, "u1", t)(bits)


def _enum_scalar(member, where):
    """A member of an ``enum.Enum`` class whose values are numbers of one type (Numba's EnumMember argument): its
    value, typed as the member of its class (compared with ``==``/``is`` in the kernel, ``.value`` its number)."""
    from ..compiler import pyvalues, types as T
    cls = type(member)
    dtype = pyvalues.enum_dtype(cls)
    if dtype is None or dtype == T.boolean:
        raise TypeError(f"{where.describe()} is {cls.__name__}.{member.name}: "
                        f"{pyvalues.ENUM_VALUES_RULE.format(cls.__name__)} (ints or floats) to pass a member")
    if isinstance(dtype, T.BaseTuple):
        # a tuple of numbers (numba-cuda's Planet.EARTH = (mass, radius)): a tuple subclass per class, which the
        # core keys by its class and flattens as any tuple argument
        kind = _TAGGED_SCALAR_TYPES.get(cls)
        if kind is None:
            kind = _TAGGED_SCALAR_TYPES[cls] = type(f"{cls.__name__}_value", (tuple,), {
                "__slots__": (), "_cudajit_typeof": lambda self, t=T.EnumMember(cls, dtype): t})
        return kind(member.value)
    base = int if T.is_int(dtype) else float if isinstance(dtype, T.Float) else complex
    kind = _tagged_scalar_type(cls, f"{cls.__name__}_value", base, dtype.code, T.EnumMember(cls, dtype))
    return kind(member.value)


def _int_enum_member(member, where):
    """An ``enum.IntEnum`` member as the launcher takes it: itself (an int), its class registered with the core
    under a tag of its own the first time, so that the dispatcher keys each class apart without Python (the kernel
    types it ``IntEnumMember(cls, int64)``, as Numba) and plain ints pay nothing for it."""
    cls = type(member)
    if cls not in _TAGGED_SCALAR_TYPES:
        from ..compiler.typeof import int_enum_type
        from ..errors import TypingError
        try:
            t = int_enum_type(cls, where.describe())
        except TypingError as e:
            raise TypeError(str(e)) from None
        # held here for the process's life (the core keys by the class's address)
        _core.register_scalar_type(cls, t.code, len(_TAGGED_SCALAR_TYPES) + 1)
        _TAGGED_SCALAR_TYPES[cls] = cls
    return member


def _record_argument(rec, writebacks):
    """One record (``arr[0]``, a NumPy void scalar) as Numba passes it: a device copy the kernel sees by reference,
    whose fields are written back into ``rec`` (a view of its array, then) after the launch."""
    from .arrays import to_device
    dev = to_device(np.array(rec))
    dev._record_scalar = True

    def copy_back():
        result = dev.copy_to_host()
        for name in rec.dtype.names:
            rec[name] = result[name]
    writebacks.append(copy_back)
    return dev


def _dtype_name(dtype):
    if dtype.names is not None:
        return f"{dtype} (a structured/record dtype)"
    if dtype == np.longdouble or dtype == np.clongdouble:
        return f"{dtype} (C long double, which GPUs do not have)"
    return str(dtype)


def _refuse(a, where):
    """TypeError for an argument no kernel parameter can take, with what would work instead."""
    kind = type(a).__name__
    if isinstance(a, (np.ndarray, DeviceNDArray)):
        hint = (f"arrays of dtype {_dtype_name(a.dtype)} cannot be passed: kernels take bool, integer, float, "
                f"complex, ml_dtypes' bfloat16 and float8 (e4m3fn, e5m2, e8m0fnu), datetime64/timedelta64 (one unit) "
                f"and fixed-width string ('S', 'U') arrays, and records whose fields are numbers, strings (or arrays "
                f"of those)")
    elif isinstance(a, np.generic):
        hint = (f"NumPy scalars of dtype {_dtype_name(a.dtype)} cannot be passed: kernels take bool, integer, float, "
                f"complex, ml_dtypes' bfloat16 and float8 (e4m3fn, e5m2, e8m0fnu) and datetime64/timedelta64 (one "
                f"unit) scalars")
    elif isinstance(a, (str, bytes)):
        hint = "strings cannot be passed to kernels"
    elif a is None:
        hint = "None cannot be passed to a kernel"
    elif type(a).__name__ == "ObjectDeviceArray":
        hint = (f"it is cuda.to_device() of a {a._what}, an array of Python objects, which kernels cannot take: pass "
                f"a device array of numbers")
    elif isinstance(a, (list, range)) or hasattr(a, "__array__"):
        hint = "pass np.asarray(x) (copied to the device and back) or cuda.to_device(np.asarray(x))"
    else:
        hint = "pass a device array, a NumPy array, a __cuda_array_interface__ object, a scalar or a tuple of these"
    return TypeError(f"{where.describe()} is a {kind}: {hint}")


def kernel_view(a):
    """What a kernel sees of argument ``a``: cuda.random's states as uint64[:, 2], anything else as it is."""
    if isinstance(a, DeviceNDArray) and a.dtype == xoroshiro128p_dtype:
        return as_kernel_states(a)
    return a


class _HostCopies:
    """The NumPy arrays of one launch, each with its own device array: copied in through one pinned staging
    block without waiting (the launch follows on the same stream), and back after the launch with one wait for
    all of them (``_core.copy_htod_batch``/``copy_dtoh_batch``), instead of a synchronous copy per array. (The
    dispatcher's C++ path, src/host_args.cpp, takes plain arrays of a launched kernel itself, in one device block.)"""

    def __init__(self, stream):
        self.stream = stream   # the launch's stream handle
        self.device = -1
        self.ins = []          # (device address, host array or address, bytes)
        self.keep = []         # contiguous copies of strided host arrays, alive until copied in
        self.outs = []         # (device array, its range, host array, contiguous array the bytes land in)

    def add(self, host, copy_in, copy_out):
        """The device array for ``host``: its layout when contiguous (Numba keeps it), else C order. A broadcast array
        (a stride of 0 along an axis of more than one element: ``np.broadcast_to``) is copied at its true size, the
        elements it holds, and the kernel sees it through the same zero strides: 4 bytes broadcast to 2**33 elements
        were expanded to 32 GiB before the launch (issue 37). Written back, it lands in the elements it holds."""
        if host.size > 1 and any(s == 0 and n > 1 for s, n in zip(host.strides, host.shape)):
            held = host[tuple(slice(0, 1) if s == 0 and n > 1 else slice(None)
                              for s, n in zip(host.strides, host.shape))]
            dev = self.add(held, copy_in, copy_out)
            strides = tuple(0 if s == 0 and n > 1 else d for s, n, d in zip(host.strides, host.shape, dev.strides))
            view = DeviceNDArray._view_of(dev._ptr, host.shape, strides, dev.dtype, dev, dev._backend,
                                          stream=dev.stream, device=dev._device)
            view._readonly = dev._readonly
            return view
        flags = host.flags
        c_order = flags.c_contiguous
        f_order = not c_order and flags.f_contiguous
        src = host if c_order or f_order else np.ascontiguousarray(host)
        dev = device_array(src.shape, src.dtype, order="F" if f_order else "C", stream=self.stream)
        span = _range(dev, src)
        if copy_in:
            if src is not host:
                self.keep.append(src)
            self.ins.append(span)
        self.device = dev._device
        # A non-writeable array stays read-only in the kernel (Numba types it readonly): nothing to copy back.
        if not flags.writeable:
            dev._readonly = True
        elif copy_out:
            # a contiguous host array has dev's bytes in dev's order: the copy lands in it directly
            if src is host:
                self.outs.append((dev, span, host, host))
            else:
                landing = np.empty(dev.shape, dev.dtype)   # C order, as src (a C-contiguous copy of host)
                self.outs.append((dev, _range(dev, landing), host, landing))
        return dev

    def copy_in(self):
        if self.ins:
            _core.copy_htod_batch(self.ins, self.stream, self.device)
        self.ins = self.keep = []

    def copy_back(self):
        _core.copy_dtoh_batch([span for _, span, _, _ in self.outs], self.stream, self.device)
        for _, _, host, landing in self.outs:
            if landing is not host:
                np.copyto(host, landing)


def _range(dev, host):
    """(device address, host, bytes) of a compact device array and a contiguous host array of the same layout; the
    host as its array (the core reads its address through the buffer protocol) unless its dtype cannot be exported
    so (datetime64/timedelta64 and records holding them)."""
    lo, hi = dev._extent()
    if not lo and host.dtype in _KERNEL_DTYPES:
        return dev._ptr, host, hi
    return dev._ptr + lo, _host_addr(host) + lo, hi - lo


def _convert_all(args, writebacks, where, copies, hosts):
    """Converts each argument; a tuple argument is converted element by element (Numba does the same).

    ``copies`` maps id(NumPy array) to its device copy: the same array object passed twice (``k(a, a)``) is one
    device array, copied in once and back once, so the kernel sees one array as it would on the host. Only
    identical objects: distinct views of one buffer get a copy each (as in Numba), and the last copy back wins."""
    out = []
    for i, a in enumerate(args):
        if type(a) is np.ndarray:                 # the common host array (no subclass: no CUDA array interface)
            out.append(_host_argument(a, None, where, i, copies, hosts))
            continue
        if isinstance(a, DeviceNDArray):
            a = kernel_view(a)
            if not _launchable_dtype(a.dtype):
                raise _refuse(a, where.element(i))
            out.append(a)
            continue
        at = where.element(i)
        if isinstance(a, tuple):                  # a namedtuple stays one: the kernel's type names its fields
            parts = _convert_all(a, writebacks, at, copies, hosts)
            out.append(type(a)._make(parts) if hasattr(type(a), "_make") else parts)
            continue
        if isinstance(a, np.void) and _launchable_dtype(a.dtype):
            at.refuse_host_copy("a NumPy record")
            out.append(_record_argument(a, writebacks))
            continue
        if isinstance(a, (np.datetime64, np.timedelta64)) and _launchable_dtype(a.dtype):
            out.append(_time_scalar(a))
            continue
        if isinstance(a, np.generic) and a.dtype.itemsize == 1 and a.dtype.kind in "Vf" and _launchable_dtype(a.dtype):
            out.append(_fp8_scalar(a))
            continue
        if isinstance(a, np.generic) and a.dtype.kind == "V" and a.dtype.names is None and _launchable_dtype(a.dtype):
            out.append(_bfloat16_scalar(a))
            continue
        if isinstance(a, enum.Enum) and not isinstance(a, int):
            out.append(_enum_scalar(a, at))
            continue
        if isinstance(a, enum.IntEnum):
            out.append(_int_enum_member(a, at))
            continue
        if isinstance(a, int) and type(a) not in (int, bool) and not hasattr(a, "_cudajit_typeof"):
            out.append(int(a))                # an IntEnum member (or another int subclass) is its int, as in Numba
            continue
        if isinstance(a, _PY_SCALARS) or (isinstance(a, np.generic) and a.dtype.kind not in "SU"
                                          and _launchable_dtype(a.dtype)):
            out.append(a)
            continue
        direction = None
        if isinstance(a, _Direction):
            direction, a = a, a.ary
            if isinstance(a, (str, bytes)) or a is None:
                raise _refuse(a, at)
        if direction is None:
            # Under a capture the producer's stream is not waited for: that wait cannot be captured, and when it is
            # the captured stream itself (CuPy's current stream during its capture) the launch is ordered anyway.
            from .interop import foreign_array
            view = foreign_array(a, sync=not where.capture)
            if view is not None:
                out.append(view)
                continue
        if isinstance(a, np.ndarray) or direction is not None:
            out.append(_host_argument(a, direction, where, i, copies, hosts))
            continue
        raise _refuse(a, at)
    return tuple(out)


def _host_argument(a, direction, where, i, copies, hosts):
    """The device array of host array ``a``, argument ``i`` under ``where`` (the same device array for the same
    object passed twice without a direction)."""
    if direction is None and id(a) in copies:
        return copies[id(a)]
    host = a if type(a) is np.ndarray else np.asarray(a)
    if not _launchable_dtype(host.dtype):
        raise _refuse(host, where.element(i))
    if where.capture:
        where.element(i).refuse_host_copy("a NumPy array")
    dev = hosts.add(host, direction.copy_in if direction else True, direction.copy_out if direction else True)
    if direction is None:                  # a copy the user did not ask for (cuda.In/Out/InOut ask)
        perfwarnings.implicit_copy()
        copies[id(a)] = dev
    return dev
