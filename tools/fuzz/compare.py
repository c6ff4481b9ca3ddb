"""Whether a backend's results equal the oracle's: integers and exact floats bit for bit (a NaN equals any
NaN; -0.0 differs from 0.0), approximate floats within their error bound."""
import numpy as np

import layout


def _close(want, got, err):
    if isinstance(want, complex) or isinstance(got, complex):
        return _close(want.real, got.real, err) and _close(want.imag, got.imag, err)
    if want != want:
        return got != got
    if err == 0:
        return (want == got and np.signbit(want) == np.signbit(got))
    if np.isinf(want) or np.isinf(got):
        return want == got
    return abs(want - got) <= err * 1.0000001


def mismatches(expected, got, k, limit=6):
    """[(array, index, wanted, got, bound)] where program k's results differ (at most ``limit``)."""
    out = []
    for name, want in expected.arrays.items():
        have = got[name][k]
        err = expected.errors[name]
        if want.dtype.kind in "iub":
            bad = np.argwhere(want != have)
            for idx in bad[:limit]:
                idx = tuple(idx)
                out.append((name, idx, want[idx].item(), have[idx].item(), 0.0))
            continue
        for idx in np.ndindex(want.shape):
            w, h, e = want[idx].item(), have[idx].item(), float(err[idx])
            if not _close(w, h, e):
                out.append((name, idx, w, h, e))
                if len(out) >= limit:
                    return out
    return out


def describe(mism):
    return "; ".join(f"{n}{list(i)}: want {w!r} got {h!r}" + (f" (bound {e:.3g})" if e else "")
                     for n, i, w, h, e in mism)
