"""cudajit: numba.cuda's programming model, compiled to CUDA C++ with NVRTC, with a CPU backend.

A Numba program changes one line, ``from numba import cuda`` → ``from cudajit import cuda``.
Importing touches no GPU; the backend (``gpu`` or ``cpu``) is chosen at first use.
"""
from . import errors
from ._backend import name as backend


# What ``from numba import *`` gives that cudajit has: numba.core.types' names (``bool`` aside: it would shadow
# Python's), Numba's decorators, and its error classes. Computed on first use (__getattr__), which keeps
# ``import cudajit`` cheap.
_STAR_TYPES = """int8 int16 int32 int64 uint8 uint16 uint32 uint64 intp uintp intc uintc ssize_t size_t boolean float32
    float64 complex64 complex128 bool_ byte char uchar short ushort int_ uint long_ ulong longlong ulonglong double
    void none b1 i1 i2 i4 i8
    u1 u2 u4 u8 f4 f8 c8 c16 float16 f2 bfloat16 grid_group GridGroup""".split()
_STAR_OTHERS = ["jit", "njit", "vectorize", "guvectorize", "prange", "literal_unroll", "from_dtype", "TypingError",
                "UnsupportedError", "LiteralTypingError", "NumbaTypeError", "NumbaValueError",
                "NumbaNotImplementedError", "DeprecationError", "NumbaWarning", "NumbaPerformanceWarning",
                "NumbaDeprecationWarning"]


def _star_names():
    import sys
    module = sys.modules[__name__]
    return [n for n in _STAR_TYPES + _STAR_OTHERS if _has(module, n)]


def _has(module, name):
    try:
        getattr(module, name)
        return True
    except AttributeError:
        return False


# Loaded on first use by __getattr__; listed by dir() (tab completion) with the eagerly imported names.
_LAZY = ["__version__", "cuda", "cache", "config", "types", "carray", "farray"]


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | set(_star_names()))


def __getattr__(name):
    if name == "__version__":
        from ._version import version
        globals()["__version__"] = v = version()
        return v
    if name == "__all__":                             # from cudajit import *
        return _star_names()
    if name in _STAR_OTHERS and hasattr(errors, name):
        return getattr(errors, name)
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
