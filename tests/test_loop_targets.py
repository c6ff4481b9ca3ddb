"""A for loop's range() is evaluated before its target is bound (issue 36): targets that reuse a name the range
reads (start, stop, step, all three, a negative step), nested loops reusing one name, a target read after the
loop (its last value; after an empty loop, the old one), and one name reused by loops of other types. Each kernel
runs one thread on random parameters and must give what the same function gives run as Python."""
import numpy as np
import pytest

from cudajit import cuda, int32


@cuda.jit
def start_is_target(out, p):
    xc = p[0]
    n = 0
    for xc in range(xc, 10):           # the issue's kernel: runs 10 - h times, not 10
        n += 1
    out[0] = n


@cuda.jit
def start_is_target_used_after(out, p):
    xc = p[0]
    n = 0
    for xc in range(xc, p[1]):
        n += xc
    out[0] = n
    out[1] = xc                        # the last value; after an empty loop, p[0]


@cuda.jit
def stop_is_target(out, p):
    i = p[0]
    n = 0
    for i in range(p[1], i):
        n += i * 3
    out[0] = n


@cuda.jit
def step_is_target(out, p):
    s = p[2]
    n = 0
    for s in range(p[0], p[1], s):
        n = n * 7 + s
    out[0] = n


@cuda.jit
def all_three_are_target(out, p):
    i = p[0]
    n = 0
    for i in range(i, i + p[1], i % 3 + 1):
        n = n * 5 + i
    out[0] = n
    out[1] = i


@cuda.jit
def negative_step(out, p):
    i = p[0]
    n = 0
    for i in range(i, -i, -2):
        n = n * 3 + i
    out[0] = n
    j = p[1]
    for j in range(j, p[0], -1):
        n = n * 3 + j
    out[1] = n


@cuda.jit
def nested_same_name(out, p):
    n = 0
    for i in range(p[0]):
        for i in range(i, p[0]):
            n = (n * 3 + i) % 1000003
        n += i
    out[0] = n
    out[1] = i if p[0] > 0 else -1


@cuda.jit
def nested_inner_reads_outer(out, p):
    n = 0
    i = p[1]
    for i in range(i, p[0]):
        for j in range(i, i + 3):
            for i in range(j, i + 2, 1):
                n = (n * 2 + i) % 1000003
    out[0] = n
    out[1] = i


@cuda.jit
def empty_loop_keeps_old(out, p):
    x = p[3]
    for x in range(p[0], p[1]):
        out[2] += x
    out[0] = x
    y = p[3] * 2
    for y in range(y, y - 1):          # always empty
        out[2] += 100
    out[1] = y


@cuda.jit
def parameter_is_target(out, v):
    n = 0
    for v in range(v, 10):
        n += v
    out[0] = n


@cuda.jit
def types_change_across_loops(out, p):
    acc = 0.0
    for i in range(int32(p[0])):               # int32
        acc += i
    for i in range(p[1]):                      # int64
        acc += i * 2
    for i in (0.5, 1.5, p[2] * 0.25):          # float64
        acc += i
    i = p[0] * 0.5
    for i in range(int(i) + 2, 12):
        acc = acc * 1.5 + i
    out[0] = acc


@cuda.jit
def direct_then_reassigned(out, p):
    n = 0
    for i in range(p[0]):
        n += i
    i = 7 + p[1]                                # another variable named i after a private loop
    for i in range(i, i + 2):
        n = n * 10 + i
    out[0] = n


@cuda.jit
def tuple_elements_read_target(out, p):
    x = p[0]
    y = p[1]
    n = 0
    for x in (x + 1, x * 2, y):
        n = n * 11 + x
    out[0] = n
    out[1] = x


@cuda.jit
def enumerate_start_is_target(out, a, p):
    i = p[0]
    n = 0
    for i, v in enumerate(a, i):
        n = n * 3 + i + v
    out[0] = n
    out[1] = i


@cuda.jit
def zip_range_reads_target(out, p):
    i = p[0]
    n = 0
    for i, j in zip(range(i, i + 4), range(i)):
        n = n * 3 + i - j
    out[0] = n


@cuda.jit(device=True)
def count_from(n):
    c = 0
    for n in range(n, 10):
        c += 1
    return c


@cuda.jit
def device_parameter_is_target(out, p):
    out[0] = count_from(p[0])


KERNELS = [start_is_target, start_is_target_used_after, stop_is_target, step_is_target, all_three_are_target,
           negative_step, nested_same_name, nested_inner_reads_outer, empty_loop_keeps_old,
           types_change_across_loops, direct_then_reassigned, tuple_elements_read_target, zip_range_reads_target]


def _params(rng):
    p = rng.integers(-6, 12, size=4).astype(np.int64)
    if p[2] == 0:
        p[2] = 1                                # range()'s step: never zero
    return p


def _python(kernel, out, *args):
    kernel.py_func(out, *args)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.__name__)
def test_loop_target_vs_python(backend, rng, kernel):
    for _ in range(12):
        p = _params(rng)
        dtype = np.float64 if kernel is types_change_across_loops else np.int64
        got, want = np.zeros(3, dtype), np.zeros(3, dtype)
        kernel[1, 1](got, p)
        _python(kernel, want, p)
        np.testing.assert_array_equal(got, want, err_msg=f"{kernel.__name__} with p={p.tolist()}")


def test_issue_kernel_counts_from_start(backend):
    out = np.zeros(3, np.int64)
    start_is_target[1, 1](out, np.array([3, 0, 1, 0], np.int64))
    assert out[0] == 7


def test_parameter_and_device_parameter_as_target(backend, rng):
    for v in rng.integers(-5, 14, size=6):
        got = np.zeros(1, np.int64)
        parameter_is_target[1, 1](got, np.int64(v))
        assert got[0] == sum(range(v, 10))
        device_parameter_is_target[1, 1](got, np.array([v], np.int64))
        assert got[0] == len(range(v, 10))


def test_enumerate_start_is_target(backend, rng):
    for _ in range(6):
        a = rng.integers(-9, 9, size=rng.integers(0, 6)).astype(np.int64)
        p = _params(rng)
        got, want = np.zeros(2, np.int64), np.zeros(2, np.int64)
        enumerate_start_is_target[1, 1](got, a, p)
        enumerate_start_is_target.py_func(want, a, p)
        np.testing.assert_array_equal(got, want)


def test_direct_loop_variable_shadows_nothing(backend):
    """The issue's shape: the generated loop declares a variable of its own, never ``xc = xc``."""
    out = np.zeros(3, np.int64)
    start_is_target[1, 1](out, np.zeros(4, np.int64))
    src = next(iter(start_is_target.inspect_source().values()))
    head = next(line for line in src.splitlines() if line.lstrip().startswith("for ("))
    init = head.split("(", 1)[1].split(";")[0]                # "int64_t xc_1 = xc"
    declared, value = (s.strip() for s in init.split("="))
    assert declared.split()[-1] != value, head


@cuda.jit
def enumerate_stepped_range(out, p):
    acc = 0
    n = 0
    for i, j in enumerate(range(p[0], p[1], p[2])):           # numba-cuda's test_flow_control shape, any step
        acc += (i + 1) * j
        n += 1
    for (a, b), c in zip(enumerate(range(p[1], p[0], -p[2]), 3), range(p[3])):
        acc += a * b * c
    out[0] = acc
    out[1] = n


def test_enumerate_and_zip_over_a_stepped_range(backend, rng):
    """enumerate(range(lo, hi, step)) and zip over it: every sign of step, empty and one-trip ranges (issue 40)."""
    cases = [(3, 20, 4, 9), (20, 3, -4, 9), (5, 5, 1, 9), (4, 1, 2, 9), (-7, 8, 5, 1)]
    cases += [tuple(int(x) for x in rng.integers(-30, 30, 2)) + (int(rng.choice([-7, -3, -1, 1, 2, 5])),
                                                               int(rng.integers(0, 12))) for _ in range(10)]
    for p in cases:
        got, want = np.zeros(2, np.int64), np.zeros(2, np.int64)
        enumerate_stepped_range[1, 1](got, np.array(p, np.int64))
        enumerate_stepped_range.py_func(want, np.array(p, np.int64))
        np.testing.assert_array_equal(got, want, err_msg=str(p))
