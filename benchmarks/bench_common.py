"""What the GPU benchmarks share: JSON rows as they are measured, medians, launch timing."""
import json
import time

rows = []


def emit(**kw):
    rows.append(kw)
    print(json.dumps(kw), flush=True)


def med(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def seconds(fn, reps):
    """Wall-clock seconds of one call of ``fn`` (after one warm-up call), median of ``reps``."""
    fn()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return med(ts)


def per_launch(fn, sync, n=20000, reps=5):
    """Microseconds per call of ``fn`` over ``n`` calls, median of ``reps`` rounds."""
    ts = []
    for _ in range(reps):
        sync()
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        ts.append((time.perf_counter() - t0) / n)
    return med(ts) * 1e6


def event_ms(make_event, elapsed_ms, sync, fn, reps=10):
    """Milliseconds of device work between two events around ``fn`` (after one warm-up call), median of ``reps``;
    ``make_event``/``elapsed_ms``: the library's event class and elapsed-time function (cudajit, numba, CuPy)."""
    s, e = make_event(), make_event()
    fn()
    sync()
    ts = []
    for _ in range(reps):
        s.record()
        fn()
        e.record()
        e.synchronize()
        ts.append(elapsed_ms(s, e))
    return med(ts)
