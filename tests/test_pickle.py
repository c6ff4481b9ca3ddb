"""Kernels and device functions pickle with the standard pickle, as numba-cuda's do: by value (cloudpickle), so a
kernel defined in a function, a notebook or exec()'d text unpickles in another process, with its source text."""
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

from cudajit import cuda



def _local_kernels():
    @cuda.jit(device=True)
    def scaled(v, k):
        return v * k + 1.0

    @cuda.jit
    def apply(out, x, k):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = scaled(x[i], k)

    @cuda.jit("void(float64[:], float64[:])")
    def square(out, x):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] * x[i]

    return apply, square


def test_local_kernel_with_device_function_round_trips(backend, rng):
    apply, square = _local_kernels()
    x = rng.random(1000)
    for _ in range(2):                              # a kernel rebuilt from a pickle pickles again
        apply, square = pickle.loads(pickle.dumps(apply)), pickle.loads(pickle.dumps(square))
    out = np.zeros_like(x)
    apply[4, 256](out, x, 2.5)
    np.testing.assert_allclose(out, x * 2.5 + 1.0, rtol=1e-12)
    square[4, 256](out, x)
    np.testing.assert_allclose(out, x * x, rtol=1e-12)
    (sig,) = square.signatures                      # the declared signature travelled: complex is refused
    assert [str(t.dtype) for t in sig] == ["float64", "float64"], sig
    with pytest.raises(TypeError):
        square[4, 256](out.astype(np.complex128), x.astype(np.complex128))


_EXEC_TEXT = """
@cuda.jit
def shifted(out, x, s):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] + s
"""

_RECEIVER = """
import pickle, sys
import numpy as np
from cudajit import _backend
kernel = pickle.loads(sys.stdin.buffer.read())
x = np.arange(1000, dtype=np.float64) * 0.5
out = np.zeros_like(x)
with _backend.use(sys.argv[1]):
    kernel[4, 256](out, x, 3.0)
np.testing.assert_allclose(out, x + 3.0)
print("ok")
"""


def test_exec_made_kernel_compiles_in_another_process_from_the_text_sent(backend):
    """The receiving process has neither the exec'd string nor a file: the definition travels in the pickle."""
    namespace = {"cuda": cuda}
    exec(_EXEC_TEXT, namespace)
    data = pickle.dumps(namespace["shifted"])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    r = subprocess.run([sys.executable, "-c", _RECEIVER, backend], input=data, capture_output=True, timeout=120,
                       env=env)
    assert r.returncode == 0 and r.stdout.strip() == b"ok", r.stderr.decode()[-3000:]


def test_the_text_sent_wins_over_a_changed_file_of_that_name(backend, tmp_path, rng):
    """A pickled kernel compiles the definition it was pickled with, even where a file of its name now differs."""
    import importlib.util
    path = tmp_path / "kmod_pickle.py"
    path.write_text("from cudajit import cuda\n\n@cuda.jit\ndef k(out, x):\n    i = cuda.grid(1)\n"
                    "    if i < x.size:\n        out[i] = x[i] * 2\n")
    spec = importlib.util.spec_from_file_location("kmod_pickle_unimportable", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    data = pickle.dumps(module.k)                   # not importable by name: pickled by value, with its text
    path.write_text("# edited since\n" * 3 + path.read_text().replace("* 2", "* 7"))
    import linecache
    linecache.checkcache(str(path))
    k = pickle.loads(data)
    x = rng.random(100)
    out = np.zeros_like(x)
    k[1, 128](out, x)
    np.testing.assert_allclose(out, x * 2)


def test_gpu_ufuncs_round_trip(backend, rng):
    @cuda.vectorize(["float64(float64, float64)", "int64(int64, int64)"])
    def fma1(a, b):
        return a * b + 1

    @cuda.guvectorize(["void(float64[:], float64[:])"], "(n)->(n)")
    def cumsum(x, out):
        acc = 0.0
        for i in range(x.shape[0]):
            acc += x[i]
            out[i] = acc

    fma1, cumsum = pickle.loads(pickle.dumps(fma1)), pickle.loads(pickle.dumps(cumsum))
    x, y = rng.random(500), rng.random(500)
    np.testing.assert_allclose(fma1(x, y), x * y + 1, rtol=1e-12)
    ints = rng.integers(-1000, 1000, 300)
    np.testing.assert_array_equal(fma1(ints, ints), ints * ints + 1)
    m = rng.random((8, 40))
    np.testing.assert_allclose(cumsum(m), np.cumsum(m, axis=1), rtol=1e-12)


def test_configured_launch_round_trips_and_a_stream_bound_one_is_refused(backend, rng):
    apply, _ = _local_kernels()
    kept = apply[5, 8]
    launch = pickle.loads(pickle.dumps(kept))
    assert apply[5, 8] is kept and not kept._has_pre_launch_callbacks     # pickling leaves the kept launcher kept
    assert (launch.griddim, launch.blockdim) == ((5, 1, 1), (8, 1, 1))
    x = rng.random(40)
    out = np.zeros_like(x)
    launch(out, x, 3.0)
    np.testing.assert_allclose(out, x * 3.0 + 1.0, rtol=1e-12)
    with pytest.raises(pickle.PicklingError, match="bound to a stream"):
        pickle.dumps(apply[5, 8, cuda.stream()])


# --- cloudpickle's by-value path, as Dask takes it for functions of __main__ or of a module registered by value.
# cloudpickle >= 3.1.3 renames each pickled code object's file to "<dynamic-code>": the source travels with the
# kernel, and the rebuilt code names the sender's file again (errors in the kernel point there).

_BY_VALUE_MODULE = '''
import math
from cudajit import cuda, njit

@cuda.jit(device=True)
def scaled(v, k):
    return v * k + 1.0

@njit
def clipped(v):
    return min(max(v, 0.25), 0.75)

@cuda.jit
def apply(out, x, k):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = scaled(x[i], k) + clipped(x[i])

@cuda.vectorize(["float64(float64, float64)"])
def hyp(a, b):
    return math.sqrt(a * a + b * b)

@cuda.guvectorize(["void(float64[:], float64[:])"], "(n)->(n)")
def cumsum(x, out):
    acc = 0.0
    for i in range(x.shape[0]):
        acc += x[i]
        out[i] = acc

@cuda.reduce
def biggest(a, b):
    return max(a, b)

plus = cuda.reduce(lambda a, b: a + b)

@cuda.jit
def broken(out):
    out[0] = undefined_name
'''

_BY_VALUE_RECEIVER = '''
import pickle, sys
import numpy as np
from cudajit import _backend
from cudajit.errors import TypingError
objs = pickle.loads(sys.stdin.buffer.read())
apply, hyp, cumsum, biggest, plus, broken = objs
rng = np.random.default_rng(11)
x, y = rng.random(1000), rng.random(1000)
with _backend.use(sys.argv[1]):
    out = np.zeros_like(x)
    apply[4, 256](out, x, 2.5)
    np.testing.assert_allclose(out, x * 2.5 + 1.0 + np.clip(x, 0.25, 0.75), rtol=1e-12)
    np.testing.assert_allclose(hyp(x, y), np.hypot(x, y), rtol=1e-12)
    m = rng.random((6, 50))
    np.testing.assert_allclose(cumsum(m), np.cumsum(m, axis=1), rtol=1e-12)
    assert biggest(x) == x.max()
    assert abs(plus(x) - x.sum()) < 1e-9
    try:
        broken[1, 1](out)
    except TypingError as exc:
        where = str(exc)
    else:
        raise AssertionError("broken compiled")
print("file:", apply.py_func.__code__.co_filename)
print("error:", where.splitlines()[0])
print("ok")
'''


def _receive(data, backend):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    r = subprocess.run([sys.executable, "-c", _BY_VALUE_RECEIVER, backend], input=data, capture_output=True,
                       timeout=300, env=env, cwd=os.path.dirname(os.path.abspath(__file__)))
    assert r.returncode == 0 and r.stdout.rstrip().endswith(b"ok"), (r.stdout + r.stderr).decode()[-4000:]
    return r.stdout.decode()


def test_module_registered_by_value_compiles_in_a_fresh_process(backend, tmp_path):
    """A module Dask pickles by value (``cloudpickle.register_pickle_by_value``): its file is gone when the fresh
    process compiles the kernels, device functions, @njit helper, ufuncs and reductions from the text sent."""
    cloudpickle = pytest.importorskip("cloudpickle")
    import importlib
    path = tmp_path / "cj_by_value_mod.py"
    path.write_text(_BY_VALUE_MODULE)
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("cj_by_value_mod")
        cloudpickle.register_pickle_by_value(module)
        try:
            data = cloudpickle.dumps((module.apply, module.hyp, module.cumsum, module.biggest, module.plus,
                                      module.broken))
        finally:
            cloudpickle.unregister_pickle_by_value(module)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("cj_by_value_mod", None)
    path.unlink()                                   # the receiver can read no file: only the text sent
    out = _receive(data, backend)
    assert f"file: {path}\n" in out, out            # the sender's file name, not cloudpickle's <dynamic-code>
    line = _BY_VALUE_MODULE.splitlines().index("    out[0] = undefined_name") + 1
    assert f"{path}:{line}" in out or (str(path) in out and f"line {line}" in out), out


def test_main_module_kernels_compile_in_a_fresh_process(backend, tmp_path):
    """Functions of ``__main__`` (a script run as a program) are pickled by value, as Dask sends them to workers."""
    pytest.importorskip("cloudpickle")
    script = tmp_path / "cj_main_script.py"
    script.write_text(_BY_VALUE_MODULE + "\nimport sys, cloudpickle\nsys.stdout.buffer.write(cloudpickle.dumps("
                      "(apply, hyp, cumsum, biggest, plus, broken)))\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    r = subprocess.run([sys.executable, str(script)], capture_output=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr.decode()[-3000:]
    script.unlink()
    out = _receive(r.stdout, backend)
    assert f"file: {script}\n" in out, out
