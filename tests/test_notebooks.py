"""Every notebook in notebooks/ runs top to bottom, in a fresh Jupyter kernel, on the backend this machine has
(the CPU backend in CI). A cell that raises -- a failed assert against NumPy included -- fails the test."""
import importlib.util
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

pytest.importorskip("nbclient", reason="the test extra (nbclient, ipykernel) runs the notebooks")
pytest.importorskip("ipykernel", reason="the test extra (nbclient, ipykernel) runs the notebooks")


def _runner():
    spec = importlib.util.spec_from_file_location("run_notebooks", ROOT / "tools" / "run_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_all_six_notebooks_are_present():
    names = {p.stem for p in NOTEBOOKS}
    assert "quickstart" in names and len(names) == 6, names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path):
    nb = _runner().execute(path, timeout=300, save=False)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
    assert all(c.get("execution_count") for c in nb.cells if c.cell_type == "code" and c.source.strip())
