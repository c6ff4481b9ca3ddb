"""``numba.cuda.cudadrv``'s import paths, for programs that name its classes there
(``isinstance(x, numba.cuda.cudadrv.devicearray.DeviceNDArray)``, ``except numba.cuda.cudadrv.driver.CudaAPIError``).

Each module holds cudajit's own objects under numba-cuda's names, and only those that have a counterpart here:
numba-cuda's ctypes driver object and its other internals are left out.
"""
import importlib as _importlib

_SUBMODULES = ("devicearray", "devices", "driver", "error", "linkable_code", "runtime")


def __getattr__(name):
    # each module on first use (cudajit.cuda imports devicearray, whose helpers numba's cuda.devicearray has)
    if name in _SUBMODULES:
        return _importlib.import_module("." + name, __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_SUBMODULES))
