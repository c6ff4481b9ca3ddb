"""Run numba-cuda's own test files (numba/cuda/tests/cudapy/test_*.py of its wheel) against cudajit.

    python3 tools/numba_cuda_suite/run.py NUMBA_CUDA_TESTS_DIR [test_x.py ...] [--timeout S] [-v]
        [--record FILE] [--reasons FILE] [--expect FILE] [-- PYTEST_ARGS]

Each file runs in its own pytest process with ``numba_shim`` installed first (``from numba import cuda`` is
cudajit's), from a copy in a temporary folder so that pytest does not import numba-cuda's real package. Prints
one line per file: passed / failed / errors / skipped, and each failure's summary line with -v.

--record FILE writes the tests that passed (``test_file.py::Class::test``, one a line). --reasons FILE writes each test
that failed or errored with its one-line reason: ``numba internal`` (it reads numba's IR, typing templates, LLVM,
NVVM or data models), ``wording`` (it compares a message's text), ``ptx`` (it compares PTX text), else ``gap``, and
the error's first line. --expect FILE runs the files
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
    ap.add_argument("--reasons", type=Path)
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
    totals, passed, failed = {}, set(), {}
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
        passed |= _passed(work / "junit.xml", name, failed)
        counts = {k: int(n) for n, k in re.findall(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)", out)}
        if "errors" in counts:
            counts["error"] = counts.pop("errors")
        for k, n in counts.items():
            totals[k] = totals.get(k, 0) + n
        line = ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or out.strip().splitlines()[-1:] or "?"
        print(f"{name}: {line}", flush=True)
        if args.record:                 # after each file: a run stopped midway keeps what it has seen
            args.record.write_text("".join(t + "\n" for t in sorted(passed)))
        if args.reasons:
            _write_reasons(args.reasons, failed)
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
    if args.reasons:
        _write_reasons(args.reasons, failed)
    lost = sorted(expected - passed)
    if lost:
        print(f"{len(lost)} of the {len(expected)} expected tests did not pass:", *lost, sep="\n  ")
        sys.exit(1)


def _passed(junit, name, failed):
    """The tests of one file that passed, as ``name::Class::test``, from pytest's JUnit XML; those that failed or
    errored go into ``failed`` with their message."""
    if not junit.exists():
        failed[f"{name}::(the whole file)"] = "no report: it timed out or crashed"
        return set()
    out = set()
    for case in ET.parse(junit).getroot().iter("testcase"):
        cls = case.get("classname", "").rsplit(".", 1)[-1]
        test = f"{name}::{cls}::{case.get('name')}" if cls else f"{name}::{case.get('name')}"
        bad = [child for child in case if child.tag in ("failure", "error")]
        if bad:
            failed[test] = bad[0].get("message") or (bad[0].text or "").strip().splitlines()[-1:][0:1] or "?"
        elif not any(child.tag == "skipped" for child in case):
            out.add(test)
    junit.unlink()
    return out


# A failure's reason, by its message: the first rule that matches
_NUMBA_INTERNAL = re.compile(
    r"inspect_llvm|inspect_sass_cfg|_type_annotation|typemap|llvmlite|llvm|LLVM|nvvm|NVVM|FileCheck|StructModel|"
    r"numba\.core\.|numba\.cuda\.(descriptor|core|typing|lowering|target|codegen|cudadrv\.nvvm|extending|models|"
    r"cgutils|np\.|types\.|datamodel|compiler)|data model|register_model|lower_|overload_|typing_context|"
    r"target_context|_Specialization' object has no attribute|No module named 'numba|cannot import name .* from "
    r"'numba|get_ir|func_ir|\bIR\b|dispatcher's internals|CUDACodeLibrary|library\.|_codelib")
_PTX = re.compile(r"\b(ptx|PTX|asm|sass|SASS)\b|ld\.global|st\.global|\bbra\b")
_WORDING = re.compile(r"not found in|does not match|Regex didn't match|not in '|AssertionError: '")


def reason(message):
    """``numba internal``, ``ptx``, ``wording`` or ``gap`` for a failure's message."""
    if _NUMBA_INTERNAL.search(message):
        return "numba internal"
    if _PTX.search(message):
        return "ptx"
    if _WORDING.search(message):
        return "wording"
    return "gap"


def _write_reasons(path, failed):
    rows = [f"{test} -- {reason(msg)}: {' '.join(msg.split())[:240]}" for test, msg in sorted(failed.items())]
    counts = {}
    for test, msg in failed.items():
        counts[reason(msg)] = counts.get(reason(msg), 0) + 1
    head = ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "none"
    path.write_text(f"# {len(failed)} tests did not pass: {head}\n" + "".join(r + "\n" for r in rows))


if __name__ == "__main__":
    main()
