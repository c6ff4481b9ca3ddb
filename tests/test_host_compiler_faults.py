"""The host C++ compiler's own faults (CPU backend): a compile that ends in an internal compiler error is tried once
more at -O1 (src/host_compiler.cpp, internal_error), so a GCC bug costs speed, not the kernel; a source the compiler
really rejects still fails with both logs."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import cudajit

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")

SCRIPT = """
import numpy as np
from cudajit import cuda

@cuda.jit
def twice(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = 2 * x[i]

x = np.random.default_rng(4).standard_normal(100)
out = np.zeros_like(x)
twice[1, 128](x, out)
np.testing.assert_array_equal(out, 2 * x)
print("ok")
"""

# A compiler that crashes at -O2 and works at -O1, as GCC 12 did on the TLS of a kernel whose only reader of the
# running thread was dead code (fuzz seed 61, 19/44); or one that always crashes (ALWAYS=1).
FAKE = """#!/bin/sh
case "$1" in --version|-dumpmachine|-dumpversion) exec g++ "$@";; esac
if [ -z "$ALWAYS" ]; then
  for a in "$@"; do [ "$a" = "-O1" ] && exec g++ "$@"; done
fi
case " $* " in *" -x c++-header "*) exec g++ "$@";; esac
echo "cudajit-generated.cu:56:1: internal compiler error: output_operand: '%&' used without any local dynamic TLS references" >&2
exit 1
"""


def _run(tmp_path, **env):
    fake = tmp_path / "fake-g++"
    fake.write_text(FAKE)
    fake.chmod(0o755)
    script = tmp_path / "kernel.py"
    script.write_text(SCRIPT)
    base = {k: v for k, v in os.environ.items() if not k.startswith("CUDAJIT_") and k != "CXX"}
    base.update(PYTHONPATH=str(Path(cudajit.__file__).resolve().parents[1]), CUDAJIT_BACKEND="cpu",
                CUDAJIT_CACHE_DIR=str(tmp_path / "cache"), CXX=str(fake), **env)
    return subprocess.run([sys.executable, str(script)], env=base, capture_output=True, text=True, timeout=300)


def test_an_internal_compiler_error_is_compiled_again_at_O1(tmp_path):
    proc = _run(tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["ok"]


def test_a_compiler_that_always_crashes_reports_both_attempts(tmp_path):
    proc = _run(tmp_path, ALWAYS="1")
    assert proc.returncode != 0
    assert "internal compiler error" in proc.stderr
    assert "compiled again at -O1 after that internal compiler error" in proc.stderr, proc.stderr[-3000:]
