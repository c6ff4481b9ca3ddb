"""Every indexing form under bounds checks (issue 36): each form is tried at each edge of the axis it indexes (the
last index and the first, counted from the end) and one past each edge; at an edge it must give NumPy's answer,
one past it IndexError (a zero slice step: ValueError; a slice's bounds clamp, as NumPy's). The kernels run one
thread with ``boundscheck=True`` (the CPU backend's default, ``debug=True``'s too) on every backend.

``pytest -s tests/test_index_forms.py`` prints the table (backend, form, edge, index, result) at the end.
"""
import dataclasses

import numpy as np
import pytest

import cudajit
from cudajit import cuda, float64, types
from cudajit.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float64

SIGNED = ("last", "past end", "first from end", "before first")
UNSIGNED = ("last", "past end")


@dataclasses.dataclass
class Form:
    name: str
    fn: object               # the kernel's Python: fn(out, k, *arrays); out[0] gets what the form read
    n: int                   # the length of the axis the form indexes
    arrays: object           # rng -> the arrays after k (fresh each launch)
    oracle: object           # (arrays, k) -> out[0], applying the form's stores to the NumPy arrays
    edges: tuple = SIGNED
    expect: type = IndexError
    index: object = np.int64
    launch: tuple = (1, 1)
    options: dict = dataclasses.field(default_factory=lambda: {"boundscheck": True})
    pointer: bool = False    # the first array is passed as its address (a CPointer parameter)


FORMS = []


def form(name, n, arrays, oracle, **kw):
    def deco(fn):
        FORMS.append(Form(name, fn, n, arrays, oracle, **kw))
        return fn
    return deco


def edge_index(edge, n):
    return {"last": n - 1, "past end": n, "first from end": -n, "before first": -n - 1}[edge]


def a1(rng):
    return (rng.standard_normal(10),)


def a2(rng):
    return (rng.standard_normal((6, 7)),)


# ---- argument arrays --------------------------------------------------------------------------------------------
@form("a[k] (1-d)", 10, a1, lambda A, k: A[0][k])
def f_1d(out, k, a):
    out[0] = a[k]


@form("a[k, j] (axis 0)", 6, a2, lambda A, k: A[0][k, 2])
def f_2d_axis0(out, k, a):
    out[0] = a[k, 2]


@form("a[i, k] (axis 1)", 7, a2, lambda A, k: A[0][1, k])
def f_2d_axis1(out, k, a):
    out[0] = a[1, k]


@form("a[k] row of 2-d, read", 6, a2, lambda A, k: A[0][k][3])
def f_row_read(out, k, a):
    r = a[k]
    out[0] = r[3]


def _row_store(A, k):
    A[0][k] = A[1]
    return 0.0


@form("a[k] = b, row of 2-d (issue 36)", 6, lambda rng: (rng.standard_normal((6, 7)), rng.standard_normal(7)),
      _row_store)
def f_row_store(out, k, a, b):
    a[k] = b


def _row_fill(A, k):
    A[0][k] = 2.5
    return 0.0


@form("a[k] = 2.5, row fill", 6, a2, _row_fill)
def f_row_fill(out, k, a):
    a[k] = 2.5


@form("a[k, :] view", 6, a2, lambda A, k: A[0][k, :][2])
def f_row_slice(out, k, a):
    out[0] = a[k, :][2]


@form("a[:, k] column view", 7, a2, lambda A, k: A[0][:, k][1])
def f_col_view(out, k, a):
    out[0] = a[:, k][1]


@form("a[k][j] chained", 6, a2, lambda A, k: A[0][k][2])
def f_chained(out, k, a):
    out[0] = a[k][2]


@form("a[i, k] of 3-d (2 of 3 indices)", 5, lambda rng: (rng.standard_normal((4, 5, 3)),), lambda A, k: A[0][1, k][2])
def f_3d_partial(out, k, a):
    r = a[1, k]
    out[0] = r[2]


@form("a[(k, j)] tuple index", 6, a2, lambda A, k: A[0][(k, 1)])
def f_tuple(out, k, a):
    t = (k, 1)
    out[0] = a[t]


@form("a[(k,)] partial tuple index", 6, a2, lambda A, k: A[0][(k,)][0])
def f_tuple_partial(out, k, a):
    t = (k,)
    out[0] = a[t][0]


@form("a[k] uint64 index", 10, a1, lambda A, k: A[0][k], edges=UNSIGNED, index=np.uint64)
def f_uint(out, k, a):
    out[0] = a[k]


@form("a[k] int32 index", 10, a1, lambda A, k: A[0][k], index=np.int32)
def f_int32(out, k, a):
    out[0] = a[k]


def _aug(A, k):
    A[0][k] += 1.5
    return 0.0


@form("a[k] += 1.5", 10, a1, _aug)
def f_aug(out, k, a):
    a[k] += 1.5


@form("F-order a[k, j]", 6, lambda rng: (np.asfortranarray(rng.standard_normal((6, 7))),), lambda A, k: A[0][k, 3])
def f_fortran(out, k, a):
    out[0] = a[k, 3]


@form("F-order a[k] row", 6, lambda rng: (np.asfortranarray(rng.standard_normal((6, 7))),), lambda A, k: A[0][k][3])
def f_fortran_row(out, k, a):
    out[0] = a[k][3]


# ---- views ------------------------------------------------------------------------------------------------------
@form("a[1:8][k] slice view", 7, a1, lambda A, k: A[0][1:8][k])
def f_slice(out, k, a):
    out[0] = a[1:8][k]


@form("a[::2][k] stepped view", 5, a1, lambda A, k: A[0][::2][k])
def f_step(out, k, a):
    out[0] = a[::2][k]


@form("a[::-1][k] reversed view", 10, a1, lambda A, k: A[0][::-1][k])
def f_reversed(out, k, a):
    out[0] = a[::-1][k]


@form("a[2:][k, j] rows view", 4, a2, lambda A, k: A[0][2:][k, 0])
def f_rows_view(out, k, a):
    out[0] = a[2:][k, 0]


@form("a.T[k, j] transpose", 7, a2, lambda A, k: A[0].T[k, 1])
def f_transpose(out, k, a):
    out[0] = a.T[k, 1]


@form("a.reshape(2, 5)[k, j]", 2, a1, lambda A, k: A[0].reshape(2, 5)[k, 1])
def f_reshape(out, k, a):
    out[0] = a.reshape(2, 5)[k, 1]


@form("a.flat[k] read", 42, a2, lambda A, k: A[0].flat[k])
def f_flat(out, k, a):
    out[0] = a.flat[k]


def _flat_store(A, k):
    A[0].flat[k] = -4.0
    return 0.0


@form("a.flat[k] = x", 42, a2, _flat_store)
def f_flat_store(out, k, a):
    a.flat[k] = -4.0


def _step_view(A, s):
    return float(sum(A[0][1:9:s]))              # in order, as the kernel adds


@form("a[1:9:s] run-time step s", 1, a1, _step_view, edges=("step 1", "step 0"), expect=ValueError)
def f_run_time_step(out, k, a):
    v = a[1:9:k]
    s = 0.0
    for x in v:
        s += x
    out[0] = s


@form("a[k:k+3] slice bounds", 10, a1, lambda A, k: float(len(A[0][k:k + 3])), expect=None)
def f_clamp(out, k, a):
    out[0] = len(a[k:k + 3])          # a slice's bounds clamp, as NumPy's: never an IndexError


# ---- other memories ---------------------------------------------------------------------------------------------
@form("shared 1-d sm[k]", 16, lambda rng: (), lambda A, k: np.arange(16.0)[k] * 2)
def f_shared(out, k):
    sm = cuda.shared.array(16, float64)
    for j in range(16):
        sm[j] = j * 2.0
    cuda.syncthreads()
    out[0] = sm[k]


@form("shared 2-d row sm[k]", 4, lambda rng: (), lambda A, k: np.arange(32.0).reshape(4, 8)[k][5])
def f_shared_row(out, k):
    sm = cuda.shared.array((4, 8), float64)
    for j in range(32):
        sm[j // 8, j % 8] = j
    cuda.syncthreads()
    out[0] = sm[k][5]


@form("dynamic shared dyn[k]", 8, lambda rng: (), lambda A, k: np.arange(8.0)[k] + 1, launch=(1, 1, 0, 64))
def f_dynamic_shared(out, k):
    dyn = cuda.shared.array(0, float64)
    for j in range(8):
        dyn[j] = j + 1.0
    out[0] = dyn[k]


@form("local 1-d loc[k]", 5, lambda rng: (), lambda A, k: np.arange(5.0)[k] * 3)
def f_local(out, k):
    loc = cuda.local.array(5, float64)
    for j in range(5):
        loc[j] = j * 3.0
    out[0] = loc[k]


@form("local 2-d row loc[k]", 3, lambda rng: (), lambda A, k: np.arange(12.0).reshape(3, 4)[k][1])
def f_local_row(out, k):
    loc = cuda.local.array((3, 4), float64)
    for j in range(12):
        loc[j // 4, j % 4] = j
    out[0] = loc[k][1]


CONST = np.arange(12.0) * 1.5
CONST2 = np.arange(12.0).reshape(3, 4) - 5


@form("constant G[k]", 12, lambda rng: (), lambda A, k: CONST[k])
def f_const(out, k):
    out[0] = CONST[k]


@form("constant 2-d row G[k]", 3, lambda rng: (), lambda A, k: CONST2[k][2])
def f_const_row(out, k):
    out[0] = CONST2[k][2]


REC = np.dtype([("x", np.float64), ("v", np.float64, (3,))], align=True)


def recs(rng):
    r = np.zeros(5, REC)
    r["x"] = rng.standard_normal(5)
    r["v"] = rng.standard_normal((5, 3))
    return (r,)


@form("record field r[k].x", 5, recs, lambda A, k: A[0][k]["x"])
def f_record(out, k, r):
    out[0] = r[k].x


@form("nested array field r[i].v[k]", 3, recs, lambda A, k: A[0][2]["v"][k])
def f_record_nested(out, k, r):
    out[0] = r[2].v[k]


@form("record array field view r.x[k]", 5, recs, lambda A, k: A[0]["x"][k])
def f_record_view(out, k, r):
    out[0] = r.x[k]


def _atomic(A, k):
    A[0][k] += 1.0
    return 0.0


@form("cuda.atomic.add(a, k, 1)", 10, a1, _atomic)
def f_atomic(out, k, a):
    cuda.atomic.add(a, k, 1.0)


def _atomic2(A, k):
    A[0][1, k] += 1.0
    return 0.0


@form("cuda.atomic.add(a, (i, k), 1)", 7, a2, _atomic2)
def f_atomic2(out, k, a):
    cuda.atomic.add(a, (1, k), 1.0)


@form("xoroshiro128p_uniform_float64(states, k)", 4, lambda rng: (create_xoroshiro128p_states(4, seed=7),),
      lambda A, k: None)
def f_random(out, k, states):
    out[0] = xoroshiro128p_uniform_float64(states, k)


@cuda.jit(device=True)
def _device_read(a, k):
    return a[k, 1]


@form("device function a[k, j]", 6, a2, lambda A, k: A[0][k, 1])
def f_device(out, k, a):
    out[0] = _device_read(a, k)


@form("t[k] run-time tuple index (debug=True)", 3, lambda rng: (), lambda A, k: (1.5, 2.5, 3.5)[k],
      options={"debug": True})
def f_tuple_runtime(out, k):
    t = (1.5, 2.5, 3.5)
    out[0] = t[k]


# ---- carray / farray over a CPointer ----------------------------------------------------------------------------
PTR_SIG = types.void(types.float64[::1], types.int64, types.CPointer(types.float64))


@form("cuda.carray(p, 10)[k]", 10, a1, lambda A, k: A[0][k], pointer=True)
def f_carray(out, k, p):
    out[0] = cuda.carray(p, 10)[k]


@form("cudajit.farray(p, (2, 5))[k, j]", 2, a1, lambda A, k: A[0].reshape((2, 5), order="F")[k, 3], pointer=True)
def f_farray(out, k, p):
    out[0] = cudajit.farray(p, (2, 5), np.float64)[k, 3]


# ---- the table --------------------------------------------------------------------------------------------------
ROWS = []


@pytest.fixture(scope="module", autouse=True)
def print_table():
    yield
    if not ROWS:
        return
    widths = [max(len(str(r[c])) for r in ROWS + [("backend", "form", "edge", "index", "result")]) for c in range(5)]
    line = lambda r: "  ".join(str(x).ljust(w) for x, w in zip(r, widths)).rstrip()    # noqa: E731
    print("\n" + line(("backend", "form", "edge", "index", "result")))
    print(line(tuple("-" * w for w in widths)))
    for r in ROWS:
        print(line(r))


_KERNELS = {}


def _kernel(f, backend):
    key = (f.name, backend)
    if key not in _KERNELS:
        if f.pointer:
            _KERNELS[key] = cuda.jit(PTR_SIG, **f.options)(f.fn)
        else:
            _KERNELS[key] = cuda.jit(**f.options)(f.fn)
    return _KERNELS[key]


def _run(f, backend, rng, edge):
    k = 1 if edge == "step 1" else 0 if edge == "step 0" else edge_index(edge, f.n)
    arrays = f.arrays(rng)
    want_arrays = [a.copy() if isinstance(a, np.ndarray) else None for a in arrays]
    out = np.zeros(1)
    kernel = _kernel(f, backend)
    if f.pointer:
        d = cuda.to_device(arrays[0])
        args = (d.__cuda_array_interface__["data"][0],)
    else:
        d = None
        args = arrays
    try:
        kernel[f.launch](out, f.index(k), *args)
    except (IndexError, ValueError) as e:
        return k, type(e), str(e)
    if f.name.startswith("xoroshiro"):
        assert 0.0 < out[0] < 1.0
        return k, None, "ok (a uniform in (0, 1))"
    want = f.oracle(want_arrays, k)
    assert out[0] == want, (f.name, edge, out[0], want)
    if d is not None:
        arrays = (d.copy_to_host(),)
    for got, expect in zip(arrays, want_arrays):
        np.testing.assert_array_equal(got, expect, err_msg=f"{f.name} at {edge}")
    return k, None, "ok (= NumPy)"


@pytest.mark.parametrize("f", FORMS, ids=[f.name for f in FORMS])
def test_index_form_edges(backend, rng, f):
    for edge in f.edges:
        inside = edge in ("last", "first from end", "step 1") or f.expect is None
        k, exc, what = _run(f, backend, rng, edge)
        result = f"{exc.__name__}" if exc is not None else "clamped (= NumPy)" if f.expect is None else what
        ROWS.append((backend, f.name, edge, k, result))
        if inside:
            assert exc is None, (f.name, edge, what)
        else:
            assert exc is f.expect, (f.name, edge, exc, what)


def test_issue_row_store_names_the_index_and_shape(backend, rng):
    """The issue's kernel: a[i] = b[i] with a (10, 10) and i up to 99 raised nothing and corrupted the heap."""
    @cuda.jit(boundscheck=True)
    def copy_rows(a, b):
        i = cuda.grid(1)
        if i < b.shape[0]:
            a[i] = b[i]

    a, b = np.zeros((10, 10)), rng.standard_normal((100, 10))
    with pytest.raises(IndexError, match=r"index \d\d is out of bounds for axis 0 with size 10 \(array shape "
                                         r"\(10, 10\)\)"):
        copy_rows[1, 128](a, b)
    np.testing.assert_array_equal(a, b[:10])           # the rows in range were copied
    c = np.zeros((100, 10))
    copy_rows[1, 128](c, b)                             # the process is intact
    np.testing.assert_array_equal(c, b)


def test_cpu_default_and_debug_check_rows(rng):
    """Checks are on by default on the CPU backend and under debug=True: the row form raises there too."""
    from cudajit import _backend

    def row(a, k, out):
        out[0] = a[k][0]

    a, out = rng.standard_normal((4, 3)), np.zeros(1)
    kernels = [cuda.jit(debug=True)(row)]
    if "cpu" in _backend.available():
        with _backend.use("cpu"):
            kernels.append(cuda.jit(row))
            for kernel in kernels:
                kernel[1, 1](a, 3, out)
                assert out[0] == a[3, 0]
                with pytest.raises(IndexError, match="index 4 is out of bounds for axis 0 with size 4"):
                    kernel[1, 1](a, 4, out)


def test_constant_zero_step_is_a_compile_error():
    from cudajit.errors import TypingError

    @cuda.jit
    def zero_step(a, out):
        out[0] = a[::0][0]

    with pytest.raises(TypingError, match="slice step cannot be zero"):
        zero_step[1, 1](np.zeros(3), np.zeros(1))
