"""Launch configurations: grid and block numbers, their shapes and types, streams and dynamic shared memory.
Out-of-range numbers raise OverflowError or LaunchError (a ValueError) naming the dimension (issue 10);
malformed configurations a TypeError/ValueError as numba-cuda's normalize_kernel_dimensions does."""
from cases import raises, returns, with_category

LAUNCH = ("LaunchError", "OverflowError", "ValueError")
SHAPE = ("TypeError", "ValueError", "LaunchError")

_bad_numbers = [
    ("grid_zero", "0, 32", "grid", "0"),
    ("grid_negative", "-1, 32", "grid", "-1"),
    ("grid_huge_x", "2**31, 32", "grid", "2147483648"),
    ("grid_2_pow_64", "2**64, 32", "grid", "18446744073709551616"),
    ("grid_2_pow_100", "2**100, 32", "grid"),
    ("grid_y_too_big", "(1, 65536), 32", "grid", "65536"),
    ("grid_z_too_big", "(1, 1, 65536), 32", "grid", "65536"),
    ("grid_y_zero", "(4, 0), 32", "grid", "0"),
    ("grid_tuple_negative", "(2, -3), 32", "grid", "-3"),
    ("block_zero", "1, 0", "block", "0"),
    ("block_negative", "1, -32", "block", "-32"),
    ("block_too_many_threads", "1, 2048", "block", "2048"),
    ("block_2_pow_64", "1, 2**64", "block"),
    ("block_product_too_big", "1, (32, 32, 2)", "block", "2048"),
    ("block_z_too_big", "1, (1, 1, 65)", "block", "65"),
    ("block_y_zero", "1, (32, 0)", "block", "0"),
    ("grid_int64_min", "-2**63, 1", "grid"),
    ("block_huge_tuple_entry", "1, (2**40, 1)", "block"),
]

_bad_shapes = [
    ("grid_four_dims", "(1, 1, 1, 1), 32", "grid"),
    ("block_four_dims", "1, (1, 1, 1, 1)", "block"),
    ("grid_empty_tuple", "(), 32", "grid"),
    ("block_empty_tuple", "1, ()", "block"),
    ("grid_float", "1.5, 32", "grid", "float"),
    ("block_float", "1, 32.0", "block", "float"),
    ("grid_string", "'4', 32", "grid", "str"),
    ("block_none", "1, None", "block", "None"),
    ("grid_none", "None, 32", "grid", "None"),
    ("grid_list_of_str", "['a'], 32", "grid"),
    ("grid_nested_tuple", "((1, 2), 1), 32", "grid"),
    ("block_complex", "1, 3j", "block", "complex"),
    ("grid_dict", "{}, 32", "grid", "dict"),
]

CASES = [raises(n, f"K.noop[{cfg}]()", LAUNCH, *w) for n, cfg, *w in _bad_numbers]
CASES += [raises(n, f"K.noop[{cfg}]()", SHAPE, *w) for n, cfg, *w in _bad_shapes]
CASES += [
    raises("config_one_item", "K.noop[1]()", ("LaunchError", "TypeError", "ValueError"), "griddim|grid"),
    raises("config_five_items", "K.noop[1, 1, 0, 0, 0]()", ("LaunchError", "TypeError", "ValueError"), "grid"),
    raises("call_without_config", "K.noop()", ("LaunchError", "TypeError"), "noop", "launch configuration"),
    raises("stream_string", "K.noop[1, 1, 'stream']()", ("TypeError", "ValueError"), "stream"),
    raises("stream_negative", "K.noop[1, 1, -5]()", ("TypeError", "ValueError", "LaunchError"), "stream"),
    raises("stream_float", "K.noop[1, 1, 1.5]()", ("TypeError", "ValueError"), "stream"),
    raises("sharedmem_negative", "K.noop[1, 1, 0, -1]()", LAUNCH, "shared", "-1"),
    raises("sharedmem_huge", "K.noop[1, 1, 0, 2**40]()", LAUNCH, "shared"),
    raises("sharedmem_2_pow_64", "K.noop[1, 1, 0, 2**64]()", LAUNCH, "shared"),
    raises("sharedmem_float", "K.noop[1, 1, 0, 12.5]()", ("TypeError", "ValueError"), "shared"),
    raises("sharedmem_string", "K.noop[1, 1, 0, 'x']()", ("TypeError", "ValueError"), "shared"),
    raises("dynamic_shared_too_small", """
        src = rng.standard_normal(64).astype(np.float32)
        out = np.zeros(64, np.float32)
        K.dynamic_shared_copy[1, 64, 0, 16](out, src)      # 64 floats need 256 bytes
    """, ("IndexError",), "dynamic_shared_copy", "shared", backends=("cpu",)),  # GPU: unchecked by default, as Numba
    raises("dynamic_shared_missing", """
        src = rng.standard_normal(32).astype(np.float32)
        out = np.zeros(32, np.float32)
        K.dynamic_shared_copy[1, 32](out, src)
    """, ("IndexError",), "dynamic_shared_copy", "shared", backends=("cpu",)),  # GPU: unchecked by default, as Numba
    returns("dynamic_shared_right", """
        src = rng.standard_normal(64).astype(np.float32)
        out = np.zeros(64, np.float32)
        K.dynamic_shared_copy[1, 64, 0, 256](out, src)
    """, "np.array_equal(out, src[::-1])"),
    returns("numpy_int_config", """
        out = np.zeros(100, np.int64)
        K.write_index[np.int32(4), np.uint16(32)](out)
    """, "np.array_equal(out, np.arange(100))"),
    returns("tuple_config_2d", """
        out = np.zeros((37, 45), np.int64)
        K.write_index_2d[(5, 6), (8, 8)](out)
    """, "np.array_equal(out, np.add.outer(np.arange(37) * 1000, np.arange(45)))"),
    returns("list_config", """
        out = np.zeros(70, np.int64)
        K.write_index[[3], [32]](out)
    """, "np.array_equal(out, np.arange(70))"),
    returns("max_block_1024", """
        c = np.zeros(1, np.int64)
        K.count_threads[3, 1024](c)
    """, "c[0] == 3 * 1024"),
    returns("block_3d_full", """
        c = np.zeros(1, np.int64)
        K.count_threads[(2, 2, 2), (8, 8, 16)](c)
    """, "c[0] == 8 * 1024"),
    returns("grid_of_many_small_blocks", """
        c = np.zeros(1, np.int64)
        K.count_threads[20000, 1](c)
    """, "c[0] == 20000"),
    returns("stream_object", """
        s = cuda.stream()
        out = np.zeros(50, np.int64)
        K.write_index[2, 32, s](out)
        s.synchronize()
    """, "np.array_equal(out, np.arange(50))"),
    returns("forall_launch", """
        out = cuda.device_array(1000, np.int64)
        K.write_index.forall(1000)(out)
        res = out.copy_to_host()
    """, "np.array_equal(res, np.arange(1000))"),
    returns("forall_zero_tasks", "K.write_index.forall(0)(cuda.device_array(3, np.int64))", "True"),
    raises("forall_negative", "K.write_index.forall(-5)(cuda.device_array(3, np.int64))",
           ("ValueError", "LaunchError"), "-5"),
    raises("launch_bounds_exceeded", """
        @cuda.jit(launch_bounds=(64,))
        def bounded(out):
            out[cuda.grid(1)] = 1
        bounded[1, 128](np.zeros(128))
    """, ("LaunchError", "ValueError"), "128", "64"),
    # numba-cuda takes any numbers.Integral as a dimension (normalize_kernel_dimensions), and bool is one on purpose
    # in Python: kernel[True, 4] launches one block of 4 threads there, and here (issue 37 asked to refuse or explain)
    returns("grid_of_true_is_one_block", "out = np.zeros(8, np.int64)\nK.write_index[True, 4](out)",
            "np.array_equal(out, [0, 1, 2, 3, 0, 0, 0, 0])"),
    # more parameters than CUDA's 32 KB of kernel parameters: refused before compiling, naming the limit (issue 37:
    # 2,000 of them compiled for 36 s first)
    returns("too_many_parameters_refused_early", """
        import time
        names = ", ".join(f"p{i}" for i in range(2100))
        exec(f"def many(out, {names}):\\n    out[0] = p0 + p2099\\n")
        kernel = cuda.jit(many)
        start = time.monotonic()
        try:
            kernel[1, 1](np.zeros(1), *([1.0] * 2100)); error = None
        except Exception as e:
            error = e
        seconds = time.monotonic() - start
    """, "type(error).__name__ == 'LaunchError' and '32768' in str(error) and '2101' in str(error) and seconds < 5"),
]

CASES = with_category("launch", CASES)
