// A second linked file: a function that calls into the first one's style of helper, with a __forceinline__ helper.
__device__ __forceinline__ double square(double v) { return v * v; }

extern "C" __device__ int hypot2(double* return_value, double x, double y) {
    *return_value = square(x) + square(y);
    return 0;
}
