"""cudajit: numba.cuda's programming model, compiled to CUDA C++ with NVRTC, with a CPU backend.

A Numba program changes one line, ``from numba import cuda`` → ``from cudajit import cuda``.
Importing touches no GPU; the backend (``gpu`` or ``cpu``) is chosen at first use.
"""
from . import errors
from ._backend import name as backend

__version__ = "0.1.0"


def __getattr__(name):
    # Numba's type objects (``from cudajit import float32, void``) come from the compiler on
    # first access, which keeps ``import cudajit`` cheap.
    from .compiler import types as _types
    if name == "types":                               # numba.types: Numba's type objects, CPointer among them
        return _types
    if hasattr(_types, name) and not name.startswith("_"):
        return getattr(_types, name)
    if name in ("carray", "farray"):                  # numba.carray: the kernel-side cuda.carray
        from .cuda import kernelapi
        return getattr(kernelapi, name)
    if name in ("vectorize", "guvectorize"):          # numba.vectorize(..., target="cuda") and friends
        from .cuda import vectorizers
        return getattr(vectorizers, name)
    if name in ("jit", "njit", "prange"):               # numba.jit / njit: device functions (hostjit.py)
        from . import hostjit
        return getattr(hostjit, name)
    if name == "literal_unroll":                       # numba.literal_unroll
        from .compiler.pyvalues import literal_unroll
        return literal_unroll
    if name in ("cuda", "cache", "config"):
        import importlib
        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module 'cudajit' has no attribute {name!r}")
