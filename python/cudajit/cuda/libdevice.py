"""``numba.cuda.libdevice`` as a module: ``from cudajit.cuda.libdevice import sinf, popc``: numba-cuda's 317
functions, kernel-only placeholders of their registry entries (compiler/libdevice.py); any other name raises
AttributeError."""
from . import kernelapi as _api

_names = {name: v for name, v in vars(_api.libdevice).items() if isinstance(v, _api.Intrinsic)}
globals().update(_names)
__all__ = sorted(_names)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError(f"cudajit.cuda.libdevice has no function {name!r}: it has numba-cuda's libdevice functions "
                         f"(help(cudajit.cuda.libdevice) lists them); a CUDA function that is not among them can be "
                         f"called as a foreign function (cuda.declare_device)")
