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
