"""The bad-input suite (tests/robustness/): every case in a child process, one test per category; a test
fails listing each case whose outcome is not the one the specification asks for (crash, hang, silent wrong
result, vague message, unexpected error). Run alone: ``python3 tests/robustness/runner.py --report``.

Until the fixes of issue 10 land, ``known_not_ok.txt`` lists the cases not ok today (``category/name`` per
line): they are reported, not failed, so that the suite guards against new failures now; the list must be
empty when issue 10 is done. A listed case that passes is reported too, to be struck off the list.
"""
import os
import sys
import warnings

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import runner  # noqa: E402


def _known_not_ok():
    with open(os.path.join(HERE, "known_not_ok.txt")) as f:
        return {line.split("#")[0].strip() for line in f if line.split("#")[0].strip()}


@pytest.fixture(scope="module")
def results():
    """Every case of every category, run once (two children at a time) for all the tests of this module."""
    return runner.run_cases(runner.load_cases(), jobs=int(os.environ.get("CUDAJIT_ROBUST_JOBS", "2")))


def test_suite_is_large_enough():
    cases = runner.load_cases()
    assert len({(c.category, c.name) for c in cases}) >= 350
    assert {c.category for c in cases} == set(runner.CATEGORIES)


@pytest.mark.parametrize("category", runner.CATEGORIES)
def test_category(results, category):
    backend, rows = results
    known = _known_not_ok()
    mine = [r for r in rows if r["category"] == category and r["outcome"] != "skipped"]
    bad = [r for r in mine if r["outcome"] != "ok" and f"{category}/{r['name']}" not in known]
    fixed = [r["name"] for r in mine if r["outcome"] == "ok" and f"{category}/{r['name']}" in known]
    if fixed:
        warnings.warn(f"{category}: now ok, strike off known_not_ok.txt: {', '.join(fixed)}")
    assert not bad, f"{len(bad)} case(s) not ok on {backend}:\n" + "\n".join(
        f"  {r['name']}: {r['outcome']}: {' '.join(r['detail'].split())[:300]}" for r in bad)
