"""What the GPU's libdevice answers for the inputs where CUDA's documentation is silent (NaN and infinities to
integers, NaN to half): run on the GPU machine, it prints one line per function, for cudajit's CPU backend to match
(kernels/cudajit/libdevice.h) and tests/test_libdevice.py to expect.
    python3 tools/libdevice_probe.py"""
import sys

import numpy as np

sys.path.insert(0, "tests")
from test_libdevice import MODES, run_family   # noqa: E402

SPECIAL = [np.nan, np.inf, -np.inf, -np.nan, 1e30, -1e30]
for src, dtype in (("float", np.float32), ("double", np.float64)):
    x = np.array(SPECIAL, dtype)
    for dst in ("int", "uint", "ll", "ull"):
        names = [f"{src}2{dst}_{m}" for m in MODES]
        got = run_family(names, x)
        for k, n in enumerate(names):
            print(n, " ".join(hex(int(v) & (2**64 - 1)) for v in got[k]))
h = run_family(["float2half_rn"], np.array([np.nan, -np.nan, np.inf, -np.inf, 1e10], np.float32))[0]
print("float2half_rn", " ".join(hex(int(v) & 0xFFFF) for v in h))
