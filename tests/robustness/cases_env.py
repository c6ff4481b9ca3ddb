"""The environment, read at import or first use (each case in a fresh interpreter): bad ``CUDAJIT_*`` values
warn and fall back to the default as Numba's ``NUMBA_*`` variables do (numba.core.config: "Environment
variable ... could not be parsed"), or raise naming the variable where no default makes sense; missing or
broken compilers raise naming what to install or fix."""
from cases import raises, returns, with_category

RUN = "a = rng.standard_normal(40); want = a + 1\nK.add_one[2, 32](a)\n"
RIGHT = "np.array_equal(a, want)"
CPU = ("cpu",)


def env_returns(name, env, check=RIGHT, code=RUN, **kw):
    return returns(name, code, check, mode="subprocess", env=env, **kw)


def env_raises(name, env, exc, *words, code=RUN, **kw):
    return raises(name, code, exc, *words, mode="subprocess", env=env, **kw)


def env_warns(name, var, value):
    return env_returns(name, {var: value}, warns=(var,), backends=CPU)


CASES = [
    env_raises("backend_bogus", {"CUDAJIT_BACKEND": "bogus"}, ("ValueError",), "CUDAJIT_BACKEND", "bogus"),
    env_raises("backend_gpu_without_gpu", {"CUDAJIT_BACKEND": "gpu", "CUDA_VISIBLE_DEVICES": ""}, ("CudaSupportError",), "GPU|CUDA", backends=CPU),
    env_raises("backend_number", {"CUDAJIT_BACKEND": "1"}, ("ValueError",), "CUDAJIT_BACKEND", "1"),
    env_returns("backend_spaces_and_case", {"CUDAJIT_BACKEND": "  CPU "}, backends=CPU),
    env_returns("backend_auto", {"CUDAJIT_BACKEND": "auto"}),
    env_returns("backend_empty", {"CUDAJIT_BACKEND": ""}),
    env_warns("num_threads_text", "CUDAJIT_NUM_THREADS", "abc"),
    env_warns("num_threads_negative", "CUDAJIT_NUM_THREADS", "-4"),
    env_warns("num_threads_zero", "CUDAJIT_NUM_THREADS", "0"),
    env_warns("num_threads_float", "CUDAJIT_NUM_THREADS", "1.5"),
    env_returns("num_threads_huge", {"CUDAJIT_NUM_THREADS": "99999999"}, backends=CPU),
    env_returns("num_threads_one", {"CUDAJIT_NUM_THREADS": "1"}, code="c = np.zeros(1, np.int64)\nK.count_threads[64, 256](c)",
                check="c[0] == 64 * 256", backends=CPU),
    env_warns("cpu_stack_text", "CUDAJIT_CPU_STACK", "lots"),
    env_warns("cpu_stack_too_small", "CUDAJIT_CPU_STACK", "1"),
    env_warns("cpu_stack_bad_suffix", "CUDAJIT_CPU_STACK", "64Q"),
    env_raises("cpu_stack_huge", {"CUDAJIT_CPU_STACK": "999999999999999"},
               ("KernelRuntimeError", "MemoryError", "ValueError"), "CUDAJIT_CPU_STACK", backends=CPU, check=RIGHT),
    env_returns("cpu_stack_16m", {"CUDAJIT_CPU_STACK": "16M"}, backends=CPU),
    env_warns("boundscheck_text", "CUDAJIT_BOUNDSCHECK", "maybe"),
    env_raises("boundscheck_env_on", {"CUDAJIT_BOUNDSCHECK": "1"}, ("IndexError",), "oob_env", "{file}, line ", "9",
               code="@cuda.jit\ndef oob_env(a):\n    a[9] = 1.0\noob_env[1, 1](np.zeros(4))"),
    env_returns("check_nvrtc_on", {"CUDAJIT_CHECK_NVRTC": "1"}, backends=CPU),
    env_raises("cxx_missing", {"CXX": "/nonexistent/g++"}, ("CompileError", "CudaSupportError"), "CXX", "/nonexistent/g++",
               backends=CPU),
    env_raises("cxx_not_a_compiler", {"CXX": "/bin/false"}, ("CompileError", "CudaSupportError"), "/bin/false", backends=CPU),
    env_raises("cxx_bad_flag", {"CXX": "g++ -fno-such-flag-at-all"}, ("CompileError",), "no-such-flag-at-all", backends=CPU),
    # a compiler killed by a signal (the out-of-memory killer, a timeout) was reported as rejecting the source, with an
    # empty log (issue 37)
    env_raises("cxx_killed_by_signal", {"CXX": "{workdir}/killed-cxx.sh", "CUDAJIT_CACHE_DIR": "{workdir}/cache-killed-cxx"},
               ("CompileError",), "killed by SIGKILL",
               code="import os\nwith open(os.environ['CXX'], 'w') as f:\n"
                    "    f.write('#!/bin/sh\\ncase \"$*\" in *-shared*) kill -9 $$;; esac\\nexec g++ \"$@\"\\n')\n"
                    "os.chmod(os.environ['CXX'], 0o755)\n" + RUN, backends=CPU),
    env_returns("cxx_empty", {"CXX": ""}, backends=CPU),
    env_raises("no_compiler_on_path", {"PATH": "/nonexistent", "CXX": None}, ("CompileError", "CudaSupportError"),
               "C++ compiler|g++", backends=CPU),
    env_raises("tmpdir_missing", {"TMPDIR": "/nonexistent/tmp"}, ("CompileError",), "TMPDIR|/nonexistent/tmp",
               backends=CPU, check=RIGHT),
    env_returns("no_home_no_cache_dir", {"HOME": None, "CUDAJIT_CACHE_DIR": None, "XDG_CACHE_HOME": None}),
    env_returns("cuda_home_bogus", {"CUDA_HOME": "/nonexistent/cuda"}, backends=CPU),
    env_returns("cache_dir_relative", {"CUDAJIT_CACHE_DIR": "relative-cache"}),
]

CASES = with_category("env", CASES)
