"""Runs every robustness case in a child process and classifies what happened.

    python3 tests/robustness/runner.py [--category launch,cai] [--case NAME] [--jobs 2] [--report] [-v]

A fork server: this process imports NumPy, cudajit and the shared kernels (it never initialises CUDA nor
compiles anything), then forks one child per case, two at a time; the child runs the snippet and writes its
outcome as JSON to a pipe. Cases whose environment must be set before import run in a fresh interpreter
instead (``mode="subprocess"``). A child killed by a signal or dying without a result is a ``crash``; one
running past its timeout is a ``hang``. All children share one fresh disk cache directory, so a kernel
shared by many cases (``shared_kernels.py``) is compiled once per run. The backend is the one
``CUDAJIT_BACKEND`` names (each child makes its own CUDA context on the GPU backend).
"""
import argparse
import glob
import collections
import faulthandler
import importlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CATEGORIES = ("launch", "args", "devarray", "cai", "dlpack", "source", "runtime", "ffi", "cache", "env", "concurrency",
              "resources")
OUTCOMES = ("ok", "crash", "hang", "silent-wrong", "leak", "vague", "unexpected-error")
POLL_S = 0.005
# A case's timeout is for an idle machine (alone, the slowest cases take 8-15 s of their 20). Under load -- pytest's
# workers, other jobs -- every case is slower by about the load per core, so its limit is scaled by that (read
# when the case starts, at most MAX_LOAD_SCALE times): a real hang is still caught, later.
MAX_LOAD_SCALE = 6.0


def time_limit(case):
    """The case's timeout scaled by the machine's load per core now (1 on an idle machine)."""
    try:
        per_core = os.getloadavg()[0] / (len(os.sched_getaffinity(0)) or 1)
    except (OSError, AttributeError):
        per_core = 1.0
    return case.timeout * min(MAX_LOAD_SCALE, max(1.0, per_core))

if HERE not in sys.path:
    sys.path.insert(0, HERE)
# The source tree's package, when it has been built in place (tools/dev_build.sh); else the installed one.
if glob.glob(os.path.join(REPO, "python", "cudajit", "_core*.so")) and os.path.join(REPO, "python") not in sys.path:
    sys.path.insert(0, os.path.join(REPO, "python"))

from cases import VAGUE_MARKERS  # noqa: E402


def load_cases(categories=CATEGORIES):
    out = []
    for cat in categories:
        out += importlib.import_module(f"cases_{cat}").CASES
    return out


# --- the child's side ---------------------------------------------------------------------------------------------

def _message(e):
    return f"{type(e).__name__}: {e}"[:1500]


def _words_missing(text, words, case_file):
    low = text.lower()
    missing = []
    for w in words:
        alternatives = [a.replace("{file}", os.path.basename(case_file)).lower() for a in w.split("|")]
        if not any(a in low for a in alternatives):
            missing.append(w)
    return missing


def judge(case, case_file):
    """Runs the case here and returns {"outcome", "detail"}: the verdict of the expected outcome."""
    ns = {"__name__": "__robustness_case__", "__file__": case_file}
    with open(case_file) as f:
        code = compile(f.read(), case_file, "exec")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec(code, ns)
            error = None
        except BaseException as e:    # KeyboardInterrupt and SystemExit are outcomes too
            error = e
            tb = traceback.format_exc(limit=-3)
    warned = " | ".join(f"{w.category.__name__}: {w.message}" for w in caught)
    if case.raises:
        if error is None and case.check:
            return _check_result(case, ns, warned, case_file)   # the right answer is as good as the error
        if error is None:
            return {"outcome": "silent-wrong", "detail": "returned without an error" + (f" (warned: {warned[:300]})" if warned else "")}
        names = {k.__name__ for k in type(error).__mro__}
        text = str(error)
        missing = _words_missing(text, case.words, case_file)
        marker = next((m for m in VAGUE_MARKERS if m in text), None)
        if not names & set(case.raises) or missing or marker:
            why = []
            if not names & set(case.raises):
                why.append(f"wanted {'/'.join(case.raises)}")
            if missing:
                why.append(f"message lacks {missing}")
            if marker:
                why.append(f"message holds {marker!r}")
            return {"outcome": "vague", "detail": f"{_message(error)} [{'; '.join(why)}]"}
        return {"outcome": "ok", "detail": _message(error)}
    if error is not None:
        return {"outcome": "unexpected-error", "detail": _message(error) + "\n" + tb[-800:]}
    return _check_result(case, ns, warned, case_file)


def _values_of(expr, ns):
    """The snippet's variables an expression names, for the report of a failed check."""
    import ast
    names = sorted({n.id for n in ast.walk(ast.parse(expr)) if isinstance(n, ast.Name) and n.id in ns
                    and not callable(ns[n.id]) and not isinstance(ns[n.id], type(os))})
    return ", ".join(f"{n}={' '.join(repr(ns[n]).split())[:120]}" for n in names)


def _check_result(case, ns, warned, case_file):
    try:
        good = eval(case.check, ns)
    except Exception as e:
        return {"outcome": "unexpected-error", "detail": f"the check raised {_message(e)}"}
    if not good:
        return {"outcome": case.fails_as, "detail": f"check failed: {case.check} with {_values_of(case.check, ns)}"}
    missing = _words_missing(warned, case.warns, case_file) if case.warns else []
    if case.warns and (not warned or missing):
        return {"outcome": "vague", "detail": f"right result, but no warning naming {list(case.warns)}"
                                              + (f" (warned: {warned[:300]})" if warned else "")}
    return {"outcome": "ok", "detail": ""}


def _child_main(case, case_file, result_fd, log_path, limit):
    """In the forked child: output to the log, the verdict to the pipe, then exit without cleanup handlers."""
    faulthandler.disable()   # pytest's would print a crash's Python stack on the terminal: the log says enough
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    # A child that runs past its timeout is killed; a second before that, every thread's Python stack goes to the
    # log (the watchdog thread needs no GIL), so that a hang's row says where it was.
    faulthandler.dump_traceback_later(max(1.0, limit - 1.0), file=sys.stderr)
    try:
        verdict = judge(case, case_file)
    except BaseException as e:
        verdict = {"outcome": "unexpected-error", "detail": "runner: " + _message(e)}
    faulthandler.cancel_dump_traceback_later()
    payload = json.dumps(verdict).encode()[:60000]
    os.write(result_fd, payload)
    os.close(result_fd)
    sys.stdout.flush()
    sys.stderr.flush()


# --- the parent's side --------------------------------------------------------------------------------------------

class Running:
    def __init__(self, case, case_file, log_path, start, pid=None, proc=None, read_fd=None, limit=None):
        self.case, self.case_file, self.log_path, self.start = case, case_file, log_path, start
        self.limit = case.timeout if limit is None else limit
        self.pid, self.proc, self.read_fd = pid, proc, read_fd
        self.chunks = []


def _read_available(r):
    while True:
        try:
            data = os.read(r.read_fd, 65536)
        except BlockingIOError:
            return
        if not data:
            return
        r.chunks.append(data)


def _log_tail(path, n=600):
    try:
        with open(path, "rb") as f:
            text = f.read().decode(errors="replace")
    except OSError:
        return ""
    text = " ".join(text.split())
    return text[-n:]


def _finish(r, status_kind, value):
    """Turn a finished child into a result row. status_kind: 'exit' (code), 'signal' (number), 'timeout'."""
    _read_available(r)
    os.close(r.read_fd)
    elapsed = time.monotonic() - r.start
    row = {"category": r.case.category, "name": r.case.name, "seconds": round(elapsed, 2)}
    raw = b"".join(r.chunks)
    if status_kind == "timeout":
        got = f"result {raw.decode(errors='replace')[:200]} written, then no exit" if raw else "no result"
        row.update(outcome="hang", detail=f"{got} after {r.limit:.0f} s (timeout {r.case.timeout:g} s scaled by the "
                                          f"load); output: {_log_tail(r.log_path, 2500)}")
    elif status_kind == "signal":
        row.update(outcome="crash", detail=f"killed by {signal.Signals(value).name}; output: {_log_tail(r.log_path)}")
    elif not raw:
        row.update(outcome="crash", detail=f"exited with status {value} and no result; output: {_log_tail(r.log_path)}")
    else:
        row.update(json.loads(raw.decode()))
        if value != 0 and row["outcome"] == "ok":
            row.update(outcome="crash", detail=f"verdict ok, then exit status {value} at shutdown: {_log_tail(r.log_path)}")
    return row


def _start(case, workdir, env_base):
    case_file = os.path.join(workdir, f"{case.category}__{case.name}.py")
    with open(case_file, "w") as f:
        f.write(case.source)
    log_path = case_file[:-3] + ".log"
    limit = time_limit(case)
    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)
    if case.mode == "subprocess":
        env = dict(env_base)
        for k, v in case.env.items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = v.replace("{workdir}", workdir)
        with open(log_path, "w") as log:
            proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--child", case.category, case.name,
                                     "--result-fd", str(write_fd), "--case-file", case_file],
                                    env=env, stdout=log, stderr=log, pass_fds=(write_fd,), cwd=workdir)
        os.close(write_fd)
        return Running(case, case_file, log_path, time.monotonic(), proc=proc, read_fd=read_fd, limit=limit)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(read_fd)
            for k, v in case.env.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v.replace("{workdir}", workdir)
            _child_main(case, case_file, write_fd, log_path, limit)
        except BaseException:
            code = 70
        os._exit(code)
    os.close(write_fd)
    return Running(case, case_file, log_path, time.monotonic(), pid=pid, read_fd=read_fd, limit=limit)


def _poll(r):
    """(kind, value) when the child has ended, else None."""
    if r.proc is not None:
        rc = r.proc.poll()
        if rc is None:
            return None
        return ("signal", -rc) if rc < 0 else ("exit", rc)
    pid, status = os.waitpid(r.pid, os.WNOHANG)
    if pid == 0:
        return None
    if os.WIFSIGNALED(status):
        return ("signal", os.WTERMSIG(status))
    return ("exit", os.WEXITSTATUS(status))


def _kill(r):
    if r.proc is not None:
        r.proc.kill()
        r.proc.wait()
    else:
        os.kill(r.pid, signal.SIGKILL)
        os.waitpid(r.pid, 0)


def backend_label():
    want = os.environ.get("CUDAJIT_BACKEND", "auto").strip().lower() or "auto"
    if want in ("cpu", "gpu"):
        return want
    # Deciding "auto" here would load the CUDA driver in the fork server: ask a fresh interpreter instead.
    out = subprocess.run([sys.executable, "-c", "import cudajit; print(cudajit.backend())"],
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    return out.stdout.strip() or "cpu"


def run_cases(cases, jobs=2, verbose=False):
    """Runs ``cases`` (two children at a time by default); returns one result row per case, in order."""
    backend = backend_label()
    os.environ["CUDAJIT_BACKEND"] = backend
    workdir = tempfile.mkdtemp(prefix="cj-robust-")
    os.environ["CUDAJIT_CACHE_DIR"] = os.path.join(workdir, "cache")
    env_base = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    import numpy  # noqa: F401  (imported once, before forking)
    from cudajit import cuda  # noqa: F401
    import cudajit.compiler  # noqa: F401
    import shared_kernels  # noqa: F401
    from cudajit import _backend
    assert _backend._current is None, "the fork server must not pick a backend (that may initialise CUDA)"
    todo = collections.deque(c for c in cases if backend in c.backends)
    skipped = [c for c in cases if backend not in c.backends]
    running, rows = [], {}
    try:
        while todo or running:
            while todo and len(running) < jobs:
                running.append(_start(todo.popleft(), workdir, env_base))
            time.sleep(POLL_S)
            for r in list(running):
                _read_available(r)
                ended = _poll(r)
                if ended is None and time.monotonic() - r.start > r.limit:
                    _kill(r)
                    ended = ("timeout", None)
                if ended is None:
                    continue
                running.remove(r)
                row = _finish(r, *ended)
                rows[(r.case.category, r.case.name)] = row
                if verbose or row["outcome"] != "ok":
                    print(f"{row['outcome']:>16}  {row['category']}/{row['name']} ({row['seconds']} s): "
                          f"{row['detail'][:300]}", file=sys.stderr if not verbose else sys.stdout, flush=True)
    finally:
        for r in running:
            _kill(r)
        shutil.rmtree(workdir, ignore_errors=True)
    out = [rows[(c.category, c.name)] for c in cases if (c.category, c.name) in rows]
    out += [{"category": c.category, "name": c.name, "outcome": "skipped", "detail": f"not on {backend}",
             "seconds": 0} for c in skipped]
    return backend, out


def table(backend, rows):
    """The README's table: cases tried and outcomes per category, then every case not ok."""
    lines = [f"Backend: {backend}", "",
             "| category | cases | " + " | ".join(OUTCOMES) + " |",
             "| --- | ---: | " + " | ".join("---:" for _ in OUTCOMES) + " |"]
    total = collections.Counter()
    for cat in CATEGORIES:
        mine = [r for r in rows if r["category"] == cat and r["outcome"] != "skipped"]
        if not mine:
            continue
        counts = collections.Counter(r["outcome"] for r in mine)
        total.update(counts)
        lines.append(f"| {cat} | {len(mine)} | " + " | ".join(str(counts[o]) for o in OUTCOMES) + " |")
    lines.append(f"| **all** | {sum(total.values())} | " + " | ".join(str(total[o]) for o in OUTCOMES) + " |")
    bad = [r for r in rows if r["outcome"] not in ("ok", "skipped")]
    if bad:
        lines += ["", "Cases not ok:", ""]
        for r in bad:
            detail = " ".join(r["detail"].split())[:240].replace("|", "\\|")
            lines.append(f"- `{r['category']}/{r['name']}`: **{r['outcome']}**: {detail}")
    return "\n".join(lines) + "\n"


def _child_entry(args):
    """The fresh-interpreter side of a ``mode="subprocess"`` case."""
    case = next(c for c in importlib.import_module(f"cases_{args.child[0]}").CASES if c.name == args.child[1])
    fd = args.result_fd
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        verdict = judge(case, args.case_file)
    except BaseException as e:
        verdict = {"outcome": "unexpected-error", "detail": "runner: " + _message(e)}
    os.write(fd, json.dumps(verdict).encode()[:60000])
    os.close(fd)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--category", default=",".join(CATEGORIES))
    p.add_argument("--case", default=None, help="run only cases whose name contains this")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--report", action="store_true", help="print the table and write it to results.md")
    p.add_argument("-v", "--verbose", action="store_true")
    p.add_argument("--json", default=None, help="write every row to this file")
    p.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    p.add_argument("--result-fd", type=int, help=argparse.SUPPRESS)
    p.add_argument("--case-file", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        return _child_entry(args)
    cases = load_cases(tuple(c for c in args.category.split(",") if c))
    if args.case:
        cases = [c for c in cases if args.case in c.name]
    t0 = time.monotonic()
    backend, rows = run_cases(cases, jobs=args.jobs, verbose=args.verbose)
    text = table(backend, rows)
    print(text)
    print(f"{len(rows)} cases in {time.monotonic() - t0:.1f} s")
    if args.report:
        with open(os.path.join(HERE, f"results-{backend}.md"), "w") as f:
            f.write(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0 if all(r["outcome"] in ("ok", "skipped") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
