#!/usr/bin/env python3
"""Execute the notebooks top to bottom and save them with their outputs and plots (nbclient).

    python3 tools/run_notebooks.py                 # every notebooks/*.ipynb, in place
    python3 tools/run_notebooks.py --check A.ipynb  # execute only; leave the files as they are

The lead runs it on a GPU machine so that the committed notebooks show GPU results; tests/test_notebooks.py
calls ``execute`` with ``save=False`` so CI fails on any error. The kernel finds the same cudajit as this
script (its folder goes first on the kernel's PYTHONPATH), so an in-place build works without installing.
Needs nbclient, nbformat and ipykernel (the ``test`` extra); tools/notebook_wheels.txt lists their wheels for
a machine without a package index.
"""
import argparse
import os
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def kernel_env():
    """The environment for the notebook's kernel: this process's, with cudajit's folder on PYTHONPATH."""
    import cudajit
    package_parent = str(pathlib.Path(cudajit.__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([package_parent] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep)
                                                            if p])
    env.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    return env


def execute(path, timeout=600, save=True):
    """Run the notebook at ``path`` in a fresh kernel started in its folder; raise on the first failing cell
    (nbclient's CellExecutionError names the cell and the traceback). Returns the executed notebook."""
    import nbclient
    import nbformat
    path = pathlib.Path(path)
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute(env=kernel_env())
    if save:
        nbformat.write(nb, path)
    return nb


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=pathlib.Path,
                        default=sorted((ROOT / "notebooks").glob("*.ipynb")))
    parser.add_argument("--check", action="store_true", help="execute without saving the outputs")
    parser.add_argument("--timeout", type=int, default=600, help="seconds a cell may run (default 600)")
    args = parser.parse_args()
    failed = []
    for path in args.notebooks:
        start = time.perf_counter()
        try:
            execute(path, args.timeout, save=not args.check)
            status = "ok"
        except Exception as e:  # report every notebook, then fail
            failed.append(path)
            status = f"FAILED: {type(e).__name__}: {str(e)[-2000:]}"
        print(f"{path.name}: {time.perf_counter() - start:.1f} s, {status}", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
