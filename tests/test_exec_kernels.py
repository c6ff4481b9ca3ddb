"""Kernels whose source file cannot be read: made by ``exec()`` of a string, by ``python -c``, typed into the
interactive interpreter. cudajit finds the text that compiles to the function's code object (cudajit/_sources.py);
the interpreter's own cases run in subprocesses, under the backend the test selects."""
import os
import select
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from cudajit import cuda
from cudajit.errors import TypingError, UnsupportedError

# Kernel shapes: loops, if/else, while with break/continue, tuple unpacking, augmented assignment, calls,
# attributes, subscripts, comparison chains, boolean operators, ternaries, returns from a device function.
SOURCE = '''
@cuda.jit(device=True)
def collatz_steps(n, limit):
    steps = 0
    while n != 1:
        if steps >= limit:
            break
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


@cuda.jit
def shapes(x, n, out):
    i = cuda.grid(1)
    if i >= x.shape[0]:
        return
    lo, hi = 0.25, 0.75
    acc = 0.0
    for k in range(n[i]):
        if k % 3 == 0:
            continue
        acc += k * x[i]
    if lo < x[i] < hi and n[i] > 2 or x[i] > 0.9:
        acc = -acc
    out[0, i] = acc
    out[1, i] = collatz_steps(n[i] + 1, 200)
'''


def _reference(x, n):
    acc = np.array([sum(k * xi for k in range(ni) if k % 3) for xi, ni in zip(x, n)])
    flip = ((0.25 < x) & (x < 0.75) & (n > 2)) | (x > 0.9)
    steps = []
    for m in n + 1:
        s, m = 0, int(m)
        while m != 1 and s < 200:
            m, s = m // 2 if m % 2 == 0 else 3 * m + 1, s + 1
        steps.append(s)
    return np.array([np.where(flip, -acc, acc), steps])


def _exec_source(text, filename=None):
    namespace = {"cuda": cuda}
    code = text if filename is None else compile(text, filename, "exec")
    exec(code, namespace)
    return namespace


def test_kernel_made_by_exec_of_a_string(backend, rng):
    shapes = _exec_source(SOURCE)["shapes"]
    x = rng.uniform(0, 1, 300)
    n = rng.integers(0, 30, 300)
    out = np.zeros((2, 300))
    shapes[3, 128](x, n, out)
    np.testing.assert_allclose(out, _reference(x, n), rtol=1e-12)


def test_exec_of_compiled_code_with_its_own_filename(backend, rng):
    shapes = _exec_source(SOURCE, "<generated kernels>")["shapes"]
    x = rng.uniform(0, 1, 50)
    n = rng.integers(0, 30, 50)
    out = np.zeros((2, 50))
    shapes[1, 64](x, n, out)
    np.testing.assert_allclose(out, _reference(x, n), rtol=1e-12)


def test_error_in_an_exec_kernel_names_its_line(backend):
    text = "@cuda.jit\ndef bad(a):\n    a[0] = undefined_name\n"
    bad = _exec_source(text)["bad"]
    with pytest.raises(TypingError, match=r"<string>:3.*undefined_name"):
        bad[1, 1](np.zeros(1))


def test_exec_of_a_literal_string(backend, rng):
    """exec("...") with the text written in the call: a constant of the calling code, in no variable."""
    namespace = {"cuda": cuda}
    exec("@cuda.jit\ndef twice(a, out):\n    i = cuda.grid(1)\n    if i < a.size:\n        out[i] = 2 * a[i]\n",
         namespace)
    x = rng.standard_normal(300)
    out = np.zeros(300)
    namespace["twice"][3, 128](x, out)
    np.testing.assert_array_equal(out, 2 * x)


def test_python_dash_c_execs_a_literal_string(backend):
    body = "\n".join(PROGRAM[2:10])
    program = ["import numpy as np", "from cudajit import cuda", "ns = {'cuda': cuda}",
               f"exec({body!r}, ns)", "k = ns['k']"] + PROGRAM[10:]
    r = subprocess.run([sys.executable, "-c", "\n".join(program)], env=_env(backend), capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0 and "MATCH True" in r.stdout, r.stderr[-2000:]


def _made_by_a_helper(op):
    """numba-cuda's tests make kernels so: exec of a text built here, decorated by the caller after the text is gone."""
    namespace = {}
    exec(f"def k(r, a):\n    i = cuda.grid(1)\n    if i < a.size:\n        r[i] = a[i] {op} 3\n", {"cuda": cuda},
         namespace)
    namespace["k"].__name__ = f"apply_{op}"      # renamed: the text says 'def k'
    return namespace["k"]


def test_function_exec_by_a_helper_and_decorated_later(backend, rng):
    add, mul = cuda.jit(_made_by_a_helper("+")), cuda.jit(_made_by_a_helper("*"))
    a = rng.standard_normal(200)
    r = np.zeros(200)
    add[2, 128](r, a)
    np.testing.assert_array_equal(r, a + 3)
    mul[2, 128](r, a)
    np.testing.assert_array_equal(r, a * 3)


def test_an_exec_kernel_is_found_after_any_number_of_other_texts(backend, rng):
    """The text of an exec() is kept by the code objects it made, not in a window of the last texts compiled
    (issue 40): dataclasses, namedtuples and other exec'd strings made since do not push it out."""
    import collections
    import dataclasses
    parts = ["def kept(a, b):\n", "    i = cuda.grid(1)\n", "    if i < a.size:\n", "        a[i] = b[i] * 2 + 1\n"]
    namespace = {"cuda": cuda}
    exec("".join(parts), namespace)          # the joined text is not held by any frame
    for i in range(300):
        exec(f"def other_{i}(): pass", {})
        collections.namedtuple(f"N{i}", "x y")
        dataclasses.make_dataclass(f"D{i}", [("x", int)])
    kept = cuda.jit(namespace["kept"])
    b = rng.standard_normal(100)
    a = np.zeros(100)
    kept[1, 128](a, b)
    np.testing.assert_array_equal(a, b * 2 + 1)


def test_a_string_compiled_and_gone_says_what_to_do(backend):
    import types
    parts = ["def gone(a):\n", "    a[0] = 1\n"]
    module = compile("".join(parts), "<string>", "exec")     # compiled, never exec'd: no function was recorded ...
    gone_fn = types.FunctionType(module.co_consts[0], {"cuda": cuda})
    del module
    for i in range(256):                     # ... and the text has left the window of kept compiles
        compile(f"def other_{i}(): pass", "<string>", "exec")
    gone = cuda.jit(gone_fn)
    with pytest.raises(UnsupportedError, match="cannot read the source of gone.*exec"):
        gone[1, 1](np.zeros(1))


def _env(backend):
    return dict(os.environ, CUDAJIT_BACKEND=backend,
                PYTHONPATH=os.pathsep.join(p for p in (os.path.dirname(os.path.dirname(cuda.__file__)),
                                                       os.environ.get("PYTHONPATH")) if p))


def _repl_env(backend, home, **extra):
    # A HOME of its own: the interpreter loads and saves ~/.python_history, whose lines would otherwise be found.
    return dict(_env(backend), HOME=str(home), PYTHONSTARTUP="", **extra)


# The program each interpreter runs: a kernel over random data, checked against NumPy in the same process.
PROGRAM = [
    "import numpy as np",
    "from cudajit import cuda",
    "@cuda.jit",
    "def k(x, out):",
    "    i = cuda.grid(1)",
    "    if i < x.size:",
    "        s = 0.0",
    "        for j in range(i % 7):",
    "            s += x[i] * j",
    "        out[i] = s if x[i] > 0.5 else -s",
    "",
    "x = np.random.default_rng(5).uniform(0, 1, 200)",
    "out = np.zeros(200)",
    "k[2, 128](x, out)",
    "s = x * np.array([sum(range(i % 7)) for i in range(200)])",
    "print('MATCH', bool(np.allclose(out, np.where(x > 0.5, s, -s), rtol=1e-12)))",
]


def test_python_dash_c(backend):
    r = subprocess.run([sys.executable, "-c", "\n".join(PROGRAM)], env=_env(backend), capture_output=True,
                       text=True, timeout=300)
    assert "MATCH True" in r.stdout, r.stdout + r.stderr


def test_interactive_interpreter_on_a_terminal(backend, tmp_path):
    pty = pytest.importorskip("pty")
    pytest.importorskip("readline")
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-i", "-q"], stdin=slave, stdout=slave, stderr=slave,
                            env=_repl_env(backend, tmp_path, TERM="dumb"), close_fds=True)
    os.close(slave)
    for line in PROGRAM + ["", "exit()"]:
        os.write(master, (line + "\n").encode())
        time.sleep(0.02)
    out = b""
    deadline = time.time() + 300
    while time.time() < deadline:     # read until exit(): the terminal echoes the input, MATCH included
        if select.select([master], [], [], 1)[0]:
            try:
                out += os.read(master, 65536)
            except OSError:           # the interpreter has exited and its output is read
                break
        elif proc.poll() is not None:
            break
    proc.kill()
    proc.wait()
    os.close(master)
    assert b"MATCH True" in out, out.decode(errors="replace")[-3000:]


def test_interactive_interpreter_reading_a_pipe_says_what_to_do(backend, tmp_path):
    """Without a terminal the interpreter keeps no text of what it read: a clear error, not a crash."""
    r = subprocess.run([sys.executable, "-i", "-q"], input="\n".join(PROGRAM) + "\n", env=_repl_env(backend, tmp_path),
                       capture_output=True, text=True, timeout=300)
    assert "UnsupportedError: cannot read the source of k: it was typed into the interactive interpreter" \
        in r.stderr, r.stderr
    assert "MATCH True" not in r.stdout


def test_source_recovery_accepts_only_the_exact_code():
    from cudajit import _sources

    namespace = {}
    exec("def f(x):\n    return x + 1\n", namespace)
    f = namespace["f"]
    other = textwrap.dedent("""
        def f(x):
            return x + 2
    """)
    assert not _sources._compiles_to(other, f.__code__)
    assert _sources._compiles_to("def f(x):\n    return x + 1\n", f.__code__)
