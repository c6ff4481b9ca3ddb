"""docs/SUPPORTED.md cannot rot: every row names a test that exists (the function, and its parametrize id)."""
import ast
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROW = re.compile(r"^\| (?P<item>.+?) \| (?P<doc>.+?) \| (?P<status>.+?) \| `(?P<test>[^`]+)` \|$")


def _rows():
    with open(os.path.join(ROOT, "docs", "SUPPORTED.md")) as f:
        return [m.groupdict() for m in map(ROW.match, f.read().splitlines()) if m]


def _functions(path):
    with open(os.path.join(ROOT, path)) as f:
        tree = ast.parse(f.read())
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}


def test_every_row_names_an_existing_test():
    rows = _rows()
    assert len(rows) > 150, "docs/SUPPORTED.md lost its table"
    for row in rows:
        path, _, name = row["test"].partition("::")
        func, _, case = name.partition("[")
        assert func in _functions(path), f"{row['item']}: no test {func} in {path}"
        if case:
            with open(os.path.join(ROOT, path)) as f:
                assert f'"{case[:-1]}"' in f.read(), f"{row['item']}: {path} has no case {case[:-1]!r}"


def test_every_status_is_one_of_the_four():
    for row in _rows():
        assert row["status"].split(":")[0].split(" (")[0] in ("supported", "error", "gap"), row
