"""cuda.random: xoroshiro128+ states seeded and spaced as Numba does, and the kernel functions' numbers, checked
against a Python model of Numba's algorithm (same seed, same streams) on every backend."""
import math

import numpy as np
import pytest

from cudajit import cuda
from cudajit.cuda.random import (create_xoroshiro128p_states, init_xoroshiro128p_states, xoroshiro128p_dtype,
                                 xoroshiro128p_next, xoroshiro128p_normal_float32, xoroshiro128p_normal_float64,
                                 xoroshiro128p_uniform_float32, xoroshiro128p_uniform_float64)

M64 = 2**64 - 1


class Model:
    """Numba's cuda.random generator in plain Python integers."""

    def __init__(self, s0, s1):
        self.s0, self.s1 = int(s0), int(s1)

    @classmethod
    def seeded(cls, seed):
        z = (seed + 0x9E3779B97F4A7C15) & M64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        z ^= z >> 31
        return cls(z, z)

    @staticmethod
    def _rotl(x, k):
        return ((x << k) | (x >> (64 - k))) & M64

    def next(self):
        s0, s1 = self.s0, self.s1
        result = (s0 + s1) & M64
        s1 ^= s0
        self.s0 = self._rotl(s0, 55) ^ s1 ^ ((s1 << 14) & M64)
        self.s1 = self._rotl(s1, 36)
        return result

    def jump(self):
        a0 = a1 = 0
        for word in (0xbeac0467eba5facb, 0xd86b048b86aa9922):
            for b in range(64):
                if word >> b & 1:
                    a0 ^= self.s0
                    a1 ^= self.s1
                self.next()
        self.s0, self.s1 = a0, a1

    def uniform64(self):
        return (self.next() >> 11) * (1.0 / 2**53)

    def uniform32(self):
        return np.float32(self.uniform64())


def _model_states(n, seed, start=0):
    m = Model.seeded(seed)
    for _ in range(start):
        m.jump()
    out = [Model(m.s0, m.s1)]
    for _ in range(1, n):
        m.jump()
        out.append(Model(m.s0, m.s1))
    return out


@cuda.jit
def draw(states, u32, u64, bits):
    i = cuda.grid(1)
    if i < u32.shape[0]:
        for j in range(u32.shape[1]):
            u32[i, j] = xoroshiro128p_uniform_float32(states, i)
            u64[i, j] = xoroshiro128p_uniform_float64(states, i)
            bits[i, j] = xoroshiro128p_next(states, i)


@cuda.jit
def draw_normal(states, n32, n64):
    i = cuda.grid(1)
    if i < n32.shape[0]:
        for j in range(n32.shape[1]):
            n32[i, j] = xoroshiro128p_normal_float32(states, i)
            n64[i, j] = xoroshiro128p_normal_float64(states, i)


def test_states_match_numbas_seeding_and_jumps():
    states = create_xoroshiro128p_states(5, seed=12345, subsequence_start=2)
    assert states.shape == (5,) and states.dtype == xoroshiro128p_dtype
    host = states.copy_to_host()
    for rec, m in zip(host, _model_states(5, 12345, start=2)):
        assert (int(rec["s0"]), int(rec["s1"])) == (m.s0, m.s1)
    again = cuda.device_array(5, dtype=xoroshiro128p_dtype)
    init_xoroshiro128p_states(again, 12345, subsequence_start=2)
    assert (again.copy_to_host() == host).all()


def test_kernel_streams_match_the_model(backend):
    n, draws = 6, 5
    states = create_xoroshiro128p_states(n, seed=7)
    u32 = np.zeros((n, draws), np.float32)
    u64 = np.zeros((n, draws))
    bits = np.zeros((n, draws), np.uint64)
    draw[1, 32](states, u32, u64, bits)
    for i, m in enumerate(_model_states(n, 7)):
        for j in range(draws):
            assert u32[i, j] == m.uniform32()
            assert u64[i, j] == m.uniform64()
            assert int(bits[i, j]) == m.next()
    after = states.copy_to_host()                         # the kernel advanced each generator 3 * draws steps
    for rec, m in zip(after, _model_states(n, 7)):
        for _ in range(3 * draws):
            m.next()
        assert (int(rec["s0"]), int(rec["s1"])) == (m.s0, m.s1)


def test_forall_takes_the_states_as_a_launch_does(backend):
    n, draws = 70, 3                                      # forall sizes the block before any argument is converted
    states = create_xoroshiro128p_states(n, seed=11)
    u32, u64, bits = np.zeros((n, draws), np.float32), np.zeros((n, draws)), np.zeros((n, draws), np.uint64)
    draw.forall(n)(states, u32, u64, bits)
    for i, m in enumerate(_model_states(n, 11)):
        for j in range(draws):
            assert (u32[i, j], u64[i, j], int(bits[i, j])) == (m.uniform32(), m.uniform64(), m.next())


def test_normals_follow_box_muller_on_float32_uniforms(backend):
    n, draws = 256, 64
    states = create_xoroshiro128p_states(n, seed=2024)
    n32 = np.zeros((n, draws), np.float32)
    n64 = np.zeros((n, draws))
    draw_normal[4, 64](states, n32, n64)
    m = _model_states(1, 2024)[0]
    for j in range(3):                                   # generator 0, exactly (up to the math library's last bit)
        u1, u2 = m.uniform32(), m.uniform32()
        assert n32[0, j] == pytest.approx(math.sqrt(-2.0 * math.log(u1)) * math.cos(2 * math.pi * u2), rel=2e-6)
        u1, u2 = m.uniform32(), m.uniform32()
        log_u1 = float(np.float32(math.log(u1)))        # Numba takes math.log of the float32: a float32 log
        assert n64[0, j] == pytest.approx(math.sqrt(-2.0 * log_u1) * math.cos(2 * math.pi * float(u2)),
                                          rel=1e-7, abs=1e-7)
    for x in (n32.astype(np.float64), n64):
        assert abs(x.mean()) < 0.02 and abs(x.std() - 1.0) < 0.02


def test_random_functions_are_kernel_only():
    with pytest.raises(RuntimeError, match="inside a @cuda.jit kernel"):
        xoroshiro128p_uniform_float32(None, 0)


@cuda.jit
def jump_and_units(states, u, jumped):
    # each generator jumps 2**64 steps (onto the next one's start), then converts raw numbers as Numba does
    i = cuda.grid(1)
    if i < u.shape[0]:
        cuda.random.xoroshiro128p_jump(states, i)
        jumped[i, 0] = xoroshiro128p_next(states, i)
        x = xoroshiro128p_next(states, i)
        u[i, 0] = cuda.random.uint64_to_unit_float64(x)
        u[i, 1] = cuda.random.uint64_to_unit_float32(x)
        u[i, 2] = cuda.random.uint64_to_unit_float64(i * 2**40 + 12345)


def test_jump_and_unit_conversions_in_kernels(backend):
    n = 9
    states = create_xoroshiro128p_states(n, seed=99)
    u, jumped = np.zeros((n, 3)), np.zeros((n, 1), np.uint64)
    jump_and_units[1, 32](states, u, jumped)
    models = _model_states(n + 1, 99)
    for i in range(n):
        m = models[i + 1]                                  # generator i jumped is where generator i + 1 starts
        assert int(jumped[i, 0]) == m.next()
        x = m.next()
        assert u[i, 0] == (x >> 11) * (1.0 / 2**53)
        assert u[i, 1] == np.float32((x >> 11) * (1.0 / 2**53))
        assert u[i, 2] == ((i * 2**40 + 12345) >> 11) * (1.0 / 2**53)


def test_host_forms_of_numbas_jit_functions():
    # numba.cuda.random's @jit functions run on the host too: the CPU initialiser, jump, the conversions
    from cudajit.cuda.random import (init_xoroshiro128p_states_cpu, uint64_to_unit_float32, uint64_to_unit_float64,
                                     xoroshiro128p_jump)
    host = np.empty(4, xoroshiro128p_dtype)
    init_xoroshiro128p_states_cpu(host, 31337, 5)
    assert (host == create_xoroshiro128p_states(4, 31337, 5).copy_to_host()).all()
    models = _model_states(5, 31337, start=5)
    xoroshiro128p_jump(host, 3)
    assert (int(host[3]["s0"]), int(host[3]["s1"])) == (models[4].s0, models[4].s1)
    xoroshiro128p_jump(host, -4)                           # a negative index, as NumPy's
    assert (int(host[0]["s0"]), int(host[0]["s1"])) == (models[1].s0, models[1].s1)
    for x in (0, 1, 2**11, 2**63, 2**64 - 1, 0x0123456789ABCDEF):
        assert uint64_to_unit_float64(x) == (x >> 11) * (1.0 / 2**53)
        assert uint64_to_unit_float32(x) == float(np.float32((x >> 11) * (1.0 / 2**53)))
    assert uint64_to_unit_float32(2**64 - 1) == 1.0        # float32 rounds the largest up to 1, as Numba's
    with pytest.raises(TypeError, match="1-d NumPy array of cudajit.cuda.random.xoroshiro128p_dtype"):
        init_xoroshiro128p_states_cpu(np.zeros(4, np.uint64), 1, 0)
    with pytest.raises(IndexError, match="index 4 is out of bounds for 4 states"):
        xoroshiro128p_jump(host, 4)
    with pytest.raises(TypeError, match="contiguous 1-d array"):
        xoroshiro128p_jump(host[::2], 0)


def test_xoroshiro128p_type_in_explicit_signatures(backend):
    # numba-cuda's cuda.random.xoroshiro128p_type (from_dtype of the states' dtype) spells the states' parameter in
    # an explicit signature, as a user's compound-prism optimiser does: (f4[:, :], ..., xoroshiro128p_type[:])
    from cudajit import float32, int64
    from cudajit.cuda.random import xoroshiro128p_type

    @cuda.jit((float32[:, :], int64, xoroshiro128p_type[:]))
    def fill(out, offset, states):
        i = cuda.grid(1)
        if i < out.shape[0]:
            for j in range(out.shape[1]):
                out[i, j] = xoroshiro128p_uniform_float32(states, i) + offset

    n, draws = 40, 4
    states = create_xoroshiro128p_states(n, seed=31)
    out = np.zeros((n, draws), np.float32)
    fill[2, 32](out, 3, states)
    for i, m in enumerate(_model_states(n, 31)):
        assert [out[i, j] for j in range(draws)] == [np.float32(m.uniform32() + 3) for _ in range(draws)]
    assert xoroshiro128p_type.dtype == xoroshiro128p_dtype
    with pytest.raises(TypeError, match="1-d"):
        xoroshiro128p_type[:, :]
