"""numba-cuda's words in typing errors (issue 40): the lines its users search for and its tests match come first or
last, cudajit's own account of the problem stays. And cuda.grid(n) with n a device function's parameter is
specialised on the caller's constant, as numba-cuda's RequireLiteralValue retry does."""
import numpy as np
import pytest

from cudajit import cuda, float32, int32
from cudajit.errors import RequireLiteralValueError, TypingError


@cuda.jit(device=True)
def inner(x):
    return floor(x)  # noqa: F821


@cuda.jit(device=True)
def middle(x):
    return inner(x)


def test_an_error_in_a_device_function_ends_with_the_trail_of_calls(backend):
    @cuda.jit
    def kernel(a):
        a[0] = middle(1.5)

    with pytest.raises(TypingError) as e:
        kernel[1, 1](np.zeros(1))
    text = str(e.value)
    assert text.startswith(f"{__file__}:13: NameError: name 'floor' is not defined\n    return floor(x)")
    trail = [line for line in text.splitlines() if line.startswith("During: ")]
    assert [t.split(" at ")[0] if "resolving" in t else t for t in trail] == [
        "During: resolving callee type: type(CUDADispatcher(<function inner",
        f"During: typing of call at {__file__}:18",
        "During: resolving callee type: type(CUDADispatcher(<function middle",
        f"During: typing of call at {__file__}:24"]


@cuda.jit(device=True)
def grid_of(n):
    return cuda.grid(n)


def test_grid_of_a_parameter_is_specialised_on_the_callers_constant(backend):
    @cuda.jit
    def kernel(a):
        i, j = grid_of(2)
        if i < a.shape[0] and j < a.shape[1]:
            a[i, j] = i * 100 + j
        k = grid_of(1)                  # the x index again: one thread of each column adds
        if j == 0 and k < a.shape[0]:
            a[k, 0] += 0.5

    a = np.zeros((5, 6))
    kernel[(2, 2), (3, 4)](a)
    want = np.add.outer(np.arange(5) * 100, np.arange(6)).astype(float)
    want[:, 0] += 0.5
    np.testing.assert_array_equal(a, want)


def test_grid_of_a_run_time_value_is_numbas_require_literal_value(backend):
    def kernel(n):
        cuda.grid(n)

    with pytest.raises(RequireLiteralValueError, match=r"RequireLiteralValue: cuda.grid\(\) takes the literal 1, 2 "
                                                       r"or 3, not a value of type int32"):
        cuda.jit("void(int32)")(kernel)


def test_a_shared_array_shape_not_known_when_compiling(backend):
    def scalar(a):
        s = cuda.shared.array(shape=a[0], dtype=float32)
        a[0] = s[0]

    def in_tuple(a):
        s = cuda.shared.array(shape=(1, a[0]), dtype=float32)
        a[0] = s[0, 0]

    for fn, argtype, shape in ((scalar, float32[:], "float32"), (in_tuple, int32[:], "Tuple(Literal[int](1), int32)")):
        with pytest.raises(TypingError) as e:
            cuda.jit((argtype,))(fn)
        text = str(e.value)
        assert "No implementation of function Function(<function shared.array" in text
        assert f"found for signature:\n \n >>> array(shape={shape}, dtype=class(float32))" in text
        assert "cuda.shared.array shape must be a constant" in text


def test_declared_signatures_that_do_not_fit_or_tie(backend, rng):
    @cuda.jit(["int64(int64, int64)", "float64(float64, float64)"], device=True)
    def add(a, b):
        return a + b

    @cuda.jit
    def use(r, x, y):
        r[0] = add(x, y)

    r = np.zeros(1, np.complex128)
    with pytest.raises(TypingError, match=r"Invalid use of type\(CUDADispatcher\(<function .*add at 0x[0-9a-f]+>\)\) "
                                          r"with parameters \(complex128, complex128\): add\(\) has no signature"):
        use[1, 1](r, 1j, 1j)
    x, y = rng.uniform(-5, 5, 2)
    r = np.zeros(1)
    use[1, 1](r, x, y)
    assert r[0] == x + y

    def add_kernel(r, x, y):
        r[0] = x + y

    k = cuda.jit(["(float64[::1], float32, float64)", "(float64[::1], float64, float32)",
                  "(float64[::1], int64, int64)"])(add_kernel)
    with pytest.raises(TypeError) as e:
        k[1, 1](np.zeros(1), 1.0, 2.0)
    assert str(e.value).startswith("Ambiguous overloading for <function ")
    assert ("(Array(float64, 1, 'C', False, aligned=True), float64, float64):\n"
            "(Array(float64, 1, 'C', False, aligned=True), float32, float64) -> none\n"
            "(Array(float64, 1, 'C', False, aligned=True), float64, float32) -> none\n") in str(e.value)
    assert "int64" not in str(e.value)
