"""``cuda.libdevice.<name>``: numba-cuda's libdevice module, all 317 of its functions, with numba-cuda's types: each
has fixed parameter and result types (``sin`` float64, ``sinf`` float32; ``popc`` int32, ``popcll`` int64),
libdevice's unsigned values are int32/int64 bit patterns, and a function that returns values through pointers
(``sincos``, ``frexp``, ``remquo``) returns a tuple instead, its own result first. Arguments convert to the parameter
types as in a call of a declared signature.

Those that cudajit's math already has call it (``cj::m::sin``: mathfuncs.h); the others are ``cj::ld::<name>`` of
kernels/cudajit/libdevice.h, which is libdevice's own ``__nv_<name>`` on the GPU (as numba-cuda calls it) and C++
with the same results on the CPU.
"""
from . import types as T
from .registry import expect_args, intrinsic
from .values import Value, typed

_T = {"i2": T.int16, "i4": T.int32, "i8": T.int64, "f4": T.float32, "f8": T.float64}
_MODES = ("rd", "rn", "ru", "rz")

# name (a * stands for each rounding mode: rd rn ru rz) -> result(parameters); a parameter *t is a result through a
# pointer (numba-cuda returns it in the tuple). One line per family; the count is checked below.
_SIGNATURES = """
fadd_* fsub_* fmul_* fdiv_*: f4(f4, f4)
frcp_* fsqrt_*: f4(f4)
frsqrt_rn: f4(f4)
dadd_* dmul_* ddiv_*: f8(f8, f8)
drcp_* dsqrt_*: f8(f8)
fmaf fmaf_*: f4(f4, f4, f4)
fma fma_*: f8(f8, f8, f8)
float2int_* float2uint_*: i4(f4)
float2ll_* float2ull_*: i8(f4)
double2int_* double2uint_*: i4(f8)
double2ll_* double2ull_*: i8(f8)
double2float_*: f4(f8)
int2float_* uint2float_*: f4(i4)
ll2float_* ull2float_*: f4(i8)
ll2double_* ull2double_*: f8(i8)
int2double_rn uint2double_rn: f8(i4)
float_as_int: i4(f4)
int_as_float: f4(i4)
double_as_longlong: i8(f8)
longlong_as_double: f8(i8)
double2hiint double2loint: i4(f8)
hiloint2double: f8(i4, i4)
float2half_rn: i2(f4)
half2float: f4(i2)
abs: i4(i4)
llabs: i8(i8)
min max umin umax mulhi umulhi mul24 umul24 hadd rhadd uhadd urhadd: i4(i4, i4)
llmin llmax ullmin ullmax mul64hi umul64hi: i8(i8, i8)
sad usad byte_perm: i4(i4, i4, i4)
popc brev clz ffs: i4(i4)
popcll clzll ffsll: i4(i8)
brevll: i8(i8)
isfinited isinfd isnand signbitd ilogb: i4(f8)
finitef isinff isnanf signbitf ilogbf: i4(f4)
llrint llround: i8(f8)
llrintf llroundf: i8(f4)
sqrt exp expm1 exp2 exp10 log log2 log10 log1p sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh floor ceil trunc rint nearbyint round fabs erf erfc erfinv erfcinv erfcx normcdf normcdfinv tgamma lgamma cbrt rcbrt rsqrt cospi sinpi j0 j1 y0 y1 logb: f8(f8)
sqrtf expf expm1f exp2f exp10f logf log2f log10f log1pf sinf cosf tanf asinf acosf atanf sinhf coshf tanhf asinhf acoshf atanhf floorf ceilf truncf rintf nearbyintf roundf fabsf erff erfcf erfinvf erfcinvf erfcxf normcdff normcdfinvf tgammaf lgammaf cbrtf rcbrtf rsqrtf cospif sinpif j0f j1f y0f y1f logbf saturatef fast_cosf fast_exp10f fast_expf fast_log10f fast_log2f fast_logf fast_sinf fast_tanf: f4(f4)
atan2 fmod remainder copysign hypot pow nextafter fmin fmax fdim: f8(f8, f8)
atan2f fmodf remainderf copysignf hypotf powf nextafterf fminf fmaxf fdimf fast_fdividef fast_powf: f4(f4, f4)
jn yn: f8(i4, f8)
jnf ynf: f4(i4, f4)
ldexp scalbn powi: f8(f8, i4)
ldexpf scalbnf powif: f4(f4, i4)
sincos sincospi: void(f8, *f8, *f8)
sincosf sincospif fast_sincosf: void(f4, *f4, *f4)
frexp: f8(f8, *i4)
frexpf: f4(f4, *i4)
modf: f8(f8, *f8)
modff: f4(f4, *f4)
remquo: f8(f8, f8, *i4)
remquof: f4(f4, f4, *i4)
"""


def _parse(table):
    out = {}
    for line in table.strip().splitlines():
        names, sig = line.split(": ")
        ret, params = sig.rstrip(")").split("(")
        params = [p.strip() for p in params.split(",") if p.strip()]
        for stem in names.split():
            for name in ([stem[:-1] + m for m in _MODES] if stem.endswith("*") else [stem]):
                out[name] = (ret, params)
    return out


SIGNATURES = _parse(_SIGNATURES)
assert len(SIGNATURES) == 317, len(SIGNATURES)     # numba-cuda 0.30.4's cuda.libdevice, every function

# the ones cudajit's math has (C++ function in cj:: for libdevice's name)
_MATH1 = ("sqrt exp expm1 exp2 log log2 log10 log1p sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh "
          "floor ceil trunc rint fabs erf erfc tgamma lgamma cbrt").split()
_MATH2 = "atan2 fmod remainder copysign hypot pow nextafter fmin fmax".split()
_IN_MATH = {**{n: f"m::{n}" for n in _MATH1 + _MATH2 + ["fma"]},
            **{n + "f": f"m::{n}" for n in _MATH1 + _MATH2 + ["fma"]},
            "popc": "popc", "popcll": "popc", "brev": "brev", "brevll": "brev", "clz": "clz", "clzll": "clz",
            "ffs": "ffs", "ffsll": "ffs"}


def _result_type(ret, params):
    """numba-cuda's result type: the return type, or a tuple of it (unless void) and the pointers' types."""
    outs = ([] if ret == "void" else [_T[ret]]) + [_T[p[1:]] for p in params if p.startswith("*")]
    return outs[0] if len(outs) == 1 else T.Tuple(outs)     # (a Tuple of equal types is a UniTuple)


def _entry(name, ret, params):
    argtypes = [_T[p] for p in params if not p.startswith("*")]
    result = _result_type(ret, params)
    fn = _IN_MATH.get(name, f"ld::{name}")

    def impl(cx, node, args, kwargs):
        expect_args(cx, node, f"cuda.libdevice.{name}", args, len(argtypes))
        conv = [typed(cx.convert(node, a, t), t).code for a, t in zip(args, argtypes)]
        call = f"cj::{fn}({', '.join(conv)})"
        if isinstance(result, T.BaseTuple):
            return Value(result, call)
        return Value(result, f"{result.cpp}({call})")
    sig = f"{result}({', '.join(str(t) for t in argtypes)})"
    intrinsic(f"cuda.libdevice.{name}", part="LIBDEVICE" if fn.startswith("ld::") else None,
              doc=f"cuda.libdevice.{name}: libdevice's {name}, {sig}; arguments convert to its parameter types.")(impl)


def names():
    """Every libdevice function cudajit provides: numba-cuda's all."""
    return sorted(SIGNATURES)


for _name, (_ret, _params) in SIGNATURES.items():
    _entry(_name, _ret, _params)
