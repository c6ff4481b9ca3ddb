"""``numba.cuda.cudadrv.driver``: the driver-level classes, as cudajit has them (its driver is C++, so numba-cuda's
``driver`` object of ctypes entry points has no counterpart)."""
from ...errors import CudaAPIError  # noqa: F401
from ..devices import Context, Device, MemoryInfo  # noqa: F401
from ..emm import (BaseCUDAMemoryManager, GetIpcHandleMixin, HostOnlyCUDAMemoryManager,  # noqa: F401
                   MappedMemory, MemoryPointer, PinnedMemory, set_memory_manager)
from ..streams import Event, Stream, event_elapsed_time  # noqa: F401


def _have_nvjitlink():
    """numba-cuda's test of whether LTO-IR can be linked: a bool (nvJitLink loads)."""
    from ..nvjitlink import available
    return available()[0]
