"""Compile errors name the construct, the user's file and line, quote the line and say what to do instead.

Compile-only: kernels are translated with compile_kernel; nothing runs and the C++ core is not needed.
"""
import os

import numpy as np
import pytest

from cudajit.compiler import compile_kernel, compile_device, types, typeof
from cudajit.errors import TypingError, UnsupportedError
from cudajit import cuda

HERE = os.path.basename(__file__)
F32 = types.float32[::1]


def _line_of(fn, text):
    import inspect
    lines, first = inspect.getsourcelines(fn)
    for k, line in enumerate(lines):
        if text in line:
            return first + k
    raise AssertionError(text)


def check(fn, argtypes, exc, what, line_text, hint=True):
    with pytest.raises(exc) as info:
        compile_kernel(fn, argtypes)
    msg = str(info.value)
    assert what in msg
    assert f"{HERE}:{_line_of(fn, line_text)}:" in msg, msg
    assert line_text in msg
    if hint:
        assert "\nhint: " in msg
    return msg


def undefined_name(a):
    a[0] = foo + 1


def test_undefined_name():
    check(undefined_name, (F32,), TypingError, "name 'foo' is not defined", "a[0] = foo + 1")


def unify_array_and_int(a, n):
    x = a
    if n > 0:
        x = n
    a[0] = x[0]


def test_cannot_unify():
    check(unify_array_and_int, (F32, types.int64), TypingError,
          "cannot unify array(float32, 1d, C) and int64 for variable 'x'", "a[0] = x[0]")


def dynamic_shape(a, n):
    s = cuda.shared.array(n, dtype=np.float32)
    s[0] = 1


def test_shared_shape_must_be_constant():
    check(dynamic_shape, (F32, types.int64), TypingError,
          "cuda.shared.array shape must be a constant (an int literal, a global int, or a tuple of them)",
          "s = cuda.shared.array(n")


def three_args(a, b, c):
    a[0] = b[0] + c[0]


def test_argument_count():
    with pytest.raises(TypingError) as info:
        compile_kernel(three_args, (F32, F32))
    assert "kernel takes 3 arguments, 2 given" in str(info.value)
    assert HERE in str(info.value)


def returns_value(a):
    return a[0]


def test_kernel_cannot_return_value():
    check(returns_value, (F32,), TypingError, "a kernel cannot return a value", "return a[0]")


def uses_list(a):
    xs = [1, 2, 3]
    a[0] = xs[0]


def test_lists_unsupported():
    check(uses_list, (F32,), UnsupportedError, "lists are not supported in CUDA kernels", "xs = [1, 2, 3]")


def plain_python_call(a):
    a[0] = helper(1)


def helper(x):
    return x


def test_calling_undecorated_function():
    check(plain_python_call, (F32,), TypingError, "'helper' is a Python function, not a device function",
          "a[0] = helper(1)")


def try_except(a):
    try:
        a[0] = 1
    except Exception:
        pass


def test_try_unsupported():
    check(try_except, (F32,), UnsupportedError, "try/except is not supported in CUDA kernels", "try:")


def bad_index(a):
    a[1.5] = 0


def test_float_index():
    check(bad_index, (F32,), TypingError, "array index must be an integer or a slice, not float64", "a[1.5] = 0")


def used_before_assignment(a):
    if a[0] > 0:
        y = 1
    a[1] = z


def test_unassigned_local():
    check(used_before_assignment, (F32,), TypingError, "name 'z' is not defined", "a[1] = z")


def uses_before(a):
    a[1] = y
    y = 2


def test_use_before_assignment_reads_zero_and_warns_when_asked(monkeypatch):
    """Numba compiles a read no assignment reaches (its SSA's undef, lowered as zero) and warns only under
    NUMBA_ALWAYS_WARN_UNINIT_VAR; tests/test_unassigned_reads.py runs such kernels."""
    from cudajit import config
    from cudajit.errors import NumbaWarning
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        src = compile_kernel(uses_before, (F32,)).source
    assert "a_(1) = float(int64_t{});" in src, src           # y's zero, converted to the element type
    monkeypatch.setattr(config, "ALWAYS_WARN_UNINIT_VAR", 1)
    with pytest.warns(NumbaWarning, match=rf"{HERE}:{_line_of(uses_before, 'a[1] = y')}: Detected uninitialized "
                                          r"variable y"):
        compile_kernel(uses_before, (F32,))


def unsupported_intrinsic(a):
    a[0] = cuda.vote_sync_intrinsic(0xffffffff, 0, True)[0]     # a numba.cuda name cudajit does not offer


def test_unsupported_intrinsic_named():
    msg = check(unsupported_intrinsic, (F32,), UnsupportedError, "cuda.vote_sync_intrinsic",
                "cuda.vote_sync_intrinsic", hint=False)
    assert "not supported" in msg


def write_const(a):
    TABLE[0] = a[0]


TABLE = np.zeros(3)


def test_frozen_global_array_is_read_only():
    check(write_const, (F32,), TypingError, "cannot write to 'TABLE': it is a global array frozen", "TABLE[0] = a[0]")


def atomic_bad_type(a):
    cuda.atomic.inc(a, 0, 1)


def test_atomic_dtype_checked():
    check(atomic_bad_type, (F32,), TypingError, "cuda.atomic.inc does not support arrays of float32",
          "cuda.atomic.inc(a, 0, 1)")


def test_typeof_rejects_unknown_argument():
    with pytest.raises(TypingError) as info:
        typeof(object(), "weights")
    assert "argument 'weights'" in str(info.value)


def test_device_function_return_types_must_unify():
    def f(x):
        if x > 0:
            return (x, x)
        return x
    with pytest.raises(TypingError) as info:
        compile_device(f, (types.int32,))
    assert "cannot unify return types" in str(info.value)


@cuda.jit(device=True)
def endless(n):
    return endless(n - 1) + 1


def calls_endless(a):
    a[0] = endless(3)


def test_recursion_without_base_case():
    with pytest.raises(TypingError) as info:
        compile_kernel(calls_endless, (types.int64[::1],))
    msg = str(info.value)
    # numba-cuda's words first (its test_runaway), then the function
    assert "cannot type infer runaway recursion: every return of recursive function 'endless' recurses" in msg
    assert f"{HERE}:{_line_of(endless, 'def endless')}:" in msg, msg
    assert "base case" in msg


@cuda.jit(device=True)
def growing_tuple(n):
    if n <= 0:
        return None
    return (n, growing_tuple(n - 1))


def calls_growing_tuple(a):
    growing_tuple(3)


def test_recursion_whose_return_type_would_nest_without_end():
    # numba-cuda's words first (its test_growing_return_tuple); it was "a tuple cannot hold a value of type none"
    with pytest.raises(TypingError) as info:
        compile_kernel(calls_growing_tuple, (F32,))
    msg = str(info.value)
    assert ("Return type of recursive function does not converge: 'growing_tuple' returns a tuple holding its own "
            "result") in msg
    assert f"{HERE}:{_line_of(growing_tuple, 'return (n, growing_tuple')}:" in msg, msg
    assert "return (n, growing_tuple(n - 1))" in msg and "\nhint: " in msg


def local_of_unknown_dtype(a):
    scratch = cuda.local.array(10, dtype="int33")
    scratch[0] = a[0]
    a[0] = scratch[0]


def shared_of_unknown_dtype(a):
    s = cuda.shared.array(10, dtype="float128x")
    s[0] = a[0]
    a[0] = s[0]


def test_unknown_dtype_string():
    # numba-cuda's words first (its test_invalid_string_dtype), then what it takes
    check(local_of_unknown_dtype, (F32,), TypingError,
          "Invalid NumPy dtype specified: 'int33'; dtype must be a type such as float32", "dtype=\"int33\"",
          hint=False)
    check(shared_of_unknown_dtype, (F32,), TypingError, "Invalid NumPy dtype specified: 'float128x'",
          "dtype=\"float128x\"", hint=False)


HUGE = 2**70


def store_pow(o):
    o[0] = 2**100


def store_literal(o):
    o[0] = 123456789012345678901234567890


def store_global(o):
    o[0] = HUGE


def store_shift(o):
    o[0] = 1 << 70


@pytest.mark.parametrize("fn,line", [(store_pow, "2**100"), (store_literal, "1234567890"), (store_global, "HUGE"),
                                     (store_shift, "1 << 70")])
def test_integer_constants_beyond_uint64_are_typing_errors(fn, line):
    check(fn, (types.float64[::1],), TypingError, "Int value is too large", line)


def store_folded(o):
    o[0] = 2**64 - 1
    o[1] = -2**63


def test_folded_constants_keep_their_value():
    # Python folds these to constants that fit uint64 / int64, and Numba types those constants.
    src = compile_kernel(store_folded, (types.uint64[::1],)).source
    assert "18446744073709551615" in src and "9223372036854775807" in src


def int_then_tuple(a):
    x = 1
    a[1] = x
    x = (1, 2)
    a[0] = x[0]


def int_then_float(a):
    x = 1
    a[1] = x
    x = 2.5
    a[0] = x


def int_or_tuple_meet(a):
    x = 1
    if a[0] > 0:
        x = (1, 2)
    a[0] = x[0]


def test_a_variable_changes_kind_only_where_definitions_do_not_meet():
    # Numba's SSA versions (x, x.1) type apart: a redefinition that no use shares with the first is a new variable;
    # definitions that meet at a use (after an if) must unify, and an int and a tuple do not
    compile_kernel(int_then_tuple, (F32,))
    compile_kernel(int_then_float, (F32,))
    msg = check(int_or_tuple_meet, (F32,), TypingError, "variable 'x'", "a[0] = x[0]")
    assert "int64" in msg and "UniTuple(int64 x 2)" in msg


def huge_local(a):
    scratch = cuda.local.array(2**40, dtype=np.float64)
    a[0] = scratch[0]


def local_over_limit(a):
    scratch = cuda.local.array((256, 257), dtype=np.float64)
    a[0] = scratch[0, 0]


def local_at_limit(a):
    scratch = cuda.local.array(65536, dtype=np.float64)
    other = cuda.local.array(10, dtype=np.int32)
    a[0] = scratch[0] + other[0]


def test_local_array_over_cudas_limit():
    # CUDA's per-thread local memory is 512 KiB: the array, its bytes and the limit are named
    msg = check(huge_local, (F32,), TypingError, "local array 'scratch'", "cuda.local.array(2**40")
    assert f"{2**40 * 8} bytes" in msg and "524288 bytes (512 KiB)" in msg
    msg = check(local_over_limit, (F32,), TypingError, "local array 'scratch'", "cuda.local.array((256, 257)")
    assert f"{256 * 257 * 8} bytes" in msg
    assert compile_kernel(local_at_limit, (F32,)).local_bytes == 65536 * 8 + 40
