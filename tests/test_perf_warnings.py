"""numba-cuda's performance warnings (issue 40): a grid of fewer than 128 blocks, a NumPy array copied implicitly;
switched by cudajit.config as numba-cuda's config switches them, on both backends."""
import contextlib
import subprocess
import sys
import warnings

import numpy as np
import pytest

from cudajit import config, cuda
from cudajit.errors import NumbaPerformanceWarning

LOW = "Grid size .+ low occupancy"
QUIET = ("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "NUMBA_CUDA_WARN_ON_IMPLICIT_COPY")   # conftest.py sets them to 0
COPY = "Host array used in CUDA kernel will incur.+copy overhead"


@contextlib.contextmanager
def knobs(**values):
    saved = {k: getattr(config, k) for k in values}
    for k, v in values.items():
        setattr(config, k, v)
    try:
        yield
    finally:
        for k, v in saved.items():
            setattr(config, k, v)


def _kernel():
    @cuda.jit
    def add_one(r, x):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = r[i] + x
    return add_one


def _records(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        fn()
    return [x for x in w if issubclass(x.category, NumbaPerformanceWarning)]


def test_a_small_grid_warns_once_per_configuration(backend):
    k = _kernel()
    d = cuda.to_device(np.zeros(4, np.float32))
    with knobs(CUDA_LOW_OCCUPANCY_WARNINGS=1):
        with pytest.warns(NumbaPerformanceWarning, match=LOW) as got:
            launcher = k[1, 4]
        assert str(got[0].message) == "Grid size 1 will likely result in GPU under-utilization due to low occupancy."
        assert got[0].filename == __file__           # the user's line, not cudajit's
        launcher(d, 2.0)
        assert [str(w.message)[:14] for w in _records(lambda: k[(2, 3, 4), 4])] == ["Grid size 24 w"]
        assert _records(lambda: k[1, 4]) == []       # the launcher made before is reused
        assert _records(lambda: k[128, 4]) == [] and _records(lambda: k[(16, 8), 4]) == []
    with knobs(CUDA_LOW_OCCUPANCY_WARNINGS=0):
        assert _records(lambda: k[2, 4]) == []
    with knobs(CUDA_LOW_OCCUPANCY_WARNINGS=1, DISABLE_PERFORMANCE_WARNINGS=1):
        assert _records(lambda: k[3, 4]) == []
    np.testing.assert_array_equal(d.copy_to_host(), np.full(4, 2.0, np.float32))


def test_a_small_grid_as_an_error_raises_and_launches_nothing(backend):
    k = _kernel()
    d = cuda.to_device(np.zeros(4, np.float32))
    with knobs(CUDA_LOW_OCCUPANCY_WARNINGS=1), warnings.catch_warnings():
        warnings.simplefilter("error", NumbaPerformanceWarning)
        with pytest.raises(NumbaPerformanceWarning, match=LOW):
            k[5, 4](d, 1.0)
    np.testing.assert_array_equal(d.copy_to_host(), np.zeros(4, np.float32))


@pytest.mark.parametrize("fast", [True, False], ids=["plain", "strided"])
def test_a_numpy_argument_warns_per_array(backend, fast):
    k = _kernel()
    rng = np.random.default_rng(5)
    a = rng.standard_normal(32).astype(np.float32)
    host = a.copy() if fast else np.repeat(a, 2)[::2]   # C++'s path for plain arrays, Python's for the rest
    with knobs(CUDA_WARN_ON_IMPLICIT_COPY=1):
        _records(lambda: k[1, 32](host, 1.0))         # compiled first: the C++ path needs a compiled kernel
        got = _records(lambda: k[1, 32](host, 1.0))
    assert [str(w.message) for w in got] == ["Host array used in CUDA kernel will incur copy overhead to/from device."]
    assert got[0].filename == __file__
    np.testing.assert_allclose(host, a + 2, rtol=1e-6)


def test_no_copy_warning_for_device_or_explicit_arrays(backend):
    k = _kernel()
    a = np.random.default_rng(6).standard_normal(16).astype(np.float32)
    d = cuda.to_device(a)
    wrapped = a.copy()
    with knobs(CUDA_WARN_ON_IMPLICIT_COPY=1):
        assert _records(lambda: k[1, 16](d, 1.0)) == []
        assert _records(lambda: k[1, 16](cuda.InOut(wrapped), 1.0)) == []
        assert _records(lambda: k[1, 16](cuda.to_device(a), 1.0)) == []
    with knobs(CUDA_WARN_ON_IMPLICIT_COPY=0):
        assert _records(lambda: k[1, 16](a.copy(), 1.0)) == []
    np.testing.assert_allclose(d.copy_to_host(), a + 1, rtol=1e-6)
    np.testing.assert_allclose(wrapped, a + 1, rtol=1e-6)


def test_pinned_host_arrays_warn_and_mapped_do_not(backend):
    k = _kernel()
    pinned = cuda.pinned_array(8, np.float32)
    pinned[:] = np.arange(8)
    mapped = cuda.mapped_array(8, np.float32)
    mapped[:] = np.arange(8)
    with knobs(CUDA_WARN_ON_IMPLICIT_COPY=1):
        _records(lambda: k[1, 8](pinned, 1.0))
        assert len(_records(lambda: k[1, 8](pinned, 1.0))) == 1
        assert _records(lambda: (k[1, 8](mapped, 1.0), cuda.synchronize())) == []
    np.testing.assert_array_equal(pinned, np.arange(8) + 2)
    np.testing.assert_array_equal(mapped, np.arange(8) + 1)


def test_on_by_default_and_switched_by_numbas_variables(tmp_path):
    """A fresh process: both warnings on by default (as numba-cuda's), off by their NUMBA_* variables."""
    prog = tmp_path / "p.py"
    prog.write_text("import numpy as np\nfrom cudajit import cuda\n\n@cuda.jit\ndef k(a):\n    a[0] += 1\n\n"
                    "a = np.zeros(1)\nk[1, 1](a)\nk[1, 1](a)\nprint(a[0])\n")
    import os
    env = {k: v for k, v in os.environ.items() if k not in QUIET}
    run = lambda **e: subprocess.run([sys.executable, str(prog)], capture_output=True, text=True, timeout=120,
                                     env={**env, **e})
    r = run()
    assert r.returncode == 0 and r.stdout.strip() == "2.0", r.stderr
    assert "p.py:9: NumbaPerformanceWarning: Grid size 1 will likely" in r.stderr
    assert r.stderr.count("Host array used in CUDA kernel") == 2    # lines 9 and 10
    r = run(NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS="0", NUMBA_CUDA_WARN_ON_IMPLICIT_COPY="0")
    assert r.returncode == 0 and r.stdout.strip() == "2.0" and "NumbaPerformanceWarning" not in r.stderr, r.stderr
    r = run(NUMBA_DISABLE_PERFORMANCE_WARNINGS="1")
    assert "NumbaPerformanceWarning" not in r.stderr, r.stderr


def test_a_filter_on_numbas_class_silences_it(tmp_path):
    """Tutorials silence the warning through numba.core.errors: with numba imported, the warning is of its class too."""
    fake = tmp_path / "numba" / "core"
    fake.mkdir(parents=True)
    (tmp_path / "numba" / "__init__.py").write_text("")
    (fake / "__init__.py").write_text("")
    (fake / "errors.py").write_text("class NumbaWarning(Warning): pass\n"
                                    "class NumbaPerformanceWarning(NumbaWarning): pass\n")
    prog = tmp_path / "p.py"
    prog.write_text("import warnings\nfrom numba.core.errors import NumbaPerformanceWarning\n"
                    "import numpy as np\nfrom cudajit import cuda\n"
                    "@cuda.jit\ndef k(a):\n    a[0] += 1\n"
                    "with warnings.catch_warnings(record=True) as w:\n    warnings.simplefilter('always')\n"
                    "    k[1, 1](np.zeros(1))\n"
                    "print(all(issubclass(c.category, NumbaPerformanceWarning) for c in w), len(w))\n"
                    "warnings.simplefilter('ignore', category=NumbaPerformanceWarning)\nk[1, 1](np.zeros(1))\n")
    import os
    import cudajit
    where = os.path.dirname(os.path.dirname(os.path.abspath(cudajit.__file__)))
    env = {k: v for k, v in os.environ.items() if k not in QUIET}
    r = subprocess.run([sys.executable, str(prog)], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                       env={**env, "PYTHONPATH": f"{tmp_path}{os.pathsep}{where}"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["True", "2"], r.stdout
    assert "NumbaPerformanceWarning" not in r.stderr, r.stderr
