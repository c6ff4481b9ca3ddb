"""Dispatchers, their specializations and compiled modules are freed when the user drops them, and a
configured launcher keeps its kernel alive (kern[g, b] may outlive kern, as in Numba)."""
import gc
import re
import tracemalloc
import weakref

import numpy as np

from cudajit import cuda


def _make_kernel():
    @cuda.jit
    def axpy(out, a, x, y):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a * x[i] + y[i]
    return axpy


def _loaded_kernel_libraries():
    """Kernel libraries mapped into this process: private copies of cache entries (named by their 32-digit key) or of
    a compile's own output, removed once mapped (src/cpu_launch.cpp, open_private_copy)."""
    name = re.compile(r"/\S*/(?:[0-9a-f]{32}|tmp-[0-9a-f]{16}-\d+-\d+)\.so(?: \(deleted\))?$")
    with open("/proc/self/maps") as maps:
        return {m.group(0) for m in map(name.search, maps.read().splitlines()) if m}


def _launch(kern, rng):
    x, y = rng.random(300), rng.random(300)
    out = cuda.device_array(300)
    kern[3, 128](out, 2.0, cuda.to_device(x), cuda.to_device(y))
    np.testing.assert_allclose(out.copy_to_host(), 2.0 * x + y)


def test_dropped_dispatcher_specialization_and_module_are_freed(backend):
    rng = np.random.default_rng(1)
    gc.collect()
    loaded_before = _loaded_kernel_libraries()
    kern = _make_kernel()
    _launch(kern, rng)
    refs = [weakref.ref(kern)] + [weakref.ref(spec) for spec in kern._specs.values()]
    assert len(refs) == 2
    libraries = _loaded_kernel_libraries() - loaded_before if backend == "cpu" else set()
    del kern
    gc.collect()
    assert [r() for r in refs] == [None, None]
    if backend == "cpu":   # the kernel's shared library is unloaded with it
        assert libraries and not _loaded_kernel_libraries() & libraries


def test_a_launcher_keeps_its_dispatcher_alive(backend):
    rng = np.random.default_rng(2)
    launcher = _make_kernel()[3, 128]     # the dispatcher itself is dropped at once
    gc.collect()
    x, y = rng.random(300), rng.random(300)
    out = cuda.device_array(300)
    launcher(out, 3.0, cuda.to_device(x), cuda.to_device(y))   # compiles: needs the dispatcher
    np.testing.assert_allclose(out.copy_to_host(), 3.0 * x + y)


def test_memory_of_repeated_jits_is_bounded(backend):
    rng = np.random.default_rng(3)
    for _ in range(20):                   # warm every cache (parsing, disk cache, loaded library)
        _launch(_make_kernel(), rng)
    tracemalloc.start()
    try:
        kept = []
        for _ in range(2):
            for _ in range(70):
                _launch(_make_kernel(), rng)
            gc.collect()
            kept.append(tracemalloc.get_traced_memory()[0])
    finally:
        tracemalloc.stop()
    # An immortal dispatcher kept about 5 KB (2.4 MiB per 500 re-jits); freed ones keep nothing.
    per_jit = (kept[1] - kept[0]) / 70
    assert per_jit < 1000, f"each re-jit kept {per_jit:.0f} bytes"


def test_launchers_kept_for_int_configurations_do_not_keep_a_dropped_kernel(backend):
    """kern[g, b] of ints reuses the launcher it made before (dispatcher.py); the launcher holds the dispatcher,
    a cycle through the core's Launcher that the GC must see (bind_launch.cpp, tp_traverse)."""
    rng = np.random.default_rng(4)
    kern = _make_kernel()
    assert kern[3, 128] is kern[3, 128]
    assert kern[(3,), (128,)] is kern[(3,), (128,)] and kern[(3,), (128,)] is not kern[3, 128]
    _launch(kern, rng)
    ref = weakref.ref(kern)
    del kern
    gc.collect()
    assert ref() is None


def test_a_float_equal_to_an_int_is_still_refused_after_the_int_launch(backend):
    import pytest
    kern = _make_kernel()
    kern[1, 32]
    with pytest.raises(TypeError, match="griddim"):
        kern[1.0, 32]
    with pytest.raises(TypeError, match="blockdim"):
        kern[1, 32.0]
    kern[(1, 2), (32, 2), 0, 16]
    with pytest.raises(TypeError, match="griddim"):
        kern[(1.0, 2), (32, 2), 0, 16]
    with pytest.raises(TypeError, match="blockdim"):
        kern[(1, 2), (32.0, 2), 0, 16]
    with pytest.raises(TypeError, match="sharedmem"):
        kern[(1, 2), (32, 2), 0, 16.0]



CLOSE_PROGRAM = """
import numpy as np
from cudajit import cuda

@cuda.jit
def axpy(out, a, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]

@cuda.jit(boundscheck=True)
def shifted(out, x):
    i = cuda.grid(1)
    out[i] = x[i + 1]                      # the last thread reads past the end of x

rng = np.random.default_rng(11)
x, y = rng.standard_normal(1000), rng.standard_normal(1000)
configured = axpy[8, 128]                  # a launcher made before close() and used after it
for round in range(2):
    out = cuda.device_array(1000)
    configured(out, 2.5, x, y)
    out2 = np.zeros(1000)
    axpy.forall(1000)(out2, -1.0, cuda.to_device(x), y)
    try:
        shifted[1, 999](cuda.device_array(999), cuda.to_device(x[:999]))
        print("no-IndexError")
    except IndexError as e:
        print("IndexError", "after_close.py" in str(e) and "index 999" in str(e))
    print(np.allclose(out.copy_to_host(), 2.5 * x + y, rtol=1e-13, atol=1e-13),   # the GPU fuses a multiply-add
          np.array_equal(out2, -x + y))
    if round == 0:
        cuda.close()
"""


def test_kernels_launch_again_after_close(backend, tmp_path):
    """cuda.close() ends the context that every kernel compiled so far was loaded into: the next launch loads its
    module again (through a launcher made before close() too), and a boundscheck kernel still finds its error record.
    In a child process: close() would end the context of the kernels of the tests that share this process."""
    import os
    import subprocess
    import sys
    program = tmp_path / "after_close.py"
    program.write_text(CLOSE_PROGRAM)
    r = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, CUDAJIT_BACKEND=backend))
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split() == ["IndexError", "True", "True", "True"] * 2, r.stdout + r.stderr[-3000:]
