"""``numba.cuda.cudadrv.devicearray``: the device array classes and numba-cuda's helper functions of this module
(``auto_device``, ``is_cuda_ndarray``, ``sentry_contiguous`` ...; cuda/array_helpers.py), which libraries written for
Numba call."""
from ..array_helpers import (DeviceNDArrayBase, array_core, auto_device, check_array_compatibility,  # noqa: F401
                             from_array_like, from_record_like, is_contiguous, is_cuda_ndarray, require_cuda_ndarray,
                             sentry_contiguous, verify_cuda_ndarray_interface)
from ..arrays import ManagedNDArray, MappedNDArray  # noqa: F401
from ..devicearray import DeviceNDArray, DeviceRecord  # noqa: F401  (numba-cuda names it here)
from ..ipc import IpcArrayHandle  # noqa: F401
