"""Run numba-cuda's own test files (numba/cuda/tests/cudapy/test_*.py of its wheel) against cudajit.

    python3 tools/numba_cuda_suite/run.py NUMBA_CUDA_TESTS_DIR [test_x.py ...] [--timeout S] [-v]
        [--record FILE] [--expect FILE] [-- PYTEST_ARGS]

Each file runs in its own pytest process with ``numba_shim`` installed first (``from numba import cuda`` is
cudajit's), from a copy in a temporary folder so that pytest does not import numba-cuda's real package. Prints
one line per file: passed / failed / errors / skipped, and each failure's summary line with -v.

--record FILE writes the tests that passed (``test_file.py::Class::test``, one a line). --expect FILE runs the files
such a list names (when no file is given) and exits 1 naming every listed test that did not pass: CI's guard that
what runs unchanged keeps running (``expected_cpu.txt``, recorded on the CPU backend).
"""
import argparse
import os
import xml.etree.ElementTree as ET
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
# a ``numba`` package first on PYTHONPATH: importing it installs the shim, in the tests' process and in the
# subprocesses some tests start (``python -c "from numba import cuda ..."``)
NUMBA_INIT = """\
import sys
sys.path.insert(0, {here!r})
import numba_shim
numba_shim.install()
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tests_dir", type=Path)
    ap.add_argument("files", nargs="*")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--record", type=Path)
    ap.add_argument("--expect", type=Path)
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args, pytest_args = ap.parse_args(argv[:cut]), argv[cut + 1:]
    expected = set(args.expect.read_text().split()) if args.expect else set()
    files = args.files or sorted({t.split("::")[0] for t in expected}) or sorted(
        p.name for p in args.tests_dir.glob("test_*.py"))
    # the files run in <tmp>/cudapy beside <tmp>/data, as in the wheel: tests find their data as ../data of __file__
    root = Path(tempfile.mkdtemp(prefix="nc-suite-"))
    work = root / "cudapy"
    work.mkdir()
    if (args.tests_dir.parent / "data").is_dir():
        (root / "data").symlink_to((args.tests_dir.parent / "data").resolve())
    (work / "numba").mkdir()
    (work / "numba" / "__init__.py").write_text(NUMBA_INIT.format(here=str(HERE)))
    (work / "conftest.py").write_text("import numba  # noqa: F401 (installs the shim)\n")
    for usecase in args.tests_dir.glob("*.py"):
        if not usecase.name.startswith("__"):
            shutil.copy(usecase, work / usecase.name)
    # folders beside the tests hold what they link or read (doc_examples/ffi: the .cu files of the FFI examples)
    for folder in args.tests_dir.iterdir():
        if folder.is_dir() and not folder.name.startswith("__"):
            shutil.copytree(folder, work / folder.name)
    # the tests run in ``work``: PYTHONPATH's relative folders (PYTHONPATH=python) are made absolute first
    inherited = [os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    pythonpath = os.pathsep.join([str(work), *inherited])
    env = dict(os.environ, PYTHONPATH=pythonpath, COLUMNS="400", NC_SUITE_DIR=str(work), NC_TESTS_DATA=str((args.tests_dir.parent / "data").resolve()))
    totals, passed = {}, set()
    for name in files:
        # the file is imported as numba.cuda.tests.cudapy.<name> (its relative imports then work) by a wrapper
        # that pytest collects
        wrapper = work / ("run_" + name)
        wrapper.write_text(f"from numba.cuda.tests.cudapy.{name[:-3]} import *  # noqa\n")
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--import-mode=importlib",
               "-rfE", "--tb=line", f"--junitxml={work / 'junit.xml'}", str(wrapper), *pytest_args]
        try:
            out = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=args.timeout).stdout
        except subprocess.TimeoutExpired:
            out = "TIMEOUT"
        passed |= _passed(work / "junit.xml", name)
        counts = {k: int(n) for n, k in re.findall(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)", out)}
        if "errors" in counts:
            counts["error"] = counts.pop("errors")
        for k, n in counts.items():
            totals[k] = totals.get(k, 0) + n
        line = ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or out.strip().splitlines()[-1:] or "?"
        print(f"{name}: {line}", flush=True)
        if args.record:                 # after each file: a run stopped midway keeps what it has seen
            args.record.write_text("".join(t + "\n" for t in sorted(passed)))
        if args.verbose:
            lines = out.splitlines()
            for ln in lines:
                if ln.startswith(("FAILED", "ERROR", "SUBFAIL")):
                    print("   ", ln[:300])
            if "error" in counts:       # a collection error's summary line has no reason: show the raise
                for ln in [ln for ln in lines if ln.startswith("E ")][-4:]:
                    print("     ", ln[:300])
    print("TOTAL:", ", ".join(f"{n} {k}" for k, n in sorted(totals.items())))
    if os.environ.get("NC_KEEP"):
        print("kept:", work)
    else:
        shutil.rmtree(root, ignore_errors=True)
    if args.record:
        args.record.write_text("".join(t + "\n" for t in sorted(passed)))
    lost = sorted(expected - passed)
    if lost:
        print(f"{len(lost)} of the {len(expected)} expected tests did not pass:", *lost, sep="\n  ")
        sys.exit(1)


def _passed(junit, name):
    """The tests of one file that passed, as ``name::Class::test``, from pytest's JUnit XML."""
    if not junit.exists():
        return set()
    out = set()
    for case in ET.parse(junit).getroot().iter("testcase"):
        if not any(child.tag in ("failure", "error", "skipped") for child in case):
            cls = case.get("classname", "").rsplit(".", 1)[-1]
            out.add(f"{name}::{cls}::{case.get('name')}")
    junit.unlink()
    return out


if __name__ == "__main__":
    main()
