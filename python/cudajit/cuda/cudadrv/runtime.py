"""``numba.cuda.cudadrv.runtime``: the toolkit version kernels compile with (``cuda.runtime``)."""
from .. import Runtime, runtime  # noqa: F401

get_version = runtime.get_version
