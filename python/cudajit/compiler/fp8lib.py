"""numba-cuda's fp8 bindings (numba.cuda._internal.cuda_fp8, CUDA's cuda_fp8.h) in kernels: the types
``fp8_e4m3``/``fp8_e5m2``/``fp8_e8m0`` and their pairs and quads (types.py; C++ in kernels/cudajit/fp8.h), how they
are built and converted, and CUDA's conversion functions as entries ``cuda.fp8.<name>`` (``cvt_float_to_fp8``,
``cvt_e8m0_to_bf16raw`` ...) with their enumerations ``saturation_t`` and ``fp8_interpretation_t`` (and
``cudaRoundMode``, cuda-python's, when cuda.bindings is not installed).

As in numba-cuda an fp8 value has no arithmetic: it is built from a number (``fp8_e4m3(x)``: an integer, bool,
float16, float32, float64 or bfloat16) and converted back explicitly (``float32(f)``, ``int32(f)``, ``bfloat16(f)``);
an implicit conversion (a store into a float32 array, a float32 parameter) is a TypingError, as numba-cuda's typing
finds none. The rules of every conversion are CUDA's (fp8.h)."""
import enum

from . import types as T
from . import vectors
from .registry import intrinsic
from .values import PRIMARY, Value, cast, typed


class saturation_t(enum.IntEnum):
    """CUDA's __nv_saturation_t: what a conversion to fp8 gives past the largest finite value."""
    NOSAT = 0           # e5m2: inf; e4m3: NaN (it has no inf); e8m0: NaN
    SATFINITE = 1       # the largest finite value of the sign


class fp8_interpretation_t(enum.IntEnum):
    """CUDA's __nv_fp8_interpretation_t: which format the cvt_*_to_fp8 functions write."""
    E4M3 = 0
    E5M2 = 1


class _cudaRoundMode(enum.IntEnum):
    """cuda-python's ``cuda.bindings.runtime.cudaRoundMode``, by value (CUDA's enum cudaRoundMode)."""
    cudaRoundNearest = 0
    cudaRoundZero = 1
    cudaRoundPosInf = 2
    cudaRoundMinInf = 3


def round_mode_enum():
    """``cudaRoundMode``: cuda-python's own when cuda.bindings is installed (what numba-cuda's tests import), else
    an IntEnum of the same names and values. Kernels take either: their members are ints."""
    try:
        from cuda.bindings.runtime import cudaRoundMode
        return cudaRoundMode
    except ImportError:
        _cudaRoundMode.__name__ = _cudaRoundMode.__qualname__ = "cudaRoundMode"
        return _cudaRoundMode


SCALARS = (T.fp8_e4m3, T.fp8_e5m2, T.fp8_e8m0)
VECTORS = (T.fp8x2_e4m3, T.fp8x2_e5m2, T.fp8x2_e8m0, T.fp8x4_e4m3, T.fp8x4_e5m2, T.fp8x4_e8m0)
_SOURCES = "an integer, bool, float16, float32, float64 or bfloat16"


def involved(*types_):
    """Whether a conversion between ``types_`` is this module's to type (one is an fp8 type or bfloat16_raw)."""
    return any(isinstance(t, (T.FP8, T.FP8Vector, T.BFloat16Raw)) for t in types_)


def _plain_number(t):
    """The numbers an fp8 value converts to and from (numba-cuda's constructors and casts): not complex, not fp8."""
    return T.is_int(t) or t == T.boolean or isinstance(t, T.Float)


def implicit_error(cx, node, v, t):
    """A store or argument that would convert to or from an fp8 type (or bfloat16_raw) by itself."""
    how = f"{t}(x)" if isinstance(t, T.Scalar) else "an explicit conversion"
    cx.error(node, f"cannot convert {v.type} to {t} implicitly",
             f"numba-cuda converts fp8 values only explicitly: write {how}")


def explicit_cast(cx, node, v, t):
    """``t(v)`` where ``t`` or ``v``'s type is an fp8 type or bfloat16_raw."""
    s = v.type
    if s == t:
        return v
    if isinstance(t, T.FP8):
        if not _plain_number(s):
            hint = f"convert through float32: {t}(float32(x))" if isinstance(s, T.FP8) else None
            cx.error(node, f"{t}() takes {_SOURCES}, not {s}", hint)
        return Value(t, f"{t.cpp}({v.code})")
    if isinstance(s, T.FP8):
        if not _plain_number(t):
            cx.error(node, f"cannot convert {s} to {t}",
                     f"{s} converts to integers, bool, float16, float32, float64 and bfloat16")
        return cast(v, t)
    if isinstance(s, T.BFloat16Raw) and t == T.bfloat16:
        return Value(t, f"cj::bfloat16::from_bits({v.at(PRIMARY)}.x)")
    if isinstance(s, T.FP8Vector):
        cx.error(node, f"cannot convert {s} to {t}", f"{s} converts to float32x{s.count}: cuda.float32x{s.count}(v)")
    cx.error(node, f"cannot convert {s} to {t}")


def construct(cx, node, t, args, kwargs):
    """A call of an fp8 type in a kernel: ``fp8_e4m3()`` (zero, as C++'s value initialisation gives),
    ``fp8_e4m3(x)``, ``fp8x2_e4m3()``, ``fp8x2_e4m3(v)`` of a float32x2 or float64x2 (``fp8x4_*`` of x4 vectors)."""
    if kwargs or len(args) > 1:
        cx.error(node, f"{t}() takes at most one argument")
    if not args:
        return Value(t, f"{t.cpp}::from_bits(0)" if isinstance(t, T.FP8) else f"{t.cpp}{{}}")
    v = cx.as_value(node, args[0])
    if v.type == T.undefined:
        return Value(T.undefined, "?")
    if isinstance(t, T.FP8):
        return explicit_cast(cx, node, v, t)
    if not (isinstance(v.type, vectors.Vector) and v.type.count == t.count
            and v.type.base in (T.float32, T.float64)):
        cx.error(node, f"{t}() takes a float32x{t.count} or float64x{t.count}, not {v.type}")
    return Value(t, f"{t.cpp}::from_vec({v.code})")


def to_vector(cx, node, vt, v):
    """``cuda.float32x2(v)`` / ``cuda.float32x4(v)`` of an fp8 pair or quad: each lane as float32."""
    if vt.base != T.float32 or vt.count != v.type.count:
        cx.error(node, f"cannot convert {v.type} to {vt}", f"{v.type} converts to float32x{v.type.count}")
    return Value(vt, f"{v.at(PRIMARY)}.to_vec<{vt.cpp}>()")


vectors.CONVERTERS[T.FP8Vector] = to_vector     # float32x2(fp8x2 value) and the like


def attribute(cx, node, v, attr):
    """``raw.x`` of a bfloat16_raw (uint16); ``v.__x`` of an fp8 pair or quad (its storage, uint16 or uint32)."""
    t = v.type
    if isinstance(t, T.BFloat16Raw) and attr == "x":
        return Value(T.uint16, f"{v.at(PRIMARY)}.x")
    if isinstance(t, T.FP8Vector) and attr == "__x":
        return Value(t.storage, f"{v.at(PRIMARY)}.bits")
    has = {T.BFloat16Raw: "'x'", T.FP8Vector: "'__x'"}.get(type(t))
    cx.error(node, f"'{t}' has no attribute '{attr}'", f"it has {has}" if has else None)


# ---- CUDA's __nv_cvt_* functions: cuda.fp8.<name> ----
_ENUMS = {
    "saturate": ({0, 1}, "saturation_t.NOSAT (0) or saturation_t.SATFINITE (1)"),
    "fp8_interpretation": ({0, 1}, "fp8_interpretation_t.E4M3 (0) or fp8_interpretation_t.E5M2 (1)"),
    "rounding": ({1, 2}, "cudaRoundMode.cudaRoundZero (1) or cudaRoundMode.cudaRoundPosInf (2): CUDA's e8m0 "
                         "conversions round toward zero or up only"),
}


def _real(cx, node, name, v, t):
    if not (T.is_scalar(v.type) and not isinstance(v.type, T.Complex)) and not involved(v.type):
        cx.error(node, f"{name}() takes a real number as its first argument, not {v.type}")
    return typed(cx.convert(node, v, t), t).code


def _pair(cx, node, name, v, t):
    if not (isinstance(v.type, vectors.Vector) and v.type.count == 2 and v.type.base in (T.float32, T.float64)):
        cx.error(node, f"{name}() takes a float32x2 or float64x2 as its first argument, not {v.type}",
                 "build one with cuda.float32x2(x, y)")
    return v.code


def _raw(cx, node, name, v, t):
    if isinstance(v.type, T.BFloat16Raw):
        return v.code
    if v.type == T.bfloat16:                      # cudajit also takes a bfloat16 for its bits
        return f"cj::bfloat16_raw{{{v.at(PRIMARY)}.bits}}"
    cx.error(node, f"{name}() takes a bfloat16_raw (what cvt_e8m0_to_bf16raw returns) or a bfloat16 as its first "
                   f"argument, not {v.type}")


def _enum(cx, node, name, param, v):
    allowed, spelled = _ENUMS[param]
    if not T.is_int(v.type):
        cx.error(node, f"{name}(): {param} must be {spelled}, not a value of type {v.type}")
    if v.is_const and v.const not in allowed:
        cx.error(node, f"{name}(): {param} must be {spelled}, not {v.const}")
    return typed(cx.convert(node, v, T.int32), T.int32).code


def _cvt(name, first, enums, ret, what):
    """``cuda.fp8.<name>(x, <enums>...)``: ``first`` reads x ((_real, float32) ...), C++ cj::fp8::<name>."""
    reader, t = first
    params = ("x",) + enums

    def impl(cx, node, args, kwargs):
        if len(args) != len(params) or any(a is None for a in args):
            cx.error(node, f"{name}() takes {len(params)} arguments ({', '.join(params)}), {len(args)} given")
        vals = [cx.as_value(node, a) for a in args]
        if any(v.type == T.undefined for v in vals):
            return Value(T.undefined, "?")
        codes = [reader(cx, node, name, vals[0], t)] + [_enum(cx, node, name, p, v) for p, v in zip(enums, vals[1:])]
        return Value(ret, f"cj::fp8::{name}({', '.join(codes)})")
    intrinsic(f"cuda.fp8.{name}", params=params, part="FP8",
              doc=f"cuda.fp8.{name}({', '.join(params)}): {what} (CUDA's __nv_{name}). Kernels only.")(impl)
    NAMES.append(name)


NAMES = []          # the cuda.fp8.<name> entries, in numba-cuda's order
_TO_FP8 = ("saturate", "fp8_interpretation")
_TO_E8M0 = ("saturate", "rounding")
_cvt("cvt_double_to_fp8", (_real, T.float64), _TO_FP8, T.uint8,
     "x rounded once to nearest even as an e4m3 or e5m2 byte (uint8)")
_cvt("cvt_double2_to_fp8x2", (_pair, T.float64), _TO_FP8, T.uint16,
     "x.x and x.y as cvt_double_to_fp8 converts them, x.x in the low byte (uint16)")
_cvt("cvt_float_to_fp8", (_real, T.float32), _TO_FP8, T.uint8,
     "x rounded to nearest even as an e4m3 or e5m2 byte (uint8); a NaN gives 0x7f")
_cvt("cvt_float2_to_fp8x2", (_pair, T.float32), _TO_FP8, T.uint16,
     "x.x and x.y as cvt_float_to_fp8 converts them, x.x in the low byte (uint16)")
_cvt("cvt_bfloat16raw_to_fp8", (_raw, None), _TO_FP8, T.uint8,
     "the bfloat16 x.x rounded to nearest even as an e4m3 or e5m2 byte (uint8)")
_cvt("cvt_bfloat16raw_to_e8m0", (_raw, None), _TO_E8M0, T.uint8,
     "|x.x| rounded toward zero or up to a power of two, as an e8m0 byte (uint8); NaN gives 0xff")
_cvt("cvt_float_to_e8m0", (_real, T.float32), _TO_E8M0, T.uint8,
     "|x| rounded toward zero or up to a power of two, as an e8m0 byte (uint8); NaN gives 0xff")
_cvt("cvt_float2_to_e8m0x2", (_pair, T.float32), _TO_E8M0, T.uint16,
     "x.x and x.y as cvt_float_to_e8m0 converts them, x.x in the low byte (uint16)")
_cvt("cvt_double_to_e8m0", (_real, T.float64), _TO_E8M0, T.uint8,
     "|x| rounded toward zero or up to a power of two (once), as an e8m0 byte (uint8); NaN gives 0xff")
_cvt("cvt_double2_to_e8m0x2", (_pair, T.float64), _TO_E8M0, T.uint16,
     "x.x and x.y as cvt_double_to_e8m0 converts them, x.x in the low byte (uint16)")
_cvt("cvt_e8m0_to_bf16raw", (_real, T.uint8), (), T.bfloat16_raw,
     "the e8m0 byte x as a bfloat16_raw (.x its bits: 2^(x - 127); 0xff is NaN 0x7fff)")
