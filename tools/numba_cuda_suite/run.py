"""Run numba-cuda's own test files (numba/cuda/tests/cudapy/test_*.py of its wheel) against cudajit.

    python3 tools/numba_cuda_suite/run.py NUMBA_CUDA_TESTS_DIR [test_x.py ...] [--timeout S] [-- PYTEST_ARGS]

Each file runs in its own pytest process with ``numba_shim`` installed first (``from numba import cuda`` is
cudajit's), from a copy in a temporary folder so that pytest does not import numba-cuda's real package. Prints
one line per file: passed / failed / errors / skipped, and the first lines of each failure with -v.
"""
import argparse
import os
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
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args, pytest_args = ap.parse_args(argv[:cut]), argv[cut + 1:]
    files = args.files or sorted(p.name for p in args.tests_dir.glob("test_*.py"))
    work = Path(tempfile.mkdtemp(prefix="nc-suite-"))
    (work / "numba").mkdir()
    (work / "numba" / "__init__.py").write_text(NUMBA_INIT.format(here=str(HERE)))
    (work / "conftest.py").write_text("import numba  # noqa: F401 (installs the shim)\n")
    for usecase in args.tests_dir.glob("*.py"):
        if not usecase.name.startswith("__"):
            shutil.copy(usecase, work / usecase.name)
    # absolute: the tests run in ``work``, where PYTHONPATH=python would miss the checkout and import an installed copy
    inherited = [os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    pythonpath = os.pathsep.join([str(work), *inherited])
    env = dict(os.environ, PYTHONPATH=pythonpath, COLUMNS="400", NC_SUITE_DIR=str(work), NC_TESTS_DATA=str(args.tests_dir.parent / "data"))
    totals = {}
    for name in files:
        # the file is imported as numba.cuda.tests.cudapy.<name> (its relative imports then work) by a wrapper
        # that pytest collects
        wrapper = work / ("run_" + name)
        wrapper.write_text(f"from numba.cuda.tests.cudapy.{name[:-3]} import *  # noqa\n")
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--import-mode=importlib",
               "-rfE", "--tb=line", str(wrapper), *pytest_args]
        try:
            out = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=args.timeout).stdout
        except subprocess.TimeoutExpired:
            out = "TIMEOUT"
        counts = {k: int(n) for n, k in re.findall(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)", out)}
        if "errors" in counts:
            counts["error"] = counts.pop("errors")
        for k, n in counts.items():
            totals[k] = totals.get(k, 0) + n
        line = ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or out.strip().splitlines()[-1:] or "?"
        print(f"{name}: {line}", flush=True)
        if args.verbose:
            for ln in out.splitlines():
                if ln.startswith(("FAILED", "ERROR")):
                    print("   ", ln[:300])
    print("TOTAL:", ", ".join(f"{n} {k}" for k, n in sorted(totals.items())))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
