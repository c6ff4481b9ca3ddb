"""``numba.cuda.cudadrv.linkable_code``: the classes of code that ``cuda.jit(link=...)`` links."""
from ..ffi import LTOIR, Archive, Cubin, CUSource, Fatbin, LinkableCode, Object, PTXSource  # noqa: F401
