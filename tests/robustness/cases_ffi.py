"""Raw CUDA C++ (RawModule/RawKernel), ``cuda.jit(link=[...])`` and ``cuda.declare_device``: bad sources, bad
signatures, missing files and symbols, wrong calls. Each raises CompileError, TypingError or a clear TypeError,
ValueError or FileNotFoundError naming the function or file (with the compiler's log for C++ errors)."""
from cases import raises, returns, with_category

WRITE = """
import os, tempfile
def write_cu(text, suffix=".cu"):
    fd, path = tempfile.mkstemp(suffix=suffix)
    os.write(fd, text.encode())
    os.close(fd)
    return path
"""
GOOD_CU = 'extern "C" __device__ int twice(double* r, double x) { *r = 2 * x; return 0; }'


def linked(name, cu_text, call, sig, *words, exc=("CompileError", "TypingError"), check=None):
    code = WRITE + f"""
path = write_cu({cu_text!r})
f = cuda.declare_device("twice", {sig!r}, link=[path])
@cuda.jit
def use_{name}(a):
    a[0] = {call}
a = np.ones(1)
use_{name}[1, 1](a)
"""
    if check:
        return returns(name, code, check)
    return raises(name, code, exc, *words)


CASES = [
    raises("raw_syntax_error", "cuda.RawModule('extern \"C\" __global__ void k( { }').compile(arch=90)",
           ("CompileError",), "error"),
    raises("raw_undeclared", "cuda.RawModule('extern \"C\" __global__ void k() { nope = 1; }').compile(arch=90)",
           ("CompileError",), "nope"),
    raises("raw_bad_arch", "cuda.RawModule('extern \"C\" __global__ void k() {}').compile(arch=1)",
           ("CompileError", "ValueError"), "arch|compute_1|sm_1"),
    raises("raw_bad_option", "cuda.RawModule('extern \"C\" __global__ void k() {}', options=('--no-such-flag',)).compile(arch=90)",
           ("CompileError", "ValueError"), "no-such-flag"),
    raises("raw_code_not_string", "cuda.RawModule(12345).compile(arch=90)", ("TypeError",), "str|code"),
    raises("raw_kernel_on_cpu", "k = cuda.RawKernel('extern \"C\" __global__ void k(float* a) {}', 'k'); k[1, 1](cuda.device_array(1, np.float32))",
           ("CudaSupportError",), "GPU", "CPU", backends=("cpu",)),
    raises("raw_kernel_missing_symbol", "k = cuda.RawKernel('extern \"C\" __global__ void k(float* a) {}', 'nothere'); k[1, 1](cuda.device_array(1, np.float32))",
           ("CudaAPIError", "CompileError", "LookupError", "ValueError"), "nothere", backends=("gpu",)),
    raises("raw_kernel_bad_arg", "k = cuda.RawKernel('extern \"C\" __global__ void k(float* a) {}', 'k'); k[1, 1]('abc')",
           ("TypeError",), "0|argument", "str", backends=("gpu",)),
    raises("raw_kernel_no_config", "cuda.RawKernel('extern \"C\" __global__ void k() {}', 'k')()",
           ("ValueError", "LaunchError", "TypeError"), "launch configuration|grid"),
    raises("declare_array_return_type", "cuda.declare_device('f', 'float32[:](float32)')", ("TypeError",), "return type"),
    raises("declare_bad_signature_text", "cuda.declare_device('f', 'float32(flot32)')", ("TypeError", "ValueError", "SyntaxError"), "flot32"),
    raises("declare_tuple_argument", "cuda.declare_device('f', 'float32(UniTuple(float32, 2))')", ("TypeError",),
           "argument", "UniTuple"),
    raises("declare_unknown_abi", "cuda.declare_device('f', 'float32(float32)', abi='fortran')", ("NotImplementedError",),
           "ABI", "fortran"),
    raises("declare_signature_not_string", "cuda.declare_device('f', 12)", ("TypeError",), "signature|int"),
    raises("declare_missing_link_file", "cuda.declare_device('f', 'int32(int32)', link=['/nonexistent/x.cu'])",
           ("FileNotFoundError",), "/nonexistent/x.cu"),
    raises("declare_link_unknown_suffix", "cuda.declare_device('f', 'int32(int32)', link=['lib.xyz'])",
           ("NotImplementedError",), "lib.xyz"),
    raises("jit_link_missing_library", "cuda.jit(link=['libfoo.a'])(lambda a: None)", ("FileNotFoundError",), "libfoo.a"),
    raises("link_ptx_on_cpu", WRITE + """
path = write_cu("// PTX", suffix=".ptx")
f = cuda.declare_device("twice", "float64(float64)", abi="c", link=[path])
@cuda.jit
def use_ptx(a):
    a[0] = f(a[0])
use_ptx[1, 1](np.ones(1))
""", ("UnsupportedError",), "CPU", ".ptx", backends=("cpu",)),
    raises("jit_link_not_path", "cuda.jit(link=[42])(lambda a: None)", ("TypeError",), "link|int"),
    raises("jit_unknown_option", "cuda.jit(no_such_option=True)(lambda a: None)", ("TypeError",), "no_such_option"),
    raises("jit_bad_max_registers", "@cuda.jit(max_registers='many')\ndef k(a):\n    a[0] = 1\nk[1, 1](np.zeros(1))",
           ("TypeError", "ValueError"), "max_registers"),
    raises("jit_bad_launch_bounds", "@cuda.jit(launch_bounds='x')\ndef k(a):\n    a[0] = 1\nk[1, 1](np.zeros(1))",
           ("TypeError", "ValueError"), "launch_bounds"),
    raises("call_foreign_from_host", "f = cuda.declare_device('f', 'int32(int32)'); f(1)", ("RuntimeError", "TypeError"), "kernel"),
    raises("call_device_function_from_host", "@cuda.jit(device=True)\ndef dev(x):\n    return x\ndev(1)",
           ("TypingError", "RuntimeError", "TypeError"), "dev", "kernel"),
    linked("link_source_error", 'extern "C" __device__ int twice(double* r, double x) { *r = 2 * x return 0; }',
           "f(a[0])", "float64(float64)", "twice|expected", exc=("CompileError",)),
    linked("link_symbol_missing", 'extern "C" __device__ int other(double* r, double x) { return 0; }',
           "f(a[0])", "float64(float64)", "twice"),
    linked("link_signature_mismatch", 'extern "C" __device__ int twice(int* r, int x, int y) { *r = x; return 0; }',
           "f(a[0])", "float64(float64)", "twice"),
    linked("link_wrong_arg_count", GOOD_CU, "f(a[0], 1.0)", "float64(float64)", "twice", "argument", exc=("TypingError",)),
    linked("link_wrong_arg_type", GOOD_CU, "f(a)", "float64(float64)", "twice", "array", exc=("TypingError",)),
    linked("link_good", GOOD_CU, "f(a[0] + 0.5)", "float64(float64)", check="a[0] == 3.0"),
    raises("link_file_deleted_after_declare", WRITE + f"""
path = write_cu({GOOD_CU!r})
f = cuda.declare_device("twice", "float64(float64)", link=[path])
os.unlink(path)
@cuda.jit
def use_deleted(a):
    a[0] = f(a[0])
use_deleted[1, 1](np.ones(1))
""", ("FileNotFoundError", "CompileError"), "twice|.cu"),
]

CASES = with_category("ffi", CASES)
