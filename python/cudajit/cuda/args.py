"""Kernel arguments that need Python before a launch: NumPy arrays (copied to the device and
back, as Numba does), ``cuda.In/Out/InOut`` wrappers, and foreign ``__cuda_array_interface__``
arrays (CuPy, PyTorch: viewed without a copy). The C++ dispatcher calls ``prepare_args`` only
when a call has such an argument.
"""
import numpy as np

from .. import _core
from .devicearray import DeviceNDArray
from .random import as_kernel_states, xoroshiro128p_dtype


class _Direction:
    """Wraps a host array to say which way it is copied around a launch."""

    copy_in = copy_out = True

    def __init__(self, ary):
        self.ary = ary


class In(_Direction):
    """Copy to the device before the launch only (Numba's ``cuda.In``)."""
    copy_out = False


class Out(_Direction):
    """Copy back to the host after the launch only (Numba's ``cuda.Out``)."""
    copy_in = False


class InOut(_Direction):
    """Copy both ways (what a plain NumPy argument gets)."""


def _register_scalar_types():
    for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
              np.float16, np.float32, np.float64, np.complex64, np.complex128):
        _core.register_scalar_type(t, np.dtype(t).str)


_register_scalar_types()


def prepare_args(args):
    """Returns (converted args, write-back callable or None)."""
    writebacks = []
    out = _convert_all(args, writebacks)
    if not writebacks:
        return out, None

    def write_back():
        for dev, host in writebacks:
            dev.copy_to_host(host)
    return out, write_back


def _convert_all(args, writebacks):
    """Converts each argument; a tuple argument is converted element by element (Numba does the same)."""
    from .arrays import device_array
    from .interop import as_cuda_array
    out = []
    for a in args:
        if isinstance(a, DeviceNDArray):
            if a.dtype == xoroshiro128p_dtype:            # cuda.random states: uint64[:, 2] in kernels
                a = as_kernel_states(a)
            out.append(a)
            continue
        if isinstance(a, tuple):                  # a namedtuple is passed as a plain tuple
            out.append(_convert_all(a, writebacks))
            continue
        direction = None
        if isinstance(a, _Direction):
            direction, a = a, a.ary
        if hasattr(a, "__cuda_array_interface__") and direction is None:
            out.append(as_cuda_array(a))
            continue
        if isinstance(a, np.ndarray) or direction is not None:
            host = np.asarray(a)
            copy_in = direction.copy_in if direction else True
            copy_out = direction.copy_out if direction else True
            if copy_in:
                from .arrays import to_device
                dev = to_device(host)
            else:
                dev = device_array(host.shape, host.dtype, order="F" if _f_only(host) else "C")
            # A non-writeable array stays read-only in the kernel (Numba types it readonly): nothing to copy back.
            dev._readonly = not host.flags.writeable
            out.append(dev)
            if copy_out and not dev._readonly:
                writebacks.append((dev, host))
            continue
        out.append(a)
    return tuple(out)


def _f_only(a):
    return a.flags["F_CONTIGUOUS"] and not a.flags["C_CONTIGUOUS"]
