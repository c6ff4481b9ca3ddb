"""``numba.cuda.fp16`` as a module: ``from cudajit.cuda.fp16 import hadd, hexp10``. Each name is the kernel-only
placeholder of its registry entry (compiler/intrinsics.py), the same object as ``cuda.fp16.<name>``."""
from . import kernelapi as _api

_names = {name: v for name, v in vars(_api.fp16).items() if isinstance(v, _api.Intrinsic)}
globals().update(_names)
__all__ = sorted(_names)
