"""Functions defined inside kernels and device functions (``def`` and ``lambda``; numba-cuda's inner functions and
its make_function pass): called directly they close over anything (arrays, values that change per thread, read
at call time); passed to another device function they close over constants. Each thread's work is a function
``body(a, out, i)`` run twice: compiled as a device function that a kernel calls for each i, and as plain Python
(with Python's own closures) for each i; the results must agree. Numba's limits are errors naming the line."""
import io
import math

import numpy as np
import pytest

from cudajit import cuda
from cudajit.errors import TypingError, UnsupportedError

SCALE = 1.5                                     # a module global an inner function reads


def _consumer(func, *args):
    return func(*args)


def _apply_twice(func, x):
    return func(func(x))


def _kw_consumer(func, *args):
    x, y = args
    return func(x, y, scale=2.0) + func(x, y, shift=1.0) + func(x, y)


consumer = cuda.jit(device=True)(_consumer)
apply_twice = cuda.jit(device=True)(_apply_twice)
kw_consumer = cuda.jit(device=True)(_kw_consumer)
DEVICE = {"consumer": consumer, "apply_twice": apply_twice, "kw_consumer": kw_consumer}
PYTHON = {"consumer": _consumer, "apply_twice": _apply_twice, "kw_consumer": _kw_consumer}


def _check(make, a, out_shape, rtol=1e-12):
    """Run ``make(functions)``'s body for every row of ``a``: in a kernel (device functions) and in Python."""
    dev_body = cuda.jit(device=True)(make(DEVICE))

    @cuda.jit
    def kernel(a, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            dev_body(a, out, i)

    got = np.zeros(out_shape)
    kernel[(a.shape[0] + 63) // 64, 64](a, got)
    want = np.zeros(out_shape)
    py_body = make(PYTHON)
    for i in range(a.shape[0]):
        py_body(a, want, i)
    np.testing.assert_allclose(got, want, rtol=rtol)
    assert np.any(want != 0)
    return got


def test_captures_scalars_that_change_per_thread_and_array_views(backend, rng):
    def make(f):
        def body(a, out, i):
            row = a[i]                      # a view, captured: writes through it reach the array
            orow = out[i]
            s = a[i, 0] * 2.0               # differs in each thread

            def put(j, v):
                orow[j] = row[j] * v + s

            for j in range(a.shape[1]):
                put(j, SCALE)
            scaled = lambda x: x * s        # noqa: E731 (numba-cuda treats it as a def)
            orow[0] = scaled(orow[0])
        return body

    _check(make, rng.random((77, 6)), (77, 6))


def test_called_in_a_loop_sees_the_current_values(backend, rng):
    def make(f):
        def body(a, out, i):
            acc = 0.0
            w = 1.0

            def step(x):
                return x * w + j            # j and w: their values at each call

            for j in range(a.shape[1]):
                w = a[i, j]
                acc += step(2.0)
            w = -1.0
            out[i, 0] = acc
            out[i, 1] = step(3.0)           # after the loop: j is its last value, w the one assigned since
        return body

    _check(make, rng.random((50, 7)), (50, 2))


def test_passed_to_two_consumers_with_constant_captures(backend, rng):
    def make_named(f):
        consumer_, apply_twice_ = f["consumer"], f["apply_twice"]

        def body(a, out, i):
            k = 3
            c = 0.25

            def poly(x):
                return (x + c) * k + SCALE

            x = a[i, 0]
            out[i, 0] = consumer_(poly, x)
            out[i, 1] = apply_twice_(poly, x)
            out[i, 2] = poly(x) + consumer_(lambda: 7.0) + apply_twice_(lambda v: v * 0.5, x)
        return body

    _check(make_named, rng.random((40, 1)), (40, 3))


def test_nested_and_sibling_inner_functions_forward_their_captures(backend, rng):
    def make(f):
        def body(a, out, i):
            y = a[i, 0]

            def add_y(x):
                return x + y

            def twice_add_y(x):
                return add_y(x) * 2.0             # calls a sibling that captures y

            def outer(x):
                z = a[i, 1]

                def inner(q):
                    return twice_add_y(q) + z * y  # closure in a closure
                return inner(x) + inner(1.0)

            out[i, 0] = outer(a[i, 2])
            out[i, 1] = twice_add_y(0.5)
        return body

    _check(make, rng.random((33, 3)), (33, 2))


def test_defaults_and_keyword_arguments(backend, rng):
    def make(f):
        kw_consumer_ = f["kw_consumer"]

        def body(a, out, i):
            t = 12.0

            def g(x, y, scale=3.0, shift=0.5):
                return (x + y) * scale + shift + t

            x, y = a[i, 0], a[i, 1]
            out[i, 0] = g(x, y) + g(x, y, 1.0) + g(x, y, shift=2.0) + g(y=x, x=y, scale=0.5)
            out[i, 1] = kw_consumer_(g, x, y)     # the consumer overrides the defaults by keyword
        return body

    _check(make, rng.random((21, 2)), (21, 2))


def test_star_args_device_functions(backend, rng):
    @cuda.jit(device=True)
    def total(*xs):
        s = 0.0
        for k in range(len(xs)):
            s += xs[k]
        return s + len(xs)

    @cuda.jit(device=True)
    def count(*xs):
        return len(xs)

    @cuda.jit(device=True)
    def mixed(scale, *rest):
        a, b, c = rest
        return scale * (a + b) + c

    @cuda.jit
    def kernel(a, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            out[i, 0] = total(a[i, 0], a[i, 1], a[i, 2])
            out[i, 1] = count() + total(a[i, 0]) + count(a, i, 1.0)
            out[i, 2] = mixed(2.0, a[i, 0], np.float32(a[i, 1]), 3)

    a = rng.random((30, 3))
    out = np.zeros((30, 3))
    kernel[1, 32](a, out)
    want = np.stack([a.sum(1) + 3, 0 + (a[:, 0] + 1) + 3,
                     2.0 * (a[:, 0] + a[:, 1].astype(np.float32)) + 3], axis=1)
    np.testing.assert_allclose(out, want, rtol=1e-6)


def test_inner_function_sizes_a_local_array_with_a_captured_constant(backend, rng):
    @cuda.jit
    def kernel(a, out):
        i = cuda.grid(1)
        n = 4

        def ramp_sum(v):
            tmp = cuda.local.array(n, np.float64)      # n: the caller's constant, as a shape must be
            for j in range(n):
                tmp[j] = v * j
            s = 0.0
            for j in range(n):
                s += tmp[j]
            return s

        if i < a.size:
            out[i] = ramp_sum(a[i])

    a = rng.random(90)
    out = np.zeros(90)
    kernel[2, 64](a, out)
    np.testing.assert_allclose(out, a * 6.0)


def test_inner_function_with_shared_memory_and_a_barrier(backend, rng):
    @cuda.jit
    def kernel(a, out):
        tile = cuda.shared.array(64, np.float64)
        t = cuda.threadIdx.x
        i = cuda.grid(1)

        def load():
            tile[t] = a[i] if i < a.size else 0.0
            cuda.syncthreads()

        def neighbour_sum():
            return tile[t] + tile[(t + 1) % 64]

        load()
        if i < a.size:
            out[i] = neighbour_sum()

    a = rng.random(256)
    out = np.zeros(256)
    kernel[4, 64](a, out)
    blocks = a.reshape(4, 64)
    np.testing.assert_allclose(out, (blocks + np.roll(blocks, -1, axis=1)).ravel())


def test_lambda_in_a_kernel_and_the_typed_listing(backend, rng):
    @cuda.jit
    def kernel(a, out):
        i = cuda.grid(1)
        if i < a.size:
            sq = lambda x: x * x + math.pi     # noqa: E731
            out[i] = sq(a[i]) + (lambda q, r=2.0: q * r)(a[i])

    a = rng.random(100)
    out = np.zeros(100)
    kernel[2, 64](a, out)
    np.testing.assert_allclose(out, a * a + math.pi + a * 2.0)
    listing = io.StringIO()
    kernel.inspect_types(file=listing)
    assert "sq :: closure(<lambda>)" in listing.getvalue()
    assert "<lambda> (float64, float64) -> float64" in listing.getvalue()


# ---- Numba's limits, with file and line ---------------------------------------------------------------------------

def _compile(fn, sig="void(float64[:])"):
    return cuda.jit(sig)(fn)


def test_escaping_function_must_close_over_constants(backend):
    def nonconst(a):
        i = cuda.grid(1)
        y = a[i]

        def f(x):
            return x + y

        a[i] = consumer(f, 1.0)

    with pytest.raises(TypingError, match=r"test_inner_functions.py:\d+: Cannot capture the non-constant value "
                                          r"associated with variable 'y' in a function that may escape"):
        _compile(nonconst)

    def twice_defined(a):
        if a[0] > 0:
            x = 3.0
        else:
            x = 6.0

        def inner(y):
            return y + x

        a[0] = consumer(inner, 1.0)

    with pytest.raises(TypingError, match=r"Cannot capture a constant value for variable 'x' as there are multiple "
                                          r"definitions present"):
        _compile(twice_defined)


def test_recursion_nonlocal_and_returning_are_refused(backend):
    def recursive(a):
        def fact(n):
            return 1.0 if n <= 1 else n * fact(n - 1)
        a[0] = fact(5)

    with pytest.raises(UnsupportedError, match=r"test_inner_functions.py:\d+: the inner function 'fact' calls "
                                               r"itself .* must not be recursive"):
        _compile(recursive)

    def assigns_nonlocal(a):
        x = 1.0

        def f():
            nonlocal x
            x = 2.0
        f()
        a[0] = x

    with pytest.raises(UnsupportedError, match=r"assigning the enclosing function's variable 'x' from the inner "
                                               r"function 'f'"):
        _compile(assigns_nonlocal)

    @cuda.jit(device=True)
    def make_adder():
        def add(x):
            return x + 1.0
        return add

    def returns_function(a):
        a[0] = make_adder()(1.0)

    with pytest.raises(TypingError, match=r"the inner function 'add' can only be called or passed"):
        _compile(returns_function)


def test_unsupported_inner_definitions_are_refused_at_their_line(backend):
    def kwonly(a):
        def f(x, *, y=1.0):
            return x + y
        a[0] = f(1.0)

    with pytest.raises(UnsupportedError, match=r"test_inner_functions.py:\d+: \*\*kwargs, keyword-only .* inner "
                                               r"function 'f'"):
        _compile(kwonly)

    def decorated(a):
        @cuda.jit(device=True)
        def f(x):
            return x
        a[0] = f(1.0)

    with pytest.raises(UnsupportedError, match=r"a decorator on the function 'f' defined inside a kernel"):
        _compile(decorated)

    def star_kernel(*a):
        a[0][0] = 1.0

    with pytest.raises(UnsupportedError, match=r"\*args, \*\*kwargs, keyword-only"):
        cuda.jit(star_kernel)[1, 1](np.zeros(1))

    def wrong_arity(a):
        def f(x):
            return x
        a[0] = f(1.0, 2.0)

    with pytest.raises(TypingError, match=r"test_inner_functions.py:\d+: f\(\) takes 1 arguments, 2 given"):
        _compile(wrong_arity)
