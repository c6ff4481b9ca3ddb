"""``numba.cuda._internal.cuda_bf16``: numba-cuda's bindings of CUDA's cuda_bf16.h under CUDA's names
(``nv_bfloat16``, ``__hadd``, ``__float2bfloat16_rn``, ``htrunc`` ...). Each is the same object as its numba.cuda.bf16
name (compiler/bf16lib.py's ``CUDA_NAMES``); ``nv_bfloat16`` and ``__nv_bfloat16`` are the bfloat16 type."""
from ...compiler.bf16lib import CUDA_NAMES as _CUDA_NAMES
from ...compiler.types import bfloat16 as nv_bfloat16
from .. import bf16 as _bf16

__nv_bfloat16 = nv_bfloat16
globals().update({cuda: getattr(_bf16, name) for cuda, name in _CUDA_NAMES.items()})
__all__ = ["nv_bfloat16", "__nv_bfloat16"] + sorted(_CUDA_NAMES)
