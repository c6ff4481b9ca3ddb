// Every entry point cudajit loads (src/cuda_api.h), weak, returning CUDA_SUCCESS; null_libcuda.cpp overrides those
// whose results matter.
#include "../../src/cuda_api.h"
#define DEF(name, symbol, params) extern "C" __attribute__((weak)) CUresult symbol params { return CUDA_SUCCESS; }
CJ_DRIVER_API(DEF)
extern "C" __attribute__((weak)) CUresult cuGetProcAddress_v2(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*) { return CUDA_ERROR_NOT_FOUND; }
