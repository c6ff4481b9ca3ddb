"""The settings module (issue 39): every CUDAJIT_* variable declared once in cudajit/settings.py, read there and
nowhere else (Python or C++), documented by the README's table, passed to the C++ core as they change."""
import pathlib
import re
import subprocess
import sys

import pytest

from cudajit import settings

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_no_other_source_reads_a_cudajit_variable():
    readers = re.compile(r"""(getenv|environ\.get|environ\[|environ\.pop)\(?\s*["']CUDAJIT_""")
    found = []
    for path in [*ROOT.glob("python/cudajit/**/*.py"), *ROOT.glob("src/**/*.[ch]*"), *ROOT.glob("kernels/**/*.h")]:
        if path.name == "settings.py":
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if readers.search(line):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not found, "read outside cudajit/settings.py:\n" + "\n".join(found)


def test_the_readme_table_is_the_settings_table():
    text = (ROOT / "README.md").read_text()
    rows = re.findall(r"^\| `(CUDAJIT_\w+)` \| (.*?) \| (.*?) \|$", text, re.MULTILINE)
    assert rows == [(s.name, s.takes, s.doc) for s in settings.SETTINGS]


@pytest.mark.parametrize("name, text, want", [
    ("CUDAJIT_BACKEND", "", "auto"), ("CUDAJIT_BACKEND", " GPU ", "gpu"), ("CUDAJIT_BOUNDSCHECK", "1", True),
    ("CUDAJIT_BOUNDSCHECK", "", None), ("CUDAJIT_CACHE_MAX", "2GiB", 2 << 30), ("CUDAJIT_CACHE_MAX", "1.5T", 3 << 39),
    ("CUDAJIT_CACHE_MAX", "700B", 700), ("CUDAJIT_CPU_PCH", "0", False), ("CUDAJIT_CPU_PCH", "yes", True),
    ("CUDAJIT_NUM_THREADS", "3", 3), ("CUDAJIT_NUM_THREADS", "5000", 1024), ("CUDAJIT_CPU_STACK", "1M", 1 << 20),
    ("CUDAJIT_CPU_STACK", "16384", 16384), ("CUDAJIT_CPU_SANITIZE", "address,undefined", "address,undefined"),
    ("CUDAJIT_IPC_POOL", "0", False), ("CUDAJIT_IPC_POOL", "", True), ("CUDAJIT_FULL_TRACEBACK", "1", True),
    ("CUDAJIT_CHECK_NVRTC", "0", False), ("CUDAJIT_CACHE_DIR", "/some/where", "/some/where"),
])
def test_values_are_read_as_documented(monkeypatch, name, text, want):
    monkeypatch.setenv(name, text)
    assert settings.value(name) == want


@pytest.mark.parametrize("name, text, what", [
    ("CUDAJIT_BACKEND", "tpu", "a backend: use 'gpu', 'cpu' or 'auto'"), ("CUDAJIT_CACHE_MAX", "-5M", "a cache size"),
    ("CUDAJIT_CACHE_MAX", "1e30", "a cache size"), ("CUDAJIT_CPU_SANITIZE", "address,", "a list of sanitizers"),
    ("CUDAJIT_CPU_SANITIZE", "address;rm -rf", "a list of sanitizers"),
])
def test_a_malformed_value_that_cannot_be_ignored_names_the_variable(monkeypatch, name, text, what):
    monkeypatch.setenv(name, text)
    with pytest.raises(settings.SettingError, match=re.escape(f"{name}={text!r} is not {what}")):
        settings.value(name)


@pytest.mark.parametrize("name, text", [("CUDAJIT_BOUNDSCHECK", "maybe"), ("CUDAJIT_NUM_THREADS", "0"),
                                        ("CUDAJIT_CPU_STACK", "8K")])
def test_a_malformed_value_that_can_be_ignored_warns_as_numba(monkeypatch, name, text):
    monkeypatch.setenv(name, text)
    with pytest.warns(RuntimeWarning, match=f"Environment variable '{name}' is defined but its associated value "
                                            f"'{text}' could not be parsed"):
        assert settings.value(name) == settings.BY_NAME[name].default


def test_the_core_follows_the_environment(monkeypatch, tmp_path):
    from cudajit import _core
    monkeypatch.setenv("CUDAJIT_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.setenv("CUDAJIT_CACHE_MAX", "3M")
    monkeypatch.setenv("CUDAJIT_CPU_PCH", "0")
    assert _core.cache_size_limit() == 3 << 20            # a binding that reads a setting syncs first
    held = _core.settings()
    assert (held["cache_dir"], held["cache_max"], held["cpu_pch"]) == (str(tmp_path / "c"), 3 << 20, False)
    monkeypatch.delenv("CUDAJIT_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert _core.cache_dir() == str(tmp_path / "xdg" / "cudajit")
    monkeypatch.setenv("CUDAJIT_CACHE_MAX", "lots")
    with pytest.raises(ValueError, match="CUDAJIT_CACHE_MAX='lots' is not a cache size"):
        _core.cache_size_limit()
    assert _core.settings()["cache_max"] == 3 << 20        # nothing was passed


def test_a_malformed_value_does_not_stop_the_import():
    code = ("import cudajit._core, cudajit.cache\n"
            "try:\n    cudajit.cache.limit()\nexcept ValueError as e:\n    print('raised:', e)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(pathlib.Path(settings.__file__).parents[1]),
                               "HOME": "/tmp", "CUDAJIT_CACHE_MAX": "5X"})
    assert proc.returncode == 0, proc.stderr
    assert "raised: CUDAJIT_CACHE_MAX='5X' is not a cache size" in proc.stdout
