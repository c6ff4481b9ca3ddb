"""The documentation site (docs/, Sphinx): it builds with warnings as errors, a real headless browser renders its
front page and an API page (screenshots), every internal link resolves, the kernel reference covers the whole
intrinsic registry, and the user guide's examples run.

The build and the browser are slow (marked slow in conftest.py: CI runs them, ``pytest --slow``). ``CUDAJIT_DOCS_HTML``
names an already built site to check instead of building one; ``CUDAJIT_DOCS_SCREENSHOTS`` a folder to keep the
screenshots in. Without Sphinx or Chromium these tests skip, unless ``CUDAJIT_REQUIRE_DOCS=1`` (CI) makes that a
failure.
"""
import html.parser
import os
import re
import shutil
import struct
import subprocess
import sys
import urllib.parse
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
REQUIRED = os.environ.get("CUDAJIT_REQUIRE_DOCS") == "1"


def _need(what, found):
    if not found:
        if REQUIRED:
            pytest.fail(f"CUDAJIT_REQUIRE_DOCS=1 but {what} is missing")
        pytest.skip(f"{what} is not installed")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The built site's folder: $CUDAJIT_DOCS_HTML, or a fresh build with -W (warnings fail it)."""
    given = os.environ.get("CUDAJIT_DOCS_HTML")
    if given:
        return Path(given)
    try:
        import myst_parser  # noqa: F401
        import sphinx  # noqa: F401
        found = True
    except ImportError:
        found = False
    _need('Sphinx and myst-parser (pip install ".[docs]")', found)
    out = tmp_path_factory.mktemp("docs") / "html"
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(DOCS),
                           str(out)], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"the docs build failed or warned:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return out


class _Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.links = set(), []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name"):
            if a.get(key):
                self.ids.add(a[key])
        for key in ("href", "src"):
            if a.get(key) and tag in ("a", "link", "script", "img"):
                self.links.append(a[key])


def _parse(path):
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def test_every_internal_link_resolves(site):
    pages = {p: _parse(p) for p in site.rglob("*.html")}
    assert len(pages) >= 15
    broken, checked = [], 0
    for path, page in pages.items():
        for link in page.links:
            parts = urllib.parse.urlsplit(link)
            if parts.scheme or link.startswith("//"):
                continue                                  # external: not this site's business
            target = (path.parent / urllib.parse.unquote(parts.path)).resolve() if parts.path else path
            checked += 1
            if not target.exists():
                broken.append(f"{path.relative_to(site)}: {link} (no {target})")
            elif parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else _parse(target).ids
                if urllib.parse.unquote(parts.fragment) not in ids:
                    broken.append(f"{path.relative_to(site)}: {link} (no id {parts.fragment!r})")
    assert checked > 500
    assert not broken, f"{len(broken)} broken internal link(s):\n" + "\n".join(broken[:50])


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _browser(*args, timeout=120):
    exe = _chromium()
    _need("Chromium (apt-get install chromium)", exe)
    # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
           "--no-first-run", "--user-data-dir=" + os.environ.get("TMPDIR", "/tmp") + f"/cj-chromium-{os.getpid()}",
           *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def _png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24]), len(data)


@pytest.mark.parametrize("page,expect", [
    ("index.html", ["numba.cuda", "programming model", "Where to start", "CPU backend"]),
    ("reference/kernel.html", ["cuda.atomic.add", "cuda.shfl_down_sync", "cuda.threadIdx.x", "math.sqrt"]),
    ("reference/kernels.html", ["jit(", "boundscheck", "forall", "inspect_source", "reduce("]),
])
def test_browser_renders_the_page(site, tmp_path, page, expect):
    url = (site / page).as_uri()
    dom = _browser("--virtual-time-budget=5000", "--dump-dom", url)
    assert dom.returncode == 0, dom.stderr[-2000:]
    text = re.sub(r"<[^>]+>", " ", dom.stdout)
    for words in expect:
        assert words in text, f"{page}: the rendered page lacks {words!r}"
    assert not re.search(r"\.\. [\w:-]+::|```", text), f"{page}: markup shown as text"
    assert "furo" in dom.stdout and "sidebar" in dom.stdout      # the theme's layout, not a bare page
    folder = Path(os.environ.get("CUDAJIT_DOCS_SCREENSHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    shot = folder / (page.replace("/", "_").replace(".html", "") + ".png")
    shot.unlink(missing_ok=True)
    run = _browser("--window-size=1280,1000", f"--screenshot={shot}", url)
    assert run.returncode == 0 and shot.exists(), run.stderr[-2000:]
    (width, height), nbytes = _png_size(shot)
    assert (width, height) == (1280, 1000)
    assert nbytes > 30_000, f"{shot}: {nbytes} bytes, too small for a rendered page"


def test_kernel_reference_covers_the_registry():
    # Every public registry name is in exactly one group of the kernel reference, so none is left undocumented
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import cudajit_intrinsics as ext
    finally:
        sys.path.pop(0)
    from cudajit.compiler.intrinsics import REGISTRY
    names = ext.public_names(REGISTRY)
    assert len(names) > 600
    assert [n for n in names if ext.group_of(n) is None] == []
    groups_on_pages = set()
    for page in (DOCS / "reference").glob("*.md"):
        groups_on_pages |= set(re.findall(r":group: (\w+)", page.read_text()))
    assert groups_on_pages == set(ext.GROUPS)


def _python_blocks(md):
    """The ```python blocks of a page (```py marks fragments that do not run on their own)."""
    return re.findall(r"^```python\n(.*?)^```", md.read_text(), re.S | re.M)


@pytest.mark.parametrize("md", sorted(p.name for p in (DOCS / "guide").glob("*.md")) + ["../index.md"])
def test_guide_examples_run(md, tmp_path):
    blocks = _python_blocks(DOCS / "guide" / md)
    if not blocks:
        pytest.skip(f"{md} has no python example")
    script = tmp_path / "example.py"
    script.write_text("\n".join(blocks))
    env = dict(os.environ, CUDAJIT_BACKEND="cpu",
               PYTHONPATH=os.pathsep.join([str(Path(__import__("cudajit").__file__).parents[1])] + sys.path[1:]))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600, env=env,
                          cwd=tmp_path)
    assert proc.returncode == 0, f"{md}'s examples failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
