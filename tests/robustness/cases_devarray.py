"""Device-array operations: creation with bad shapes, dtypes, orders and strides; indexing, assignment,
copies, reshape/view/split/transpose; and the same operations done right, compared with NumPy."""
from cases import raises, returns, with_category

D = "h, d = K.device_pair(16)\n"            # h: NumPy, d: the same data on the device
D2 = "h = rng.standard_normal((4, 6)); d = cuda.to_device(h)\n"
SIZE = ("ValueError", "OverflowError", "MemoryError", "CudaAPIError")

CASES = [
    # creation
    raises("device_array_negative_shape", "cuda.device_array(-1)", ("ValueError",), "-1"),
    raises("device_array_negative_in_tuple", "cuda.device_array((3, -2))", ("ValueError",), "-2"),
    raises("device_array_overflowing_shape", "cuda.device_array((2**62, 2**62))", SIZE, "size|bytes|overflow"),
    raises("device_array_shape_2_pow_64", "cuda.device_array(2**64)", SIZE, "shape|size"),
    raises("device_array_too_big_for_memory", "cuda.device_array(2**60, np.uint8)", SIZE, "bytes|memory"),
    raises("device_array_float_shape", "cuda.device_array(2.5)", ("TypeError",), "float"),
    raises("device_array_string_shape", "cuda.device_array('abc')", ("TypeError",), "shape|str"),
    raises("device_array_none_shape", "cuda.device_array(None)", ("TypeError",), "None|shape"),
    raises("device_array_bad_dtype", "cuda.device_array(4, dtype='floaty')", ("TypeError",), "floaty"),
    raises("device_array_object_dtype", "cuda.device_array(4, dtype=object)", ("TypeError", "ValueError"), "object"),
    raises("device_array_bad_order", "cuda.device_array(4, order='X')", ("ValueError",), "order", "X"),
    raises("device_array_strides_wrong_length", "cuda.device_array(4, strides=(8, 8))", ("ValueError",), "strides"),
    raises("device_array_strides_huge", "cuda.device_array((4,), strides=(2**62,))", SIZE, "strides|size|bytes"),
    raises("device_array_strides_float", "cuda.device_array(4, strides=(8.5,))", ("TypeError", "ValueError"), "strides"),
    raises("device_array_like_string", "cuda.device_array_like('abc')", ("TypeError", "AttributeError"), "shape|str"),
    # numba-cuda returns an object device array; cudajit a stand-in that refuses any use (arrays.ObjectDeviceArray)
    raises("to_device_object_array", "cuda.to_device(np.array([1, 'a'], dtype=object)).copy_to_host()", ("TypeError",),
           "object"),
    # numba-cuda returns an object device array (on purpose: programs pass to_device(None) for arrays they never use);
    # cudajit returns a stand-in with its shape and dtype whose every use raises TypeError saying why (issue 37)
    returns("to_device_object_stand_in", """
        s = cuda.to_device(np.array([object()]))
        try:
            K.add_one[1, 32](s); used = "launched"
        except TypeError as e:
            used = str(e)
    """, "s.shape == (1,) and s.dtype == object and 'object' in used"),
    raises("to_device_ragged_list", "cuda.to_device([[1, 2], [3]])", ("ValueError", "TypeError"), "inhomogeneous|ragged|shape"),
    raises("to_device_none", "cuda.to_device(None)[()]", ("TypeError", "ValueError"), "None|object"),
    raises("to_device_wrong_target", """
        target = cuda.device_array(5)
        cuda.to_device(np.zeros(4), to=target)
    """, ("ValueError",), "shape|size"),
    raises("pinned_array_negative", "cuda.pinned_array(-5)", ("ValueError",), "-5"),
    raises("mapped_array_negative", "cuda.mapped_array((2, -5))", ("ValueError",), "-5"),
    raises("managed_array_bad_dtype", "cuda.managed_array(3, dtype='nope')", ("TypeError",), "nope"),
    raises("pinned_array_huge", "cuda.pinned_array(2**60, np.uint8)", SIZE, "bytes|memory"),
    returns("device_array_zero_size", "d = cuda.device_array((0, 3)); r = d.copy_to_host()", "r.shape == (0, 3)"),
    returns("device_array_zero_dim", """
        d = cuda.to_device(np.array(2.5)); r = d.copy_to_host()
    """, "r.shape == () and r[()] == 2.5"),
    returns("to_device_roundtrip_dtypes", """
        ok = True
        for dt in (np.bool_, np.int8, np.uint16, np.int32, np.uint64, np.float16, np.float32, np.complex128):
            x = (rng.standard_normal(37) * 50).astype(dt)
            ok = ok and np.array_equal(cuda.to_device(x).copy_to_host(), x)
    """, "ok"),
    returns("to_device_structured_roundtrip", """
        x = np.zeros(5, [('a', 'f8'), ('b', 'i4')]); x['a'] = rng.standard_normal(5); x['b'] = np.arange(5)
        r = cuda.to_device(x).copy_to_host()
    """, "np.array_equal(r, x)"),
    returns("to_device_noncontiguous", """
        x = rng.standard_normal((8, 9))[::2, ::3]; r = cuda.to_device(x).copy_to_host()
    """, "np.array_equal(r, x)"),
    # indexing
    raises("index_out_of_range", D + "d[16]", ("IndexError",), "16", "axis 0", "16"),
    raises("index_negative_out_of_range", D + "d[-17]", ("IndexError",), "-17"),
    raises("index_2d_axis1", D2 + "d[1, 6]", ("IndexError",), "6", "axis 1"),
    raises("index_too_many", D + "d[0, 0]", ("IndexError",), "indices|dimensions"),
    raises("index_float", D + "d[1.5]", ("TypeError", "IndexError"), "float"),
    raises("index_string", D + "d['a']", ("TypeError", "IndexError"), "str"),
    raises("index_huge", D + "d[2**64]", ("IndexError", "OverflowError"), "18446744073709551616|index"),
    raises("index_list_fancy", D + "d[[0, 1]]", ("TypeError", "IndexError", "NotImplementedError"), "list|basic|fancy"),
    raises("index_bool_mask", D + "d[h > 0]", ("TypeError", "IndexError", "NotImplementedError"), "ndarray|basic|bool|fancy"),
    raises("slice_step_zero", D + "d[::0]", ("ValueError",), "step", "zero"),
    raises("two_ellipses", D2 + "d[..., ...]", ("IndexError", "TypeError"), "ellipsis"),
    returns("index_values", D2 + "a = d[2, 3]; b = d[-1, -1]", "a == h[2, 3] and b == h[-1, -1]"),
    returns("slice_values", D2 + "r = d[1:3, ::-2].copy_to_host()", "np.array_equal(r, h[1:3, ::-2])"),
    returns("ellipsis_newaxis_values", D2 + "r = d[..., None, 2].copy_to_host()", "np.array_equal(r, h[..., None, 2])"),
    returns("empty_slice", D + "r = d[10:3].copy_to_host()", "r.shape == (0,)"),
    # assignment
    raises("setitem_none", D + "d[:] = None", ("TypeError",), "None"),
    raises("setitem_string", D + "d[:] = 'abc'", ("ValueError", "TypeError"), "abc|str"),
    raises("setitem_shape_mismatch", D + "d[:] = np.arange(5.0)", ("ValueError",), "shape|broadcast"),
    raises("setitem_int_overflow", "d = cuda.to_device(np.zeros(4, np.int64)); d[0] = 2**100", ("OverflowError",), "int64|bounds|large"),
    raises("setitem_out_of_range", D + "d[16] = 1.0", ("IndexError",), "16"),
    raises("setitem_object", D + "d[:] = object()", ("TypeError",), "object"),
    returns("setitem_broadcast", D2 + "d[1:3] = np.arange(6.0); h[1:3] = np.arange(6.0); r = d.copy_to_host()", "np.array_equal(r, h)"),
    returns("setitem_reversed_view", D + "v = rng.standard_normal(16); d[::-1] = v; r = d.copy_to_host()", "np.array_equal(r, v[::-1])"),
    returns("setitem_strided_keeps_gaps", D + "d[::3] = -1.0; h[::3] = -1.0; r = d.copy_to_host()", "np.array_equal(r, h)"),
    returns("setitem_from_device", D + "e = cuda.to_device(np.arange(16.0)); d[:] = e; r = d.copy_to_host()", "np.array_equal(r, np.arange(16.0))"),
    # copies
    raises("copy_to_host_wrong_shape", D + "d.copy_to_host(np.zeros(5))", ("ValueError",), "shape"),
    raises("copy_to_host_wrong_dtype", D + "d.copy_to_host(np.zeros(16, np.float32))", ("TypeError", "ValueError"), "dtype|float32"),
    raises("copy_to_host_string", D + "d.copy_to_host('abc')", ("TypeError",), "str"),
    raises("copy_to_host_readonly", D + "t = np.zeros(16); t.flags.writeable = False; d.copy_to_host(t)", ("ValueError", "TypeError"), "read-only|readonly|writeable"),
    raises("copy_to_device_wrong_size", D + "d.copy_to_device(np.zeros(5))", ("ValueError",), "shape|size"),
    raises("copy_to_device_wrong_dtype", D + "d.copy_to_device(np.zeros(16, np.int32))", ("TypeError", "ValueError"), "dtype|int32"),
    raises("copy_to_device_none", D + "d.copy_to_device(None)", ("TypeError", "ValueError"), "None|object"),
    raises("copy_to_device_other_shape_device", D + "d.copy_to_device(cuda.device_array(8))", ("ValueError",), "shape|size"),
    returns("copy_to_host_into_target", D + "t = np.empty(16); d.copy_to_host(t)", "np.array_equal(t, h)"),
    returns("copy_to_host_of_view", D2 + "r = d[:, 1::2].T.copy_to_host()", "np.array_equal(r, h[:, 1::2].T)"),
    returns("asarray_of_device", D2 + "r = np.asarray(d)", "np.array_equal(r, h)"),
    # reshape / view / split / transpose
    raises("reshape_wrong_size", D + "d.reshape(5)", ("ValueError",), "16", "5"),
    raises("reshape_two_unknowns", D + "d.reshape(-1, -1)", ("ValueError",), "unknown|-1"),
    raises("reshape_negative", D + "d.reshape(-2, -8)", ("ValueError",), "-2|-8|negative"),
    raises("reshape_bad_order", D + "d.reshape(4, 4, order='Z')", ("ValueError",), "order"),
    raises("reshape_noncontiguous", D2 + "d[:, ::2].reshape(12)", ("NotImplementedError", "ValueError"), "contiguous"),
    raises("ravel_noncontiguous", D2 + "d[:, ::2].ravel()", ("NotImplementedError", "ValueError"), "contiguous"),
    raises("view_bad_size", D + "d[:3].view(np.complex128)", ("ValueError",), "complex128"),
    raises("view_bad_dtype", D + "d.view('nope')", ("TypeError",), "nope"),
    raises("view_noncontiguous", D + "d[::2].view(np.float32)", ("ValueError",), "contiguous"),
    raises("split_negative", D + "d.split(-3)", ("ValueError",), "-3"),
    raises("split_zero", D + "d.split(0)", ("ValueError",), "0"),
    raises("split_float", D + "d.split(2.5)", ("TypeError",), "float|2.5"),
    raises("split_2d", D2 + "d.split(2)", ("ValueError",), "1-d|one"),
    raises("transpose_repeated_axes", D2 + "d.transpose((0, 0))", ("ValueError",), "axes"),
    raises("transpose_axis_out_of_range", D2 + "d.transpose((0, 5))", ("ValueError",), "axes|5"),
    raises("len_of_zero_dim", "len(cuda.to_device(np.array(1.0)))", ("TypeError",), "unsized|0-d"),
    raises("arithmetic_on_device_array", D + "d + 1", ("TypeError",), "DeviceNDArray|unsupported"),
    returns("reshape_unknown", D + "r = d.reshape((2, -1)).copy_to_host()", "np.array_equal(r, h.reshape(2, -1))"),
    returns("reshape_fortran", D + "r = d.reshape(4, 4, order='F').copy_to_host()", "np.array_equal(r, h.reshape(4, 4, order='F'))"),
    returns("view_as_int64", D + "r = d.view(np.int64).copy_to_host()", "np.array_equal(r, h.view(np.int64))"),
    returns("view_as_float32", D + "r = d.view(np.float32).copy_to_host()", "np.array_equal(r, h.view(np.float32))"),
    returns("split_values", "h = rng.standard_normal(7); d = cuda.to_device(h); parts = [p.copy_to_host() for p in d.split(3)]",
            "[len(p) for p in parts] == [3, 3, 1] and np.array_equal(np.concatenate(parts), h)"),
    returns("transpose_values", D2 + "r = d.transpose((1, 0)).copy_to_host()", "np.array_equal(r, h.T)"),
    returns("kernel_on_view", """
        h = rng.standard_normal((4, 6)); d = cuda.to_device(h)
        v = d[1:, ::2]
        K.add_2d[(1, 1), (8, 8)](v, v, v)
        want = h.copy(); want[1:, ::2] *= 2
        r = d.copy_to_host()
    """, "np.array_equal(r, want)"),
]

CASES = with_category("devarray", CASES)
