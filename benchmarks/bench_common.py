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


def event_ms(make_event, elapsed_ms, sync, fn, reps=10, behind=False):
    """Milliseconds of device work between two events around ``fn`` (after one warm-up call), median of ``reps``;
    ``make_event``/``elapsed_ms``: the library's event class and elapsed-time function (cudajit, numba, CuPy).

    The first event fires as soon as the GPU reaches it, so the host's time to issue ``fn`` counts too. With
    ``behind``, each timed ``fn`` is queued behind an untimed one: the GPU is still busy with that while the host
    issues the event and the timed call, so the figure is the device work alone (for ``fn`` much longer than a
    launch)."""
    s, e = make_event(), make_event()
    fn()
    sync()
    ts = []
    for _ in range(reps):
        if behind:
            fn()
        s.record()
        fn()
        e.record()
        e.synchronize()
        ts.append(elapsed_ms(s, e))
    return med(ts)
