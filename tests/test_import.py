"""Import is cheap and needs no GPU; without one, GPU calls raise CudaSupportError saying why."""
import os
import subprocess
import sys

import pytest


def _run(code, **env):
    e = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e, timeout=60)


def test_import_is_fast_and_touches_no_gpu():
    code = ("import time; t = time.perf_counter(); import cudajit; dt = time.perf_counter() - t; "
            "import sys; print(dt, 'cudajit._core' in sys.modules)")
    times = []
    for _ in range(3):
        out = _run(code)
        assert out.returncode == 0, out.stderr
        dt, core_loaded = out.stdout.split()
        times.append(float(dt))
        assert core_loaded == "False"  # nothing below the package was initialised
    assert min(times) < 0.15


def test_cpu_backend_forced():
    from cudajit import _backend
    out = _run("from cudajit import cuda, backend; print(backend(), cuda.is_available())", CUDAJIT_BACKEND="cpu")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["cpu", str(_backend.gpu_status()[0])]   # a GPU present, whatever the backend


def test_numba_cudasim_picks_the_cpu_backend():
    # A program or CI job set up for Numba's simulator (NUMBA_ENABLE_CUDASIM=1) runs on the CPU backend, GPU or not;
    # CUDAJIT_BACKEND, when set, decides; "0" is Numba's "off"; a value Numba cannot parse warns and counts as off.
    from cudajit import _backend
    code = ("import warnings; warnings.simplefilter('always')\n"
            "import numpy as np\nfrom cudajit import cuda, backend, _backend\n"
            "@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] *= 2\n"
            "a = np.arange(32.0); k[1, 32](a)\n"
            "print(backend(), a.sum() == 2 * np.arange(32.0).sum(), _backend.reason())")
    gpu = "gpu" if _backend.gpu_status()[0] else "cpu"
    for env, want in (({"NUMBA_ENABLE_CUDASIM": "1"}, "cpu"), ({"NUMBA_ENABLE_CUDASIM": "0"}, gpu),
                      ({"NUMBA_ENABLE_CUDASIM": "1", "CUDAJIT_BACKEND": gpu}, gpu),
                      ({"NUMBA_ENABLE_CUDASIM": "yes"}, gpu)):
        e = {k: v for k, v in os.environ.items() if k not in ("CUDAJIT_BACKEND", "NUMBA_ENABLE_CUDASIM")}
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(e, **env),
                             timeout=120)
        assert out.returncode == 0, out.stderr
        words = out.stdout.split()
        assert words[:2] == [want, "True"], (env, out.stdout)
        if env == {"NUMBA_ENABLE_CUDASIM": "1"}:
            assert "NUMBA_ENABLE_CUDASIM" in out.stdout
        assert ("'NUMBA_ENABLE_CUDASIM' is defined but its associated value 'yes' could not be parsed"
                in out.stderr) == (env == {"NUMBA_ENABLE_CUDASIM": "yes"}), out.stderr


def test_is_available_under_numba_cudasim():
    # Numba's simulator says cuda.is_available() is True; programs and test suites written for it gate their kernels
    # on that (minitorch's tests/test_tensor_general.py adds its CUDA cases only then). Under NUMBA_ENABLE_CUDASIM=1
    # cudajit's CPU backend runs them, so it says True too; CUDAJIT_BACKEND=cpu alone keeps Numba's "a GPU is here".
    from cudajit import _backend
    code = "from cudajit import cuda, backend; print(backend(), cuda.is_available())"
    for env, want in (({"NUMBA_ENABLE_CUDASIM": "1"}, ["cpu", "True"]),
                      ({"NUMBA_ENABLE_CUDASIM": "0", "CUDAJIT_BACKEND": "cpu"}, ["cpu", str(_backend.gpu_status()[0])]),
                      ({"NUMBA_ENABLE_CUDASIM": "1", "CUDAJIT_BACKEND": "cpu"},
                       ["cpu", str(_backend.gpu_status()[0])])):
        e = {k: v for k, v in os.environ.items() if k not in ("CUDAJIT_BACKEND", "NUMBA_ENABLE_CUDASIM")}
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(e, **env),
                             timeout=120)
        assert out.returncode == 0, out.stderr
        assert out.stdout.split() == want, (env, out.stdout)


def test_config_enable_cudasim_is_numbas_int():
    # numba.config.ENABLE_CUDASIM: programs read it (numba's own cuda/random.py, a poker simulation's random32.py,
    # which compiles its helpers in object mode under the simulator)
    code = "from cudajit import config; print(repr(config.ENABLE_CUDASIM))"
    for value, want in (("1", "1"), ("0", "0"), ("", "0"), ("yes", "0")):
        e = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
        if value:
            e["NUMBA_ENABLE_CUDASIM"] = value
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e, timeout=120)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == want, (value, out.stdout)


def test_gpu_backend_without_gpu_raises_support_error():
    from cudajit import _backend
    if _backend.gpu_status()[0]:
        pytest.skip("this machine has a GPU")
    out = _run("from cudajit import cuda\n"
               "try:\n    cuda.to_device([1.0])\nexcept cuda.CudaSupportError as e:\n    print('OK', e)\n",
               CUDAJIT_BACKEND="gpu")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("OK") and "driver" in out.stdout


def test_bad_backend_name():
    out = _run("import cudajit; cudajit.backend()", CUDAJIT_BACKEND="tpu")
    assert out.returncode != 0 and "CUDAJIT_BACKEND" in out.stderr


def test_star_import_gives_numbas_type_names():
    """``from numba import *`` programs (a Mandelbrot lab: ``uint32(f8, f8, uint32)`` device signatures) get the
    same names from cudajit: the types, the decorators and the error classes; Python's ``bool`` stays."""
    code = ("from cudajit import cuda\n"
            "from cudajit import *\n"
            "import numpy as np\n"
            "@cuda.jit(uint32(f8, f8, uint32), device=True)\n"
            "def steps(x, y, n):\n"
            "    return uint32(x * y) % n\n"
            "@cuda.jit((f8[:], f8[:], uint32[:], uint32))\n"
            "def k(a, b, out, n):\n"
            "    i = cuda.grid(1)\n"
            "    if i < out.size:\n"
            "        out[i] = steps(a[i], b[i], n)\n"
            "rng = np.random.default_rng(5)\n"
            "a = rng.random(100) * 50; b = rng.random(100) * 50\n"
            "out = np.zeros(100, np.uint32)\n"
            "k[1, 128](a, b, out, 7)\n"
            "assert (out == (a * b).astype(np.uint32) % 7).all()\n"
            "import builtins\n"
            "assert bool is builtins.bool\n"
            "assert issubclass(TypingError, TypeError) and issubclass(NumbaPerformanceWarning, NumbaWarning)\n"
            "assert int32 is cuda.types.int32 and void is cuda.types.void and callable(njit)\n"
            "print('OK')\n")
    out = _run(code, CUDAJIT_BACKEND="cpu")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["OK"]


def test_dir_lists_what_the_modules_export():
    # Both modules load most names on first use (__getattr__); dir() -- and so tab completion -- lists them all
    import cudajit
    from cudajit import cuda
    names = dir(cudajit)
    for want in ("cuda", "float32", "void", "jit", "TypingError", "__version__", "backend", "types"):
        assert want in names
    assert [n for n in names if not hasattr(cudajit, n)] == []
    names = dir(cuda)
    for want in ("jit", "to_device", "grid", "shared", "atomic", "syncthreads", "reduce", "float32", "cudadrv",
                 "types", "random", "graph"):
        assert want in names, want
    assert [n for n in names if not hasattr(cuda, n)] == []


def test_version_comes_from_the_metadata():
    import re
    import cudajit
    from cudajit import _version
    with open(os.path.join(os.path.dirname(__file__), os.pardir, "pyproject.toml"), encoding="utf-8") as f:
        declared = re.search(r'^version\s*=\s*"([^"]+)"', f.read(), re.M).group(1)
    assert cudajit.__version__ == declared
    # Installed (no pyproject.toml beside the package), the distribution's metadata answers
    out = _run("import cudajit._version as v; v._SOURCE_PYPROJECT = '/nonexistent'; print(v.version())")
    assert out.returncode == 0, out.stderr
    from importlib import metadata
    try:
        want = metadata.version("cudajit")
    except metadata.PackageNotFoundError:
        want = "0+unknown"
    assert out.stdout.strip() == want
