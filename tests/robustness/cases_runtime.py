"""Kernels that go wrong while running: out-of-range indices of every memory space, division by zero, integer
overflow, endless loops and launches, deep recursion, barrier deadlocks, bad atomics. Issue 10: bounds checks on
by default on the CPU backend (``boundscheck=True`` everywhere) raise IndexError naming the kernel, file:line,
thread, index, axis and shape; ``debug=True`` raises ZeroDivisionError and IndexError as numba-cuda's debug mode
(Python's error model); a running CPU kernel stops at Ctrl-C with KeyboardInterrupt and the process stays usable."""
from cases import raises, returns, with_category

CPU = ("cpu",)


def kernel_src(name, params, body, options=""):
    lines = "\n".join("    " + line for line in body.strip("\n").split("\n"))
    return f"@cuda.jit({options})\ndef {name}({params}):\n{lines}\n"


def oob(name, params, body, launch, index, *words, options="", backends=("cpu", "gpu"), prefix=""):
    """An out-of-range access: IndexError naming the kernel, its file, the thread (Numba's tid=[..] ctaid=[..]), the index, axis and shape."""
    code = prefix + kernel_src(name, params, body, options) + launch
    return raises(name, code, ("IndexError",), name, "{file}, line ", "tid=[", str(index), "axis", *words,
                  backends=backends)


INTERRUPT = """
import os, signal, threading, time
{warm}                            # compiled and run once first: the interrupt must land in the kernel
threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
interrupted, t0 = False, time.monotonic()
try:
    {launch}
except KeyboardInterrupt:
    interrupted = time.monotonic() - t0 < 1.5       # within 0.5 s of the Ctrl-C (issue 10)
after = np.zeros(40)
K.add_one[2, 32](after)           # the process is still usable
"""


def interrupt(name, params, body, warm, launch):
    """A kernel running far too long: Ctrl-C raises KeyboardInterrupt and the process stays usable."""
    code = kernel_src(name, params, body) + INTERRUPT.format(warm=warm.replace("KERNEL", name),
                                                             launch=launch.replace("KERNEL", name))
    return returns(name, code, "interrupted and np.array_equal(after, np.ones(40))", timeout=8, backends=CPU)


# A recursion whose depth the launch gives, with a local array per frame (no tail call: the frames stay), and one in
# a kernel with a barrier (its threads are fibers) with 2 KiB of locals per frame.
DEEP = """
@cuda.jit(device=True)
def deep(n, k):
    l = cuda.local.array(4, dtype=np.int64)
    for j in range(4):
        l[j] = n + j
    if n == 0:
        return l[k]
    return deep(n - 1, k) + l[(k + 1) % 4]
@cuda.jit
def use_deep(a, n):
    a[cuda.grid(1)] = deep(n, 1)
a = np.zeros(64, np.int64)
"""
DEEP_FIBER = """
@cuda.jit(device=True)
def fiber_deep(x, n):
    l = cuda.local.array(256, dtype=np.float64)
    for j in range(256):
        l[j] = x[j % x.size] + n
    if n == 0:
        return l[5]
    return fiber_deep(x, n - 1) + l[n % 256]
@cuda.jit
def use_fiber_deep(out, n):
    cuda.syncthreads()
    out[cuda.grid(1)] = fiber_deep(ONES, n)
ONES = np.ones(4)
out = np.zeros(32)
"""
DEEP_ERROR = ("KernelRecursionError", "RecursionError")
DEEP_WORDS = ("'deep'", "depth", "{file}, line ", "stack", "maximum recursion depth exceeded")

CASES = [
    # out-of-range indices, bounds checks on by default on the CPU backend
    oob("oob_global_write", "a", "a[cuda.grid(1)] = 1.0", "oob_global_write[2, 32](np.zeros(40))", 40,
        "40", backends=CPU),
    oob("oob_scaled_index", "x", "i = cuda.grid(1)\nx[i * 1000] = i", "oob_scaled_index[1, 8](np.zeros(100))", 1000,
        "100", backends=CPU),
    oob("oob_global_read", "out, a", "out[0] = a[7]", "oob_global_read[1, 1](np.zeros(1), np.zeros(4))", 7, "4",
        backends=CPU),
    oob("oob_negative", "a", "a[-5] = 1.0", "oob_negative[1, 1](np.zeros(4))", -5, "4", backends=CPU),
    oob("oob_2d_axis1", "a", "a[1, 9] = 1.0", "oob_2d_axis1[1, 1](np.zeros((3, 4)))", 9, "1", backends=CPU),
    oob("oob_3d_axis2", "a", "a[0, 0, 5] = 1.0", "oob_3d_axis2[1, 1](np.zeros((2, 2, 2)))", 5, "2", backends=CPU),
    oob("oob_empty_array", "a", "a[0] = 1.0", "oob_empty_array[1, 1](np.zeros(0))", 0, "0", backends=CPU),
    oob("oob_device_array", "a", "a[100] = 1.0", "d = cuda.device_array(10)\noob_device_array[1, 1](d)", 100, "10",
        backends=CPU),
    oob("oob_sliced_view", "a", "b = a[2:]\nb[8] = 1.0", "oob_sliced_view[1, 1](np.zeros(10))", 8, "8", backends=CPU),
    oob("oob_shared", "a", "s = cuda.shared.array(16, dtype=np.float64)\ns[cuda.threadIdx.x + 10] = 1.0\na[0] = s[0]",
        "oob_shared[1, 8](np.zeros(1))", 16, "16", backends=CPU),
    oob("oob_local", "a", "l = cuda.local.array(4, dtype=np.int32)\nfor j in range(6):\n    l[j] = j\na[0] = l[0]",
        "oob_local[1, 1](np.zeros(1))", 4, "4", backends=CPU),
    oob("oob_const", "a", "c = cuda.const.array_like(TABLE)\na[0] = c[12]", "oob_const[1, 1](np.zeros(1))", 12, "8",
        backends=CPU, prefix="TABLE = np.arange(8.0)\n"),
    oob("oob_atomic", "a", "cuda.atomic.add(a, 50, 1.0)", "oob_atomic[1, 1](np.zeros(4))", 50, "4", backends=CPU),
    oob("oob_thread_named", "a", "i = cuda.grid(1)\nif i == 37:\n    a[i + 100] = 1.0",
        "oob_thread_named[2, 32](np.zeros(64))", 137, "37", backends=CPU),
    oob("oob_in_device_function", "a", "store_far(a)", "oob_in_device_function[1, 1](np.zeros(4))", 99, "4",
        backends=CPU, prefix="@cuda.jit(device=True)\ndef store_far(arr):\n    arr[99] = 1.0\n"),
    oob("oob_untiled_matmul_edge", "c, a, b",
        "i, j = cuda.grid(2)\ns = 0.0\nfor kk in range(16):\n    s += a[i, kk] * b[kk, j]\nc[i, j] = s",
        "n = 20\noob_untiled_matmul_edge[(2, 2), (16, 16)](np.zeros((n, n)), np.ones((n, 16)), np.ones((16, n)))",
        "20", "20", backends=CPU),
    # the same with an explicit boundscheck=True: on every backend
    oob("oob_checked_write", "a", "a[cuda.grid(1)] = 1.0", "oob_checked_write[2, 32](np.zeros(40))", 40, "40",
        options="boundscheck=True"),
    oob("oob_checked_shared", "a", "s = cuda.shared.array(8, dtype=np.int32)\ns[cuda.threadIdx.x] = 1\na[0] = s[0]",
        "oob_checked_shared[1, 16](np.zeros(1))", 8, "8", options="boundscheck=True"),
    oob("oob_checked_2d", "a", "a[5, 0] = 1.0", "oob_checked_2d[1, 1](np.zeros((3, 4)))", 5, "0",
        options="boundscheck=True"),
    returns("in_range_with_boundscheck_false", kernel_src("in_range_unchecked", "a", "i = cuda.grid(1)\nif i < a.size:\n    a[i] = i * 2", "boundscheck=False")
            + "a = np.zeros(100)\nin_range_unchecked[4, 32](a)", "np.array_equal(a, np.arange(100) * 2.0)"),
    returns("negative_index_in_range", kernel_src("neg_in_range", "a", "a[-1] = 5.0\na[-a.size] = 3.0")
            + "a = np.zeros(6)\nneg_in_range[1, 1](a)", "a[-1] == 5.0 and a[0] == 3.0"),
    # debug=True: Python's error model, as numba-cuda's debug mode
    raises("debug_int_floordiv_zero", kernel_src("dbg_floordiv", "a, d", "a[0] = 7 // d", "debug=True, opt=False")
           + "dbg_floordiv[1, 1](np.zeros(1, np.int64), 0)", ("ZeroDivisionError",), "dbg_floordiv", "{file}, line "),
    raises("debug_int_mod_zero", kernel_src("dbg_mod", "a, d", "a[0] = 7 % d", "debug=True, opt=False")
           + "dbg_mod[1, 1](np.zeros(1, np.int64), 0)", ("ZeroDivisionError",), "dbg_mod", "{file}, line "),
    raises("debug_float_div_zero", kernel_src("dbg_fdiv", "a, d", "a[0] = 1.0 / d", "debug=True, opt=False")
           + "dbg_fdiv[1, 1](np.zeros(1), 0.0)", ("ZeroDivisionError",), "dbg_fdiv", "{file}, line "),
    raises("debug_shape_index", kernel_src("dbg_shape", "a, i", "a[0] = a.shape[i]", "debug=True, opt=False")
           + "dbg_shape[1, 1](np.zeros(3), 4)", ("IndexError",), "dbg_shape", "{file}, line ", "4"),
    raises("debug_raise", kernel_src("dbg_raise", "a", "if a[0] == 0:\n    raise ValueError('boom')", "debug=True, opt=False")
           + "dbg_raise[1, 1](np.zeros(1))", ("ValueError",), "boom"),
    raises("debug_assert", kernel_src("dbg_assert", "a", "assert a[0] > 0, 'a[0] must be positive'", "debug=True, opt=False")
           + "dbg_assert[1, 1](np.zeros(1))", ("AssertionError",), "positive"),
    # without debug: numba-cuda's NumPy error model, a value and no error
    returns("int_floordiv_zero_is_zero", kernel_src("fdz", "a, d", "a[0] = 7 // d\na[1] = 7 % d")
            + "a = np.ones(2, np.int64)\nfdz[1, 1](a, 0)", "a[0] == 0 and a[1] == 0"),
    returns("float_div_zero_is_inf", kernel_src("fdiv0", "a, d", "a[0] = 1.0 / d\na[1] = -1.0 / d\na[2] = d / d")
            + "a = np.zeros(3)\nfdiv0[1, 1](a, 0.0)", "a[0] == np.inf and a[1] == -np.inf and np.isnan(a[2])"),
    returns("int64_overflow_wraps", kernel_src("wrap64", "a, x", "a[0] = x + 1\na[1] = -x - 2")
            + "a = np.zeros(2, np.int64)\nwrap64[1, 1](a, 2**63 - 1)", "a[0] == -2**63 and a[1] == 2**63 - 1"),
    returns("sqrt_negative_is_nan", kernel_src("sqrtneg", "a", "a[0] = math.sqrt(-1.0)\na[1] = math.log(0.0)")
            + "import math\na = np.zeros(2)\nsqrtneg[1, 1](a)", "np.isnan(a[0]) and a[1] == -np.inf"),
    returns("int_min_floordiv_minus_one", kernel_src("minfd", "a, x, y", "a[0] = x // y")
            + "a = np.zeros(1, np.int64)\nminfd[1, 1](a, -2**63, -1)", "a[0] in (0, -2**63)"),
    # endless work: Ctrl-C stops it within the timeout and the process stays usable
    interrupt("interrupt_endless_loop", "a", "while a[0] == 0:\n    a[1] += 1.0",
              "KERNEL[1, 1](np.ones(2))", "KERNEL[1, 1](np.zeros(2))"),
    interrupt("interrupt_long_loop", "a, n", "s = 0.0\nfor j in range(n):\n    s += j\na[0] = s",
              "KERNEL[1, 1](np.zeros(1), 1)", "KERNEL[1, 1](np.zeros(1), 10**13)"),
    interrupt("interrupt_many_blocks", "a", "cuda.atomic.add(a, 0, 1.0)",
              "KERNEL[1, 1](np.zeros(1))", "KERNEL[2**31 - 1, 1024](np.zeros(1))"),
    interrupt("interrupt_barrier_loop", "a", "while a[0] == 0:\n    cuda.syncthreads()",
              "KERNEL[1, 64](np.ones(1))", "KERNEL[4, 64](np.zeros(1))"),
    # recursion
    returns("recursion_ternary", "@cuda.jit(device=True)\ndef fib_t(n):\n    return n if n < 2 else fib_t(n - 1) + fib_t(n - 2)\n"
            + kernel_src("use_fib_t", "a", "a[cuda.grid(1)] = fib_t(cuda.grid(1))")
            + "a = np.zeros(20, np.int64)\nuse_fib_t[1, 20](a)", "a[19] == 4181"),
    returns("recursion_shallow", "@cuda.jit(device=True)\ndef fib(n):\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n"
            + kernel_src("use_fib", "a", "a[cuda.grid(1)] = fib(cuda.grid(1))")
            + "a = np.zeros(20, np.int64)\nuse_fib[1, 20](a)",
            "list(a[:10]) == [0, 1, 1, 2, 3, 5, 8, 13, 21, 34] and a[19] == 4181"),
    raises("recursion_too_deep", "@cuda.jit(device=True)\ndef depth(n):\n    if n == 0:\n        return 0\n    return 1 + depth(n - 1)\n"
           + kernel_src("use_depth", "a, n", "a[0] = depth(n)") + "a = np.zeros(1, np.int64)\nuse_depth[1, 1](a, 10**7)",
           ("KernelRuntimeError", "RecursionError", "MemoryError"), "stack", "use_depth", backends=CPU,
           check="a[0] == 10**7"),
    # deeper than the CUDA thread's stack (issue 37): KernelRecursionError, a RecursionError naming the function, its
    # file and line, and the depth, where the process died of SIGSEGV; the process stays usable
    raises("recursion_too_deep_thread", DEEP + "use_deep[1, 1](a, 2_000_000)", DEEP_ERROR, *DEEP_WORDS, backends=CPU),
    raises("recursion_too_deep_helper_threads", DEEP + "use_deep[8, 8](a, 2_000_000)", DEEP_ERROR, *DEEP_WORDS,
           backends=CPU),
    raises("recursion_too_deep_fiber", DEEP_FIBER + "use_fiber_deep[1, 32](out, 40)", DEEP_ERROR,
           "fiber_deep", "depth", "{file}, line ", "CUDAJIT_CPU_STACK", backends=CPU),
    raises("recursion_too_deep_small_thread_stack", DEEP + """
import threading
caught = []
def run():
    try:
        use_deep[1, 1](a, 100_000)
    except RecursionError as e:
        caught.append(e)
threading.stack_size(256 * 1024)
t = threading.Thread(target=run); t.start(); t.join()
raise caught[0]
""", DEEP_ERROR, *DEEP_WORDS, "262144", backends=CPU),
    returns("recursion_usable_after_too_deep", DEEP + """
try:
    use_deep[1, 1](a, 2_000_000)
except RecursionError:
    pass
use_deep[2, 8](a, 1000)
""", "(a[:16] == sum(n + 2 for n in range(1, 1001)) + 1).all()", backends=CPU),
    returns("recursion_deep_fiber_with_bigger_stack", DEEP_FIBER + "use_fiber_deep[1, 32](out, 40)",
            "np.allclose(out, sum(1.0 + n for n in range(1, 41)) + 1.0)", mode="subprocess",
            env={"CUDAJIT_CPU_STACK": "1M"}, backends=CPU),
    # the GPU has no guard (docs/INTERNALS.md, "Recursion"): the launch faults, as numba-cuda's, and the error says so
    raises("recursion_too_deep_gpu", DEEP + "use_deep[1, 1](a, 2_000_000); cuda.synchronize()",
           ("CudaAPIError", "KernelRuntimeError", "MemoryError"), backends=("gpu",), timeout=60),
    # a NUL in a printed string cut the rest of the line (issue 37): now Python's line, the NUL included (the GPU's
    # printf may drop the NUL itself, never what follows it)
    returns("print_nul_in_string", """
import contextlib, io, os, sys, tempfile
@cuda.jit
def print_nul(a):
    print("a\\0b", 7, "after")
buf, raw = io.StringIO(), tempfile.TemporaryFile()
saved = os.dup(1); os.dup2(raw.fileno(), 1)
try:
    with contextlib.redirect_stdout(buf):
        print_nul[1, 1](np.zeros(1)); cuda.synchronize()
finally:
    sys.stdout.flush(); os.dup2(saved, 1)
raw.seek(0)
out = buf.getvalue() + raw.read().decode(errors="replace")
""", "'a\\0b 7 after\\n' in out or 'ab 7 after\\n' in out"),
    # 8 MB per thread is beyond CUDA's local memory limit (512 KiB): a typing error on both backends
    raises("big_local_array", kernel_src("big_local", "a", "l = cuda.local.array(1000000, dtype=np.float64)\n"
                                          "for j in range(1000000):\n    l[j] = j\na[0] = l[999999]")
           + "a = np.zeros(1)\nbig_local[1, 1](a)", ("TypingError",), "local array 'l'", "8000000 bytes", "524288",
           "{file}:"),
    # barriers and atomics
    returns("atomic_count_many_threads", "c = np.zeros(1, np.int64)\nK.count_threads[1000, 128](c)", "c[0] == 128000"),
    returns("atomic_float_sum", kernel_src("fsum", "out, x", "i = cuda.grid(1)\nif i < x.size:\n    cuda.atomic.add(out, 0, x[i])")
            + "x = rng.integers(-100, 100, 5000).astype(np.float64)\nout = np.zeros(1)\nfsum[40, 128](out, x)",
            "out[0] == x.sum()"),
    returns("atomic_max_nan", kernel_src("amax", "out, x", "i = cuda.grid(1)\nif i < x.size:\n    cuda.atomic.max(out, 0, x[i])")
            + "x = rng.standard_normal(300); x[7] = np.nan\nout = np.full(1, -np.inf)\namax[3, 128](out, x)",
            "out[0] == np.nanmax(x)"),
    returns("atomic_cas_lock_free", kernel_src("cas_once", "flag, winners", "if cuda.atomic.compare_and_swap(flag, 0, 1) == 0:\n    cuda.atomic.add(winners, 0, 1)")
            + "flag = np.zeros(1, np.int32); winners = np.zeros(1, np.int32)\ncas_once[8, 64](flag, winners)",
            "flag[0] == 1 and winners[0] == 1"),
    returns("block_sum_reduction", "x = rng.standard_normal(256); out = np.zeros(1)\nK.block_sum[1, 256](out, x)",
            "np.isclose(out[0], x.sum())"),
    returns("large_grid_guarded", "out = np.zeros(2**20 + 3, np.int64)\nK.write_index[(2**20 + 3 + 255) // 256, 256](out)",
            "np.array_equal(out, np.arange(2**20 + 3))"),
]

CASES = with_category("runtime", CASES)
