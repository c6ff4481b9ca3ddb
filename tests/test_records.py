"""Records (NumPy structured dtypes) in kernels: host and device record arrays, single record arguments, field
access by attribute, name and position, nested array fields, records in shared/local/constant arrays, aligned and
packed dtypes. NumPy is the oracle."""
import numpy as np
import pytest

import cudajit
from cudajit import cuda
from cudajit.errors import TypingError

PACKED = np.dtype([("x", np.float32), ("flag", np.int8), ("n", np.int64), ("v", np.float64, (3,))])
ALIGNED = np.dtype(PACKED.descr, align=True)


def _random_records(rng, dtype, n):
    a = np.zeros(n, dtype)
    a["x"] = rng.random(n).astype(np.float32)
    a["flag"] = rng.integers(-100, 100, n)
    a["n"] = rng.integers(-2**40, 2**40, n)
    a["v"] = rng.random((n, 3))
    return a


@cuda.jit
def update_fields(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        r = a[i]                              # a reference, as Numba's: writes through r reach a
        out[i] = r.x * r.flag + a[i]["n"] + r.v[0] + r.v[2]
        r.x = r.x + 1.5
        a[i]["n"] = a[i].n * 3
        a[i].flag += 1
        a[i].v[1] = r.v[0] * 2.0
        a[i][0] = a[i][0] * 2                 # position 0 is field 'x'


def _expected_update(a):
    out = a["x"].astype(np.float64) * a["flag"] + a["n"] + a["v"][:, 0] + a["v"][:, 2]
    b = a.copy()
    b["x"] = (b["x"] + np.float32(1.5)) * 2
    b["n"] *= 3
    b["flag"] += 1
    b["v"][:, 1] = b["v"][:, 0] * 2.0
    return out, b


@pytest.mark.parametrize("dtype", [PACKED, ALIGNED], ids=["packed", "aligned"])
def test_host_record_array_read_write(backend, rng, dtype):
    a = _random_records(rng, dtype, 100)
    want_out, want = _expected_update(a)
    out = np.zeros(100)
    if backend == "gpu" and dtype is PACKED:
        # 'v' (float64) sits at offset 13 of a 37-byte record: a GPU load of it would fault, so it does not compile
        with pytest.raises(TypingError, match="nested array field 'v'.*not aligned"):
            update_fields[4, 32](a, out)
        return
    update_fields[4, 32](a, out)
    np.testing.assert_allclose(out, want_out, rtol=1e-6)
    np.testing.assert_array_equal(a, want)
    assert dtype.itemsize == (37 if dtype is PACKED else 40)


def test_recarray_of_an_aligned_dtype(backend, rng):
    """np.recarray views an aligned dtype as dtype((np.record, d)), whose .alignment NumPy gives as 1: its nested
    array fields are still aligned, so they compile for the GPU (they were refused there as unaligned)."""
    a = _random_records(rng, ALIGNED, 64).view(np.recarray)
    assert a.dtype.alignment == 1 and a.dtype.isalignedstruct
    want_out, want = _expected_update(np.asarray(a).view(ALIGNED))
    out = np.zeros(64)
    update_fields[2, 32](a, out)
    np.testing.assert_allclose(out, want_out, rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(a).view(ALIGNED), want)
    from cudajit.compiler.typeof import typeof
    ptx, _ = cuda.compile_ptx(update_fields.py_func, (typeof(a), typeof(out)), cc=(9, 0))
    assert ".entry" in ptx


def test_device_record_array(backend, rng):
    a = _random_records(rng, ALIGNED, 64)
    want_out, want = _expected_update(a)
    d_a, d_out = cuda.to_device(a), cuda.device_array(64)
    update_fields[2, 32](d_a, d_out)
    np.testing.assert_allclose(d_out.copy_to_host(), want_out, rtol=1e-6)
    np.testing.assert_array_equal(d_a.copy_to_host(), want)


@cuda.jit
def scale_record(r, k, out):
    out[0] = r.x + r["n"]
    r.x = r.x * k
    r.v[2] = k


def test_single_record_argument(backend, rng):
    a = _random_records(rng, ALIGNED, 4)
    before = a.copy()
    out = np.zeros(1)
    scale_record[1, 1](a[2], 3.0, out)            # written back into a[2], as Numba copies it back
    assert out[0] == pytest.approx(float(before["x"][2]) + int(before["n"][2]))
    assert a["x"][2] == np.float32(before["x"][2] * np.float32(3.0))
    assert a["v"][2, 2] == 3.0
    np.testing.assert_array_equal(a[[0, 1, 3]], before[[0, 1, 3]])


POINT = np.dtype([("x", np.float32), ("y", np.float32), ("id", np.int32)], align=True)


@cuda.jit
def reverse_through_shared(a, out):
    buf = cuda.shared.array(32, dtype=POINT)
    tmp = cuda.local.array(2, POINT)
    i = cuda.threadIdx.x
    buf[i] = a[i]
    cuda.syncthreads()
    tmp[0] = buf[31 - i]
    tmp[1].x = tmp[0].y
    tmp[1].y = tmp[0].x
    tmp[1].id = tmp[0].id + 1000
    out[i] = tmp[1]


def test_records_in_shared_and_local_arrays(backend, rng):
    a = np.zeros(32, POINT)
    a["x"], a["y"], a["id"] = rng.random(32), rng.random(32), rng.integers(0, 100, 32)
    out = np.zeros(32, POINT)
    reverse_through_shared[1, 32](a, out)
    r = a[::-1]
    np.testing.assert_array_equal(out["x"], r["y"])
    np.testing.assert_array_equal(out["y"], r["x"])
    np.testing.assert_array_equal(out["id"], r["id"] + 1000)


TABLE = np.zeros(8, ALIGNED)   # aligned: the GPU refuses unaligned nested fields of packed records
TABLE["x"] = np.linspace(0, 1, 8)
TABLE["n"] = np.arange(8) * 10**10
TABLE["v"] = np.arange(24).reshape(8, 3) / 7


@cuda.jit
def read_constant_records(out):
    i = cuda.grid(1)
    if i < TABLE.shape[0]:
        out[i] = TABLE[i].x + TABLE[i].n + TABLE[i].v[1]


def test_records_in_constant_memory(backend):
    out = np.zeros(8)
    read_constant_records[1, 8](out)
    np.testing.assert_array_equal(out, TABLE["x"].astype(np.float64) + TABLE["n"] + TABLE["v"][:, 1])


def test_from_dtype_spells_numba_record():
    t = cudajit.from_dtype(ALIGNED)
    assert str(t) == ("Record(x[type=float32;offset=0],flag[type=int8;offset=4],n[type=int64;offset=8],"
                      "v[type=nestedarray(float64, (3,));offset=16];40;True)")
    assert t.fields["n"][1] == ALIGNED.fields["n"][1]
    assert cudajit.from_dtype(PACKED).size == PACKED.itemsize
    assert str(t[::1]) == f"array({t}, 1d, C)" and str(t[:]) == f"array({t}, 1d, A)"


@cuda.jit
def wrong_field(a):
    a[0].z = 1.0


def test_wrong_field_is_typing_error(backend):
    with pytest.raises(TypingError) as e:
        wrong_field[1, 1](np.zeros(2, POINT))
    msg = str(e.value)
    assert "no field 'z'" in msg and "Record(x[type=float32" in msg and "test_records.py:" in msg


NATURAL = np.dtype([("i", np.int32), ("j", np.float32, (3, 2))])   # not align=True, yet every field is aligned


@cuda.jit
def _sum_nested(a, out):
    k = cuda.grid(1)
    if k < a.shape[0]:
        s = 0.0
        for r in range(3):
            for c in range(2):
                s += a[k].j[r, c]
        out[k] = s + a[k].i


def test_packed_dtype_whose_fields_are_aligned(backend, rng):
    """numba-cuda reads nested arrays of such records on the GPU; NumPy calls the dtype's alignment 1."""
    a = np.zeros(50, NATURAL)
    a["i"] = rng.integers(-100, 100, 50)
    a["j"] = rng.random((50, 3, 2))
    out = np.zeros(50)
    _sum_nested[2, 32](a, out)
    np.testing.assert_allclose(out, a["j"].astype(np.float64).sum(axis=(1, 2)) + a["i"], rtol=1e-6)
    from cudajit.compiler.typeof import typeof
    assert ".entry" in cuda.compile_ptx(_sum_nested.py_func, (typeof(a), typeof(out)), cc=(9, 0))[0]


HALVES = np.dtype([("x", np.float16), ("v", np.float16, (3,)), ("z", np.int32)])
HALVES_GLOBAL = np.zeros(4, HALVES)
HALVES_GLOBAL["x"] = np.random.default_rng(11).standard_normal(4)
HALVES_GLOBAL["v"] = np.random.default_rng(12).standard_normal((4, 3))


@cuda.jit
def sum_half_fields(r, one, out):
    i = cuda.grid(1)
    local = cuda.local.array(1, HALVES)
    shared = cuda.shared.array(32, HALVES)
    if i < r.size:
        local[0] = r[i]
        shared[i] = r[i]
        out[i] = local[0].x + shared[i].v[1] + one.x + HALVES_GLOBAL[i % 4].v[2]
        one.z = 7
        r[i].v[0] = r[i].x * np.float16(2)


def test_float16_fields(backend, rng):
    """float16 fields and nested float16 arrays, as numba-cuda: in argument, single, local, shared and global
    records, each sum computed in float16 as NumPy does."""
    a = np.zeros(16, HALVES)
    a["x"] = rng.standard_normal(16)
    a["v"] = rng.standard_normal((16, 3))
    a["z"] = rng.integers(-1000, 1000, 16)
    before = a.copy()
    one = np.zeros(1, HALVES)[0]
    one["x"] = rng.standard_normal()
    out = np.zeros(16, np.float16)
    sum_half_fields[1, 16](a, one, out)
    want = before["x"] + before["v"][:, 1] + one["x"] + HALVES_GLOBAL["v"][np.arange(16) % 4, 2]
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(a["v"][:, 0], before["x"] * np.float16(2))
    np.testing.assert_array_equal(a["z"], before["z"])
    assert one["z"] == 7
    assert str(cudajit.from_dtype(HALVES)).startswith("Record(x[type=float16;offset=0]")


@cuda.jit
def field_views(a, out):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        out[i, j] = a.x[i, j] + a.n[i, j]          # a field of a record array is a strided array (Numba's)
        a.flag[i, j] = a.flag[i, j] - 1


def test_fields_of_record_arrays_are_strided_views(backend, rng):
    a = _random_records(rng, ALIGNED, 6 * 5).reshape(6, 5)
    want = a["x"].astype(np.float64) + a["n"]
    flags = a["flag"] - 1
    out = np.zeros((6, 5))
    field_views[(1, 1), (8, 8)](a, out)
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(a["flag"], flags)
    rec = np.recarray(8, dtype=[("value1", np.int64), ("value2", np.float64)])       # numba-cuda's recarray case
    rec.value1 = rng.integers(-50, 50, 8)
    rec.value2 = rng.standard_normal(8)

    @cuda.jit
    def copy_fields(x, out1, out2):
        i = cuda.grid(1)
        if i < x.size:
            out1[i] = x.value1[i]
            out2[i] = x.value2[i]
    got1, got2 = np.zeros(8, np.int64), np.zeros(8)
    copy_fields[1, 8](rec, got1, got2)
    np.testing.assert_array_equal(got1, rec.value1)
    np.testing.assert_array_equal(got2, rec.value2)

    @cuda.jit
    def nested(a, out):
        out[0] = a.v[0, 0]
    with pytest.raises(cudajit.errors.UnsupportedError, match=r"'.v' of a record array, a nested array field"):
        nested[1, 1](a, out)


KERNEL_REC = np.dtype([("a", np.int32), ("b", np.float32), ("v", np.float64, (3,))], align=True)


@cuda.jit
def read_and_set_record(rec, out):
    out[0] = rec.a + rec.v[1] * rec.b
    rec.a = rec.a * 3


def test_device_records_are_device_memory(backend, rng):
    """numba-cuda's DeviceRecord: d[i] of a record device array is the record on the device (writes to its fields
    reach the array; it was a host copy, so they were lost), cuda.to_device of a NumPy record is one, and kernels
    take it as a record by reference."""
    from cudajit.cuda.cudadrv.devicearray import DeviceRecord, auto_device, from_record_like
    host = np.zeros(5, KERNEL_REC)
    host["a"] = rng.integers(-100, 100, 5)
    host["b"] = rng.standard_normal(5).astype(np.float32)
    host["v"] = rng.standard_normal((5, 3))
    d = cuda.to_device(host)
    rec = d[2]
    assert isinstance(rec, DeviceRecord) and rec.shape == () and rec.dtype == KERNEL_REC
    assert rec["a"] == host[2]["a"] and rec[1] == host[2]["b"]
    np.testing.assert_array_equal(rec["v"].copy_to_host(), host[2]["v"])
    rec["a"] = 1234
    rec["v"] = [1.0, 2.0, 3.0]
    rec["v"][0] = -5.0                       # a view of the nested array field
    want = host.copy()
    want[2]["a"], want[2]["v"] = 1234, [-5.0, 2.0, 3.0]
    np.testing.assert_array_equal(d.copy_to_host(), want)
    with pytest.raises(KeyError, match="no field of name 'zz'"):
        rec["zz"]
    with pytest.raises(ValueError, match="cannot store 'x' in field 'a'"):
        rec["a"] = "x"
    one = cuda.to_device(host[4])
    assert isinstance(one, DeviceRecord) and one._numba_type_ == cudajit.from_dtype(KERNEL_REC)
    out = np.zeros(1)
    read_and_set_record[1, 1](one, out)
    assert out[0] == host[4]["a"] + host[4]["v"][1] * np.float64(host[4]["b"])
    assert one["a"] == host[4]["a"] * 3
    read_and_set_record[1, 1](d[0], out)
    assert d.copy_to_host()[0]["a"] == host[0]["a"] * 3
    back = np.zeros(1, KERNEL_REC)[0]
    one.copy_to_host(back)
    assert back["a"] == host[4]["a"] * 3 and back["b"] == host[4]["b"]
    made, copied = auto_device(host[3])
    assert isinstance(made, DeviceRecord) and copied and made["a"] == host[3]["a"]
    empty = from_record_like(host[3])
    assert isinstance(empty, DeviceRecord) and empty.gpu_data is not made.gpu_data


def test_string_device_arrays(backend):
    """Unicode arrays (4 bytes a character) go to the device and back whole."""
    a = np.array(["hello", "device", "x"])
    d = cuda.to_device(a)
    assert d.alloc_size == a.nbytes
    np.testing.assert_array_equal(d.copy_to_host(), a)
    d[2] = "arrays"
    assert d[2] == "arrays" and d.copy_to_host()[0] == "hello"


def test_aligned_and_packed_records_of_equal_layout_stay_apart(backend, rng):
    """NumPy calls an aligned record dtype equal to a packed one with the same offsets; numba-cuda types them apart
    (its Record names the alignment), and so do device arrays and the dispatcher here."""
    packed = np.dtype([("x", np.float16), ("y", np.float16)])
    aligned = np.dtype([("x", np.float16), ("y", np.float16)], align=True)
    assert packed == aligned and not packed.isalignedstruct and aligned.isalignedstruct

    @cuda.jit
    def swap(r):
        i = cuda.grid(1)
        if i < r.size:
            x = r[i].x
            r[i].x = r[i].y
            r[i].y = x
    arrays = []
    for dt in (packed, aligned):
        host = np.zeros(8, dt)
        host["x"], host["y"] = rng.standard_normal(8), rng.standard_normal(8)
        d = cuda.to_device(host)
        assert d.dtype.isalignedstruct == dt.isalignedstruct
        swap[1, 8](d)
        got = d.copy_to_host()
        np.testing.assert_array_equal(got["x"], host["y"])
        np.testing.assert_array_equal(got["y"], host["x"])
        arrays.append(d)
    assert len(swap.signatures) == 2 and swap.signatures[0] != swap.signatures[1]


def test_global_record_scalar_is_a_constant(backend, rng):
    # A global structured scalar (np.rec.array([...])[0]) read by field in a kernel and a device function, as a
    # user's optimiser reads its configuration (config.height, config.weight_*): Numba freezes its bytes.
    dt = np.dtype([("height", "f4"), ("start", "f4"), ("count", "i4"), ("scale", "f8")])
    vals = (float(rng.uniform(1, 9)), float(rng.uniform(-3, 3)), int(rng.integers(2, 9)), float(rng.uniform(0.5, 2)))
    config = np.rec.array([vals], dtype=dt)[0]
    plain = np.zeros(1, dt)
    plain[0] = vals
    other = plain[0]                                   # np.void (not np.record): attribute access is Numba's too

    @cuda.jit(device=True)
    def scaled(x):
        return x * config.scale + other.start

    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.size:
            acc = 0.0
            for _ in range(config.count):
                acc += config.height
            out[i] = scaled(x[i]) + acc + other["count"]

    x = rng.uniform(-1, 1, 37)
    out = np.zeros_like(x)
    k[2, 32](x, out)
    h, s, c, sc = plain[0].tolist()
    want = x * sc + s + sum(float(np.float32(h)) for _ in range(c)) + c
    np.testing.assert_allclose(out, want, rtol=1e-12)
