"""Kernel source the compiler must refuse: Python that CUDA kernels do not support and Python that does not type
under Numba's rules. Each raises TypingError or UnsupportedError naming the construct and the user's
file:line, never a C++ compiler log or a crash; integer constants beyond int64 are a typing error as in Numba."""
from cases import raises, with_category

REFUSED = ("TypingError", "UnsupportedError", "TypeError")


def kernel(name, body, *words, args="np.zeros(4)", params="a", exc=REFUSED, prefix=""):
    """A case defining ``kernel k_<name>(params)`` with ``body`` (after ``prefix`` at module level) and launching it."""
    lines = "\n".join("    " + line for line in body.strip("\n").split("\n"))
    code = f"{prefix}@cuda.jit\ndef k_{name}({params}):\n{lines}\nk_{name}[1, 1]({args})\n"
    return raises(name, code, exc, "{file}", *words)


CASES = [
    kernel("int_constant_2_pow_100", "a[0] = 2**100", "int64|too large|integer"),
    kernel("int_literal_beyond_uint64", "a[0] = 18446744073709551616", "int64|too large|integer"),
    kernel("int_constant_negative_huge", "a[0] = -(2**64)", "int64|too large|integer"),
    kernel("global_int_beyond_int64", "a[0] = BIG", "BIG|int64|too large", prefix="BIG = 2**80\n"),
    # string constants are values (len(s) of s = 'abc' is 3, tests/test_strings.py); indexing one is refused
    kernel("string_value", "s = 'abc'\na[0] = s[1]", "str"),
    kernel("list_literal", "x = [1, 2, 3]\na[0] = x[0]", "list"),
    kernel("dict_literal", "x = {'a': 1}\na[0] = x['a']", "dict"),
    kernel("set_literal", "x = {1, 2}\na[0] = 1", "set"),
    kernel("list_comprehension", "x = [i for i in range(3)]\na[0] = x[0]", "comprehension|list"),
    kernel("generator_expression", "a[0] = sum(i for i in range(3))", "generator"),
    # inner functions work (tests/test_inner_functions.py); numba-cuda's limits on them are refused
    kernel("lambda_escapes_with_a_variable", "y = a[1]\na[0] = use(lambda x: x + y, 1.0)",
           "Cannot capture the non-constant value", "'y'",
           prefix="@cuda.jit(device=True)\ndef use(f, x):\n    return f(x)\n"),
    kernel("nested_def_recursive", "def g(n):\n    return 1 if n <= 1 else n * g(n - 1)\na[0] = g(3)",
           "'g'", "recursive"),
    kernel("class_def", "class C:\n    pass\na[0] = 1", "class"),
    kernel("try_except", "try:\n    a[0] = 1\nexcept Exception:\n    a[0] = 2", "try"),
    kernel("with_statement", "with open('x') as f:\n    a[0] = 1", "with"),
    kernel("yield_statement", "yield 1", "yield|generator"),
    kernel("import_statement", "a[0] = 1\nimport os", "import"),
    kernel("global_statement", "global G\nG = 1", "global"),
    kernel("del_statement", "del a", "del"),
    kernel("star_args_call", "a[0] = max(*a)", "*|star|unpack"),     # *t of a tuple works; an array's is refused
    kernel("f_string", "x = f'{a[0]}'", "f-string|JoinedStr|str|format"),
    kernel("print_to_file", "print(1, file=None)", "file|keyword|print"),
    kernel("walrus", "if (n := 3) > 2:\n    a[0] = n", "walrus|:=|NamedExpr"),
    kernel("match_sequence_pattern", "match (1, 2):\n    case [x, y]:\n        a[0] = x", "match", "sequence pattern"),
    kernel("return_value_from_kernel", "return 1", "return|void"),
    kernel("undefined_name", "a[0] = undefined_thing", "undefined_thing"),
    kernel("undefined_attribute", "a[0] = cuda.no_such_intrinsic(1)", "no_such_intrinsic"),
    kernel("unknown_numpy_function", "a[0] = np.nosuchfunc(1.0)", "nosuchfunc"),
    kernel("numpy_function_unsupported", "a[0] = np.linalg.det(a)", "linalg|det"),
    kernel("python_object_global", "a[0] = OBJ", "OBJ", prefix="OBJ = object()\n"),
    kernel("method_on_array", "a.sort()", "sort"),
    kernel("attribute_assign", "a.shape = (2, 2)", "shape"),
    kernel("array_setitem_tuple_too_long", "a[0, 0] = 1", "indices|index|dimension"),
    kernel("float_index", "a[1.5] = 1", "float|index"),
    kernel("string_index", "a['x'] = 1", "str|index"),
    kernel("add_int_and_array", "x = a + 1\na[0] = 1", "array|+|add"),
    kernel("compare_array_to_int", "if a == 1:\n    a[0] = 2", "array|==|compar"),
    kernel("call_non_callable", "x = 3\na[0] = x(1)", "int|call"),
    kernel("wrong_arity_intrinsic", "a[0] = cuda.grid(1, 2, 3)", "grid"),
    kernel("grid_bad_ndim", "a[0] = cuda.grid(4)", "grid", "4"),
    kernel("shared_array_dynamic_shape", "n = a.size\ns = cuda.shared.array(n, dtype=np.float32)\na[0] = s[0]",
           "shared", "constant"),
    kernel("shared_array_negative_shape", "s = cuda.shared.array(-4, dtype=np.float32)\na[0] = s[0]", "shared", "-4"),
    kernel("shared_array_bad_dtype", "s = cuda.shared.array(4, dtype=object)\na[0] = 1", "shared", "object|dtype"),
    kernel("local_array_huge", "s = cuda.local.array(2**40, dtype=np.float64)\na[0] = s[0]", "local", "size|bytes|large"),
    kernel("variable_changes_type", "x = 1\nif a[0] > 0:\n    x = (1, 2)\na[0] = x[0]", "x", "tuple|type|unify"),
    kernel("atomic_on_scalar", "x = 1.0\ncuda.atomic.add(x, 0, 1)", "atomic"),
    kernel("atomic_bad_dtype", "cuda.atomic.add(a, 0, 1)", "atomic", "int8", args="np.zeros(4, np.int8)"),
    kernel("atomic_xor_on_float", "cuda.atomic.xor(a, 0, 1)", "atomic", "float"),
    kernel("syncthreads_with_arg", "cuda.syncthreads(1, 2)", "syncthreads"),
    kernel("device_function_called_wrongly", "a[0] = K.noop(1)", "noop"),
    kernel("recursive_kernel_call", "k_recursive_kernel_call[1, 1](a)", "kernel|launch"),
    kernel("tuple_index_out_of_range", "t = (1, 2)\na[0] = t[5]", "5|index|range"),
    kernel("shape_index_out_of_range", "a[0] = a.shape[3]", "3|index|range"),
    kernel("bitwise_on_float", "a[0] = a[0] & 1", "&|float|bitwise"),
]
CASES = with_category("source", CASES)
