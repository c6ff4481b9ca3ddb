// cudajit: cuda.random's generators in kernels (owned by the compiler): xoroshiro128+ steps and Numba's conversions
// to uniform and normal floats, bit for bit. A state is two uint64 words (the host fills them: src/random.cpp).
#pragma once
#include "config.h"
#include "mathfuncs.h"

namespace cj {

CJ_INLINE uint64_t xoro_rotl(uint64_t x, unsigned k) { return (x << k) | (x >> (64 - k)); }

// The next 64 random bits; advances the state s[0], s[1].
CJ_INLINE uint64_t xoroshiro128p_next(uint64_t* s) {
    uint64_t s0 = s[0], s1 = s[1];
    uint64_t result = s0 + s1;
    s1 ^= s0;
    s[0] = xoro_rotl(s0, 55) ^ s1 ^ (s1 << 14);
    s[1] = xoro_rotl(s1, 36);
    return result;
}

// Advances the state by 2**64 steps: the sum, over the jump polynomial's set bits, of the states passed on the way.
CJ_INLINE void xoroshiro128p_jump(uint64_t* s) {
    const uint64_t jump[2] = {0xBEAC0467EBA5FACBull, 0xD86B048B86AA9922ull};
    uint64_t s0 = 0, s1 = 0;
    for (int w = 0; w < 2; ++w)
        for (unsigned b = 0; b < 64; ++b) {
            if (jump[w] & (uint64_t(1) << b)) {
                s0 ^= s[0];
                s1 ^= s[1];
            }
            xoroshiro128p_next(s);
        }
    s[0] = s0;
    s[1] = s1;
}

// [0, 1): the top 53 bits scaled, as Numba's uint64_to_unit_float64; the float32 one rounds that.
CJ_INLINE double xoro_unit_double(uint64_t x) { return double(x >> 11) * (1.0 / double(uint64_t(1) << 53)); }
CJ_INLINE float xoroshiro128p_uniform_float32(uint64_t* s) { return float(xoro_unit_double(xoroshiro128p_next(s))); }
CJ_INLINE double xoroshiro128p_uniform_float64(uint64_t* s) { return xoro_unit_double(xoroshiro128p_next(s)); }

// Box-Muller from two float32 uniforms (Numba uses float32 uniforms for both precisions); the second value is
// discarded, so each normal advances the state by two steps.
CJ_INLINE float xoroshiro128p_normal_float32(uint64_t* s) {
    float u1 = xoroshiro128p_uniform_float32(s);
    float u2 = xoroshiro128p_uniform_float32(s);
    return m::sqrt(-2.0f * m::log(u1)) * m::cos(6.28318530717958647692f * u2);
}
CJ_INLINE double xoroshiro128p_normal_float64(uint64_t* s) {
    float u1 = xoroshiro128p_uniform_float32(s);
    float u2 = xoroshiro128p_uniform_float32(s);
    return m::sqrt(-2.0 * double(m::log(u1))) * m::cos(6.28318530717958647692 * double(u2));
}

}  // namespace cj
