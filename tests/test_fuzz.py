"""A bounded slice of the differential tester (tools/fuzz, issue 36) on every backend present: programs from
fixed seeds, each run as Python with Numba's typing and on the backend, must agree. A failure prints the
divergence and the reproducer's path; ``python3 tools/fuzz/run.py --replay FILE --reduce`` shrinks it."""
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parametrize("seed", [9001, 9002])
def test_fuzz_slice(backend, seed, tmp_path):
    count = 40
    cmd = [sys.executable, os.path.join(REPO, "tools", "fuzz", "run.py"), "--backend", backend,
           "--count", str(count), "--seed", str(seed), "--batch", str(count), "--out", str(tmp_path),
           "--no-reduce", "--quiet"]
    # CUDAJIT_CHECK_NVRTC would compile each batch a second time with NVRTC (2.5x the time of the slice);
    # the GPU's compiles are checked where a GPU runs this test
    env = {k: v for k, v in os.environ.items() if k != "CUDAJIT_CHECK_NVRTC"}
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=REPO, env=env)
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    assert last == f"{count} programs, 0 divergences", proc.stdout[-6000:] + proc.stderr[-3000:]
