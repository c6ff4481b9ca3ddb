"""Sphinx configuration of cudajit's documentation site: ``python -m sphinx -W -b html docs docs/_build/html``.

Pages are Markdown (MyST), so README-style files (INSTALL.md, SUPPORTED.md, CHANGELOG.md) are pages as they are;
the API reference comes from the docstrings (autodoc) and, for what kernels call, from the compiler's intrinsic
registry (_ext/cudajit_intrinsics.py). INTERNALS.md is the contributors' document and stays out of the site.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "_ext"))
# The docs document the cudajit that imports: installed (pip install ".[docs]", as CI builds them) or, when none is,
# this checkout's sources, whose compiled core autodoc then stands in for (nothing here calls into it).
try:
    import cudajit._core  # noqa: F401
except ImportError:
    for name in [m for m in sys.modules if m == "cudajit" or m.startswith("cudajit.")]:
        del sys.modules[name]
    sys.path.insert(0, os.path.join(HERE, os.pardir, "python"))
    autodoc_mock_imports = ["cudajit._core"]

from cudajit._version import version as _version  # noqa: E402

project = "cudajit"
author = "the cudajit developers"
copyright = "2026, the cudajit developers"
release = version = _version()

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "cudajit_intrinsics",
    "cudajit_docstrings",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "INTERNALS.md", "README.md", "Thumbs.db", ".DS_Store"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
# Links to the repository's files (../tests/test_x.py, ../examples/demo.py) are not pages of the site: they are
# written for readers of the repository, and the site shows them as plain text.
myst_url_schemes = ["http", "https", "mailto"]

autodoc_member_order = "bysource"
autodoc_typehints = "none"          # the signatures carry Numba's names; docstrings say the types
add_module_names = False

html_theme = "furo"
html_title = f"cudajit {release}"
html_static_path = []
html_show_sourcelink = False
nitpicky = False
