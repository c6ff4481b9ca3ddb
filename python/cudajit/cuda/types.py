"""``cudajit.cuda.types``: Numba's type objects (``float32``, ``int32[:, ::1]``, ``void(...)``)."""
from ..compiler.types import *  # noqa: F401,F403
