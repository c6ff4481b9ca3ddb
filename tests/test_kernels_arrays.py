"""Arrays in kernels: indexing (negative indices wrap), layouts C/F/A, attributes, views by slicing, rebinding."""
import numpy as np
import pytest

from cudajit import cuda
from cudajit.errors import TypingError, UnsupportedError


@cuda.jit
def negative_index(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[-1 - i]           # counts from the end, like Python


def test_negative_indices_wrap(backend):
    a = np.arange(10, dtype=np.int32)
    out = np.zeros(10, np.int32)
    negative_index[1, 10](a, out)
    np.testing.assert_array_equal(out, a[::-1])


@cuda.jit
def gather_by_0d(r, ary, i, j, m):
    r[()] = ary[i]                   # a 0-d integer array indexes as its integer (NumPy, Numba)
    m[j, i] = ary[j]


def test_0d_integer_arrays_as_indices(backend, rng):
    ary = rng.random(12)
    m = rng.random((12, 12))
    want = m.copy()
    for _ in range(3):
        i, j = (int(v) for v in rng.integers(-12, 12, 2))
        r = np.zeros(())
        gather_by_0d[1, 1](r, ary, np.asarray(i), np.asarray(j, np.int32), m)
        want[j, i] = ary[j]
        assert r[()] == ary[i]
    np.testing.assert_array_equal(m, want)


@cuda.jit
def transpose_copy(a, out):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        out[j, i] = a[i, j]


@pytest.mark.parametrize("layout", ["C", "F", "A"])
def test_2d_layouts(backend, rng, layout):
    base = rng.random((20, 30)).astype(np.float32)
    a = {"C": base, "F": np.asfortranarray(base), "A": rng.random((40, 30)).astype(np.float32)[::2]}[layout]
    out = np.zeros((a.shape[1], a.shape[0]), np.float32)
    transpose_copy[(3, 3), (8, 16)](a, out)
    np.testing.assert_array_equal(out, a.T)


@cuda.jit
def attributes(a, out):
    out[0] = a.shape[0]
    out[1] = a.shape[1]
    out[2] = a.shape[2]
    out[3] = a.size
    out[4] = a.ndim
    out[5] = a.strides[0]
    out[6] = a.strides[2]
    out[7] = len(a)
    s = a.shape
    out[8] = s[0] * s[1] * s[2]


def test_array_attributes(backend):
    a = np.zeros((3, 4, 5), np.float64)
    out = np.zeros(9, np.int64)
    attributes[1, 1](a, out)
    np.testing.assert_array_equal(out, [3, 4, 5, 60, 3, a.strides[0], a.strides[2], 3, 60])


@cuda.jit
def three_d(a, out):
    i, j, k = cuda.grid(3)
    if i < a.shape[0] and j < a.shape[1] and k < a.shape[2]:
        out[i, j, k] = a[i, j, k] * 2 + a[i, j, -1]


def test_3d_indexing(backend, rng):
    a = rng.integers(0, 100, (4, 5, 6)).astype(np.int64)
    out = np.zeros_like(a)
    three_d[(1, 1, 1), (4, 5, 6)](a, out)
    np.testing.assert_array_equal(out, a * 2 + a[:, :, -1:])


@cuda.jit
def slicing(a, out):
    i = cuda.grid(1)
    if i == 0:
        row = a[1]                   # a row view (C stays C)
        col = a[:, 2]                # a column view (A)
        tail = a[1:, 1:]
        rev = a[0, ::-1]
        step = a[2, 1:6:2]
        for k in range(row.size):
            out[0, k] = row[k]
        for k in range(col.size):
            out[1, k] = col[k]
        for k in range(tail.shape[1]):
            out[2, k] = tail[1, k]
        for k in range(rev.size):
            out[3, k] = rev[k]
        for k in range(step.size):
            out[4, k] = step[k]
        out[5, 0] = tail.shape[0]
        out[5, 1] = rev[-1]
        out[5, 2] = a[-1, -2:][0]


def test_slicing_views(backend):
    a = np.arange(42, dtype=np.int64).reshape(6, 7)
    out = np.full((6, 7), -1, np.int64)
    slicing[1, 1](a, out)
    np.testing.assert_array_equal(out[0], a[1])
    np.testing.assert_array_equal(out[1, :6], a[:, 2])
    np.testing.assert_array_equal(out[2, :6], a[1:, 1:][1])
    np.testing.assert_array_equal(out[3], a[0, ::-1])
    np.testing.assert_array_equal(out[4, :3], a[2, 1:6:2])
    np.testing.assert_array_equal(out[5, :3], [5, a[0, 0], a[-1, -2]])


@cuda.jit
def slice_assign(a):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i, 1:3] = 7
        row = a[i]
        row[0] = -1


def test_assign_to_slices_and_views(backend):
    a = np.zeros((4, 5), np.int64)
    slice_assign[1, 4](a)
    expect = np.zeros((4, 5), np.int64)
    expect[:, 1:3] = 7
    expect[:, 0] = -1
    np.testing.assert_array_equal(a, expect)


@cuda.jit
def rebind(a, b, flag, out):
    i = cuda.grid(1)
    if i < out.size:
        src = a
        if flag[i]:
            src = b                   # a variable rebound to another array of the same type
        out[i] = src[i]


def test_array_variable_rebound(backend):
    a = np.arange(8.0)
    b = -np.arange(8.0)
    flag = np.array([0, 1] * 4, np.bool_)
    out = np.zeros(8)
    rebind[1, 8](a, b, flag, out)
    np.testing.assert_array_equal(out, np.where(flag, b, a))


@cuda.jit
def tuple_index(a, out):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        idx = (i, j)
        out[idx] = a[idx] + 1


def test_tuple_as_index(backend):
    a = np.arange(12.0).reshape(3, 4)
    out = np.zeros_like(a)
    tuple_index[1, (3, 4)](a, out)
    np.testing.assert_array_equal(out, a + 1)


@cuda.jit
def bool_and_small_ints(flags, small, out):
    i = cuda.grid(1)
    if i < flags.size:
        if flags[i]:
            out[i] = small[i] + 1     # uint8 + literal -> int64: no wrap at 255
        else:
            out[i] = small[i]


def test_bool_and_uint8_arrays(backend):
    flags = np.array([True, False, True, True])
    small = np.array([255, 255, 0, 10], np.uint8)
    out = np.zeros(4, np.int64)
    bool_and_small_ints[1, 4](flags, small, out)
    np.testing.assert_array_equal(out, [256, 255, 1, 11])


@cuda.jit
def store_converts(src, out_i, out_f):
    i = cuda.grid(1)
    if i < src.size:
        out_i[i] = src[i]             # float -> int32 truncates, as Numba's store
        out_f[i] = src[i]


def test_store_converts_to_element_type(backend):
    src = np.array([1.9, -1.9, 2.5, 100.25])
    out_i = np.zeros(4, np.int32)
    out_f = np.zeros(4, np.float32)
    store_converts[1, 4](src, out_i, out_f)
    np.testing.assert_array_equal(out_i, [1, -1, 2, 100])
    np.testing.assert_array_equal(out_f, src.astype(np.float32))


def test_device_arrays_and_cai_objects(backend, rng):
    a = rng.random(100).astype(np.float32)
    d = cuda.to_device(a)
    out = cuda.device_array(100, np.int32)
    store_converts[1, 128](d, out, cuda.device_array(100, np.float32))
    np.testing.assert_array_equal(out.copy_to_host(), a.astype(np.int32))


@cuda.jit
def transposed(a, out):
    t = a.T
    i, j = cuda.grid(2)
    if i < t.shape[0] and j < t.shape[1]:
        out[i, j] = t[i, j]


def test_transpose_attribute(backend):
    a = np.arange(12.0).reshape(3, 4)
    out = np.zeros((4, 3))
    transposed[1, (4, 3)](a, out)
    np.testing.assert_array_equal(out, a.T)


@cuda.jit(device=True)
def polar_pair(x, y):
    return x * y, x - y


@cuda.jit
def unpack_and_store_sequences(a, m, out):
    # A neutron-guide kernel's idiom (mcvine): x, y, z, ... = neutron[:6] unpacks an array like an iterable, and
    # neutron[:6] = x, y, z, ... stores a homogeneous tuple (a Numba sequence) into a slice
    i = cuda.grid(1)
    if i < a.shape[0]:
        x, y, z = a[i, :3]
        r0, r1 = m                                    # a 2-d array unpacks into its rows
        scratch = cuda.local.array(4, np.float64)
        scratch[:] = 0.0
        scratch[:3] = z, y, x
        scratch[:2] = scratch[1], scratch[0]          # the right side is read before any element is stored
        p, q, s, t = scratch
        out[i, :4] = p, q, s, t + r0[1] + r1[0]
        out[i, 4:6] = polar_pair(x, y)                # a device function's tuple, evaluated once
        out[i, 6:8] = 1, 2                            # ints converted to the array's dtype


def test_array_unpacking_and_tuples_stored_into_slices(backend, rng):
    a = rng.standard_normal((40, 5))
    m = rng.standard_normal((2, 3))
    out = np.zeros((40, 8))
    unpack_and_store_sequences[1, 64](a, m, out)
    x, y, z = a[:, 0], a[:, 1], a[:, 2]
    expect = np.stack([y, z, x, 0 + m[0, 1] + m[1, 0] + 0 * x, x * y, x - y, 1 + 0 * x, 2 + 0 * x], axis=1)
    np.testing.assert_array_equal(out, expect)


def test_array_unpacking_errors(backend):
    @cuda.jit(boundscheck=True)
    def short(a, out):
        x, y, z = a[:2]                               # the third element is past the view's end
        out[0] = x + y + z

    with pytest.raises(IndexError):
        short[1, 1](np.arange(5.0), np.zeros(1))

    @cuda.jit
    def into_2d(m):
        m[:, :] = 1.0, 2.0

    with pytest.raises(TypingError, match=r"test_kernels_arrays.py:\d+: cannot assign a tuple to a 2-d array view"):
        into_2d[1, 1](np.zeros((2, 2)))

    @cuda.jit
    def starred(a, out):
        x, *rest = a
        out[0] = x

    with pytest.raises(UnsupportedError, match="starred unpacking of an array"):
        starred[1, 1](np.arange(3.0), np.zeros(1))


def test_a_variable_holding_arrays_of_two_layouts(backend, rng):
    # `tally = block[:, t]` (a strided column, layout A) on one path and `cuda.local.array(...)` (C) on the other: the
    # variable is an A array, as Numba unifies them (a poker simulation picks shared or local scratch this way)
    @cuda.jit
    def k(flag, a, out):
        t = cuda.threadIdx.x
        block = cuda.shared.array((6, 32), np.int32)
        if flag[0]:
            tally = block[:, t]
        else:
            tally = cuda.local.array(6, np.int32)
        for i in range(6):
            tally[i] = a[t] * (i + 1)
        row = a[t:t + 1] if flag[0] else a[::2]          # C slice vs A (strided) slice
        for i in range(6):
            out[t, i] = tally[i] + row[0]

    a = rng.integers(-50, 50, 32).astype(np.int32)
    for flag in (1, 0):
        out = np.zeros((32, 6), np.int64)
        k[1, 32](np.array([flag]), a, out)
        first = a if flag else np.full(32, a[0])
        np.testing.assert_array_equal(out, a[:, None] * np.arange(1, 7) + first[:, None])
