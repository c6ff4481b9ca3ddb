"""CUDA's fp8 types and conversion functions for kernels, as numba-cuda offers them in
``numba.cuda._internal.cuda_fp8``: ``from cudajit.cuda.fp8 import fp8_e4m3, cvt_float_to_fp8, saturation_t``.

``fp8_e4m3``, ``fp8_e5m2``, ``fp8_e8m0`` are the types (``cudajit.types``'s: ``fp8_e4m3(x)`` in a kernel converts
a number, ``float32(f)`` converts back; ``fp8_e4m3[:]`` is an array type of ml_dtypes' float8_e4m3fn), their pairs
and quads ``fp8x2_*``/``fp8x4_*`` are built from float32/float64 vectors; every other name is the kernel-only
placeholder of its registry entry (compiler/fp8lib.py), the same object as ``cuda.fp8.<name>``. ``saturation_t``,
``fp8_interpretation_t`` and ``cudaRoundMode`` (cuda-python's when it is installed) name the functions' modes."""
from ..compiler.fp8lib import NAMES as _NAMES, fp8_interpretation_t, round_mode_enum, saturation_t
from ..compiler.types import (fp8_e4m3, fp8_e5m2, fp8_e8m0, fp8x2_e4m3, fp8x2_e5m2, fp8x2_e8m0, fp8x4_e4m3,
                              fp8x4_e5m2, fp8x4_e8m0)
from . import kernelapi as _api

_names = {name: getattr(_api.fp8, name) for name in _NAMES}
globals().update(_names)
TYPES = ["fp8_e5m2", "fp8x2_e5m2", "fp8x4_e5m2", "fp8_e4m3", "fp8x2_e4m3", "fp8x4_e4m3", "fp8_e8m0", "fp8x2_e8m0",
         "fp8x4_e8m0"]
__all__ = TYPES + list(_NAMES) + ["saturation_t", "fp8_interpretation_t", "cudaRoundMode"]


def __getattr__(name):
    if name == "cudaRoundMode":     # on first use: importing cuda.bindings takes a fifth of a second
        return round_mode_enum()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
