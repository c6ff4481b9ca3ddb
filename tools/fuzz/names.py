"""Identifiers a generated program may use: plain ones, and "dangerous" ones that a C++ translation must keep
away from the preprocessor, the language and its own runtime headers (issue 36: INT_MAX, NAN, CJ_CPU ...)."""
import glob
import keyword
import os
import re

# C/C++ macros of the standard headers CUDA and the host compiler pull in
C_MACROS = """INT_MAX INT_MIN UINT_MAX LONG_MAX LONG_MIN LLONG_MAX LLONG_MIN ULLONG_MAX SHRT_MAX CHAR_BIT CHAR_MAX
SCHAR_MIN SIZE_MAX SSIZE_MAX PTRDIFF_MAX INTPTR_MAX INT8_MAX INT16_MIN INT32_MAX INT64_MIN UINT8_MAX UINT64_MAX
NAN INFINITY HUGE_VAL HUGE_VALF FLT_MAX FLT_MIN FLT_EPSILON DBL_MAX DBL_MIN DBL_EPSILON FLT_RADIX DECIMAL_DIG
M_PI M_E M_LN2 M_SQRT2 M_PI_2 M_1_PI MAXFLOAT FP_NAN FP_INFINITE FP_ZERO FP_NORMAL EOF NULL BUFSIZ FILENAME_MAX
RAND_MAX EXIT_SUCCESS EXIT_FAILURE CLOCKS_PER_SEC EDOM ERANGE EINVAL errno stdin stdout stderr assert_
isnan isinf isfinite signbit fpclassify offsetof va_arg setjmp MB_LEN_MAX WCHAR_MAX WEOF TRUE FALSE
__LINE__ __FILE__ __func__ __cplusplus __CUDACC__ __CUDA_ARCH__ __device__ __global__ __host__ __shared__
__forceinline__ __restrict__ __syncthreads __ldg _GNU_SOURCE __STDC__ _POSIX_C_SOURCE linux unix i386""".split()

# C++ keywords and alternative tokens that are not Python keywords
CPP_KEYWORDS = """alignas alignof and_eq asm auto bitand bitor char char16_t char32_t char8_t catch co_await co_return
co_yield compl concept const consteval constexpr constinit const_cast decltype default delete do double
dynamic_cast enum explicit export extern friend goto inline long mutable namespace new noexcept not_eq nullptr
operator or_eq private protected public register reinterpret_cast requires short signed sizeof static
static_assert static_cast struct switch template this thread_local throw typedef typeid typename union unsigned
using virtual void volatile wchar_t xor xor_eq case final override main std true false""".split()

# names of CUDA's and the C library's functions and types that a translation might declare or call
CUDA_NAMES = """threadIdx blockIdx blockDim gridDim warpSize dim3 float2 float4 double2 int2 uint3 half __half
printf malloc free memcpy memset exit abort sqrtf sinf expf powf fabsf floorf rintf fmaf fma min max
int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t size_t ptrdiff_t intptr_t bool_ float_
complex_ cuComplex""".split()

RESERVED_PY = set(keyword.kwlist) | set(keyword.softkwlist) | {"print", "len", "range", "abs", "min", "max",
                                                                "round", "int", "float", "bool", "complex"}


def header_names():
    """Macro and identifier names the runtime headers define (CJ_*, cj, INT8_MAX, ...)."""
    here = os.path.dirname(os.path.abspath(__file__))
    found = {"cj", "CJ_CPU", "CJ_GPU", "cj_fits", "cj_tid", "cj_ret", "cj_k_add_0", "cj_dev_helper_0"}
    for path in glob.glob(os.path.join(here, "..", "..", "kernels", "cudajit", "*.h")):
        with open(path) as f:
            text = f.read()
        found.update(re.findall(r"#define ([A-Za-z_][A-Za-z0-9_]*)", text))
        found.update(n for n in re.findall(r"\b(cj_[A-Za-z0-9_]+|CJ_[A-Za-z0-9_]+)\b", text))
    return sorted(found)


def dangerous(exclude=()):
    """Every dangerous name that is a legal Python identifier and not one the programs otherwise use."""
    out = []
    for n in C_MACROS + CPP_KEYWORDS + CUDA_NAMES + header_names():
        if n.isidentifier() and n not in RESERVED_PY and n not in exclude and n not in out:
            out.append(n)
    return out
