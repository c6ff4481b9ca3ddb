"""Every identifier a user can write compiles (issue 36): a local variable, a parameter, a keyword argument, a
kernel parameter, a global, a device function or an inner function named ``INT_MAX``, ``NAN``, ``errno``, ``int``,
``new``, ``main``, ``CJ_CPU``, ``cj_fits`` or any other C/C++ keyword, any macro the generated code's headers
define on either target (g++'s ``-dM`` over the CPU build's includes, NVRTC's built-in headers, our own headers'
``#define``s) or any name of the runtime headers gives Python's answer on every backend. The C++ spells each user
name with the suffix ``_`` (compiler/storage.py, cpp_identifier), a space no macro or header name is in; the first
test checks that claim over the real macro sets, the others compile the names.
"""
import glob
import keyword
import os
import random
import re
import shutil
import subprocess

import numpy as np
import pytest

from cudajit import _core, _paths, cuda
from cudajit.compiler.storage import cpp_identifier
from cudajit.errors import TypingError

# The user's space (storage.cpp_identifier): a letter, then letters, digits and single underscores, ending in one
# underscore after a letter or digit.
USER_SPACE = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*_\Z")

CPP_KEYWORDS = """
alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t class compl
concept const consteval constexpr constinit const_cast continue co_await co_return co_yield decltype default delete
do double dynamic_cast else enum explicit export extern false float for friend goto if inline int long mutable
namespace new noexcept not not_eq nullptr operator or or_eq private protected public register reinterpret_cast
requires return short signed sizeof static static_assert static_cast struct switch template this thread_local throw
true try typedef typeid typename union unsigned using virtual void volatile wchar_t while xor xor_eq final override
import module restrict _Bool _Complex _Imaginary _Alignas _Alignof _Atomic _Generic _Noreturn _Static_assert
_Thread_local __restrict__ __device__ __global__ __host__ __shared__ __constant__ __forceinline__ __launch_bounds__
""".split()

# The issue's kind of list, and names the generated code itself uses (types, members, intrinsics, std).
ISSUE_NAMES = """
INT_MAX INT_MIN NAN INFINITY M_PI M_E EOF SIZE_MAX CJ_CPU CJ_GPU CJ_INLINE CJ_DEVICE CJ_GLOBAL CJ_ENTRY CJ_SHARED
errno assert signed int float new delete this template namespace main printf exit abort malloc free memcpy memset
abs fabs sqrt sin cos exp log min max NULL stdin stdout stderr true false nullptr std cj int8_t int16_t int32_t
int64_t uint8_t uint32_t uint64_t size_t ptrdiff_t threadIdx blockIdx blockDim gridDim warpSize signbit isnan isinf
isfinite data shape strides size v head tail at dim view slice wrap checked get cj_fits cj_nc cj_file cj_line
cj_function cj_error_record cj_cpu_state cj_where cj_t1 cj_seq1 cj_k_k_0 cj_x_arg cj_sA_storage x_ x__ _x __x _X
__X _ __ x_1 x_1_ xc_1 u_x U03BC μ σ_Q Σ_T ρ __CUDACC__ __CUDA_ARCH__ _GNU_SOURCE __cplusplus __LINE__ __FILE__
__func__ __attribute__ __builtin_expect unix linux i386 FLT_MAX DBL_EPSILON HUGE_VAL FP_NAN RAND_MAX CHAR_BIT
WIFEXITED SIGINT EINTR CLOCKS_PER_SEC BUFSIZ FILENAME_MAX L_tmpnam TMP_MAX va_arg offsetof alloca
""".split()


def _cpu_macros():
    """The macros of the CPU build's unit: g++ -dM -E over runtime.h with the build's flags."""
    cxx = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")
    if not cxx:
        return []
    src = "#include <cudajit/runtime.h>\n"
    out = subprocess.run([cxx, "-std=c++17", "-DCJ_CPU", "-DCJ_ERROR_RECORD=1", "-DCJ_CPU_SPINS=1", "-I",
                          _paths.include_dir(), "-dM", "-E", "-x", "c++", "-"], input=src, capture_output=True,
                         text=True, check=True).stdout
    return re.findall(r"^#define (\w+)", out, re.MULTILINE)


def _nvrtc_macros():
    """The macros NVRTC's built-in headers define (the text is inside libnvrtc-builtins)."""
    info = _core.nvrtc_info()
    if not info.get("ok"):
        return []
    names = set()
    for lib in glob.glob(os.path.join(os.path.dirname(info["path"]), "libnvrtc-builtins*.so*")):
        with open(lib, "rb") as f:
            names.update(m.decode() for m in re.findall(rb"#[ \t]*define[ \t]+([A-Za-z_]\w*)", f.read()))
    return sorted(names)


def _header_names():
    """Every identifier of the runtime headers, and the macros they define (both targets' branches)."""
    text = "".join(open(p).read() for p in glob.glob(os.path.join(_paths.include_dir(), "cudajit", "*.h")))
    text = re.sub(r"//[^\n]*", "", text)
    return sorted(set(re.findall(r"\b[A-Za-z_]\w*\b", text))), sorted(set(re.findall(r"#\s*define\s+(\w+)", text)))


CPU_MACROS = _cpu_macros()
NVRTC_MACROS = _nvrtc_macros()
HEADER_NAMES, HEADER_MACROS = _header_names()

# Names the test kernels use themselves (prefix zz_) cannot be tested as user names here.
_ALL = [n for n in dict.fromkeys(CPP_KEYWORDS + ISSUE_NAMES + CPU_MACROS + NVRTC_MACROS + HEADER_NAMES)
        if n.isidentifier() and not keyword.iskeyword(n) and not n.startswith("zz_")]
_LISTED = [n for n in CPP_KEYWORDS + ISSUE_NAMES if n in _ALL]
# Compiled as locals and parameters: every name that does not begin with "_" (those could meet a macro or a
# header's name as written), and a sample of the others (all spelled with "u" for the leading "_": they differ
# from the rest only there), with the listed ones.
_COMPILED = list(dict.fromkeys(_LISTED + [n for n in _ALL if not n.startswith("_")] + random.Random(36).sample(
    [n for n in _ALL if n.startswith("_")], 150)))
# A representative part for the roles that are not local spellings (kernel parameters, globals, functions).
_SOME = sorted(set(_LISTED) | set(random.Random(36).sample(_ALL, 100)))


def _batches(names, size):
    return [names[k:k + size] for k in range(0, len(names), size)]


def test_no_macro_or_header_name_is_in_the_users_space():
    if not CPU_MACROS:
        pytest.skip("no host C++ compiler to list the CPU unit's macros")
    in_space = sorted(n for n in CPU_MACROS + NVRTC_MACROS + HEADER_MACROS if USER_SPACE.match(n))
    assert not in_space, f"macros in the users' space of C++ names: {in_space}"
    for n in _ALL:                                     # every spelling is in the space (never a keyword, never _X)
        assert USER_SPACE.match(cpp_identifier(n)), (n, cpp_identifier(n))
    # the compiler's own names (temporaries, storage, wrappers) begin with cj_: the headers' cj_ names never take
    # the forms it makes (cj_<name>_<digits>, cj_<hint><digits>, ..._storage, ..._local, ...arg)
    for n in HEADER_NAMES:
        if n.startswith("cj_"):
            assert not re.search(r"(\d|storage|local|arg)\Z", n) and not n.startswith(("cj_k_", "cj_dev_",
                                                                                        "cj_const_")), n
    print(f"\n{len(_ALL)} names: {len(CPP_KEYWORDS)} keywords, {len(ISSUE_NAMES)} listed, {len(CPU_MACROS)} CPU "
          f"macros, {len(NVRTC_MACROS)} NVRTC macros, {len(HEADER_NAMES)} header names")


def _exec(source, namespace=None):
    ns = {} if namespace is None else namespace
    exec(compile(source, f"<identifiers {abs(hash(source))}>", "exec"), ns)
    return ns


@pytest.mark.parametrize("batch", range(len(_batches(_COMPILED, 400))))
def test_locals_parameters_and_keywords(backend, rng, batch):
    """Each name as a local variable, and as a device function's parameter called by keyword (bounds checks off:
    the names are the point, and a unit of 400 checked stores takes NVRTC 20 s)."""
    names = _batches(_COMPILED, 400)[batch]
    assigns = "".join(f"    {name} = zz_p[{k}] * {k + 1}\n" for k, name in enumerate(names))
    sums = "".join(f"    zz_s = zz_s * 0.5 + {name}\n" for name in names)        # any mix-up changes the sum
    dev_body = "".join(f"    zz_s = zz_s * 0.5 + {name} * {k % 7 + 1}\n" for k, name in enumerate(names))
    call = ", ".join(f"{name}=zz_p[{k}]" for k, name in reversed(list(enumerate(names))))
    src = (f"def zz_dev({', '.join(names)}):\n    zz_s = 0.0\n{dev_body}    return zz_s\n\n"
           f"def zz_kern(zz_out, zz_p):\n{assigns}    zz_s = 0.0\n{sums}"
           f"    zz_out[0] = zz_s\n    zz_out[1] = zz_dev({call})\n")
    ns = _exec(src)
    dev = cuda.jit(device=True)(ns["zz_dev"])
    ns["zz_dev"] = dev
    kern = cuda.jit(boundscheck=False)(ns["zz_kern"])
    p = rng.standard_normal(len(names))
    got, want = np.zeros(2), np.zeros(2)
    kern[1, 1](got, p)
    ns["zz_dev"] = dev.py_func
    kern.py_func(want, p)
    # approx: on the GPU a product and a sum may fuse (FMA, as numba-cuda's code does), one rounding instead of two
    assert got == pytest.approx(want, rel=1e-12), (got, want)


def test_kernel_parameters(backend, rng):
    for names in _batches(_SOME, 100):
        src = f"def zz_kern(zz_out, {', '.join(names)}):\n" + "\n".join(
            f"    zz_out[{k}] = {name} * 2" for k, name in enumerate(names)) + "\n"
        kern = cuda.jit(boundscheck=False)(_exec(src)["zz_kern"])
        args = rng.standard_normal(len(names))
        got = np.zeros(len(names))
        kern[1, 1](got, *args)
        np.testing.assert_array_equal(got, args * 2)


def test_globals_device_functions_and_inner_functions(backend, rng):
    names = _SOME
    n = len(names)
    # a global of each name (frozen), then a device function of each name, then an inner function of each name
    ns = {name: k + 0.25 for k, name in enumerate(names)}
    src = "def zz_kern(zz_out, zz_p):\n" + "\n".join(f"    zz_out[{k}] = {name} * zz_p[{k}]"
                                                     for k, name in enumerate(names)) + "\n"
    kern = cuda.jit(boundscheck=False)(_exec(src, ns)["zz_kern"])
    p = rng.standard_normal(n)
    got = np.zeros(n)
    kern[1, 1](got, p)
    np.testing.assert_array_equal(got, (np.arange(n) + 0.25) * p)

    ns = {}
    for k, name in enumerate(names):
        ns[name] = cuda.jit(device=True)(_exec(f"def {name}(zz_x):\n    return zz_x * {k + 3}\n")[name])
    calls = src.replace(" * zz_p[", "(zz_p[").replace("]\n", "])\n")           # zz_out[k] = NAME(zz_p[k])
    kern = cuda.jit(boundscheck=False)(_exec(calls, ns)["zz_kern"])
    got = np.zeros(n)
    kern[1, 1](got, p)
    np.testing.assert_array_equal(got, p * (np.arange(n) + 3))

    for part in _batches(names, 125):
        inner = "def zz_kern(zz_out, zz_p):\n" + "".join(
            f"    def {name}(zz_x):\n        return zz_x + {k}\n    zz_out[{k}] = {name}(zz_p[{k}])\n"
            for k, name in enumerate(part))
        kern = cuda.jit(boundscheck=False)(_exec(inner)["zz_kern"])
        got = np.zeros(len(part))
        kern[1, 1](got, p[:len(part)])
        np.testing.assert_array_equal(got, p[:len(part)] + np.arange(len(part)))


def test_messages_name_the_python_names(backend):
    """Errors name the user's spelling, never the C++ one (INT_MAX, not INT_MAX_)."""
    ns = _exec("def NAN(a, c):\n    INT_MAX = 1\n    if c > 0:\n        INT_MAX = a\n    a[0] = INT_MAX\n")
    with pytest.raises(TypingError) as info:
        cuda.jit(ns["NAN"])[1, 1](np.zeros(2), 1)
    assert "'INT_MAX'" in str(info.value) and "INT_MAX_" not in str(info.value), info.value
    ns = _exec("def NAN(errno, k):\n    errno[k] = 1.0\n")
    with pytest.raises(IndexError) as info:
        cuda.jit(boundscheck=True)(ns["NAN"])[1, 1](np.zeros(2), 5)
    assert "In function 'NAN'" in str(info.value) and "NAN_" not in str(info.value), info.value


def test_generated_code_reads_as_the_python(backend):
    ns = _exec("def zz_kern(out, n):\n    total = 0\n    for i in range(n):\n        total += i\n    out[0] = total\n")
    kern = cuda.jit(ns["zz_kern"])
    out = np.zeros(1, np.int64)
    kern[1, 1](out, 10)
    assert out[0] == 45
    src = next(iter(kern.inspect_source().values()))
    assert "int64_t total_ = 0;" in src and "for (int64_t i_ = 0; i_ < n_; ++i_)" in src and \
        "total_ += i_;" in src, src
