"""``cudajit.__version__``: the installed distribution's version (pyproject.toml's, through the package metadata).

Read on first use, not at import (``importlib.metadata`` scans every directory of ``sys.path``). Running from a
source checkout (``PYTHONPATH=python``), pyproject.toml beside the package wins: the metadata there may belong to
another installed copy.
"""
import os
import re

_SOURCE_PYPROJECT = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "pyproject.toml")


def _from_source_tree():
    try:
        with open(_SOURCE_PYPROJECT, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return None
    if not re.search(r'^name\s*=\s*"cudajit"', text, re.M):
        return None
    m = re.search(r'^version\s*=\s*"([^"]+)"', text, re.M)
    return m.group(1) if m else None


def version():
    found = _from_source_tree()
    if found:
        return found
    from importlib import metadata
    try:
        return metadata.version("cudajit")
    except metadata.PackageNotFoundError:       # copied somewhere without its metadata
        return "0+unknown"
