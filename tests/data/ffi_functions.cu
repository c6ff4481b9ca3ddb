// Foreign device functions in Numba's ABI for tests/test_ffi.py: status 0, the result through the first pointer.
extern "C" __device__ int mul_f32_f32(float* return_value, float x, float y) {
    *return_value = x * y;
    return 0;
}

extern "C" __device__ int clamp_i64(long long* return_value, long long x, long long lo, long long hi) {
    *return_value = x < lo ? lo : (x > hi ? hi : x);
    return 0;
}
