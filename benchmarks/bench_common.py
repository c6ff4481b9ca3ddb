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


def queued_us(make_event, elapsed_ms, sync, busy, fn, n=500, reps=7):
    """(host µs per call of ``fn``, GPU µs per kernel it launches), medians of ``reps``: ``n`` calls issued while
    ``busy`` (one long kernel) keeps the GPU occupied, so the host's time is its own (the GPU never waits for it,
    and ``n`` stays under the driver's queue, which would block the host), and the GPU's time between an event
    after ``busy`` and one after the last call is its own (every launch was queued before it started). None for
    a round whose calls outlasted ``busy``: the GPU waited for the host there."""
    s, e = make_event(), make_event()
    fn()
    busy()
    sync()
    s.record()
    busy()
    e.record()
    e.synchronize()
    busy_s = elapsed_ms(s, e) / 1e3
    hosts, gpus = [], []
    for _ in range(reps):
        sync()
        busy()
        s.record()
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        host = time.perf_counter() - t0
        e.record()
        e.synchronize()
        if host > 0.8 * busy_s:
            return None, None
        hosts.append(host / n * 1e6)
        gpus.append(elapsed_ms(s, e) * 1e3 / n)
    return med(hosts), med(gpus)
