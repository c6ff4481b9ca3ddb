"""Control flow in kernels: if/elif/else, for over range (1-3 arguments, negative steps), while, break,
continue, early return, tuple unpacking, variables that live past their block."""
import numpy as np

from cudajit import cuda


@cuda.jit
def classify(a, out):
    i = cuda.grid(1)
    if i >= a.size:
        return                       # early return
    x = a[i]
    if x < -1:
        out[i] = -2
    elif x < 0:
        out[i] = -1
    elif x == 0:
        out[i] = 0
    else:
        out[i] = 1


def test_if_elif_else_and_early_return(backend):
    a = np.array([-5, -0.5, 0, 3, 7.0])
    out = np.full(8, 99, np.int64)
    classify[1, 8](a, out)
    np.testing.assert_array_equal(out, [-2, -1, 0, 1, 1, 99, 99, 99])


@cuda.jit
def ranges(out):
    i = cuda.grid(1)
    if i == 0:
        k = 0
        for j in range(5):
            out[k] = j
            k += 1
        for j in range(2, 6):
            out[k] = j
            k += 1
        for j in range(10, 0, -3):
            out[k] = j
            k += 1
        for j in range(0, 7, 2):
            out[k] = j
            k += 1
        for j in range(3, 3):
            out[k] = 100
        step = -2
        for j in range(4, -3, step):
            out[k] = j
            k += 1
        out[k] = j                   # the loop variable keeps its last value
        k += 1
        out[k] = k


def test_for_range_forms(backend):
    out = np.full(40, -99, np.int64)
    ranges[1, 1](out)
    expect = (list(range(5)) + list(range(2, 6)) + list(range(10, 0, -3)) + list(range(0, 7, 2))
              + list(range(4, -3, -2)))
    expect += [-2]
    expect += [len(expect)]
    np.testing.assert_array_equal(out[:len(expect)], expect)


@cuda.jit
def break_continue(a, out):
    i = cuda.grid(1)
    if i < out.size:
        total = 0
        for k in range(a.shape[1]):
            v = a[i, k]
            if v < 0:
                continue
            if v > 100:
                break
            total += v
        out[i] = total


def test_break_and_continue(backend, rng):
    a = rng.integers(-50, 120, (30, 20))
    out = np.zeros(30, np.int64)
    break_continue[1, 32](a, out)
    for i in range(30):
        t = 0
        for v in a[i]:
            if v < 0:
                continue
            if v > 100:
                break
            t += v
        assert out[i] == t


@cuda.jit
def collatz(a, out):
    i = cuda.grid(1)
    if i < a.size:
        n = a[i]
        steps = 0
        while n != 1:
            if n % 2 == 0:
                n //= 2
            else:
                n = 3 * n + 1
            steps += 1
        out[i] = steps


def test_while_loop(backend):
    a = np.arange(1, 65, dtype=np.int64)
    out = np.zeros(64, np.int64)
    collatz[2, 32](a, out)

    def steps(n):
        s = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            s += 1
        return s
    np.testing.assert_array_equal(out, [steps(int(n)) for n in a])


@cuda.jit
def while_true_break(out):
    i = cuda.grid(1)
    k = 0
    while True:
        k += 1
        if k * k > i:
            break
    out[i] = k


def test_while_true_with_break(backend):
    out = np.zeros(50, np.int64)
    while_true_break[1, 50](out)
    np.testing.assert_array_equal(out, [next(k for k in range(1, 100) if k * k > i) for i in range(50)])


@cuda.jit
def scoping(a, out):
    i = cuda.grid(1)
    if i < a.size:
        if a[i] > 0:
            y = a[i] * 2
        else:
            y = -a[i]
        out[i] = y                   # assigned in both branches, used after: hoisted declaration
        for k in range(3):
            last = k * a[i]
        out[i] += last               # assigned in a loop, used after it


def test_variables_used_after_their_block(backend):
    a = np.array([1.5, -2.0, 3.0])
    out = np.zeros(3)
    scoping[1, 3](a, out)
    np.testing.assert_array_equal(out, [1.5 * 2 + 2 * 1.5, 2.0 + 2 * -2.0, 6.0 + 6.0])


@cuda.jit
def swap_and_unpack(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        x, y = a[i, 0], a[i, 1]
        x, y = y, x                  # Python evaluates the right side first
        t = (x, y, x + y)
        p, q, r = t
        out[i, 0] = p
        out[i, 1] = q
        out[i, 2] = r
        out[i, 3] = t[2]
        out[i, 4] = t[-3]


def test_tuple_swap_and_unpack(backend):
    a = np.array([[1, 2], [3, 4]], np.int64)
    out = np.zeros((2, 5), np.int64)
    swap_and_unpack[1, 2](a, out)
    np.testing.assert_array_equal(out, [[2, 1, 3, 3, 2], [4, 3, 7, 7, 4]])


@cuda.jit
def loop_carried(a, out):
    i = cuda.grid(1)
    if i == 0:
        for k in range(a.size):
            if k > 0:
                out[k] = a[k] - prev      # value from the previous iteration
            prev = a[k]


def test_loop_carried_variable(backend):
    a = np.array([1, 4, 9, 16, 25], np.int64)
    out = np.zeros(5, np.int64)
    loop_carried[1, 1](a, out)
    np.testing.assert_array_equal(out, [0, 3, 5, 7, 9])


@cuda.jit
def nested_loops(out):
    i = cuda.grid(1)
    if i == 0:
        n = 0
        for a in range(4):
            for b in range(a):
                if (a + b) % 3 == 0:
                    continue
                n += a * 10 + b
        out[0] = n


def test_nested_loops(backend):
    out = np.zeros(1, np.int64)
    nested_loops[1, 1](out)
    assert out[0] == sum(a * 10 + b for a in range(4) for b in range(a) if (a + b) % 3)


@cuda.jit
def range_int32(n, out):
    for i in range(n):
        out[i] = i
    out[n] = i                      # i is int32 here, like the range's argument


def test_range_over_int32_argument(backend):
    out = np.zeros(6, np.int64)
    range_int32[1, 1](np.int32(5), out)
    np.testing.assert_array_equal(out, [0, 1, 2, 3, 4, 4])


@cuda.jit
def iterate_array(a, out):
    i = cuda.grid(1)
    if i == 0:
        s = 0.0
        for x in a:
            s += x
        out[0] = s
        t = (1, 2, 3)
        m = 0
        for v in t:
            m = m * 10 + v
        out[1] = m


def test_for_over_array_and_tuple(backend):
    a = np.arange(10.0)
    out = np.zeros(2)
    iterate_array[1, 1](a, out)
    np.testing.assert_array_equal(out, [45.0, 123])


def test_prange_is_range_in_kernels(backend, rng):
    """Numba's prange outside parallel code is range: numba-cuda compiles it so in kernels, by either spelling."""
    import cudajit
    from cudajit import prange

    @cuda.jit
    def row_sums(a, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            acc = 0.0
            for j in prange(a.shape[1]):
                acc += a[i, j]
            for j in cudajit.prange(1, a.shape[1], 2):
                acc += a[i, j]
            out[i] = acc

    a = rng.random((50, 9))
    out = np.zeros(50)
    row_sums.forall(50)(a, out)
    np.testing.assert_allclose(out, a.sum(axis=1) + a[:, 1::2].sum(axis=1), rtol=1e-12)


@cuda.jit
def rebind_to_rows(triangles, r0s, out):
    # disimpy's test kernels: each parameter is rebound to its own row (3-d -> 2-d, 2-d -> 1-d), as Numba's SSA
    # versions of a name type apart; `n` changes from int to tuple to float the same way
    thread_id = cuda.grid(1)
    if thread_id >= r0s.shape[0]:
        return
    r0s = r0s[thread_id]
    triangles = triangles[thread_id]
    n = r0s.shape[0]
    acc = 0.0
    for i in range(n):
        acc += triangles[i, i] * r0s[i]
    n = (acc, triangles[0, 1])
    out[thread_id, 0] = n[0] - n[1]
    n = acc * 2.0
    out[thread_id, 1] = n


def test_rebinding_a_name_to_another_type(backend, rng):
    tri = rng.standard_normal((70, 3, 3))
    r0 = rng.standard_normal((70, 3))
    out = np.zeros((70, 2))
    rebind_to_rows[3, 32](tri, r0, out)
    acc = np.einsum("kii,ki->k", tri, r0)
    np.testing.assert_allclose(out[:, 0], acc - tri[:, 0, 1], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out[:, 1], acc * 2.0, rtol=1e-12, atol=1e-12)


def test_list_displays_iterated_or_tested_with_in_are_tuples(backend, rng):
    # CPython compiles `for x in [...]` and `y in [...]` (last comparison) with a tuple, so numba-cuda takes them
    # without its runtime: minitorch's shared-memory reductions loop over [1, 2, 4, 8, 16], a poker simulation's
    # warp reduction over [16, 8, 4, 2, 1], a game of life tests `n not in [2, 3]`
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            s = 0
            for step in [1, 2, 4, 8, 16]:
                s += step * (a[i] % step)
            v = a[i]
            w = 0
            for x in [v, v + 1, 2 * v]:           # non-constant elements: a built tuple
                w = w * 3 + x
            out[i, 0] = s
            out[i, 1] = w
            out[i, 2] = 1 if a[i] % 7 in [0, 3, 5] else 0
            out[i, 3] = 1 if a[i] % 5 not in [1, 2] else 0
            out[i, 4] = 1 if 0 < a[i] % 9 in [1, 4] else 0   # chained: only the last comparison's list

    a = rng.integers(0, 1000, 300)
    out = np.zeros((300, 5), np.int64)
    k[3, 128](a, out)
    want = np.array([[sum(s * (v % s) for s in (1, 2, 4, 8, 16)), (v * 3 + v + 1) * 3 + 2 * v,
                      int(v % 7 in (0, 3, 5)), int(v % 5 not in (1, 2)), int(0 < v % 9 in (1, 4))] for v in a])
    np.testing.assert_array_equal(out, want)


def test_tuple_assignment_binding_types_to_names(backend, rng):
    # `int32, uint32 = numba.int32, numba.uint32` in a poker simulation's kernels: each name is a compile-time local
    # as `int32 = numba.int32` is; runtime values beside them are assigned together (all evaluated first)
    import cudajit

    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            int32, u32, x = cudajit.int32, cudajit.uint32, a[i]
            p, q = x, 3
            p, q, f = q, p, cudajit.float32
            out[i, 0] = u32(int32(x) - 100)
            out[i, 1] = p * 10 + q
            out[i, 2] = f(x) / f(3)

    a = rng.integers(0, 200, 50)
    out = np.zeros((50, 3))
    k[1, 64](a, out)
    np.testing.assert_array_equal(out[:, 0], (a - 100).astype(np.uint32))
    np.testing.assert_array_equal(out[:, 1], 30 + a)
    np.testing.assert_array_equal(out[:, 2], (a.astype(np.float32) / np.float32(3)).astype(np.float64))
