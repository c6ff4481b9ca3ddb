"""``numba.cuda.libdevice`` as a module: ``from cudajit.cuda.libdevice import sinf, popc``. The functions that
have an equivalent in cudajit's math are kernel-only placeholders of their registry entries (compiler/libdevice.py);
any other libdevice name raises AttributeError saying that cudajit does not provide it."""
from . import kernelapi as _api

_names = {name: v for name, v in vars(_api.libdevice).items() if isinstance(v, _api.Intrinsic)}
globals().update(_names)
__all__ = sorted(_names)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError(f"cudajit.cuda.libdevice has no function {name!r}: cudajit provides libdevice's functions "
                         f"that its math has (sin/sinf, pow/powf, popc, fma ...), not this one; use the math module "
                         f"or cuda.* equivalent, or a foreign function (cuda.declare_device)")
