// cuda.reduce's pass 1 (python/cudajit/cuda/reduction.py) asks the copy engine to bring a thread block's future
// chunks into L2 ahead of its loads: numba-cuda's fold order leaves only 64 blocks reading, too few loads in flight
// to fill HBM otherwise. Numba's foreign-function ABI; GPU (sm_90+) only: a no-op elsewhere. The range is clamped
// inward to 16-byte boundaries inside [lo, hi), as the bulk prefetch requires.
extern "C" __device__ int cj_reduce_prefetch_l2(int32_t* ret, uint64_t addr, int64_t nbytes, uint64_t lo, uint64_t hi) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    uint64_t start = (addr < lo ? lo : addr) + 15 & ~uint64_t(15);
    uint64_t end = addr + uint64_t(nbytes);
    end = (end > hi ? hi : end) & ~uint64_t(15);
    if (end > start)
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" :: "l"(start), "r"(unsigned(end - start)) : "memory");
#endif
    *ret = 0;
    return 0;
}
