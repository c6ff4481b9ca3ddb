"""``numba.cuda.kernels``: ready-made kernels (``transpose``)."""
from . import transpose  # noqa: F401  (numba-cuda's import path: from numba.cuda.kernels.transpose import transpose)
