"""DLPack consumers (``cuda.from_dlpack``): producers' capsules, hand-made capsules with null data or shape,
overflowing offsets, bad dtypes and devices; device memory refused on the CPU backend and host memory on the
GPU where it cannot be used (ValueError naming the field and the value, issue 10); bool width honoured."""
from cases import raises, returns, snippet, with_category

BAD = ("ValueError", "TypeError", "BufferError")
H = "h = rng.standard_normal(12)\n"

_malformed = [
    ("null_data_nonzero_size", "K.dl_capsule(h, data=0)", "data"),
    ("null_shape", "K.dl_capsule(h, null_shape=True)", "shape"),
    ("negative_shape", "K.dl_capsule(h, shape=(-12,))", "shape", "-12"),
    ("overflowing_shape", "K.dl_capsule(h, shape=(2**62, 2**62), strides=(1, 1))", "shape"),
    ("huge_byte_offset", "K.dl_capsule(h, byte_offset=2**62)", "byte_offset|offset"),
    ("offset_wraps_pointer", "K.dl_capsule(h, byte_offset=2**64 - 8)", "byte_offset|offset"),
    ("negative_ndim", "K.dl_capsule(h, ndim=-1)", "ndim", "-1"),
    ("huge_ndim", "K.dl_capsule(h, ndim=1000)", "ndim|dimensions", "1000"),
    ("strides_overflow", "K.dl_capsule(h, strides=(2**62,))", "strides"),
    ("bits_zero", "K.dl_capsule(h, bits=0)", "bits", "0"),
    ("bits_odd", "K.dl_capsule(h, bits=12)", "bits", "12"),
    ("float_bits_8", "K.dl_capsule(h, bits=8)", "bits|float8", "8"),
    ("int_bits_128", "K.dl_capsule(h, code=0, bits=128)", "bits", "128"),
    ("unknown_code", "K.dl_capsule(h, code=42)", "code|dtype", "42"),
    ("vector_lanes", "K.dl_capsule(h, lanes=4)", "lanes", "4"),
    ("zero_lanes", "K.dl_capsule(h, lanes=0)", "lanes", "0"),
    ("bool_bits_32", "K.dl_capsule(h, code=6, bits=32)", "bits|bool", "32"),
    ("unknown_device", "K.dl_capsule(h, device_type=99)", "device", "99"),
    ("opencl_device", "K.dl_capsule(h, device_type=4)", "device", "4"),
    ("negative_device_id", "K.dl_capsule(h, device_type=2, device_id=-1)", "device", "-1"),
]
CASES = [raises(n, H + f"cuda.from_dlpack({cap})", BAD, *w) for n, cap, *w in _malformed]
CASES += [raises(n + "_via_producer", H + f"cuda.from_dlpack(K.DLProducer({cap}))", BAD, *w)
          for n, cap, *w in _malformed[:6]]

CASES += [
    raises("cuda_memory_on_cpu_backend", H + "cuda.from_dlpack(K.dl_capsule(h, device_type=2))",
           BAD, "device", "CUDA|2", backends=("cpu",)),
    returns("managed_memory_on_cpu_backend", H + "r = cuda.from_dlpack(K.dl_capsule(h, device_type=13)).copy_to_host()",
            "np.array_equal(r, h)", backends=("cpu",)),
    raises("host_memory_on_gpu_backend", H + "cuda.from_dlpack(K.dl_capsule(h, device_type=1))",
           BAD, "device", "CPU|1", backends=("gpu",)),
    raises("capsule_used_twice", H + "c = K.dl_capsule(h); cuda.from_dlpack(c); cuda.from_dlpack(c)",
           BAD, "capsule|consumed|used", backends=("cpu",)),
    raises("capsule_wrong_name", H + "cuda.from_dlpack(K.dl_capsule(h, name=b'other'))", BAD, "capsule|dltensor"),
    raises("not_a_capsule", "cuda.from_dlpack(42)", BAD, "int|__dlpack__"),
    raises("none_producer", "cuda.from_dlpack(None)", BAD, "None|__dlpack__"),
    raises("producer_raises", """
        class Broken:
            def __dlpack__(self, stream=None):
                raise BufferError("cannot export")
            def __dlpack_device__(self):
                return (1, 0)
        cuda.from_dlpack(Broken())
    """, ("BufferError",), "cannot export"),
    raises("producer_returns_garbage", """
        class Garbage:
            def __dlpack__(self, stream=None):
                return "not a capsule"
            def __dlpack_device__(self):
                return (1, 0)
        cuda.from_dlpack(Garbage())
    """, BAD, "capsule|str"),
    raises("export_with_copy", "d = cuda.to_device(np.zeros(3)); d.__dlpack__(copy=True)", ("BufferError", "ValueError"), "cop"),
    returns("numpy_producer", H + "r = cuda.from_dlpack(h).copy_to_host()", "np.array_equal(r, h)", backends=("cpu",)),
    returns("numpy_2d_strided_producer", """
        h = rng.standard_normal((5, 8))[:, ::2]
        r = cuda.from_dlpack(h).copy_to_host()
    """, "np.array_equal(r, h)", backends=("cpu",)),
    returns("crafted_capsule_values", H + "r = cuda.from_dlpack(K.dl_capsule(h)).copy_to_host()", "np.array_equal(r, h)",
            backends=("cpu",)),
    returns("crafted_null_strides_c_order", """
        h = rng.standard_normal((3, 4))
        r = cuda.from_dlpack(K.dl_capsule(h, strides="null")).copy_to_host()
    """, "np.array_equal(r, h)", backends=("cpu",)),
    returns("crafted_byte_offset", H + "r = cuda.from_dlpack(K.dl_capsule(h, shape=(4,), strides=(1,), byte_offset=16)).copy_to_host()",
            "np.array_equal(r, h[2:6])", backends=("cpu",)),
    returns("bool_width_honoured", """
        h = np.array([True, False, True, True])
        r = cuda.from_dlpack(K.dl_capsule(h, code=6, bits=8)).copy_to_host()
    """, "r.dtype == np.bool_ and np.array_equal(r, h)", backends=("cpu",)),
    returns("zero_size_null_data", "r = cuda.from_dlpack(K.dl_capsule(data=0, shape=(0,), strides=(1,), code=2, bits=64)).copy_to_host()",
            "r.shape == (0,)", backends=("cpu",)),
    returns("kernel_writes_through_dlpack", snippet(H, """
        v = cuda.from_dlpack(h); want = h + 1
        K.add_one[1, 32](v)
    """), "np.array_equal(h, want)", backends=("cpu",)),
    returns("roundtrip_device_array", """
        h, d = K.device_pair(10)
        r = cuda.from_dlpack(d).copy_to_host()
    """, "np.array_equal(r, h)"),
    returns("export_to_numpy", """
        h, d = K.device_pair(10)
        r = np.from_dlpack(d)
    """, "np.array_equal(r, h)", backends=("cpu",)),
]

CASES = with_category("dlpack", CASES)
