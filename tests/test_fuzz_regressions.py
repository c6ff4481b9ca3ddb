"""Minimal programs of the divergences the differential tester (tools/fuzz) found, each run on every backend
and compared with Python's result (or, where Numba's types decide it, the value Numba computes). One test per
divergence; tools/fuzz/README.md lists them."""
import numpy as np

from cudajit import boolean, complex64, cuda


# ---- bool() and boolean() of a complex number (Numba: its truth; cudajit refused it: TypingError) ----------------
@cuda.jit
def complex_truth(z, out):
    i = cuda.grid(1)
    if i < z.size:
        out[i, 0] = bool(z[i])
        out[i, 1] = boolean(z[i])
        out[i, 2] = bool(complex64(z[i]))


def test_bool_of_complex_is_its_truth(backend):
    z = np.array([0j, 1j, -0.0 + 0j, complex(np.nan, 0), 1 + 0j, -2j, 0.5 - 0.5j, complex(0, -0.0)])
    out = np.zeros((z.size, 3), np.bool_)
    complex_truth[1, 16](z, out)
    want = np.array([bool(x) for x in z])
    np.testing.assert_array_equal(out, np.stack([want] * 3, axis=1))


# ---- a def inside a while loop that has an else (the desugaring of while-else read .orelse of the def) -----------
@cuda.jit(device=True)
def def_in_while_else(t):
    w = 0
    while w < t:
        w += 1

        def g():
            return 2.0
        if w == 3:
            break
    else:
        w += 5
    return w


@cuda.jit
def run_def_in_while_else(out):
    t = cuda.grid(1)
    out[t] = def_in_while_else(t)


def test_def_inside_a_while_else_loop(backend):
    out = np.zeros(8, np.int64)
    run_def_in_while_else[1, 8](out)
    np.testing.assert_array_equal(out, [def_in_while_else.py_func(t) for t in range(8)])
