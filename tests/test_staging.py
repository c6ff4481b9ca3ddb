"""Copies between pageable host memory and the device (src/staging.cpp: pinned slots, pieces, overlap) and NumPy
kernel arguments (copied in and back as a batch, args.py): the bytes arrive, stream order holds, threads do not
share a slot, pinned memory keeps the driver's path. The CPU backend's copies are memcpy and must stay exact."""
import threading

import numpy as np
import pytest

from cudajit import _core, cuda

SLOT = 16 << 20  # staging.cpp's kSlotBytes: sizes below cross it several times, never on a multiple


def _staged_since(before):
    return _core.staging_counts()[0] - before[0]


@pytest.mark.parametrize("nbytes", [0, 1, 4095, (1 << 20) + 7, 3 * SLOT + 12345])
def test_round_trip_of_random_bytes(backend, rng, nbytes):
    host = rng.integers(0, 256, nbytes, dtype=np.uint8)
    before = _core.staging_counts()
    dev = cuda.to_device(host)
    assert np.array_equal(dev.copy_to_host(), host)
    into = np.empty_like(host)
    assert dev.copy_to_host(into) is into and np.array_equal(into, host)
    again = rng.integers(0, 256, nbytes, dtype=np.uint8)
    dev.copy_to_device(again)
    assert np.array_equal(dev.copy_to_host(), again)
    if backend == "gpu" and nbytes:
        assert _staged_since(before) == 5   # every copy of pageable memory went through the slots


def test_round_trip_of_a_strided_2d_array(backend, rng):
    host = rng.standard_normal((1500, 1100))[::3, 1::2]   # not contiguous: to_device compacts it
    dev = cuda.to_device(host)
    assert np.array_equal(dev.copy_to_host(), host)
    out = np.zeros((1500, 1100))[::3, 1::2]
    dev.copy_to_host(out)
    assert np.array_equal(out, host)


@pytest.fixture
def gpu():
    from cudajit import _backend
    with _backend.use("gpu"):
        yield


@pytest.mark.gpu
def test_pinned_memory_keeps_the_driver_path(gpu, rng):
    pinned = cuda.pinned_array(3 * SLOT // 8 + 5, dtype=np.float64)
    pinned[:] = rng.standard_normal(pinned.size)
    before = _core.staging_counts()
    dev = cuda.to_device(pinned)
    back = cuda.pinned_array_like(pinned)
    dev.copy_to_host(back)
    assert np.array_equal(back, pinned)
    after = _core.staging_counts()
    assert after[0] == before[0] and after[1] - before[1] == 2


@cuda.jit
def _slow_fill(out, value, spins):
    i = cuda.grid(1)
    if i < out.size:
        acc = 0.0
        for k in range(spins):          # long enough that a copy overtaking the kernel would see old bytes
            acc += k * 1e-30
        out[i] = acc if acc < 0 else value   # never negative: the value exactly, after the loop


@cuda.jit
def _slow_copy(dst, src, spins):
    i = cuda.grid(1)
    if i < dst.size:
        acc = 0.0
        for k in range(spins):
            acc += k * 1e-30
        dst[i] = acc if acc < 0 else src[i]


def test_copies_on_a_user_stream_order_after_its_kernels(backend, rng):
    n = (SLOT // 8) * 2 + 333                     # float64: several pieces
    spins = 20000 if backend == "gpu" else 1
    s = cuda.stream()
    dev = cuda.device_array(n, np.float64, stream=s)
    _slow_fill[(n + 255) // 256, 256, s](dev, 5.0, spins)
    host = dev.copy_to_host(stream=s)             # pageable: returns when the kernel's values are there
    assert np.all(host == 5.0)

    src_host = rng.standard_normal(n)
    src = cuda.to_device(src_host, stream=s)
    dst = cuda.device_array(n, np.float64, stream=s)
    _slow_copy[(n + 255) // 256, 256, s](dst, src, spins)
    src.copy_to_device(np.zeros(n), stream=s)     # must not overwrite src before the kernel has read it
    s.synchronize()
    assert np.array_equal(dst.copy_to_host(), src_host)
    assert np.all(src.copy_to_host() == 0.0)


def test_two_threads_copying_at_once_get_their_own_bytes(backend):
    failures = []

    def work(seed):
        r = np.random.default_rng(seed)
        for size in (2 * SLOT + 4097, 5000, SLOT + 1):
            host = r.integers(0, 256, size, dtype=np.uint8)
            dev = cuda.to_device(host)
            if not np.array_equal(dev.copy_to_host(), host):
                failures.append((seed, size))

    threads = [threading.Thread(target=work, args=(seed,)) for seed in (1, 2, 3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


@cuda.jit
def _write_args(a, b, c, d, e):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] * 2 + c[i]          # a: copied in and back
        b[i] = c[i] - 1                 # b: cuda.Out
        d[i] = c[i] + 0.5               # d: a strided view, copied back into its elements
    if i < e.shape[0]:
        for j in range(e.shape[1]):
            e[i, j] += i * 10 + j       # e: Fortran order


@pytest.mark.parametrize("on_stream", [False, True])
def test_numpy_arguments_are_copied_in_and_back(backend, rng, on_stream):
    n = 1000
    a = rng.standard_normal(n)
    b = np.zeros(n)
    c = rng.standard_normal(n)
    c.flags.writeable = False                      # read-only: copied in, never back
    big = rng.standard_normal(3 * n)
    d = big[::3]
    e = np.asfortranarray(rng.standard_normal((40, 7)))
    want_a, want_e, big_before = a * 2 + c, e + (np.arange(40)[:, None] * 10 + np.arange(7)), big.copy()
    before = _core.staging_counts()
    launch = _write_args[(n + 127) // 128, 128, cuda.stream()] if on_stream else _write_args[(n + 127) // 128, 128]
    launch(a, cuda.Out(b), cuda.In(c), d, e)
    assert np.array_equal(a, want_a)
    assert np.array_equal(b, c - 1)
    assert np.array_equal(big[::3], c + 0.5)
    assert np.array_equal(big[1::3], big_before[1::3]) and np.array_equal(big[2::3], big_before[2::3])
    assert np.array_equal(e, want_e)
    if backend == "gpu":
        assert _staged_since(before) == 2          # one batch in, one batch back


@cuda.jit
def _add_into(x, y):
    i = cuda.grid(1)
    if i < x.size:
        x[i] += y[i]


def test_one_numpy_array_passed_twice_is_one_device_array(backend, rng):
    x = rng.standard_normal(300)
    want = x * 2
    _add_into[3, 128](x, x)
    assert np.array_equal(x, want)


def test_large_numpy_arguments_copy_piece_by_piece(backend, rng):
    n = SLOT // 8 + 11                             # more than a slot: the batch copies array by array
    x, y = rng.standard_normal(n), rng.standard_normal(n)
    want = x + y
    before = _core.staging_counts()
    _add_into[(n + 255) // 256, 256](x, y)
    assert np.array_equal(x, want)
    if backend == "gpu":
        assert _staged_since(before) == 4          # each array through the staging pieces on its own, in and back


@cuda.jit
def _bump_all(a, b, r, c, d, e):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1
    if i < b.size:
        b[i] = b[i] * 2 + r[i % r.size]
    if i < c.shape[0]:
        for j in range(c.shape[1]):
            c[i, j] = c[i, j] * 1j
    if i < d.shape[0]:
        for j in range(d.shape[1]):
            d[i, j] -= j
    if i < e.size:
        e[i] = not e[i]


def _mixed_arguments(rng):
    """An int8 array of 3 bytes before float64 and complex128 ones, a read-only array, F order, bool: alignment and
    placement matter; and what _bump_all makes of them, by NumPy."""
    a = rng.integers(-100, 100, 3).astype(np.int8)
    b = rng.standard_normal(1001)
    r = rng.standard_normal(7).astype(np.float32)
    r.flags.writeable = False
    c = (rng.standard_normal((5, 3)) + 1j * rng.standard_normal((5, 3))).astype(np.complex128)
    d = np.asfortranarray(rng.standard_normal((9, 4)).astype(np.float32))
    e = rng.random(13) < 0.5
    want = (a + 1, b * 2 + r[np.arange(1001) % 7].astype(np.float64), c * 1j, d - np.arange(4, dtype=np.float32), ~e)
    return (a, b, r, c, d, e), want


def _check_mixed(args, want, r_before):
    a, b, r, c, d, e = args
    for got, expected in zip((a, b, c, d, e), want):
        assert got.dtype == expected.dtype and np.array_equal(got, expected)
    assert np.array_equal(r, r_before)


def _spy_batches(monkeypatch):
    """The batches Python's prepare_args copies: [(way, ranges)]."""
    calls = []
    real_in, real_out = _core.copy_htod_batch, _core.copy_dtoh_batch

    def spy(real, way):
        def call(ranges, stream, device=-1):
            calls.append((way, list(ranges)))
            return real(ranges, stream, device)
        return call
    monkeypatch.setattr(_core, "copy_htod_batch", spy(real_in, "in"))
    monkeypatch.setattr(_core, "copy_dtoh_batch", spy(real_out, "back"))
    return calls


def test_numpy_arguments_through_python_copy_as_one_batch_each_way(backend, rng, monkeypatch):
    """Python's path (args.py, here because one argument is strided): every array its own device array, all copied
    in as one batch and the writable ones back as another; the read-only one is not copied back."""
    args, want = _mixed_arguments(rng)
    strided = np.empty(2 * args[1].size)
    strided[::2] = args[1]
    args = (args[0], strided[::2]) + args[2:]      # b strided: converted in Python, through a contiguous copy
    r_before = args[2].copy()
    calls = _spy_batches(monkeypatch)
    _bump_all[8, 128](*args)
    _check_mixed(args, want, r_before)
    assert [way for way, _ in calls] == ["in", "back"]
    (_, ins), (_, backs) = calls
    assert len(ins) == 6 and len(backs) == 5       # r is not copied back
    assert sum(n for _, _, n in ins) == sum(x.nbytes for x in args)

    calls.clear()
    big = [rng.standard_normal((10 << 20) // 8) for _ in range(2)]   # 10 MiB each: past the C++ path's 16 MiB
    want_big = big[0] + big[1]
    _add_into[(big[0].size + 255) // 256, 256](*big)
    _add_into[(big[0].size + 255) // 256, 256](*big)   # a launched kernel, still Python's path
    assert np.array_equal(big[0], want_big + big[1])
    assert [way for way, _ in calls] == ["in", "back", "in", "back"]


def test_plain_numpy_arguments_launch_without_python(backend, rng, monkeypatch):
    """Plain NumPy arguments (contiguous, a kernel dtype, each passed once) of a compiled kernel are copied in and
    back by the dispatcher in C++ (host_args.cpp): the same results, and Python's batches are never called."""
    args, want = _mixed_arguments(rng)
    warm = [x.copy(order="K") for x in args]
    warm[2].flags.writeable = False                 # the same types: r read-only
    _bump_all[8, 128](*warm)                        # compiles (Python's path types the first launch)
    r_before = args[2].copy()
    calls = _spy_batches(monkeypatch)
    before = _core.staging_counts()
    _bump_all[8, 128](*args)
    _check_mixed(args, want, r_before)
    assert calls == []
    if backend == "gpu":
        assert _staged_since(before) == 2          # one batch in, one batch back

    x = rng.standard_normal(300)
    want_x = x * 2
    _add_into[3, 128](x, x)                        # the same array twice: Python's path, one device array
    assert np.array_equal(x, want_x) and [way for way, _ in calls] == ["in", "back"]


@cuda.jit(debug=True, opt=False)
def _fill_then_fail(out, scale, n):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = i * scale[0]
    if i == 0:
        out[n] = 1.0                               # out of range: IndexError after the launch


def test_a_kernel_that_raised_still_hands_back_its_numpy_arguments(backend, rng):
    """Both paths (the first launch compiles through Python's, the second is C++'s) copy NumPy arguments back when
    a debug kernel raised, so the host sees what the kernel wrote."""
    for _ in range(2):
        out = rng.standard_normal(256)
        scale = rng.standard_normal(1)
        with pytest.raises(IndexError, match="out of bounds"):
            _fill_then_fail[2, 128](out, scale, 1000)
        np.testing.assert_array_equal(out, np.arange(256) * scale[0])


def test_batch_ranges_are_checked(backend):
    dev = cuda.device_array(64, np.uint8)
    small = np.zeros(16, np.uint8)
    with pytest.raises(ValueError, match="ranges\\[0\\]: 64 bytes to copy, but the host buffer holds 16"):
        _core.copy_htod_batch([(dev._ptr, small, 64)], 0)
    with pytest.raises(TypeError, match="ranges\\[1\\] must be a tuple"):
        _core.copy_htod_batch([(dev._ptr, small, 16), [dev._ptr, small, 16]], 0)
    frozen = np.zeros(64, np.uint8)
    frozen.flags.writeable = False
    with pytest.raises((BufferError, ValueError), match="(?i)writ|read-only"):
        _core.copy_dtoh_batch([(dev._ptr, frozen, 64)], 0)


@cuda.jit
def _slow_scale(x, out):
    # enough work per thread that the kernel is still running when a launch that does not wait returns
    i = cuda.grid(1)
    if i < out.size:
        v = x[i]
        for _ in range(4000):
            v = v * 0.999 + 0.001
        out[i] = v


@pytest.mark.gpu
def test_pinned_numpy_arguments_are_there_when_the_launch_returns(gpu, rng):
    """Pinned NumPy arguments (cuda.pinned_array is a NumPy array) skip the staging slot: the launch must still
    return with the results back and with the host array read (Numba's rule on stream 0: copies are synchronous)."""
    n = 1 << 20
    x = cuda.pinned_array(n, dtype=np.float64)
    x[:] = rng.standard_normal(n)
    want = x.copy()
    for _ in range(4000):
        want = want * 0.999 + 0.001
    out = cuda.pinned_array(n, dtype=np.float64)
    out[:] = 0
    _slow_scale[(n + 255) // 256, 256](x, out)
    np.testing.assert_allclose(out, want, rtol=1e-12)       # no synchronize: the launch waited

    dev_out = cuda.device_array(n, np.float64)
    _slow_scale[(n + 255) // 256, 256](cuda.In(x), dev_out)
    x[:] = -1.0                                              # the copy in has read x by now
    np.testing.assert_allclose(dev_out.copy_to_host(), want, rtol=1e-12)


@pytest.mark.gpu
def test_small_pinned_numpy_arguments_go_through_the_batch(gpu, rng):
    """A batch of a few KiB is staged whatever its host memory (staging.cpp's kAlwaysStage): pinned arrays too, with
    the same results and one batch each way."""
    x = cuda.pinned_array(700, dtype=np.float64)
    y = cuda.pinned_array(700, dtype=np.float64)
    x[:], y[:] = rng.standard_normal(700), rng.standard_normal(700)
    want = x + y
    before = _core.staging_counts()
    _add_into[3, 256](x, y)
    assert np.array_equal(x, want)
    assert _staged_since(before) == 2
