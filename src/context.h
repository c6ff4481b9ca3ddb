// The current device and its primary context. Driver calls run on whatever OS thread Python
// calls from, and a CUDA context is current per thread, so every entry point that talks to the
// driver calls ensure() first (one cuCtxGetCurrent when already current).
#pragma once
#include "cuda_api.h"

namespace cj::ctx {

// Makes the selected device's primary context current on this thread; returns it.
CUcontext ensure();
// The selected device ordinal (0 unless select() chose another).
int current_device();
CUdevice current_cu_device();
// Selects the device for this process (Numba: cuda.select_device). Retains its primary context.
void select(int ordinal);
// Releases the primary contexts this process retained (Numba: cuda.close()).
void close();

}  // namespace cj::ctx
