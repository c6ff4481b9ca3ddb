"""Device functions: return types inferred and unified, tuples in and out, specialisation per argument types,
calls between device functions, kernels called as device functions, defaults and keyword arguments."""
import math

import numpy as np
import pytest

from cudajit import cuda, int8, int32


@cuda.jit(device=True)
def clamp(x, lo, hi):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


@cuda.jit(device=True)
def divmod_pair(a, b):
    return a // b, a % b


@cuda.jit(device=True)
def norm2(p):
    x, y = p
    return math.sqrt(x * x + y * y)


@cuda.jit(device=True)
def scaled(x, factor=2):
    return x * factor


@cuda.jit(device=True)
def twice_clamped(x):
    return scaled(clamp(x, 0, 10))       # device functions calling device functions


@cuda.jit(device=True)
def store_sum(out, i, a, b):
    out[i] = a + b                     # no return value: a void function writing an array


@cuda.jit
def use_devfuncs(a, b, out_f, out_i):
    i = cuda.grid(1)
    if i < a.size:
        out_f[i, 0] = clamp(a[i], -1.0, 1.0)
        q, r = divmod_pair(b[i], 3)
        out_i[i, 0] = q
        out_i[i, 1] = r
        out_f[i, 1] = norm2((a[i], 2.0))
        out_i[i, 2] = scaled(b[i])
        out_i[i, 3] = scaled(b[i], factor=5)
        out_i[i, 4] = twice_clamped(b[i])
        out_i[i, 5] = clamp(b[i], 0, 4)      # the same function specialised for ints
        store_sum(out_f[:, 2], i, a[i], 1.0)


def test_device_functions(backend, rng):
    a = rng.normal(0, 2, 40)
    b = rng.integers(-20, 20, 40)
    out_f = np.zeros((40, 3))
    out_i = np.zeros((40, 6), np.int64)
    use_devfuncs[1, 64](a, b, out_f, out_i)
    np.testing.assert_array_equal(out_f[:, 0], np.clip(a, -1, 1))
    np.testing.assert_array_equal(out_i[:, 0], b // 3)
    np.testing.assert_array_equal(out_i[:, 1], b % 3)
    np.testing.assert_allclose(out_f[:, 1], np.sqrt(a * a + 4), rtol=1e-15)
    np.testing.assert_array_equal(out_i[:, 2], b * 2)
    np.testing.assert_array_equal(out_i[:, 3], b * 5)
    np.testing.assert_array_equal(out_i[:, 4], np.clip(b, 0, 10) * 2)
    np.testing.assert_array_equal(out_i[:, 5], np.clip(b, 0, 4))
    np.testing.assert_array_equal(out_f[:, 2], a + 1)


@cuda.jit
def inner_kernel(a, i):
    a[i] += 100


@cuda.jit
def outer_kernel(a):
    i = cuda.grid(1)
    if i < a.size:
        inner_kernel(a, i)                # a kernel's function called as a device function


def test_kernel_called_as_device_function(backend):
    a = np.arange(5, dtype=np.int64)
    outer_kernel[1, 8](a)
    np.testing.assert_array_equal(a, np.arange(5) + 100)


@cuda.jit(device=True)
def block_sum(buf, tid, n):
    s = n // 2
    while s > 0:
        if tid < s:
            buf[tid] += buf[tid + s]
        cuda.syncthreads()
        s //= 2
    return buf[0]


@cuda.jit
def reduce_with_devfunc(a, out):
    buf = cuda.shared.array(64, np.float64)
    tid = cuda.threadIdx.x
    buf[tid] = a[tid]
    cuda.syncthreads()
    total = block_sum(buf, tid, 64)
    if tid == 0:
        out[0] = total


def test_barrier_inside_device_function(backend, rng):
    a = rng.integers(0, 10, 64).astype(np.float64)
    out = np.zeros(1)
    reduce_with_devfunc[1, 64](a, out)
    assert out[0] == a.sum()


def test_device_function_eager_signature():
    from cudajit.compiler import compile_device, types
    res = compile_device(clamp.py_func if hasattr(clamp, "py_func") else clamp.__cudajit_pyfunc__,
                         (types.float32, types.float32, types.float32))
    assert str(res.return_type) == "float32"
    assert "CJ_DEVICE float" in res.source


@cuda.jit(device=True)
def fib(n):
    if n >= 2:
        return fib(n - 1) + fib(n - 2)        # self-recursion: the type comes from the base case below
    return n


@cuda.jit(device=True)
def gcd(a, b):
    if b == 0:
        return a
    return gcd(b, a % b)


@cuda.jit(device=True)
def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)                      # mutual recursion: is_odd is declared before is_even's body


@cuda.jit(device=True)
def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)


@cuda.jit("float64(float64, int64)", device=True)
def power_rec(x, n):                         # eager: compiled before the name 'power_rec' is bound
    if n == 0:
        return 1.0
    if n % 2 == 1:
        return x * power_rec(x, n - 1)
    h = power_rec(x, n // 2)
    return h * h


@cuda.jit
def use_recursion(n, x, out_i, out_f):
    i = cuda.grid(1)
    if i < n.size:
        out_i[i, 0] = fib(n[i])
        out_i[i, 1] = gcd(n[i] * 6, 84)
        out_i[i, 2] = is_even(n[i])
        out_f[i] = power_rec(x[i], n[i])


def test_recursive_device_functions(backend, rng):
    n = rng.integers(0, 16, 40)
    x = rng.uniform(0.5, 1.5, 40)
    out_i = np.zeros((40, 3), np.int64)
    out_f = np.zeros(40)
    use_recursion[1, 64](n, x, out_i, out_f)
    fibs = [0, 1]
    while len(fibs) < 16:
        fibs.append(fibs[-1] + fibs[-2])
    np.testing.assert_array_equal(out_i[:, 0], [fibs[v] for v in n])
    np.testing.assert_array_equal(out_i[:, 1], np.gcd(n * 6, 84))
    np.testing.assert_array_equal(out_i[:, 2], n % 2 == 0)
    np.testing.assert_allclose(out_f, x ** n, rtol=1e-13)


@cuda.jit(device=True)
def count_and_split(counter, x):
    cuda.atomic.add(counter, 0, 1)            # a side effect: must happen once per call
    return x // 10, x % 10


@cuda.jit
def unpack_call(a, counter, out):
    i = cuda.grid(1)
    if i < a.size:
        tens, ones = count_and_split(counter, a[i])
        out[i, 0] = tens
        out[i, 1] = ones


def test_unpacking_a_call_runs_it_once(backend, rng):
    a = rng.integers(0, 1000, 50)
    counter = np.zeros(1, np.int64)
    out = np.zeros((50, 2), np.int64)
    unpack_call[1, 64](a, counter, out)
    assert counter[0] == 50
    np.testing.assert_array_equal(out, np.stack([a // 10, a % 10], axis=1))


@cuda.jit(device=True)
def fib_ternary(n):
    return n if n < 2 else fib_ternary(n - 1) + fib_ternary(n - 2)     # the base case in a conditional expression


@cuda.jit
def use_fib_ternary(n, out):
    i = cuda.grid(1)
    if i < n.size:
        out[i] = fib_ternary(n[i])


def test_recursion_base_case_in_conditional_expression(backend, rng):
    n = rng.integers(0, 20, 30)
    out = np.zeros(30, np.int64)
    use_fib_ternary[1, 32](n, out)
    fibs = [0, 1]
    while len(fibs) < 20:
        fibs.append(fibs[-1] + fibs[-2])
    np.testing.assert_array_equal(out, [fibs[v] for v in n])


@cuda.jit(device=True)
def fib_pair(n):
    if n <= 1:
        return (n, 0)
    a, b = fib_pair(n - 1)                    # a returned tuple built from its own result's parts: it converges
    return (a + b, a)


@cuda.jit(device=True)
def sum_down(n):
    if n <= 0:
        return 0
    t = (n, sum_down(n - 1))                  # a tuple holding its own result, but not returned: it converges
    return t[0] + t[1]


@cuda.jit
def use_tuple_recursion(n, out):
    i = cuda.grid(1)
    if i < n.size:
        out[i, 0], out[i, 1] = fib_pair(n[i])
        out[i, 2] = sum_down(n[i])


def test_recursion_through_tuples_that_converge(backend, rng):
    """Only a returned tuple holding a recursive call's result itself is refused (numba-cuda's "Return type of
    recursive function does not converge", tests/test_compiler_errors.py); these compile and run."""
    n = rng.integers(0, 25, 40)
    out = np.zeros((40, 3), np.int64)
    use_tuple_recursion[1, 64](n, out)
    fibs = [0, 1]
    while len(fibs) < 26:
        fibs.append(fibs[-1] + fibs[-2])
    np.testing.assert_array_equal(out[:, 0], [fibs[v] for v in n])
    np.testing.assert_array_equal(out[:, 1], [fibs[v - 1] if v > 1 else 0 for v in n])
    np.testing.assert_array_equal(out[:, 2], n * (n + 1) // 2)


LOCAL_N = 400 * 1024 // 8                    # 400 KiB of float64: legal (CUDA's limit is 512 KiB per thread)


@cuda.jit(device=True)
def local_scratch_sum(x, k):
    scratch = cuda.local.array(LOCAL_N, dtype=np.float64)
    for j in range(LOCAL_N):
        scratch[j] = x * j
    cuda.syncthreads()
    return scratch[k] + scratch[LOCAL_N - 1]


@cuda.jit
def big_local_with_barrier(x, out):
    i = cuda.grid(1)
    out[i] = local_scratch_sum(x[i], i)


def test_local_array_near_the_limit_with_barriers(backend, rng):
    # On the CPU the threads run as fibers (syncthreads); their stacks must hold the 400 KiB array. (A GPU reserves
    # local memory for every thread it can hold at once: 400 KiB each can exceed an 80 GB card, so CPU only.)
    if backend != "cpu":
        pytest.skip("fiber stacks are the CPU backend's")
    x = rng.standard_normal(64)
    out = np.zeros(64)
    big_local_with_barrier[2, 32](x, out)
    i = np.arange(64)
    np.testing.assert_array_equal(out, x * i + x * (LOCAL_N - 1))


def test_a_numba_jit_function_is_a_device_function(backend, rng):
    """numba-cuda's CPU/GPU compatibility example: a @numba.jit function called from a kernel is compiled from
    its Python for the device."""
    numba = pytest.importorskip("numba")

    @numba.jit
    def business_logic(x, y, z):
        return 4 * z * (2 * x - (4 * y) / 2 * math.pi)

    @cuda.jit
    def f(res, xs, ys, zs):
        i = cuda.grid(1)
        if i < len(xs):
            res[i] = business_logic(xs[i], ys[i], zs[i])

    xs, ys, zs = (rng.integers(-50, 50, 64) for _ in range(3))
    res = np.zeros(64)
    f.forall(64)(res, xs, ys, zs)
    np.testing.assert_allclose(res, [business_logic.py_func(*t) for t in zip(xs, ys, zs)], rtol=1e-15)


def test_cudajit_njit_is_a_device_function_and_python_on_the_host(backend, rng):
    """`from numba import njit` -> `from cudajit import njit`: numba-cuda compiles a @njit function a kernel calls
    for the device; cudajit does, and on the host runs its Python (cudajit has no CPU compiler), with a warning."""
    import cudajit
    from cudajit.errors import NumbaPerformanceWarning

    @cudajit.njit(cache=True)
    def rotate(x, y, angle):
        return x * math.cos(angle) - y * math.sin(angle), x * math.sin(angle) + y * math.cos(angle)

    @cudajit.jit
    def norm2(x, y):
        return x * x + y * y

    @cuda.jit
    def f(xs, ys, angles, out):
        i = cuda.grid(1)
        if i < xs.size:
            x, y = rotate(xs[i], ys[i], angles[i])
            out[i] = norm2(x, y) + x

    xs, ys, angles = (rng.standard_normal(100) for _ in range(3))
    out = np.zeros(100)
    f.forall(100)(xs, ys, angles, out)
    rx = xs * np.cos(angles) - ys * np.sin(angles)
    np.testing.assert_allclose(out, xs ** 2 + ys ** 2 + rx, rtol=1e-12)
    with pytest.warns(NumbaPerformanceWarning, match="'norm2' runs as plain Python"):
        assert norm2(3.0, 4.0) == 25.0
    assert rotate.py_func(1.0, 0.0, 0.0) == (1.0, 0.0) and rotate.__name__ == "rotate"
    assert list(cudajit.prange(2, 9, 3)) == [2, 5, 8]             # Numba: outside parallel code, prange is range


@cuda.jit(device=True)
def weighted(a, b, c):
    return a + 2 * b + 3 * c


def test_starred_arguments_spread_a_tuple(backend, rng):
    """f(*t) passes t's elements (Python's call syntax; numba-cuda accepts it): a tuple variable, one built in
    place, and a call's result, which runs once."""
    @cuda.jit
    def f(xs, counter, out):
        i = cuda.grid(1)
        if i < xs.shape[0]:
            t = (xs[i, 0], xs[i, 1], xs[i, 2])
            out[i, 0] = weighted(*t)
            out[i, 1] = weighted(xs[i, 2], *(xs[i, 0], xs[i, 1]))
            out[i, 2] = weighted(*divmod_pair(xs[i, 0], cuda.atomic.add(counter, i, 1) + 2.0), 1.0)

    xs = rng.uniform(1, 10, (50, 3))
    counter, out = np.zeros(50), np.zeros((50, 3))
    f.forall(50)(xs, counter, out)
    np.testing.assert_array_equal(counter, 1)         # the call under the * ran once
    np.testing.assert_allclose(out[:, 0], xs[:, 0] + 2 * xs[:, 1] + 3 * xs[:, 2], rtol=1e-14)
    np.testing.assert_allclose(out[:, 1], xs[:, 2] + 2 * xs[:, 0] + 3 * xs[:, 1], rtol=1e-14)
    np.testing.assert_allclose(out[:, 2], xs[:, 0] // 2 + 2 * (xs[:, 0] % 2) + 3, rtol=1e-14)


def test_starred_argument_must_be_a_tuple(backend):
    from cudajit.errors import TypingError

    @cuda.jit
    def f(a):
        a[0] = weighted(*a)

    with pytest.raises(TypingError, match=r"test_kernels_devfuncs.py:\d+: \*args in a call must be a tuple, not array"):
        f[1, 1](np.zeros(3))




def test_branches_on_ndim_and_tuple_length_are_pruned(backend, rng):
    # One device function for 1-d and 2-d arrays (a stream-compaction kernel's helper): Numba rewrites
    # array.ndim (and len of a tuple) to a constant and prunes the other branch, so array[i][j] of a 1-d array is
    # never typed. Defined here: eager signatures compile at decoration.
    @cuda.jit([int8(int8[:]), int8(int32[:]), int8(int8[:, :]), int8(int32[:, :])], device=True)
    def any_nonzero(array):
        ret = False
        for i in range(array.shape[0]):
            if array.ndim == 2:
                for j in range(array.shape[1]):
                    if array[i][j] != 0:
                        ret = True
            elif array[i] != 0:
                ret = True
        return ret

    @cuda.jit
    def rows_nonzero(rows, t, out):
        i = cuda.grid(1)
        if i < rows.shape[0]:
            if rows.ndim == 2 or len(t) != 2:
                out[i] = rows[i, 0, 0, 0]                  # would not type: pruned
            else:
                out[i] = any_nonzero(rows[i]) + 2 * any_nonzero(rows[i, :, 0]) + t[1]

    for dtype in (np.int8, np.int32):
        rows = rng.integers(0, 2, (60, 3, 4)).astype(dtype) * rng.integers(0, 2, (60, 1, 1)).astype(dtype)
        out = np.zeros(60, np.int64)
        rows_nonzero[1, 64](rows, (7, 10), out)
        any2 = (rows != 0).any(axis=(1, 2))
        any1 = (rows[:, :, 0] != 0).any(axis=1)
        np.testing.assert_array_equal(out, any2 + 2 * any1 + 10)


def test_starred_tuples_in_tuple_displays(backend, rng):
    # (*indices, 0) builds a longer tuple, as Numba's rewrite of LIST_TO_TUPLE does: a cyclic-spectrum folding
    # kernel indexes its (lag, bin, re/im) accumulators with it inside a device function
    from cudajit.errors import TypingError
    calls = np.zeros(1, np.int64)

    @cuda.jit(device=True)
    def add_pair(arr, indices, v1, v2):
        cuda.atomic.add(arr, (*indices, 0), v1)
        cuda.atomic.add(arr, (*indices, 1), v2)

    @cuda.jit(device=True)
    def counted(k, out):
        cuda.atomic.add(out, 0, 1)
        return k, k + 1

    @cuda.jit
    def fold(bins, vals, acc, mixed, counter):
        i = cuda.grid(1)
        if i < bins.shape[0]:
            idx = (i % 3, bins[i])
            add_pair(acc, idx, vals[i], -2 * vals[i])
            t = (*counted(i, counter), *idx, 7)        # a call under * runs once
            mixed[i, 0] = t[0] + 10 * t[1] + 100 * t[2] + 1000 * t[3] + 10000 * t[4]
            mixed[i, 1] = len((*idx, *idx))

    n = 90
    bins = rng.integers(0, 4, n)
    vals = rng.normal(size=n)
    acc = np.zeros((3, 4, 2))
    mixed = np.zeros((n, 2))
    fold[2, 64](bins, vals, acc, mixed, calls)
    want = np.zeros((3, 4, 2))
    for i in range(n):
        want[i % 3, bins[i], 0] += vals[i]
        want[i % 3, bins[i], 1] -= 2 * vals[i]
    np.testing.assert_allclose(acc, want, rtol=1e-12, atol=1e-12)
    i = np.arange(n)
    np.testing.assert_array_equal(mixed[:, 0], i + 10 * (i + 1) + 100 * (i % 3) + 1000 * bins + 70000)
    np.testing.assert_array_equal(mixed[:, 1], 4)
    assert calls[0] == n

    @cuda.jit
    def bad(a):
        a[0] = len((*a, 1))

    with pytest.raises(TypingError, match=r"\*args in a tuple display must be a tuple, not array"):
        bad[1, 1](np.zeros(3))
