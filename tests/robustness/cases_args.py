"""Kernel arguments: values of types a kernel cannot take, arity errors, and the conversions that must
work (NumPy's layouts copied in and back, scalars of every kind). A conversion error names the parameter,
the Python type and what would work (issue 10); numba-cuda raises a TypingError for an untyped argument."""
from cases import raises, returns, with_category

ARG = ("TypeError",)     # TypingError is a TypeError

_unconvertible = [
    ("list_for_array", "[1.0, 2.0]", "list"),
    ("string_for_array", "'abc'", "str"),
    ("none_for_array", "None", "None"),
    ("dict_for_array", "{'a': 1}", "dict"),
    ("set_for_array", "{1, 2}", "set"),
    ("object_for_array", "object()", "object"),
    ("bytes_for_array", "b'xyz'", "bytes"),
    ("function_for_array", "print", "builtin_function_or_method|function"),
    ("range_for_array", "range(4)", "range"),
    ("object_dtype_array", "np.array([1, 'a'], dtype=object)", "object"),
    # a 'U' array is a kernel argument now (tests/test_strings.py): add_one's += 1 on its elements is refused
    ("string_dtype_array", "np.array(['ab', 'cd'])", "<U2|str|unicode|unichr"),
    ("datetime_array", "np.array(['2020-01-01'], dtype='datetime64[D]')", "datetime64"),
    ("longdouble_array", "np.zeros(3, np.longdouble)", "float128|longdouble"),
    ("bigendian_array", "np.zeros(3, '>f8')", ">f8|byte order|big-endian"),
    ("structured_array", "np.zeros(3, [('a', 'f8'), ('b', 'i4')])", "record|struct"),
    ("void_array", "np.zeros(3, 'V8')", "V8|void"),
    ("generator_for_array", "(i for i in range(3))", "generator"),
    ("module_for_array", "np", "module"),
    ("type_for_array", "int", "type"),
]
CASES = [raises(n, f"K.add_one[1, 32]({v})", ARG, "arr", *w) for n, v, *w in _unconvertible]

_bad_scalars = [
    ("string_scalar", "'2.0'", "factor", "str"),
    ("none_scalar", "None", "factor", "None"),
    ("list_scalar", "[2.0]", "factor", "list"),
    ("object_scalar", "object()", "factor", "object"),
    ("longdouble_scalar", "np.longdouble(2)", "factor", "float128|longdouble"),
    ("datetime_scalar", "np.datetime64('2020-01-01')", "factor", "datetime64"),
    ("decimal_scalar", "__import__('decimal').Decimal('2.5')", "factor", "Decimal"),
    ("fraction_scalar", "__import__('fractions').Fraction(1, 3)", "factor", "Fraction"),
]
CASES += [raises(n, f"K.scale[1, 32](np.zeros(8), np.ones(8), {v})", ARG, *w) for n, v, *w in _bad_scalars]

CASES += [
    raises("int_beyond_uint64", "K.scale[1, 32](np.zeros(8), np.ones(8), 2**70)",
           ("TypeError", "OverflowError", "ValueError"), "factor", "int"),
    raises("int_beyond_int64_negative", "K.scale[1, 32](np.zeros(8), np.ones(8), -2**64)",
           ("TypeError", "OverflowError", "ValueError"), "factor", "int"),
    returns("masked_array_data", """
        m = np.ma.masked_array([1.0, 2.0], mask=[0, 1])
        K.add_one[1, 32](m)
    """, "np.array_equal(m.data, [2.0, 3.0])"),
    raises("too_few_args", "K.scale[1, 32](np.zeros(8), np.ones(8))", ARG, "scale", "3", "2"),
    raises("too_many_args", "K.scale[1, 32](np.zeros(8), np.ones(8), 1.0, 2.0)", ARG, "scale", "3", "4"),
    raises("keyword_args", "K.scale[1, 32](out=np.zeros(8), src=np.ones(8), factor=2.0)", ARG, "keyword"),
    raises("no_args_for_one", "K.add_one[1, 32]()", ARG, "add_one", "1", "0"),
    raises("scalar_for_array_param", "K.add_one[1, 32](3.0)", ARG, "arr", "float"),
    raises("array_for_scalar_param", "K.store_scalar[1, 1](np.zeros(1), np.ones(3))", ARG, "value|out"),
    raises("complex_into_float_array", "K.store_scalar[1, 1](np.zeros(1), 1 + 2j)", ARG, "complex"),
    raises("readonly_numpy_written", """
        a = np.zeros(8)
        a.flags.writeable = False
        K.add_one[1, 32](a)
    """, ARG, "arr", "read-only|readonly"),
    raises("tuple_with_string", "K.sum_pair[1, 1](np.zeros(1), (1.0, 'x'))", ARG, "pair", "str"),
    raises("tuple_with_none", "K.sum_pair[1, 1](np.zeros(1), (1.0, None))", ARG, "pair", "None"),
    raises("tuple_too_short", "K.sum_pair[1, 1](np.zeros(1), (1.0,))", ("TypeError", "IndexError"), "pair"),
    raises("eager_signature_mismatch", """
        @cuda.jit("void(float32[:])")
        def only_f32(x):
            x[0] = 1
        only_f32[1, 1](np.zeros(4, np.int32))
    """, ARG, "only_f32", "int32"),
    raises("eager_signature_bad_string", """
        @cuda.jit("void(floot32[:])")
        def bad_sig(x):
            x[0] = 1
    """, ("TypeError", "ValueError", "SyntaxError"), "floot32"),
    returns("strided_numpy_written_back", """
        a = rng.standard_normal(40)
        view = a[::3]
        before = a.copy()
        K.add_one[1, 32](view)
        want = before.copy(); want[::3] += 1
    """, "np.array_equal(a, want)"),
    returns("reversed_numpy_written_back", """
        a = rng.standard_normal(33)
        before = a.copy()
        K.add_one[2, 32](a[::-1])
    """, "np.array_equal(a, before + 1)"),
    returns("fortran_2d", """
        lhs = np.asfortranarray(rng.standard_normal((17, 9)))
        rhs = rng.standard_normal((17, 9))
        out = np.zeros((17, 9))
        K.add_2d[(3, 2), (8, 8)](out, lhs, rhs)
    """, "np.array_equal(out, lhs + rhs)"),
    returns("transposed_view_out", """
        lhs, rhs = rng.standard_normal((9, 17)), rng.standard_normal((9, 17))
        base = np.zeros((17, 9))
        K.add_2d[(2, 3), (8, 8)](base.T, lhs, rhs)
    """, "np.array_equal(base.T, lhs + rhs)"),
    returns("zero_size_array", "a = np.zeros(0); K.add_one[1, 32](a)", "a.size == 0"),
    returns("bool_scalar_factor", """
        src = rng.standard_normal(8); out = np.zeros(8)
        K.scale[1, 32](out, src, True)
    """, "np.array_equal(out, src)"),
    returns("numpy_scalar_types", """
        src = rng.standard_normal(8).astype(np.float32); ok = True
        for f in (np.int8(3), np.uint64(3), np.float16(3), np.float32(3), np.int64(3)):
            out = np.zeros(8, np.float32)
            K.scale[1, 32](out, src, f)
            ok = ok and np.allclose(out, src * 3, rtol=1e-6)
    """, "ok"),
    returns("uint64_max_scalar", """
        out = np.zeros(1, np.uint64)
        K.store_scalar[1, 1](out, np.uint64(2**64 - 1))
    """, "out[0] == np.uint64(2**64 - 1)"),
    returns("int64_min_scalar", """
        out = np.zeros(1, np.int64)
        K.store_scalar[1, 1](out, -2**63)
    """, "out[0] == -2**63"),
    returns("python_int_beyond_int64_to_uint64", """
        out = np.zeros(1, np.uint64)
        K.store_scalar[1, 1](out, 2**63 + 5)
    """, "out[0] == np.uint64(2**63 + 5)"),
    returns("nan_inf_scalars", """
        out = np.zeros(1)
        K.store_scalar[1, 1](out, float('nan')); a = out[0]
        K.store_scalar[1, 1](out, float('-inf')); b = out[0]
    """, "np.isnan(a) and b == -np.inf"),
    returns("complex_scalar", """
        out = np.zeros(1, np.complex128)
        K.store_scalar[1, 1](out, 1.5 - 2j)
    """, "out[0] == 1.5 - 2j"),
    returns("namedtuple_arg", """
        import collections
        P = collections.namedtuple("P", "x y")
        out = np.zeros(1)
        K.sum_pair[1, 1](out, P(1.25, 2.5))
    """, "out[0] == 3.75"),
    returns("in_out_wrappers", """
        src = rng.standard_normal(20); out = np.zeros(20)
        K.scale[1, 32](cuda.Out(out), cuda.In(src), 2.0)
    """, "np.array_equal(out, src * 2)"),
    returns("in_wrapper_not_written_back", """
        a = rng.standard_normal(20); before = a.copy()
        K.add_one[1, 32](cuda.In(a))
    """, "np.array_equal(a, before)"),
    raises("in_wrapper_of_list", "K.add_one[1, 32](cuda.In('abc'))", ARG, "arr", "str"),
    returns("zero_dim_array_arg", """
        out = np.zeros(1); v = np.array(4.5)
        K.store_scalar[1, 1](out, v[()])
    """, "out[0] == 4.5"),
    returns("same_array_twice", """
        a = rng.standard_normal(10); before = a.copy()
        K.scale[1, 32](a, a, 3.0)
    """, "np.allclose(a, before * 3)"),
]

CASES = with_category("args", CASES)
