"""numba.cuda.bf16 as registry entries ``cuda.bf16.<name>``: numba-cuda's bfloat16 functions under its public names
(``hadd``, ``float32_to_bfloat16_rn``, ``bfloat16_to_int32_rd``, ``htrunc`` ...), emitted as cj::bf16 calls
(kernels/cudajit/bfloat16.h). ``CUDA_NAMES`` maps CUDA's spellings (``__hadd``, ``__float2bfloat16_rn``), which
numba.cuda._internal.cuda_bf16 offers, to them. Arguments convert to the parameter types, as numba-cuda's typing
converts them (an int16 passed to ``bfloat16_as_int16`` becomes a bfloat16 first)."""
from . import types as T
from .registry import expect_args, intrinsic
from .values import Value, typed

BF = T.bfloat16
_INTS = {"int16": ("short", T.int16), "uint16": ("ushort", T.uint16), "int32": ("int", T.int32),
         "uint32": ("uint", T.uint32), "int64": ("ll", T.int64), "uint64": ("ull", T.uint64)}
_MODES = {"rn": "to nearest even", "rz": "toward zero", "rd": "down", "ru": "up"}

CUDA_NAMES = {}     # CUDA's name (numba.cuda._internal.cuda_bf16) -> the entry's name here


def _entry(name, args, fmt, ret, what, cuda=None):
    """``cuda.bf16.<name>(args...)``: ``args`` the parameter types, ``fmt`` the C++ with {0}, {1}... for them."""
    def impl(cx, node, vals, kwargs):
        expect_args(cx, node, f"cuda.bf16.{name}", vals, len(args))
        for v in vals:
            if not (isinstance(v, Value) and (T.is_scalar(v.type) or v.type == T.undefined)
                    and not isinstance(v.type, T.Complex)):
                cx.error(node, f"cuda.bf16.{name}() takes real numbers ({', '.join(map(str, args))}), "
                               f"not {getattr(v, 'type', v)}")
        if any(v.type == T.undefined for v in vals):
            return Value(T.undefined, "?")
        conv = [typed(cx.convert(node, v, t), t).code for v, t in zip(vals, args)]
        return Value(ret, fmt.format(*conv))
    params = ", ".join("abc"[:len(args)])
    intrinsic(f"cuda.bf16.{name}", doc=f"cuda.bf16.{name}({params}): {what} ({ret}; arguments convert to "
                                       f"{', '.join(map(str, args))}). Kernels only.")(impl)
    for c in ([cuda] if isinstance(cuda, str) else cuda or [f"__{name}"]):
        CUDA_NAMES[c] = name


# ---- arithmetic: each result rounded once to bfloat16 ----
for _n, _op in (("hadd", "+"), ("hsub", "-"), ("hmul", "*")):
    for _suffix in ("", "_rn"):       # _rn: never contracted into an fma (cudajit never contracts bfloat16)
        _entry(_n + _suffix, (BF, BF), f"({{0}} {_op} {{1}})", BF, f"a {_op} b, rounded to nearest even")
    _entry(_n + "_sat", (BF, BF), f"cj::bf16::sat({{0}} {_op} {{1}})", BF,
           f"a {_op} b clamped to [0, 1] (NaN gives 0)")
_entry("hdiv", (BF, BF), "({0} / {1})", BF, "a / b, rounded to nearest even")
_entry("hfma", (BF, BF, BF), "cj::bf16::fma({0}, {1}, {2})", BF, "a * b + c, rounded once")
_entry("hfma_sat", (BF, BF, BF), "cj::bf16::sat(cj::bf16::fma({0}, {1}, {2}))", BF,
       "a * b + c rounded once, clamped to [0, 1] (NaN gives 0)")
_entry("hfma_relu", (BF, BF, BF), "cj::bf16::relu(cj::bf16::fma({0}, {1}, {2}))", BF,
       "a * b + c rounded once, negative results 0 (NaN stays NaN)")
_entry("hneg", (BF,), "(-{0})", BF, "-a")
_entry("habs", (BF,), "cj::bf16::abs({0})", BF, "abs(a)")

# ---- comparisons: ordered ones are False with a NaN, the unordered (...u) ones True ----
for _n, _fn, _op in (("heq", "eq", "=="), ("hne", "ne", "!="), ("hequ", "equ", "=="), ("hneu", "neu", "!="),
                     ("hgeu", "geu", ">="), ("hgtu", "gtu", ">"), ("hleu", "leu", "<="), ("hltu", "ltu", "<")):
    _entry(_n, (BF, BF), f"cj::bf16::{_fn}({{0}}, {{1}})", T.boolean,
           f"a {_op} b, {'True' if _n.endswith('u') else 'False'} if either is NaN")
for _n, _op in (("hge", ">="), ("hgt", ">"), ("hle", "<="), ("hlt", "<")):
    _entry(_n, (BF, BF), f"({{0}} {_op} {{1}})", T.boolean, f"a {_op} b, False if either is NaN")
_entry("hmax", (BF, BF), "cj::bf16::max({0}, {1})", BF, "the larger; a NaN operand loses to a number")
_entry("hmin", (BF, BF), "cj::bf16::min({0}, {1})", BF, "the smaller; a NaN operand loses to a number")
_entry("hmax_nan", (BF, BF), "cj::bf16::max_nan({0}, {1})", BF, "the larger; NaN if either is NaN")
_entry("hmin_nan", (BF, BF), "cj::bf16::min_nan({0}, {1})", BF, "the smaller; NaN if either is NaN")
_entry("hisnan", (BF,), "cj::bf16::isnan({0})", T.boolean, "whether a is NaN")
_entry("hisinf", (BF,), "cj::bf16::isinf({0})", T.int32, "-1, 1 or 0: a is -inf, +inf, or neither (CUDA's int)")

# ---- conversions, numba-cuda's NumPy-style names ----
_entry("float32_to_bfloat16", (T.float32,), "cj::bfloat16({0})", BF, "a rounded to nearest even",
       "__float2bfloat16")
_entry("float64_to_bfloat16", (T.float64,), "cj::bfloat16({0})", BF, "a rounded once to nearest even",
       "__double2bfloat16")
_entry("bfloat16_to_float32", (BF,), "float({0})", T.float32, "a as float32 (exact)", "__bfloat162float")
for _m, _how in _MODES.items():
    _entry(f"float32_to_bfloat16_{_m}", (T.float32,), f"cj::bf16::from_f32<cj::bf16::{_m}>({{0}})", BF,
           f"a rounded {_how}", f"__float2bfloat16_{_m}")
for _t, _c in (("int8", "char"), ("uint8", "uchar")):
    _entry(f"bfloat16_to_{_t}_rz", (BF,), f"cj::bf16::to_integer<{getattr(T, _t).cpp}, cj::bf16::rz>({{0}})",
           getattr(T, _t), "a rounded toward zero, saturated; NaN gives 0", f"__bfloat162{_c}_rz")
for _t, (_c, _it) in _INTS.items():
    _nan = "0x8000000000000000" if _it.bitwidth == 64 else "0"
    for _m, _how in _MODES.items():
        _entry(f"{_t}_to_bfloat16_{_m}", (_it,), f"cj::bf16::from_integer<cj::bf16::{_m}>({{0}})", BF,
               f"the integer rounded once {_how}", f"__{_c}2bfloat16_{_m}")
        _entry(f"bfloat16_to_{_t}_{_m}", (BF,), f"cj::bf16::to_integer<{_it.cpp}, cj::bf16::{_m}>({{0}})", _it,
               f"a rounded {_how} to {_t}, saturated; NaN gives {_nan}", f"__bfloat162{_c}_{_m}")
_entry("bfloat16_as_int16", (BF,), "cj::bf16::as_int16({0})", T.int16, "the bits of a", "__bfloat16_as_short")
_entry("bfloat16_as_uint16", (BF,), "cj::bf16::as_uint16({0})", T.uint16, "the bits of a", "__bfloat16_as_ushort")
_entry("int16_as_bfloat16", (T.int16,), "cj::bf16::from_int16_bits({0})", BF, "the bfloat16 of bits a",
       "__short_as_bfloat16")
_entry("uint16_as_bfloat16", (T.uint16,), "cj::bf16::from_uint16_bits({0})", BF, "the bfloat16 of bits a",
       "__ushort_as_bfloat16")

# ---- math: the float32 function's result rounded to bfloat16 (exact for trunc ... sqrt) ----
for _n in ("trunc", "ceil", "floor", "rint", "sqrt", "log", "log2", "log10", "cos", "sin", "exp", "exp2", "tanh"):
    _entry(f"h{_n}", (BF,), f"cj::m::{_n}({{0}})", BF, f"math.{_n}(a) in bfloat16", [f"h{_n}"])
_entry("hrsqrt", (BF,), "cj::bfloat16(1.0f / cj::m::sqrt(float({0})))", BF, "1 / sqrt(a)", ["hrsqrt"])
_entry("hrcp", (BF,), "cj::bfloat16(1.0f / float({0}))", BF, "1 / a", ["hrcp"])
_entry("hexp10", (BF,), "cj::bfloat16(cj::m::pow(10.0f, float({0})))", BF, "10 ** a", ["hexp10"])
_entry("htanh_approx", (BF,), "cj::m::tanh({0})", BF, "math.tanh(a) (as htanh)", ["htanh_approx"])
