"""``numba.cuda._internal.cuda_fp8``: numba-cuda's bindings of CUDA's cuda_fp8.h, the same objects as
``cudajit.cuda.fp8``'s: the types (``fp8_e4m3`` ...; ``_type_fp8_e4m3`` ... are numba-cuda's names of the Numba
types, here the same objects), the ``cvt_*`` functions, ``saturation_t``, ``fp8_interpretation_t`` and
``cudaRoundMode``."""
from ..fp8 import *  # noqa: F401,F403
from ..fp8 import TYPES as _TYPES, __all__ as _ALL, cudaRoundMode  # noqa: F401
from .. import fp8 as _fp8

globals().update({f"_type_{name}": getattr(_fp8, name) for name in _TYPES})
__all__ = [f"_type_{name}" for name in _TYPES] + [n for n in _ALL if n != "cudaRoundMode"]
