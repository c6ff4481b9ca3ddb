"""CUDA graphs (cuda.graph, python/cudajit/cuda/graphs.py, src/graph*.cpp) on every backend, NumPy as oracle.

The CPU backend records the captured launches and copies and replays them; the GPU uses the driver's stream
capture. Both refuse what a GPU capture cannot record with StreamCaptureError, and leave the stream usable."""
import gc

import numpy as np
import pytest

from cudajit import cuda
from cudajit.errors import StreamCaptureError

N = 1024
BLOCK = 128
GRID = N // BLOCK


@cuda.jit
def scale_add(x, y, alpha):
    i = cuda.grid(1)
    if i < x.size:
        y[i] = alpha * x[i] + y[i]


@cuda.jit
def square_into(y, z):
    i = cuda.grid(1)
    if i < y.size:
        z[i] = y[i] * y[i]


@cuda.jit
def accumulate(acc, x):
    i = cuda.grid(1)
    if i < acc.size:
        acc[i] = acc[i] * 0.5 + x[i]


@cuda.jit(debug=True, opt=False)
def checked_copy(dst, src, n):
    i = cuda.grid(1)
    if i < n:
        dst[i] = src[i]


def _data(rng, n=N):
    return rng.standard_normal(n).astype(np.float32)


def test_capture_runs_nothing_until_launched_then_replays_the_chain(backend, rng):
    x, y0 = _data(rng), _data(rng)
    s = cuda.stream()
    dx, dy, dz = cuda.to_device(x), cuda.to_device(y0), cuda.device_array(N, np.float32)
    dz.copy_to_device(np.zeros(N, np.float32))
    with cuda.graph(s) as g:
        scale_add[GRID, BLOCK, s](dx, dy, np.float32(2.0))
        square_into[GRID, BLOCK, s](dy, dz)
    s.synchronize()
    np.testing.assert_array_equal(dy.copy_to_host(), y0)           # captured, not run
    np.testing.assert_array_equal(dz.copy_to_host(), np.zeros(N, np.float32))
    assert g.nodes == 2 and not g.updated
    g.launch()
    s.synchronize()
    y1 = np.float32(2.0) * x + y0
    np.testing.assert_allclose(dy.copy_to_host(), y1, rtol=1e-6)
    np.testing.assert_allclose(dz.copy_to_host(), y1 * y1, rtol=1e-6)


def test_replaying_n_times_applies_the_work_n_times(backend, rng):
    acc0, x = _data(rng), _data(rng)
    s = cuda.stream()
    dacc, dx = cuda.to_device(acc0), cuda.to_device(x)
    with cuda.graph(s) as g:
        accumulate[GRID, BLOCK, s](dacc, dx)
    other = cuda.stream()
    expected = acc0.copy()
    for _ in range(5):
        g.launch(stream=other)
        expected = expected * np.float32(0.5) + x
    other.synchronize()
    np.testing.assert_allclose(dacc.copy_to_host(), expected, rtol=1e-5)


def test_copies_inside_a_capture_are_replayed_in_order(backend, rng):
    x = _data(rng)
    s = cuda.stream()
    h_in = cuda.pinned_array(N, np.float32)
    h_out = cuda.pinned_array(N, np.float32)
    dx, dz = cuda.device_array(N, np.float32), cuda.device_array(N, np.float32)
    with cuda.graph(s) as g:
        dx.copy_to_device(h_in, stream=s)
        square_into[GRID, BLOCK, s](dx, dz)
        dz.copy_to_host(h_out, stream=s)
    assert g.nodes == 3
    for k in range(2):                      # new host data each replay: the graph reads it when it runs
        h_in[:] = x + k
        g.launch()
        s.synchronize()
        np.testing.assert_allclose(h_out, (x + k) ** 2, rtol=1e-6)


def test_capturing_again_updates_the_graph_with_new_arguments(backend, rng):
    x1, x2, y = _data(rng), _data(rng), _data(rng)
    s = cuda.stream()
    dx1, dx2, dy = cuda.to_device(x1), cuda.to_device(x2), cuda.to_device(y)
    with cuda.graph(s) as g:
        scale_add[GRID, BLOCK, s](dx1, dy, np.float32(3.0))
    with cuda.graph(s, graph=g):            # same shape, other arguments: updated in place on the GPU
        scale_add[GRID, BLOCK, s](dx2, dy, np.float32(-1.5))
    assert g.updated == (backend == "gpu")
    g.launch()
    s.synchronize()
    np.testing.assert_allclose(dy.copy_to_host(), np.float32(-1.5) * x2 + y, rtol=1e-5)
    with g.capture(s):                      # another topology: instantiated again
        scale_add[GRID, BLOCK, s](dx1, dy, np.float32(1.0))
        square_into[GRID, BLOCK, s](dy, dx2)
    assert not g.updated and g.nodes == 2
    g.launch()
    s.synchronize()
    y2 = (np.float32(-1.5) * x2 + y) + x1
    np.testing.assert_allclose(dx2.copy_to_host(), y2 * y2, rtol=1e-5)


def test_the_graph_keeps_its_arrays_and_arrays_dropped_during_a_capture_do_not_disturb_it(backend, rng):
    x = _data(rng)
    s = cuda.stream()
    dx, dz = cuda.to_device(x), cuda.device_array(N, np.float32)
    dropped = cuda.to_device(x)
    with cuda.graph(s) as g:
        square_into[GRID, BLOCK, s](dx, dz)
        del dropped                          # on the GPU its free would go to the legacy stream: deferred
        gc.collect()
    del dx
    gc.collect()
    g.launch()                               # dx lives on in the graph
    s.synchronize()
    np.testing.assert_allclose(dz.copy_to_host(), x * x, rtol=1e-6)


def test_debug_kernels_report_errors_after_replay(backend, rng):
    src = _data(rng, 64)
    s = cuda.stream()
    dsrc, ddst = cuda.to_device(src), cuda.device_array(64, np.float32)
    with cuda.graph(s) as g:
        checked_copy[1, 64, s](ddst, dsrc, 64)
    g.launch()
    s.synchronize()
    np.testing.assert_array_equal(ddst.copy_to_host(), src)
    with cuda.graph(s, graph=g):
        checked_copy[1, 128, s](ddst, dsrc, 128)       # threads 64.. index out of bounds
    with pytest.raises(IndexError, match="out of bounds"):
        g.launch()
        s.synchronize()


def test_launching_a_graph_never_captured_or_failed_is_an_error(backend, rng):
    with pytest.raises(StreamCaptureError, match="not been captured"):
        cuda.Graph().launch(cuda.stream())
    s = cuda.stream()
    dx = cuda.to_device(_data(rng))
    with pytest.raises(ZeroDivisionError):
        with cuda.graph(s) as g:
            accumulate[GRID, BLOCK, s](dx, dx)
            1 / 0
    with pytest.raises(StreamCaptureError, match="capture failed"):
        g.launch()
    accumulate[GRID, BLOCK, s](dx, dx)       # the stream is usable again
    s.synchronize()


def test_nested_capture_of_one_stream_and_the_default_stream_are_refused(backend):
    s = cuda.stream()
    with pytest.raises(StreamCaptureError, match="legacy default stream"):
        with cuda.graph(0):
            pass
    with cuda.graph(s) as g:
        with pytest.raises(StreamCaptureError, match="already being captured"):
            with cuda.graph(s):
                pass
        with pytest.raises(StreamCaptureError, match="already capturing"):
            with g.capture(cuda.stream()):
                pass
        with pytest.raises(StreamCaptureError, match="still being captured"):
            g.launch()
    g.launch()
    s.synchronize()


def test_what_cannot_be_captured_is_named_and_the_capture_ends_cleanly(backend, rng):
    x = _data(rng)
    s = cuda.stream()
    dx, dz = cuda.to_device(x), cuda.device_array(N, np.float32)
    cases = [
        (lambda: square_into[GRID, BLOCK, s](x, dz), r"argument 0 \(y\) is a NumPy array"),
        (lambda: dz.copy_to_host(), "default stream|temporary host buffer"),
        (lambda: dz.copy_to_host(stream=s), "temporary host buffer"),
        (lambda: square_into[GRID, BLOCK](dx, dz), "launching kernel 'square_into' on the default stream"),
        (lambda: cuda.device_array(N, np.float32, stream=s), "allocating device memory"),
        (lambda: cuda.device_array(N, np.float32), "allocating device memory on the default stream"),
        (lambda: s.synchronize(), "waiting for stream"),
        (lambda: cuda.synchronize(), "waiting for the default stream"),
    ]
    for operation, message in cases:
        with pytest.raises(StreamCaptureError, match=message):
            with cuda.graph(s):
                square_into[GRID, BLOCK, s](dx, dz)
                operation()
    square_into[GRID, BLOCK, s](dx, dz)     # nothing left capturing: the stream works as before
    np.testing.assert_allclose(dz.copy_to_host(stream=s), x * x, rtol=1e-6)


@pytest.mark.gpu
def test_gpu_copy_to_pageable_memory_is_refused():
    from cudajit import _backend
    with _backend.use("gpu"):
        s = cuda.stream()
        dz = cuda.to_device(np.ones(N, np.float32))     # written: copying unwritten memory is an initcheck report
        with pytest.raises(StreamCaptureError, match="pageable host memory"):
            with cuda.graph(s):
                dz.copy_to_host(np.empty(N, np.float32), stream=s)
        dz.copy_to_host(stream=s)
        s.synchronize()


@pytest.mark.gpu
def test_launches_join_a_cupy_stream_capture(rng):
    cupy = pytest.importorskip("cupy")
    from cudajit import _backend
    x, y = _data(rng), _data(rng)
    with _backend.use("gpu"):
        cs = cupy.cuda.Stream(non_blocking=True)
        with cs:                             # CuPy's arrays then name the capturing stream in their CAI
            dx, dy = cupy.asarray(x), cupy.asarray(y)
            dz = cupy.zeros(N, np.float32)
            s = cuda.external_stream(cs.ptr)
            scale_add[GRID, BLOCK, s](dx, dy, np.float32(0.0))    # both compiled before the capture; y stays y
            square_into[GRID, BLOCK, s](dy, dz)
            dz.fill(0)
            cs.synchronize()
            cs.begin_capture()
            scale_add[GRID, BLOCK, s](dx, dy, np.float32(0.5))
            square_into[GRID, BLOCK, s](dy, dz)
            cupy_graph = cs.end_capture()
            np.testing.assert_array_equal(cupy.asnumpy(dz), np.zeros(N, np.float32))   # recorded, not run
            for _ in range(2):
                cupy_graph.launch(cs)
            cs.synchronize()
        y2 = np.float32(0.5) * x + (np.float32(0.5) * x + y)
        np.testing.assert_allclose(cupy.asnumpy(dy), y2, rtol=1e-5)
        np.testing.assert_allclose(cupy.asnumpy(dz), y2 * y2, rtol=1e-5)
