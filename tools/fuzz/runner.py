"""Runs batches of programs in a worker process (worker.py) and says, per program, what happened: its results,
or the compile error that names it, or that the process crashed or hung on it. Errors and crashes that name no
program are found by halving the batch."""
import itertools
import json
import os
import selectors
import subprocess
import sys

import numpy as np

import batch as batchmod
import layout

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
_tags = itertools.count()


def cudajit_path():
    """Where the worker imports cudajit from: where this interpreter finds it (an installed package or
    PYTHONPATH), else this checkout's python/ folder. The fuzzer's own process never imports it."""
    import importlib.util
    spec = importlib.util.find_spec("cudajit")
    if spec is not None and spec.origin:
        return os.path.dirname(os.path.dirname(spec.origin))
    return os.path.join(REPO, "python")


class Worker:
    """A worker process for one flavour: 'cudajit' (backend cpu or gpu) or 'numba' (its own interpreter)."""

    def __init__(self, flavour, backend="cpu", python=None, timeout=300, env=None):
        self.flavour, self.backend = flavour, backend
        self.python = python or sys.executable
        self.timeout = timeout
        self.extra_env = env or {}
        self.proc = None
        self.served = 0

    def _start(self):
        env = dict(os.environ)
        env.update(self.extra_env)
        if self.flavour == "cudajit":
            env["PYTHONPATH"] = cudajit_path() + os.pathsep + env.get("PYTHONPATH", "")
            env["CUDAJIT_BACKEND"] = self.backend
        self.proc = subprocess.Popen([self.python, os.path.join(HERE, "worker.py"), self.flavour],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None if os.environ.get("FUZZ_WORKER_STDERR") else subprocess.DEVNULL,
                                     env=env, text=True, bufsize=1)
        ready = self._read(120)
        if not ready or not ready.get("ready"):
            raise RuntimeError(f"the {self.flavour} worker did not start")
        self.served = 0

    def _read(self, timeout):
        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ)
        if not sel.select(timeout):
            return None
        line = self.proc.stdout.readline()
        return json.loads(line) if line else None

    def stop(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def request(self, req):
        """The worker's reply, or {'ok': False, 'error': 'crash'|'hang'} when it died or timed out."""
        if self.proc is None or self.proc.poll() is not None or self.served >= 40:
            self.stop()
            self._start()
        self.served += 1
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        reply = self._read(self.timeout)
        if reply is None:
            code = self.proc.poll()
            self.stop()
            return {"ok": False, "error": "hang" if code is None else "crash", "message": f"exit {code}"}
        return reply


def save_inputs(directory, arrays, scalars):
    path = os.path.join(directory, "inputs.npz")
    if not os.path.exists(path):
        np.savez(path, **arrays, **{k: np.asarray(v) for k, v in scalars.items()})
    return path


class Outcome:
    """What one program did: ``results`` (the arrays' rows, by name) or ``failure`` ('compile: ...', 'crash',
    'hang')."""

    def __init__(self, results=None, failure=None):
        self.results, self.failure = results, failure


def run_programs(worker, directory, programs, inputs_path):
    """{index: Outcome} for [(body, ret)] programs, compiled in as few batches as errors allow."""
    outcomes = {}
    _run(worker, directory, list(enumerate(programs)), inputs_path, outcomes)
    return outcomes


def _run(worker, directory, items, inputs_path, outcomes):
    if not items:
        return
    tag = f"fz{os.getpid()}x{next(_tags)}"
    b = batchmod.write(directory, tag, [body for _, (body, _) in items], [ret for _, (_, ret) in items],
                       worker.flavour)
    reply = worker.request({"dir": directory, "tag": tag, "count": len(items), "inputs": inputs_path})
    if reply.get("ok"):
        data = np.load(reply["results"])
        arrays = {n: data[n] for n in data.files}
        for pos, (k, _) in enumerate(items):
            outcomes[k] = Outcome(results={n: a[pos:pos + 1] for n, a in arrays.items()})
        return
    if reply.get("each"):
        rest = []
        for pos, item in enumerate(items):
            if str(pos) in reply["each"] or pos in reply["each"]:
                outcomes[item[0]] = Outcome(failure="error: " + reply["each"].get(str(pos), reply["each"].get(pos)))
            else:
                rest.append(item)
        if len(rest) < len(items):
            _run(worker, directory, rest, inputs_path, outcomes)
            return
    if reply["error"] in ("crash", "hang") or not (reply.get("files") or reply.get("lines")):
        if len(items) == 1:
            k = items[0][0]
            what = reply["error"] if reply["error"] in ("crash", "hang") else \
                "error: " + reply.get("message", "")
            outcomes[k] = Outcome(failure=what)
            return
        half = len(items) // 2
        _run(worker, directory, items[:half], inputs_path, outcomes)
        _run(worker, directory, items[half:], inputs_path, outcomes)
        return
    blamed = set(reply.get("files", [])) | {b.call_lines[ln] for ln in reply.get("lines", []) if ln in b.call_lines}
    if not blamed:
        # named only the batch kernel itself: halve
        if len(items) == 1:
            outcomes[items[0][0]] = Outcome(failure="error: " + reply.get("message", ""))
            return
        half = len(items) // 2
        _run(worker, directory, items[:half], inputs_path, outcomes)
        _run(worker, directory, items[half:], inputs_path, outcomes)
        return
    rest = []
    for pos, item in enumerate(items):
        if pos in blamed:
            outcomes[item[0]] = Outcome(failure="error: " + reply.get("message", ""))
        else:
            rest.append(item)
    _run(worker, directory, rest, inputs_path, outcomes)
