"""``numba.cuda.api``: numba-cuda's module of the host API (``from numba.cuda.api import is_fp8_supported``). Its
names are ``cudajit.cuda``'s own objects."""
from . import (as_cuda_array, close, current_context, default_stream, defer_cleanup, detect, device_array,
               device_array_like, event, event_elapsed_time, external_stream, from_cuda_array_interface,
               get_current_device, gpus, is_bfloat16_supported, is_cuda_array, is_float16_supported, is_fp8_supported,
               legacy_default_stream, list_devices, managed_array, mapped, mapped_array, mapped_array_like,
               open_ipc_array, per_thread_default_stream, pinned, pinned_array, pinned_array_like, profile_start,
               profile_stop, profiling, require_context, select_device, stream, synchronize, to_device)

__all__ = [name for name in dir() if not name.startswith("_")]
