"""The bad-input suite (tests/robustness/): every case in a child process, one test per category; a test
fails listing each case whose outcome is not the one the specification asks for (crash, hang, silent wrong
result, vague message, unexpected error). Run alone: ``python3 tests/robustness/runner.py --report``.

Until the fixes of issue 10 land, ``known_not_ok.txt`` lists the cases not ok today (``category/name`` per
line): they are reported, not failed, so that the suite guards against new failures now; the list must be
empty when issue 10 is done. A listed case that passes is reported too, to be struck off the list.
"""
import json
import os
import subprocess
import sys
import tempfile
import warnings

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import runner  # noqa: E402


def _known_not_ok():
    with open(os.path.join(HERE, "known_not_ok.txt")) as f:
        return {line.split("#")[0].strip() for line in f if line.split("#")[0].strip()}


def _backends():
    from cudajit import _backend
    return _backend.available()


def _run_category(backend, category):
    """Every case of one category on one backend (one test each, so xdist spreads them and each reports as it ends).
    The fork server is a fresh interpreter (runner.py), whatever this pytest process has already imported, compiled
    or initialised."""
    jobs = os.environ.get("CUDAJIT_ROBUST_JOBS", str(min(8, max(2, os.cpu_count() or 2))))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "rows.json")
        env = dict(os.environ, CUDAJIT_BACKEND=backend, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        proc = subprocess.run([sys.executable, os.path.join(HERE, "runner.py"), "--jobs", jobs, "--json", out,
                               "--category", category], env=env, capture_output=True, text=True, timeout=1500)
        if not os.path.exists(out):
            pytest.fail(f"the robustness runner ended without results (exit {proc.returncode}):\n"
                        f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
        with open(out) as f:
            return json.load(f)


def test_suite_is_large_enough():
    cases = runner.load_cases()
    assert len({(c.category, c.name) for c in cases}) >= 350
    assert {c.category for c in cases} == set(runner.CATEGORIES)


@pytest.mark.parametrize("backend_name", _backends())
@pytest.mark.parametrize("category", runner.CATEGORIES)
def test_category(backend_name, category):
    backend = backend_name
    rows = _run_category(backend, category)
    known = _known_not_ok()
    mine = [r for r in rows if r["category"] == category and r["outcome"] != "skipped"]
    bad = [r for r in mine if r["outcome"] != "ok" and f"{category}/{r['name']}" not in known]
    fixed = [r["name"] for r in mine if r["outcome"] == "ok" and f"{category}/{r['name']}" in known]
    if fixed:
        warnings.warn(f"{category}: now ok, strike off known_not_ok.txt: {', '.join(fixed)}")
    assert not bad, f"{len(bad)} case(s) not ok on {backend}:\n" + "\n".join(
        f"  {r['name']}: {r['outcome']}: {' '.join(r['detail'].split())[:2500 if r['outcome'] == 'hang' else 300]}" for r in bad)
