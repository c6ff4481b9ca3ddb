"""``numba.cuda.bf16`` as a module: ``from cudajit.cuda.bf16 import bfloat16, hadd, float32_to_bfloat16_rn``.
``bfloat16`` is the type (``cudajit.types.bfloat16``: ``bfloat16(x)`` in a kernel converts, ``bfloat16[:]`` is an
array type); every other name is the kernel-only placeholder of its registry entry (compiler/bf16lib.py), the same
object as ``cuda.bf16.<name>``. math.trunc/ceil/floor/sqrt/log/log10/cos/sin/tanh/exp/exp2 of a bfloat16 return a
bfloat16, as numba-cuda overloads them."""
from ..compiler.types import bfloat16
from . import kernelapi as _api

_names = {name: v for name, v in vars(_api.bf16).items() if isinstance(v, _api.Intrinsic)}
globals().update(_names)
__all__ = ["bfloat16"] + sorted(_names)
