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
    """Kernel libraries mapped into this process (the disk cache names them by their 32-digit key)."""
    with open("/proc/self/maps") as maps:
        return {m.group(0) for m in map(re.compile(r"/\S*/[0-9a-f]{32}\.so$").search, maps.read().splitlines()) if m}


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
    """kern[g, b] with two ints reuses the launcher it made before (dispatcher.py); the launcher holds the dispatcher,
    a cycle through the core's Launcher that the GC must see (bind_launch.cpp, tp_traverse)."""
    rng = np.random.default_rng(4)
    kern = _make_kernel()
    assert kern[3, 128] is kern[3, 128]
    assert kern[(3,), (128,)] is not kern[(3,), (128,)]       # tuples of dimensions are configured each time
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
