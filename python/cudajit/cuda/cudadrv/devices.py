"""``numba.cuda.cudadrv.devices``: the device list and the context helpers."""
from .. import require_context  # noqa: F401
from ..devices import Context, current_context, gpus
from ..devices import close as reset  # noqa: F401  (numba-cuda: release every context)


def get_context(devnum=None):
    """The context of device ``devnum``, or of the current device when None."""
    return current_context() if devnum is None else Context(gpus[devnum])
