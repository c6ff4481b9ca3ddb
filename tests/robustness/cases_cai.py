"""``__cuda_array_interface__`` (v3) consumers: ``cuda.as_cuda_array``, ``from_cuda_array_interface`` and kernel
arguments. A malformed dict raises ValueError/TypeError naming the key and the value; null data with a non-zero
size, negative or overflowing shapes, wrong typestrs and unknown versions are refused (issue 10); read-only data
cannot be written by a kernel (a typing error, as Numba's readonly arrays); well-formed exporters work."""
from cases import raises, returns, snippet, with_category

BAD = ("ValueError", "TypeError")
BASE = "h, d = K.device_pair(16)\n"


def consume(name, fields, *words, exc=BAD):
    """Three consumers of one malformed description: as_cuda_array, a kernel argument, copy_to_device."""
    return [
        raises(f"{name}", BASE + f"cuda.as_cuda_array(K.CAI(d, {fields}))", exc, *words),
        raises(f"{name}_as_kernel_arg", BASE + f"K.add_one[1, 32](K.CAI(d, {fields}))", exc, *words),
        raises(f"{name}_copy_source", BASE + f"d.copy_to_device(K.CAI(d, {fields}))", exc, *words),
    ]


# A NumPy subclass that exports its own buffer through the CUDA Array Interface, with the typestr, strides and the
# element offset of the data pointer it is given.
HOST_EXPORTER = """
class Exporter(np.ndarray):
    def __new__(cls, base, typestr, strides=None, offset=0):
        self = base.view(cls)
        self.cai = {"shape": base.shape, "typestr": typestr, "strides": strides, "version": 3,
                    "data": (base.ctypes.data + offset * base.itemsize, False)}
        return self
    @property
    def __cuda_array_interface__(self):
        return self.cai
"""

CASES = []
for args in [
    ("missing_shape", "drop=('shape',)", "shape"),
    ("missing_typestr", "drop=('typestr',)", "typestr"),
    ("missing_data", "drop=('data',)", "data"),
    ("missing_version", "drop=('version',)", "version"),
    ("null_data_nonzero_size", "data=(0, False)", "data", "0"),
    ("shape_negative", "shape=(-16,)", "shape", "-16"),
    ("shape_overflowing", "shape=(2**62, 2**62)", "shape"),
    ("shape_2_pow_64", "shape=(2**64,)", "shape"),
    ("shape_not_a_tuple", "shape='abc'", "shape"),
    ("shape_float", "shape=(2.5,)", "shape", "2.5"),
    ("shape_none", "shape=None", "shape", "None"),
    ("typestr_unknown", "typestr='<q9'", "typestr", "<q9"),
    ("typestr_object", "typestr='|O'", "typestr", "|O"),
    ("typestr_not_string", "typestr=8", "typestr", "8"),
    ("shape_bool", "shape=(True,)", "shape", "bool"),           # issue 37: was taken as 1
    ("strides_bool", "shape=(1,), strides=(True,)", "strides", "bool"),
    ("data_misaligned", "data=(d.__cuda_array_interface__['data'][0] + 1, False), shape=(8,)", "data", "aligned",
     "<f8"),
    ("strides_misaligned", "shape=(4,), strides=(12,)", "strides", "12", "aligned|multiple"),
    ("data_not_tuple", "data=12345", "data", "12345"),
    ("data_one_item", "data=(d.__cuda_array_interface__['data'][0],)", "data"),
    ("data_pointer_string", "data=('abc', False)", "data", "abc"),
    ("data_pointer_negative", "data=(-8, False)", "data", "-8"),
    ("data_pointer_2_pow_64", "data=(2**64, False)", "data"),
    ("strides_wrong_length", "strides=(8, 8)", "strides"),
    ("strides_float", "strides=(8.5,)", "strides", "8.5"),
    ("strides_not_tuple", "strides='x'", "strides"),
    ("version_unknown", "version=99", "version", "99"),
    ("version_negative", "version=-1", "version", "-1"),
    ("stream_zero", "stream=0", "stream", "0"),
    ("stream_string", "stream='s'", "stream"),
]:
    CASES += consume(*args)

CASES += [
    raises("mask_given", BASE + "cuda.as_cuda_array(K.CAI(d, mask=d))", ("NotImplementedError", "ValueError"), "mask"),
    raises("interface_not_dict", BASE + "o = K.CAI(d); o.__cuda_array_interface__ = [1, 2]; cuda.as_cuda_array(o)",
           ("TypeError",), "__cuda_array_interface__", "list"),
    raises("interface_raises", """
        class Broken:
            @property
            def __cuda_array_interface__(self):
                raise RuntimeError("producer failed")
        cuda.as_cuda_array(Broken())
    """, ("RuntimeError",), "producer failed"),
    raises("not_an_exporter", "cuda.as_cuda_array(np.zeros(3))", ("TypeError",), "ndarray", "__cuda_array_interface__"),
    raises("from_interface_not_dict", "cuda.from_cuda_array_interface('abc')", ("TypeError",), "str|dict"),
    raises("readonly_written_by_kernel", BASE + "K.add_one[1, 32](K.CAI(d, data=(d.__cuda_array_interface__['data'][0], True)))",
           ("TypeError",), "arr", "read-only|readonly"),
    raises("readonly_copy_into", BASE + "v = cuda.as_cuda_array(K.CAI(d, data=(d.__cuda_array_interface__['data'][0], True))); v.copy_to_device(h)",
           ("ValueError", "TypeError"), "read-only|readonly"),
    raises("strides_leave_known_buffer", BASE + "K.add_one[1, 32](K.CAI(d, strides=(8 * 2**40,)))",
           ("ValueError",), "strides"),
    raises("typestr_wider_than_data", BASE + "cuda.as_cuda_array(K.CAI(d, typestr='<c32'))", BAD, "typestr", "<c32"),
    # host memory (issue 37): a description wider than the exporter's own buffer, or whose negative stride reaches
    # before it, corrupted the heap; where the exporter exposes its buffer (a NumPy subclass here) or the memory is one
    # of this process's device arrays (the CPU backend's are host memory), its extent is known and checked
    raises("host_typestr_wider_than_exporter_buffer", HOST_EXPORTER + "cuda.as_cuda_array(Exporter(np.zeros(16, np.float32), '<f8'))",
           ("ValueError",), "typestr '<f8'", "buffer", "Exporter", backends=("cpu",)),
    raises("host_typestr_wider_as_kernel_arg", HOST_EXPORTER + "K.add_one[1, 32](Exporter(np.zeros(16, np.float32), '<f8'))",
           ("ValueError",), "typestr '<f8'", "buffer", backends=("cpu",)),
    raises("host_negative_stride_before_exporter_buffer",
           HOST_EXPORTER + "cuda.as_cuda_array(Exporter(np.zeros(16, np.float32), '<f4', strides=(-4,)))",
           ("ValueError",), "strides (-4,)", "buffer", backends=("cpu",)),
    returns("host_negative_stride_within_exporter_buffer", snippet(HOST_EXPORTER, """
        h = rng.standard_normal(16).astype(np.float32)
        v = cuda.as_cuda_array(Exporter(h, '<f4', strides=(-4,), offset=15)).copy_to_host()
    """), "np.array_equal(v, h[::-1])", backends=("cpu",)),
    raises("device_array_typestr_wider", "d = cuda.to_device(np.zeros(16, np.float32))\n"
           "cuda.as_cuda_array(K.CAI(d, typestr='<f8'))", ("ValueError",), "typestr '<f8'", "past the end",
           backends=("cpu",)),
    raises("device_array_negative_stride_before", "d = cuda.to_device(np.zeros(16, np.float32))\n"
           "cuda.as_cuda_array(K.CAI(d, strides=(-4,)))", ("ValueError",), "strides (-4,)", "before the start",
           backends=("cpu",)),
    returns("readonly_read_by_kernel", snippet(BASE, """
        src = K.CAI(d, data=(d.__cuda_array_interface__['data'][0], True))
        out = np.zeros(16)
        K.scale[1, 32](out, src, 2.0)
    """), "np.array_equal(out, h * 2)"),
    returns("valid_view_roundtrip", BASE + "r = cuda.as_cuda_array(K.CAI(d)).copy_to_host()", "np.array_equal(r, h)"),
    returns("valid_kernel_arg", BASE + "K.add_one[1, 32](K.CAI(d)); r = d.copy_to_host()", "np.array_equal(r, h + 1)"),
    returns("valid_strided_2d", """
        h = rng.standard_normal((6, 8)); d = cuda.to_device(h)
        v = cuda.as_cuda_array(K.CAI(d, shape=(6, 4), strides=(64, 16)))
        r = v.copy_to_host()
    """, "np.array_equal(r, h[:, ::2])"),
    returns("valid_zero_size_null_data", BASE + "v = cuda.as_cuda_array(K.CAI(d, shape=(0,), data=(0, False)))",
            "v.shape == (0,) and v.size == 0"),
    returns("valid_version_2", BASE + "r = cuda.as_cuda_array(K.CAI(d, version=2)).copy_to_host()", "np.array_equal(r, h)"),
    returns("is_cuda_array", BASE + "a = cuda.is_cuda_array(K.CAI(d)); b = cuda.is_cuda_array(h)", "a and not b"),
    returns("mapped_array_exports", """
        m = cuda.mapped_array(12); m[:] = np.arange(12.0)
        K.add_one[1, 32](m); cuda.synchronize()
    """, "np.array_equal(m, np.arange(12.0) + 1)"),
]

CASES = with_category("cai", CASES)
