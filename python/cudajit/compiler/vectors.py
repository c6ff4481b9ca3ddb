"""CUDA vector types in kernels, as numba-cuda's "CUDA vector types": ``cuda.float32x4(x, y, z, w)`` and the
other ``<base>x<N>`` names (N = 1..4; base int8..int64, uint8..uint64, float32, float64), the CUDA C spellings as
aliases (``float4``, ``int2``, ``ulonglong3`` ...), construction from numbers and smaller vectors whose component
counts add up to N, and the components ``.x .y .z .w``. C++: ``cj::vec<T, N>`` (lang.h)."""
from . import types as T
from .registry import intrinsic
from .values import PRIMARY, Value

_BASES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64")
# The CUDA C names numba-cuda accepts as aliases (long is 64-bit here, as on Linux).
_ALIASES = {"char": "int8", "short": "int16", "int": "int32", "long": "int64", "longlong": "int64",
            "uchar": "uint8", "ushort": "uint16", "uint": "uint32", "ulong": "uint64", "ulonglong": "uint64",
            "float": "float32", "double": "float64"}
COMPONENTS = "xyzw"


class Vector(T.Type):
    """``<base>x<N>``: N components of the scalar type ``base``."""
    def __init__(self, base, count):
        self.base, self.count = base, count
        self.name = f"{base.name}x{count}"
        self.cpp = f"cj::vec<{base.cpp}, {count}>"


def attribute(cx, node, v, attr):
    """``v.x`` … ``v.w`` of a vector Value (a component it has)."""
    t = v.type
    if attr not in COMPONENTS[:t.count]:
        cx.error(node, f"'{t}' has no attribute '{attr}'", f"{t} has the components {', '.join(COMPONENTS[:t.count])}")
    return Value(t.base, f"{v.at(PRIMARY)}.{attr}")


# Type classes of other modules whose values a vector type converts from: class -> convert(cx, node, vector type,
# value). fp8lib registers its pairs and quads here, so that this module need not import it (fp8lib imports this one).
CONVERTERS = {}


def _constructor(t):
    def impl(cx, node, args, kwargs):
        source = type(getattr(args[0], "type", None)) if len(args) == 1 else type(None)
        convert = next((CONVERTERS[c] for c in source.__mro__ if c in CONVERTERS), None)
        if convert is not None:
            return convert(cx, node, t, args[0])     # float32x2 of an fp8 pair: its lanes as float32 (fp8lib)
        parts = []
        for a in args:
            a = cx.as_value(node, a)
            if a.type == T.undefined:
                return Value(T.undefined, "?")
            if isinstance(a.type, Vector):
                parts += [Value(a.type.base, f"{a.at(PRIMARY)}.{c}") for c in COMPONENTS[:a.type.count]]
            elif T.is_scalar(a.type) and not isinstance(a.type, T.Complex):
                parts.append(a)
            else:
                cx.error(node, f"{t}() takes numbers and vectors, not {a.type}")
        if len(parts) != t.count:
            cx.error(node, f"{t}() needs {t.count} components in all, got {len(parts)}",
                     f"pass {t.count} numbers, or vectors and numbers whose components add up to {t.count}")
        return Value(t, f"{t.cpp}{{{', '.join(cx.convert(node, p, t.base).code for p in parts)}}}")
    return impl


def _register():
    names = {}
    for base in _BASES:
        for n in range(1, 5):
            names[f"{base}x{n}"] = (base, n)
    for alias, base in _ALIASES.items():
        for n in range(1, 5):
            names[f"{alias}{n}"] = (base, n)
    for name, (base, n) in names.items():
        t = Vector(getattr(T, base), n)
        canonical = t.name if name != t.name else None
        doc = (f"cuda.{name}(...): a vector of {n} {base} components ``{', '.join(COMPONENTS[:n])}``, built from "
               f"numbers and smaller vectors whose component counts add up to {n}"
               + (f"; the CUDA C spelling of ``{canonical}``." if canonical else "."))
        intrinsic(f"cuda.{name}", doc=doc)(_constructor(t))


_register()
