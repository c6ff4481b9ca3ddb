"""Raw kernels: CUDA C++ source compiled by NVRTC and launched with Numba's syntax,
``kernel[griddim, blockdim, stream, sharedmem](*args)``. Device arrays and any
``__cuda_array_interface__`` object pass as data pointers; Python and NumPy scalars by value
(Python int as ``long long``, float as ``double``, bool as ``bool``, complex as two doubles).

This is the layer the compiler's output runs through too, with typed array structs in place of
raw pointers.
"""
import functools

import numpy as np

from .. import _backend, _core
from ..errors import CudaSupportError
from .args import prepare_args
from .devicearray import DeviceNDArray

_PY_SCALARS = {bool: "|b1", int: "<i8", float: "<f8", complex: "<c16"}


class RawModule:
    """A CUDA C++ translation unit compiled with NVRTC (cached on disk and per process)."""

    def __init__(self, code, options=(), name="raw_module.cu"):
        if not isinstance(code, str):
            raise TypeError(f"RawModule: code must be CUDA C++ source as a str, not {type(code).__name__}")
        if isinstance(options, str) or not isinstance(options, (list, tuple)) \
                or not all(isinstance(o, str) for o in options):
            raise TypeError(f"RawModule: options must be a sequence of str flags, not {options!r:.60}")
        if not isinstance(name, str):
            raise TypeError(f"RawModule: name must be a str, not {type(name).__name__}")
        self.code, self.options, self.name = code, tuple(options), name
        self._modules = {}   # device -> GpuModule: a module is loaded in one device's context

    def _flags(self):
        return ["-std=c++17"] + list(self.options)

    def compile(self, arch=None, cubin=True):
        """The cubin (or PTX) image for ``arch`` (default: the current device). Needs no GPU when
        ``arch`` is given: CI compiles for sm_90 this way."""
        if arch is None:
            _backend.require_gpu("compiling a raw kernel for the current device")
            arch = _backend.GPU.arch()
        return _core.nvrtc_compile(self.code, self.name, self._flags(), int(arch), bool(cubin))

    def module(self):
        """The module compiled for the current GPU (compiled on first use per device; GPU backend only)."""
        _backend.require_gpu("launching a raw CUDA C++ kernel")
        device = _core.current_device()
        if device not in self._modules:
            self._modules[device] = _core.GpuModule(self.compile())
        return self._modules[device]

    def get_function(self, name):
        """The kernel ``name`` of this module as a RawKernel (an ``extern "C" __global__`` function)."""
        return RawKernel(self, name)


class RawKernel:
    """One ``extern "C" __global__`` function of a RawModule (or of ``code`` given directly)."""

    def __init__(self, code, name, options=()):
        self.raw_module = code if isinstance(code, RawModule) else RawModule(code, options)
        if not isinstance(name, str):
            raise TypeError(f"RawKernel: name must be the kernel's extern \"C\" name as a str, not {type(name).__name__}")
        self.name = name
        self._core = _core.Dispatcher(self._kernel_for, functools.partial(prepare_args, kernel=name))

    def _kernel_for(self, args):
        if not _backend.current().is_gpu:
            raise CudaSupportError("raw CUDA C++ kernels run on the GPU backend only; the CPU backend is in use")
        params = [_param_of(a, i) for i, a in enumerate(args)]
        return _core.Kernel(self.name, params, self.raw_module.module(), None)

    def __getitem__(self, config):
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise ValueError("a launch configuration is kernel[griddim, blockdim] or "
                             "kernel[griddim, blockdim, stream, sharedmem]")
        return self._core.configure(*config)

    def __call__(self, *args, **kwargs):
        raise ValueError(f"raw kernel '{self.name}' needs a launch configuration: {self.name}[grid, block](...)")


def _param_of(a, i):
    if isinstance(a, DeviceNDArray):
        return ("pointer", "", 0)
    if type(a) in _PY_SCALARS:
        return ("scalar", _PY_SCALARS[type(a)], 0)
    if isinstance(a, np.generic):
        return ("scalar", a.dtype.str, 0)
    raise TypeError(f"raw kernel argument {i} of type {type(a).__name__} is neither an array nor a scalar")
