// cuda.random's host side: xoroshiro128+ generator states, seeded with SplitMix64 and spaced 2**64 steps apart by
// the generator's jump polynomial, exactly as Numba's init_xoroshiro128p_states computes them (so a seed gives the
// same random streams as in Numba). The kernels' side is kernels/cudajit/random.h.
#include <pybind11/pybind11.h>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "bindings.h"
#include "gil.h"

namespace py = pybind11;

namespace cj {
namespace {

struct State {
    uint64_t s0, s1;
};

uint64_t rotl(uint64_t x, unsigned k) { return (x << k) | (x >> (64 - k)); }

void next(State& s) {
    uint64_t s1 = s.s1 ^ s.s0;
    s.s0 = rotl(s.s0, 55) ^ s1 ^ (s1 << 14);
    s.s1 = rotl(s1, 36);
}

// Advance by 2**64 steps: the xor of the states at the jump polynomial's set bits.
void jump(State& s) {
    static const uint64_t kJump[2] = {0xbeac0467eba5facbULL, 0xd86b048b86aa9922ULL};
    State acc{0, 0};
    for (uint64_t word : kJump) {
        for (unsigned b = 0; b < 64; ++b) {
            if (word & (uint64_t{1} << b)) {
                acc.s0 ^= s.s0;
                acc.s1 ^= s.s1;
            }
            next(s);
        }
    }
    s = acc;
}

// `count` jumps, as `count` calls of jump() give them. The state update is linear over GF(2), so from 256 jumps on
// the jump's 128x128 bit matrix is raised to the power by squaring (64 squarings at most): a subsequence_start near
// 2**64 took 2**64 jumps, a hang the GIL-free loop could not even be interrupted in.
using Matrix = std::array<State, 128>;  // column j: the image of the state whose only set bit is j (s0's bits first)

State times(const Matrix& m, State s) {
    State r{0, 0};
    for (unsigned j = 0; j < 128; ++j) {
        uint64_t word = j < 64 ? s.s0 : s.s1;
        if (word >> (j % 64) & 1) {
            r.s0 ^= m[j].s0;
            r.s1 ^= m[j].s1;
        }
    }
    return r;
}

void jump_times(State& s, uint64_t count) {
    if (count < 256) {
        for (uint64_t k = 0; k < count; ++k) jump(s);
        return;
    }
    Matrix power;                                   // the jump itself
    for (unsigned j = 0; j < 128; ++j) {
        power[j] = j < 64 ? State{uint64_t{1} << j, 0} : State{0, uint64_t{1} << (j - 64)};
        jump(power[j]);
    }
    for (; count; count >>= 1) {
        if (count & 1) s = times(power, s);
        if (count > 1) {
            Matrix squared;
            for (unsigned j = 0; j < 128; ++j) squared[j] = times(power, power[j]);
            power = squared;
        }
    }
}

State splitmix(uint64_t seed) {
    uint64_t z = seed + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z = z ^ (z >> 31);
    return State{z, z};  // Numba seeds both words with the same value
}

State* states_of(py::buffer_info& info) {
    if (info.itemsize != 16 || info.ndim != 1 || (info.strides[0] != 16))
        throw py::type_error("xoroshiro128p states must be a contiguous 1-d array of xoroshiro128p_dtype");
    return static_cast<State*>(info.ptr);
}

void init_states(py::buffer states, uint64_t seed, uint64_t subsequence_start) {
    py::buffer_info info = states.request(true);
    auto* out = states_of(info);
    py::ssize_t n = info.shape[0];
    if (n == 0) return;
    NoGil nogil;
    State s = splitmix(seed);
    jump_times(s, subsequence_start);
    out[0] = s;
    for (py::ssize_t i = 1; i < n; ++i) {
        jump(s);
        out[i] = s;
    }
}

// Numba's host xoroshiro128p_jump: generator `index` (negative counts from the end) advances 2**64 steps.
void jump_state(py::buffer states, py::ssize_t index) {
    py::buffer_info info = states.request(true);
    auto* s = states_of(info);
    py::ssize_t n = info.shape[0];
    if (index < -n || index >= n)
        throw py::index_error("xoroshiro128p_jump: index " + std::to_string(index) + " is out of bounds for " +
                              std::to_string(n) + " states");
    jump(s[index < 0 ? index + n : index]);
}

}  // namespace

void bind_random(py::module_& m) {
    m.def("xoroshiro128p_init", &init_states, py::arg("states"), py::arg("seed"), py::arg("subsequence_start") = 0,
          "Fill a host array of xoroshiro128p_dtype with Numba's generator states for `seed`.");
    m.def("xoroshiro128p_jump", &jump_state, py::arg("states"), py::arg("index"),
          "Advance generator `index` of a host array of xoroshiro128p_dtype by 2**64 steps.");
}

}  // namespace cj
