"""``numba.cuda.cudadrv.devices``: the device list and the context helpers."""
from .. import require_context  # noqa: F401
from ..devices import Context, current_context, get_context, gpus  # noqa: F401
from ..devices import close as reset  # noqa: F401  (numba-cuda: release every context)
