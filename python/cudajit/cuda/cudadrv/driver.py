"""``numba.cuda.cudadrv.driver``: the driver-level classes, as cudajit has them (its driver is C++, so numba-cuda's
``driver`` object of ctypes entry points has no counterpart)."""
from ...errors import CudaAPIError  # noqa: F401
from ..devices import Context, Device, MemoryInfo  # noqa: F401
from ..emm import (BaseCUDAMemoryManager, GetIpcHandleMixin, HostOnlyCUDAMemoryManager,  # noqa: F401
                   MappedMemory, MemoryPointer, PinnedMemory, set_memory_manager)
from ..nvjitlink import available as _have_nvjitlink  # noqa: F401  (numba-cuda's name for "can link LTO-IR")
from ..streams import Event, Stream, event_elapsed_time  # noqa: F401
