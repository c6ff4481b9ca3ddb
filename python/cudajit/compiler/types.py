"""Numba-named types that print themselves both ways: ``str(t)`` is Numba's name, ``t.cpp`` the C++ spelling.

These objects are also the user-visible ``from cudajit import float32, int32, void``: indexing a scalar type with
slices makes an array type (``float32[:, ::1]``), calling it with types makes a signature
(``void(float32[:], int32)``), calling it with a number outside a kernel returns a NumPy scalar (as Numba does).
"""
import numpy as np


class Type:
    """Base of every type. Equality and hashing go by ``key`` so two spellings of one type are one type."""
    name = "?"
    cpp = "?"

    @property
    def storage_cpp(self):
        """The C++ type of this type's elements in memory (arrays, shared/local/constant storage)."""
        return self.cpp

    @property
    def key(self):
        return self.name

    def __eq__(self, other):
        return isinstance(other, Type) and type(self) is type(other) and self.key == other.key

    def __hash__(self):
        return hash((type(self).__name__, self.key))

    def __str__(self):
        return self.name

    __repr__ = __str__

    def __call__(self, *args):
        # Called with types: a signature, as in Numba (``void(float32[:], int32)``).
        if args and all(isinstance(a, Type) for a in args) or not args:
            return Signature(self, args)
        raise TypeError(f"{self.name} cannot be called with {args!r} outside a kernel")


class Scalar(Type):
    """A number or boolean: carries its NumPy dtype for typeof, launch packing and host-side casts."""
    def __init__(self, name, cpp, dtype):
        self.name, self.cpp, self.dtype = name, cpp, np.dtype(dtype)

    @property
    def code(self):
        """NumPy's short type string (``'f4'``, ``'b1'``) that the launcher packs by."""
        return self.dtype.str[1:]

    @property
    def bitwidth(self):
        return self.dtype.itemsize * 8

    def __call__(self, *args):
        if args and not any(isinstance(a, Type) for a in args) and len(args) == 1:
            return self.dtype.type(args[0])          # float32(3) outside a kernel, like Numba
        return Type.__call__(self, *args)

    def __getitem__(self, spec):
        """``float32[:]``, ``float32[:, ::1]`` (C), ``float32[::1, :]`` (F): Numba's array type spelling."""
        spec = spec if isinstance(spec, tuple) else (spec,)
        if not all(isinstance(s, slice) for s in spec):
            raise TypeError(f"array type spec must be slices, got {spec!r}")
        layout = "A"
        steps = [s.step for s in spec]
        if any(st not in (None, 1) for st in steps):
            raise TypeError(f"array type spec step must be 1: {spec!r}")
        if steps[-1] == 1 and all(st is None for st in steps[:-1]):
            layout = "C"
        elif steps[0] == 1 and all(st is None for st in steps[1:]):
            layout = "F"
        return Array(self, len(spec), layout)


class Boolean(Scalar):
    def __init__(self):
        super().__init__("bool", "bool", np.bool_)


class Integer(Scalar):
    def __init__(self, bits, signed):
        self.signed = signed
        n = ("int" if signed else "uint") + str(bits)
        super().__init__(n, f"{n}_t", n)


class Float(Scalar):
    def __init__(self, bits):
        super().__init__(f"float{bits}", {16: "cj::half", 32: "float", 64: "double"}[bits], f"float{bits}")


class BFloat16(Float):
    """numba-cuda's ``bfloat16`` (its ``__nv_bfloat16``, ``numba.cuda.bf16.bfloat16``): C++ ``cj::bfloat16``
    (bfloat16.h), two bytes as ``ml_dtypes.bfloat16`` stores them, whose NumPy dtype it is. Kernels need no ml_dtypes;
    NumPy arrays and scalars of it do. Launched as its bits (``code`` 'u2')."""
    name, cpp, code, bitwidth = "bfloat16", "cj::bfloat16", "u2", 16

    def __init__(self):
        pass

    @property
    def dtype(self):
        dtype = ml_bfloat16()
        if dtype is None:
            raise TypeError("bfloat16 has no NumPy dtype without the ml_dtypes package: install ml_dtypes for "
                            "bfloat16 arrays and scalars on the host (kernels use bfloat16 without it)")
        return dtype

    def __call__(self, *args):
        if args and not any(isinstance(a, Type) for a in args) and len(args) == 1:
            return self.dtype.type(args[0])          # an ml_dtypes.bfloat16 outside a kernel
        return Type.__call__(self, *args)


def ml_bfloat16():
    """ml_dtypes' bfloat16 dtype, or None without ml_dtypes (imported on first use: it is optional)."""
    global _ML_BFLOAT16
    if _ML_BFLOAT16 is False:
        try:
            import ml_dtypes
            _ML_BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
        except ImportError:
            _ML_BFLOAT16 = None
    return _ML_BFLOAT16


_ML_BFLOAT16 = False


class FP8(Scalar):
    """numba-cuda's ``fp8_e4m3``, ``fp8_e5m2``, ``fp8_e8m0`` (numba.cuda._internal.cuda_fp8; CUDA's ``__nv_fp8_*``):
    C++ ``cj::fp8_e4m3`` ... (fp8.h), one byte as ml_dtypes' ``float8_e4m3fn``, ``float8_e5m2`` and
    ``float8_e8m0fnu`` store it, whose NumPy dtype it is (kernels need no ml_dtypes). A number with no arithmetic:
    it converts to and from the other numbers only explicitly (``fp8_e4m3(x)``, ``float32(f)``), as numba-cuda's.
    Launched as its bits (``code`` 'u1'). ``__name__`` is its name, as numba-cuda's type objects have one."""
    code, bitwidth = "u1", 8

    def __init__(self, name, ml_name):
        self.name, self.cpp, self.ml_name, self.__name__ = name, f"cj::{name}", ml_name, name

    @property
    def dtype(self):
        dtype = ml_fp8(self.ml_name)
        if dtype is None:
            raise TypeError(f"{self.name} has no NumPy dtype without the ml_dtypes package: install ml_dtypes for "
                            f"{self.name} arrays and scalars on the host (ml_dtypes.{self.ml_name}; kernels use "
                            f"{self.name} without it)")
        return dtype

    def __call__(self, *args):
        if args and not any(isinstance(a, Type) for a in args) and len(args) == 1:
            return self.dtype.type(args[0])          # an ml_dtypes value outside a kernel
        return Type.__call__(self, *args)


class FP8Vector(Type):
    """numba-cuda's ``fp8x2_e4m3`` ... ``fp8x4_e8m0``: ``count`` (2 or 4) values of the fp8 type ``element`` in one
    integer (``storage``, uint16 or uint32, its ``__x``), lane i in byte i. C++ ``cj::fp8x2_e4m3`` ... (fp8.h)."""
    def __init__(self, element, count):
        self.element, self.count = element, count
        self.storage = uint16 if count == 2 else uint32
        kind = element.name.split("_")[1]
        self.name = self.__name__ = f"fp8x{count}_{kind}"
        self.cpp = f"cj::{self.name}"


class BFloat16Raw(Type):
    """CUDA's ``__nv_bfloat16_raw`` (numba-cuda's cuda_bf16 type of it): a bfloat16's bits in ``.x`` (uint16), what
    ``cvt_e8m0_to_bf16raw`` returns and the ``cvt_bfloat16raw_*`` functions take. C++ ``cj::bfloat16_raw``."""
    name, cpp = "bfloat16_raw", "cj::bfloat16_raw"


def ml_fp8(ml_name):
    """ml_dtypes' dtype ``ml_name`` (``float8_e5m2`` ...), or None without ml_dtypes or with one that lacks it."""
    if ml_name not in _ML_FP8:
        try:
            import ml_dtypes
            _ML_FP8[ml_name] = np.dtype(getattr(ml_dtypes, ml_name))
        except (ImportError, AttributeError):
            _ML_FP8[ml_name] = None
    return _ML_FP8[ml_name]


_ML_FP8 = {}


class Complex(Scalar):
    def __init__(self, bits):
        self.underlying = {64: float32, 128: float64}[bits]
        super().__init__(f"complex{bits}", f"cj::complex<{self.underlying.cpp}>", f"complex{bits}")

    @property
    def underlying_float(self):
        """Numba's name for the type of the real and imaginary parts."""
        return self.underlying


class NoneType(Type):
    name, cpp = "none", "void"


class StringLiteral(Type):
    """A str or bytes constant in a kernel (Numba's ``Literal[str]``, a bytes literal): a compile-time value, its
    ``value`` part of the type, so a device function passed one is specialised on it (numba-cuda's literal dispatch).
    Kernels keep strings as constants: compared with each other (folded), printed, raised, measured by len(), named
    as dtypes, stored into 'S'/'U' array elements and record fields (CharSeq), and passed to device functions."""
    cpp = "void"

    def __init__(self, value):
        self.value = value
        self.name = f"Literal[{type(value).__name__}]({value!r:.60})"

    @property
    def key(self):
        return (type(self.value).__name__, self.value)


class Optional(Type):
    """A value that may be None at run time (Numba's ``Optional``): where a definition or return of None meets one of
    a scalar ``type``. C++ ``cj::Optional<T>`` (lang.h): the value and a valid flag. Only scalars are wrapped; an
    operation that needs a ``type`` unwraps it, which ends the thread (debug: raises TypeError) when it is None."""
    def __init__(self, type_):
        self.type = type_
        self.name, self.cpp = f"OptionalType({type_})", f"cj::Optional<{type_.cpp}>"

    @property
    def key(self):
        return self.type


def can_be_optional(t):
    """Whether cudajit wraps ``t`` in an Optional: booleans and numbers (not fp8, records or datetimes)."""
    return isinstance(t, (Boolean, Integer, Float, Complex))


class GridGroup(Type):
    """What ``cuda.cg.this_grid()`` returns (Numba's ``grid_group``): its one method is ``sync()``."""
    name, cpp = "grid_group", "cj::grid_group"


class ArrayCTypes(Type):
    """``a.ctypes`` of an array (Numba's ``ArrayCTypes``): its ``data`` is the address of the first element, a
    uintp. Same C++ as the array it views."""
    def __init__(self, array):
        self.array = array
        self.name, self.cpp = f"ArrayCTypes(dtype={array.dtype}, ndim={array.ndim})", array.cpp


class CPointer(Type):
    """Numba's ``CPointer(T)``, a C++ ``T*``: what foreign functions take and return (an array argument passes its
    data pointer) and what ``carray``/``farray`` view as an array."""
    def __init__(self, dtype):
        self.dtype = dtype
        self.name, self.cpp = f"{dtype}*", f"{dtype.cpp}*"

    @property
    def key(self):
        return self.dtype.key


class Undefined(Type):
    """A variable whose type inference has not reached yet (only during the fixed-point iteration)."""
    name, cpp = "undefined", "?"


class Array(Type):
    """``dtype[nd, layout]``: C++ ``cj::Array<T, ND, cj::L>`` (array.h)."""
    def __init__(self, dtype, ndim, layout="A", readonly=False):
        if layout not in ("C", "F", "A"):
            raise ValueError(f"layout must be C, F or A, not {layout!r}")
        if ndim <= 1 and layout == "F":
            layout = "C"          # a 1-d (or 0-d) contiguous array is C in Numba
        self.dtype, self.ndim, self.layout, self.readonly = dtype, ndim, layout, readonly
        self.name = f"{'readonly ' if readonly else ''}array({dtype}, {ndim}d, {layout})"
        self.cpp = f"cj::Array<{dtype.storage_cpp}, {ndim}, cj::{layout}>"

    @property
    def key(self):
        return (self.dtype.name, self.ndim, self.layout, self.readonly)

    @property
    def spec(self):
        """The slice spelling: ``float32[:, ::1]``."""
        dims = [":"] * self.ndim
        if self.layout == "C" and self.ndim:
            dims[-1] = "::1"
        elif self.layout == "F" and self.ndim:
            dims[0] = "::1"
        return f"{self.dtype}[{', '.join(dims)}]"

    def copy(self, dtype=None, ndim=None, layout=None):
        return Array(dtype or self.dtype, self.ndim if ndim is None else ndim, layout or self.layout, self.readonly)


class Record(Type):
    """A NumPy structured dtype (Numba's ``Record``): fields at NumPy's exact offsets, record.h. Values are
    ``cj::RecordRef<size, align>`` (a pointer to the bytes, as Numba's records); array elements are
    ``cj::Record<size, align>``. The name spells every field, offset, the size and alignment, so it is the key."""
    def __init__(self, dtype):
        self.dtype = dtype
        self.fields = {}     # name -> (Scalar, offset, None), or for a nested array field (Array, offset, shape)
        for fname in dtype.names:
            fdt, offset = dtype.fields[fname][:2]
            ftype, shape = _field_type(fdt, fname, dtype)
            self.fields[fname] = (ftype, offset, shape)
        self.size, self.alignment = dtype.itemsize, _record_alignment(dtype)
        parts = ",".join(f"{n}[type={_field_name(t, shape)};offset={o}]" for n, (t, o, shape) in self.fields.items())
        self.name = f"Record({parts};{self.size};{dtype.isalignedstruct})"
        self.cpp = f"cj::RecordRef<{self.size}, {self.alignment}>"

    @property
    def storage_cpp(self):
        return f"cj::Record<{self.size}, {self.alignment}>"

    __getitem__ = Scalar.__getitem__              # rec[:] is an array type, as Numba's

    @property
    def code(self):
        """NumPy's type string of the bytes (``'V12'``): the launcher packs record arguments as pointers."""
        return f"V{self.size}"


def _record_alignment(dtype):
    """The alignment a record's storage keeps: its fields' largest, where every field sits at a multiple of its own
    and the size is a multiple of that largest (array elements then keep it too), as numba-cuda lays such records
    out; else NumPy's. NumPy says 1 for a packed dtype whose fields happen to be aligned, and for np.recarray's
    view of an aligned one (``dtype((np.record, d))``), which would make their nested arrays look unaligned."""
    fields = [dtype.fields[n][:2] for n in dtype.names]
    natural = max([fdt.alignment for fdt, _ in fields], default=1)
    if all(offset % fdt.alignment == 0 for fdt, offset in fields) and dtype.itemsize % natural == 0:
        return max(natural, dtype.alignment)
    return dtype.alignment


def _field_type(fdt, fname, dtype):
    """(type, shape) of one field: a scalar and None, or for a nested array field its array type and shape."""
    base, shape = fdt.subdtype if fdt.subdtype is not None else (fdt, None)
    t = _BY_DTYPE.get(base)
    if base.kind in "SU" and base.isnative and base.itemsize and shape is None:
        t = CharSeq(base.itemsize // (4 if base.kind == "U" else 1), base.kind == "U")
    if t is None or t is bfloat16:
        raise TypeError(f"field '{fname}' of {dtype}: dtype {base} is not supported in kernels")
    return (t, None) if shape is None else (Array(t, len(shape), "C"), shape)


def _field_name(t, shape):
    return str(t) if shape is None else f"nestedarray({t.dtype}, {shape})"


class CharSeq(Type):
    """NumPy's fixed-width strings as array elements and record fields: ``'S<n>'`` (bytes, Numba's ``CharSeq``) and
    ``'U<n>'`` (UCS4 code points, Numba's ``UnicodeCharSeq``). C++ ``cj::CharSeq<uint8_t or uint32_t, n>``
    (lang.h): the characters, NUL-padded, copied as one value. Kernels store string constants (and other elements
    of the same type) into them."""
    def __init__(self, count, unicode):
        self.count, self.unicode = count, unicode
        self.dtype = np.dtype(f"{'U' if unicode else 'S'}{count}")
        self.name = f"[{'unichr' if unicode else 'char'} x {count}]"
        self.cpp = f"cj::CharSeq<{'uint32_t' if unicode else 'uint8_t'}, {count}>"

    @property
    def code(self):
        """NumPy's type string less the byte order (``'S12'``, ``'U12'``)."""
        return self.dtype.str[1:]


class NPTime(Type):
    """NumPy's ``datetime64[unit]`` (``NPDatetime``, kind 'M') and ``timedelta64[unit]`` (``NPTimedelta``, kind
    'm'), Numba's names: C++ ``cj::datetime64<U>`` / ``cj::timedelta64<U>`` (datetime.h), one int64 count with the
    unit (Numba's unit code) in the type. Launched as an int64; the arithmetic is compiler/datetimes.py's."""
    UNITS = {"Y": 0, "M": 1, "W": 2, "D": 4, "h": 5, "m": 6, "s": 7, "ms": 8, "us": 9, "ns": 10, "ps": 11,
             "fs": 12, "as": 13}
    kind = base = "?"
    code = "i8"                                      # the launcher packs the count
    __getitem__ = Scalar.__getitem__

    def __init__(self, unit):
        if unit not in self.UNITS:
            raise ValueError(f"{self.base} unit must be one of {', '.join(self.UNITS)}, not {unit!r}")
        self.unit, self.unit_code = unit, self.UNITS[unit]
        self.dtype = np.dtype(f"{self.kind}8[{unit}]")
        self.name, self.cpp = f"{self.base}[{unit}]", f"cj::{self.base}<{self.unit_code}>"


class NPDatetime(NPTime):
    kind, base = "M", "datetime64"


class NPTimedelta(NPTime):
    kind, base = "m", "timedelta64"


class BaseTuple(Type):
    """A tuple type: as Numba's, it has a length and iterates over its element types (``len(t)``, ``for e in t``);
    an empty one is still true."""
    def __len__(self):
        return len(self.types)

    def __iter__(self):
        return iter(self.types)

    def __bool__(self):
        return True


class UniTuple(BaseTuple):
    """``UniTuple(int64 x 2)``: C++ ``cj::UniTuple<int64_t, 2>`` (indexable by a run-time int)."""
    def __init__(self, dtype, count):
        self.dtype, self.count = dtype, count
        self.types = (dtype,) * count
        self.name = f"UniTuple({dtype} x {count})"
        self.cpp = f"cj::UniTuple<{dtype.cpp}, {count}>"

    @property
    def key(self):
        return (self.dtype.key, self.count)


class Tuple(BaseTuple):
    """A tuple of mixed types: C++ ``cj::Tuple<T0, T1, ...>`` (constant indices only). ``Tuple`` of equal
    types is a UniTuple, as Numba makes it."""
    def __new__(cls, types_):
        types_ = tuple(types_)
        if types_ and all(t == types_[0] for t in types_):
            return UniTuple(types_[0], len(types_))
        return super().__new__(cls)

    def __init__(self, types_):
        self.types = tuple(types_)
        self.count = len(self.types)
        self.name = f"Tuple({', '.join(map(str, self.types))})"
        self.cpp = f"cj::Tuple<{', '.join(t.cpp for t in self.types)}>" if self.types else "cj::Tuple<>"

    @property
    def key(self):
        return tuple(t.key for t in self.types)


class NamedUniTuple(UniTuple):
    """A namedtuple of one element type (Numba's ``NamedUniTuple``): a UniTuple whose fields also have names."""
    def __init__(self, dtype, count, cls):
        super().__init__(dtype, count)
        self.cls, self.fields = cls, tuple(cls._fields)
        self.name = f"{cls.__name__}({dtype} x {count})"

    @property
    def key(self):
        return (self.dtype.key, self.count, self.cls)


class NamedTuple(Tuple):
    """A namedtuple of mixed types (Numba's ``NamedTuple``): a Tuple whose fields also have names."""
    def __new__(cls, types_, pycls):
        return object.__new__(cls)

    def __init__(self, types_, pycls):
        super().__init__(types_)
        self.cls, self.fields = pycls, tuple(pycls._fields)
        self.name = f"{pycls.__name__}({', '.join(map(str, self.types))})"

    @property
    def key(self):
        return (tuple(t.key for t in self.types), self.cls)


def named_tuple(types_, cls):
    """The type of an instance of the namedtuple class ``cls`` (``collections.namedtuple``, ``typing.NamedTuple``)
    holding ``types_``, or of a plain tuple when ``cls`` is None."""
    types_ = tuple(types_)
    if cls is None:
        return Tuple(types_)
    if types_ and all(t == types_[0] for t in types_):
        return NamedUniTuple(types_[0], len(types_), cls)
    return NamedTuple(types_, cls)


def is_namedtuple_class(obj):
    return isinstance(obj, type) and issubclass(obj, tuple) and hasattr(obj, "_fields")


class EnumMember(Type):
    """A member of an ``enum.Enum`` class whose values are numbers (Numba's ``EnumMember``): at run time its value
    (C++ of ``dtype``); only members of one class compare (``==``, ``!=``, ``is``), ``.value`` is the number."""
    def __init__(self, cls, dtype):
        self.cls, self.dtype = cls, dtype
        self.name, self.cpp = f"EnumMember({cls.__name__}, {dtype})", dtype.cpp

    @property
    def key(self):
        return (self.cls, self.dtype.key)


class IntEnumMember(Integer):
    """A member of an ``enum.IntEnum`` class (Numba's ``IntEnumMember``): an integer of type ``base`` (its class's
    one value type, int64 as a rule) that knows its class. Everything an int does it does as ``base``; ``.value`` is
    that int, and ``is`` tells classes apart (two IntEnum classes: two kernel specialisations, as in Numba)."""
    def __init__(self, cls, base):
        self.cls, self.base, self.signed, self.dtype = cls, base, base.signed, base.dtype
        self.name, self.cpp = f"IntEnumMember({cls.__name__}, {base})", base.cpp

    @property
    def key(self):
        return (self.cls, self.base.key)


class Omitted(Type):
    """A kernel parameter left out of a launch (Numba's ``Omitted``): its default ``value`` is a compile-time
    constant of the specialisation, as a global of that value would be, with no C++ parameter. ``declared``: the
    parameter's type in an eager signature, to which the value is converted, else None (typed by its value)."""
    cpp = "void"

    def __init__(self, value, declared=None):
        self.value, self.declared = value, declared
        self.name = f"omitted(default={value!r})"

    @property
    def key(self):
        # the default object itself (the function's __defaults__ holds it): Numba's key is its type and id too
        return (type(self.value), id(self.value), self.declared)


class DType(Type):
    """The value of ``a.dtype`` or of ``np.float32`` used as a value: a compile-time type."""
    def __init__(self, dtype):
        self.dtype = dtype
        self.name, self.cpp = f"dtype({dtype})", "void"

    @property
    def key(self):
        return self.dtype.key


class FunctionValue(Type):
    """A function or a type used as a value: a device function, an intrinsic (``cuda.atomic.add``, ``math.sqrt``,
    ``operator.mul``) or a type (``uint32``) passed to a device function. Numba types these as ``Dispatcher``,
    ``Function`` and ``NumberClass``; like there it is known at compile time: the callee is specialised for each
    distinct value (``identity`` is the key) and the C++ function takes no parameter for it. ``path``/``obj``
    are the compiler's Symbol for the value (``values.Symbol``)."""
    cpp = "void"

    def __init__(self, path, obj, identity, name):
        self.path, self.obj, self.identity, self.name = path, obj, identity, name

    @property
    def key(self):
        return self.identity


def is_compile_time(t):
    """A value with no run-time part (a function, a type, None, an omitted argument): it takes no C++ parameter or
    argument."""
    return isinstance(t, (FunctionValue, NoneType, Omitted, StringLiteral))


class Signature:
    """``return_type(args...)``; ``str`` is Numba's ``(float32, int32) -> none``."""
    def __init__(self, return_type, args):
        self.return_type = return_type
        self.args = tuple(args)

    def __eq__(self, other):
        return isinstance(other, Signature) and (self.return_type, self.args) == (other.return_type, other.args)

    def __hash__(self):
        return hash((self.return_type, self.args))

    def __str__(self):
        return f"({', '.join(map(str, self.args))}) -> {self.return_type}"

    __repr__ = __str__


boolean = b1 = bool_ = Boolean()
int8, int16, int32, int64 = (Integer(b, True) for b in (8, 16, 32, 64))
uint8, uint16, uint32, uint64 = (Integer(b, False) for b in (8, 16, 32, 64))
float16, float32, float64 = (Float(b) for b in (16, 32, 64))
bfloat16 = BFloat16()
fp8_e4m3, fp8_e5m2, fp8_e8m0 = (FP8("fp8_e4m3", "float8_e4m3fn"), FP8("fp8_e5m2", "float8_e5m2"),
                                FP8("fp8_e8m0", "float8_e8m0fnu"))
fp8x2_e4m3, fp8x2_e5m2, fp8x2_e8m0 = (FP8Vector(t, 2) for t in (fp8_e4m3, fp8_e5m2, fp8_e8m0))
fp8x4_e4m3, fp8x4_e5m2, fp8x4_e8m0 = (FP8Vector(t, 4) for t in (fp8_e4m3, fp8_e5m2, fp8_e8m0))
bfloat16_raw = BFloat16Raw()
complex64, complex128 = Complex(64), Complex(128)
none = void = NoneType()
undefined = Undefined()
grid_group = GridGroup()

# Numba's aliases.
i1, i2, i4, i8 = int8, int16, int32, int64
u1, u2, u4, u8 = uint8, uint16, uint32, uint64
byte = uint8
f2, f4, f8 = float16, float32, float64
c8, c16 = complex64, complex128
half, float_, double = float16, float32, float64
intp, uintp, intc, uintc = int64, uint64, int32, uint32
short, ushort, long_, ulong, longlong, ulonglong = int16, uint16, int64, uint64, int64, uint64
ssize_t, size_t, char, uchar, int_, uint = int64, uint64, int8, uint8, int64, uint64     # 64-bit Linux, as Numba's

signed_domain = (int8, int16, int32, int64)
unsigned_domain = (uint8, uint16, uint32, uint64)
integer_domain = signed_domain + unsigned_domain
real_domain = (float32, float64)
complex_domain = (complex64, complex128)
number_domain = integer_domain + real_domain + complex_domain

_BY_DTYPE = {t.dtype: t for t in (boolean,) + number_domain + (float16,)}


def from_dtype(dtype):
    """The type of a NumPy dtype (or anything ``np.dtype`` accepts): a scalar, or a ``Record`` for a structured
    dtype (Numba's ``numba.from_dtype``); ``None`` if unsupported."""
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        return None
    if dtype.names is not None:
        try:
            return Record(dtype)
        except TypeError:
            return None
    if dtype.kind in "Mm" and dtype.isnative:
        unit, count = np.datetime_data(dtype)
        if count == 1 and unit in NPTime.UNITS:
            return (NPDatetime if dtype.kind == "M" else NPTimedelta)(unit)
        return None
    if dtype.kind in "SU" and dtype.isnative and dtype.itemsize:
        return CharSeq(dtype.itemsize // (4 if dtype.kind == "U" else 1), dtype.kind == "U")
    t = _BY_DTYPE.get(dtype)
    if t is None and dtype.kind == "V" and dtype.itemsize == 2 and ml_bfloat16() is not None \
            and dtype == ml_bfloat16():                # ml_dtypes is imported by then: its dtype exists
        return bfloat16
    if t is None and dtype.kind in "Vf" and dtype.itemsize == 1 and dtype.names is None:
        for f in (fp8_e4m3, fp8_e5m2, fp8_e8m0):      # ml_dtypes' float8_e4m3fn ('V'), float8_e5m2 ('f') ...
            if dtype == ml_fp8(f.ml_name):
                return f
    return t


def as_dtype(t):
    """The NumPy dtype of a scalar or record type (Numba's ``numpy_support.as_dtype``)."""
    dtype = getattr(t, "dtype", None)
    if not isinstance(dtype, np.dtype):
        raise TypeError(f"{t} has no NumPy dtype")
    return dtype


def is_int(t):
    return isinstance(t, Integer)


def is_float(t):
    return isinstance(t, Float)


def is_number(t):
    return isinstance(t, (Integer, Float, Complex))


def is_scalar(t):
    return isinstance(t, Scalar)
