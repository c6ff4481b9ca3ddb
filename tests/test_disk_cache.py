"""The disk cache (src/disk_cache.cpp): keys, round trips, corruption, atomic writes."""
import ctypes
import hashlib
import os
import shutil
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from cudajit import _core
import cudajit


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("CUDAJIT_CACHE_DIR", str(d))
    return d


def files_in(d):
    return sorted(os.listdir(d))


def test_key_is_sha256_of_length_prefixed_parts():
    expected = hashlib.sha256(struct.pack("<Q", 3) + b"abc" + struct.pack("<Q", 0)).hexdigest()
    assert _core.cache_key(["abc", ""]) == expected[:32]


def test_key_separates_parts():
    assert _core.cache_key(["ab", "c"]) != _core.cache_key(["a", "bc"])
    assert _core.cache_key(["x"]) == _core.cache_key(["x"])
    assert len(_core.cache_key([])) == 32


def test_directory_from_env_and_created(cache_dir):
    assert _core.cache_dir() == str(cache_dir)
    assert cache_dir.is_dir()


def test_directory_defaults_to_xdg_then_home(tmp_path, monkeypatch):
    monkeypatch.delenv("CUDAJIT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert _core.cache_dir() == str(tmp_path / "xdg" / "cudajit")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert _core.cache_dir() == str(tmp_path / "home" / ".cache" / "cudajit")


def test_round_trip(cache_dir):
    key = _core.cache_key(["round", "trip"])
    payload = bytes(range(256)) * 100 + b"tail"
    assert _core.cache_load(key, "bin") is None
    _core.cache_store(key, "bin", payload)
    assert _core.cache_load(key, "bin") == payload
    assert _core.cache_load(key, "other") is None
    # payload, then "CJCACHE1", size, checksum
    raw = (cache_dir / f"{key}.bin").read_bytes()
    assert raw[: len(payload)] == payload
    assert raw[len(payload):len(payload) + 8] == b"CJCACHE1"
    assert struct.unpack("<Q", raw[len(payload) + 8:len(payload) + 16])[0] == len(payload)
    assert len(raw) == len(payload) + 24


def test_empty_payload_and_overwrite(cache_dir):
    key = _core.cache_key(["empty"])
    _core.cache_store(key, "bin", b"")
    assert _core.cache_load(key, "bin") == b""
    _core.cache_store(key, "bin", b"second")
    assert _core.cache_load(key, "bin") == b"second"


@pytest.mark.parametrize("damage", ["truncate", "flip", "trailer", "empty", "grow"])
def test_corrupt_file_is_a_miss_and_deleted(cache_dir, damage):
    key = _core.cache_key(["corrupt", damage])
    payload = b"0123456789abcdef" * 64
    _core.cache_store(key, "bin", payload)
    path = cache_dir / f"{key}.bin"
    raw = bytearray(path.read_bytes())
    if damage == "truncate":
        raw = raw[: len(raw) - 30]
    elif damage == "flip":
        raw[100] ^= 0x01
    elif damage == "trailer":
        raw[-20] ^= 0xFF  # inside the magic
    elif damage == "empty":
        raw = bytearray()
    elif damage == "grow":
        raw = raw[:10] + b"x" + raw[10:]
    path.write_bytes(bytes(raw))
    assert _core.cache_load(key, "bin") is None
    assert not path.exists()
    assert _core.cache_path(key, "bin") is None
    _core.cache_store(key, "bin", payload)  # the next store repairs it
    assert _core.cache_load(key, "bin") == payload


def test_no_temp_files_left_under_concurrent_writers(cache_dir):
    key = _core.cache_key(["concurrent"])
    payloads = [bytes([i]) * (50_000 + i) for i in range(8)]

    def writer(p):
        for _ in range(20):
            _core.cache_store(key, "bin", p)
            got = _core.cache_load(key, "bin")
            assert got in payloads  # always a whole file, never a mix

    threads = [threading.Thread(target=writer, args=(p,)) for p in payloads]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert files_in(cache_dir) == [f"{key}.bin"]
    assert _core.cache_load(key, "bin") in payloads


def test_unsafe_names_are_refused(cache_dir):
    assert _core.cache_dir() == str(cache_dir)
    _core.cache_store("../escape", "bin", b"x")
    _core.cache_store("k", "../bin", b"x")
    assert _core.cache_load("../escape", "bin") is None
    assert files_in(cache_dir) == []
    assert not (cache_dir.parent / "escape.bin").exists()


def test_unwritable_directory_turns_caching_off(tmp_path, monkeypatch):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("CUDAJIT_CACHE_DIR", str(blocker / "cache"))
    assert _core.cache_dir() is None
    key = _core.cache_key(["off"])
    _core.cache_store(key, "bin", b"payload")  # silently nothing
    assert _core.cache_load(key, "bin") is None


def test_header_hash_follows_contents(tmp_path):
    def make(name, files):
        root = tmp_path / name
        for rel, text in files.items():
            p = root / "cudajit" / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
        return str(root)

    a = make("a", {"runtime.h": "int x;", "sub/more.h": "int y;"})
    b = make("b", {"runtime.h": "int x;", "sub/more.h": "int y;"})
    c = make("c", {"runtime.h": "int x;", "sub/more.h": "int z;"})
    d = make("d", {"runtime.h": "int x;", "sub/other.h": "int y;"})
    assert _core.header_hash(a) == _core.header_hash(b)
    assert _core.header_hash(a) != _core.header_hash(c)
    assert _core.header_hash(a) != _core.header_hash(d)
    assert len(_core.header_hash(str(tmp_path / "missing"))) == 32


def test_header_hash_is_recorded_by_the_files_identity(tmp_path, monkeypatch, rng):
    """A fresh process reads the hash of the very same files from the cache instead of hashing them; an edited
    header (even one of the same size) is hashed again, and a changed record is never taken for other files."""
    monkeypatch.setenv("CUDAJIT_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "inc" / "cudajit"
    root.mkdir(parents=True)
    body = "".join(f"int v{k} = {int(rng.integers(1 << 30))};\n" for k in range(200))
    (root / "runtime.h").write_text(body)
    (root / "more.h").write_text("int y;")

    def fresh():      # header_hash is kept per directory for the process: ask a new one
        code = "import sys; from cudajit import _core; print(_core.header_hash(sys.argv[1]))"
        out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "inc")], capture_output=True, text=True,
                             env=dict(os.environ), check=True)
        return out.stdout.strip()

    def by_content():
        sha = hashlib.sha256()
        for name in sorted(["more.h", "runtime.h"]):
            data = (root / name).read_bytes()
            sha.update(struct.pack("<Q", len(name)) + name.encode() + struct.pack("<Q", len(data)) + data)
        return sha.hexdigest()[:32]

    first = fresh()
    assert first == by_content()
    records = list((tmp_path / "cache").glob("*.headers"))
    assert len(records) == 1 and records[0].read_bytes()[:32].decode() == first
    assert fresh() == first                                  # read from the record
    # a record is only trusted for the files it names: a forged one for these files is what a later process reads,
    # which shows the hash came from the record and not from the files
    forged = "0" * 32
    _core.cache_store(records[0].stem, "headers", forged.encode())
    assert fresh() == forged
    # the same size, other contents: the change time moves, the hash follows the contents again
    time.sleep(0.01)
    (root / "runtime.h").write_text(body.replace("int v0", "int w0"))
    assert fresh() == by_content() != first
    assert len(list((tmp_path / "cache").glob("*.headers"))) == 2


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_shared_object_with_trailer_still_loads(cache_dir, tmp_path):
    src = tmp_path / "f.c"
    src.write_text("int cj_answer(void) { return 42; }\n")
    so = tmp_path / "f.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(so), str(src)], check=True)
    key = _core.cache_key(["so", "test"])
    _core.cache_store(key, "so", so.read_bytes())
    path = _core.cache_path(key, "so")
    assert path == str(cache_dir / f"{key}.so")
    lib = ctypes.CDLL(path)
    assert lib.cj_answer() == 42


# ---- upkeep: size, limit, eviction, stale temporary files, read-only directories (cudajit.cache) -----------

def _age(path, seconds):
    t = time.time() - seconds
    os.utime(path, (t, t))


def test_size_and_clear(cache_dir):
    import cudajit.cache
    assert cudajit.cache.directory() == str(cache_dir)
    payloads = [os.urandom(1000 * (i + 1)) for i in range(3)]
    for i, p in enumerate(payloads):
        _core.cache_store(_core.cache_key([str(i)]), "bin", p)
    assert cudajit.cache.size() == sum(len(p) + 24 for p in payloads)   # payload and trailer
    (cache_dir / "notes.txt.keep").write_text("not ours")                # not an entry: left alone
    assert cudajit.cache.clear() == 3
    assert cudajit.cache.size() == 0
    assert files_in(cache_dir) == ["notes.txt.keep"]


@pytest.mark.parametrize("text, expected", [("", 1 << 30), ("1024", 1024), ("500M", 500 << 20), ("2G", 2 << 30),
                                            ("2GiB", 2 << 30), ("10kb", 10 << 10), ("1.5T", 3 << 39), ("700B", 700)])
def test_size_limit_parses(monkeypatch, text, expected):
    import cudajit.cache
    monkeypatch.setenv("CUDAJIT_CACHE_MAX", text)
    assert cudajit.cache.limit() == expected


@pytest.mark.parametrize("text", ["abc", "-5M", "0", "5X", "1e30", "M", "nan"])
def test_bad_size_limit_is_a_clear_error(cache_dir, monkeypatch, text):
    import cudajit.cache
    monkeypatch.setenv("CUDAJIT_CACHE_MAX", text)
    with pytest.raises(ValueError, match=f"CUDAJIT_CACHE_MAX='{text}' is not a cache size.*500M"):
        cudajit.cache.limit()
    with pytest.raises(ValueError, match="CUDAJIT_CACHE_MAX"):   # also where it is used: storing
        _core.cache_store(_core.cache_key(["x"]), "bin", b"payload")


def test_least_recently_used_entries_are_evicted(cache_dir, monkeypatch):
    monkeypatch.setenv("CUDAJIT_CACHE_MAX", "350K")
    keys = {name: _core.cache_key([name]) for name in "abcd"}
    payload = os.urandom(100_000)
    for age, name in ((300, "a"), (200, "b"), (100, "c")):
        _core.cache_store(keys[name], "bin", payload)
        _age(cache_dir / f"{keys[name]}.bin", age)
    assert _core.cache_load(keys["a"], "bin") == payload     # a hit makes "a" the most recent
    _core.cache_store(keys["d"], "bin", payload)              # 400 KB > 350 KB: the least recent goes
    assert files_in(cache_dir) == sorted(f"{keys[n]}.bin" for n in "acd")


def test_stale_temporary_files_are_removed(cache_dir):
    cache_dir.mkdir(exist_ok=True)
    stale = [cache_dir / "tmp-0123456789abcdef-999-0.cpp", cache_dir / ".0123.bin.tmp.999.1.2"]
    fresh = cache_dir / "tmp-fedcba9876543210-998-0.so"       # a compile in progress
    for f in stale + [fresh]:
        f.write_bytes(b"partial")
    for f in stale:
        _age(f, 20 * 60)
    key = _core.cache_key(["trigger"])
    _core.cache_store(key, "bin", b"payload")
    assert files_in(cache_dir) == sorted([f"{key}.bin", fresh.name])


READ_ONLY_SCRIPT = """
import numpy as np
from cudajit import cuda, cache

@cuda.jit
def axpy(out, a, x):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + 1.0

x = np.random.default_rng(0).random(100)
out = np.zeros(100)
axpy[1, 128](out, 2.0, x)
assert np.allclose(out, 2.0 * x + 1.0)
print("cache", cache.directory(), cache.size())
"""

FAILING_COMPILER = """#!/bin/sh
case "$1" in --version|-dumpmachine) exec g++ "$@";; esac
echo "the compiler ran: the cache was not read" >&2
exit 1
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_read_only_cache_is_still_read(tmp_path):
    script = tmp_path / "kernel.py"
    script.write_text(READ_ONLY_SCRIPT)
    fake = tmp_path / "fake-g++"
    fake.write_text(FAILING_COMPILER)
    fake.chmod(0o755)
    cache = tmp_path / "cache"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUDAJIT_")}
    env.update(PYTHONPATH=str(Path(cudajit.__file__).resolve().parents[1]), CUDAJIT_BACKEND="cpu",
               CUDAJIT_CACHE_DIR=str(cache), CXX="g++")
    subprocess.run([sys.executable, str(script)], env=env, check=True, capture_output=True)   # fills the cache
    for f in [cache, *cache.iterdir()]:
        f.chmod(0o555 if f.is_dir() else 0o444)
    # root ignores permission bits: drop the capabilities that let it
    drop = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner", "--"] if os.geteuid() == 0 else []
    if drop and shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: a read-only directory cannot be made")
    env["CXX"] = str(fake)
    try:
        proc = subprocess.run(drop + [sys.executable, str(script)], env=env, capture_output=True, text=True)
    finally:
        cache.chmod(0o755)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split()[:2] == ["cache", str(cache)]


def test_entry_replaced_by_a_directory_is_a_miss(cache_dir):
    key = _core.cache_key(["replaced"])
    _core.cache_store(key, "bin", b"payload")
    path = cache_dir / f"{key}.bin"
    path.unlink()
    path.mkdir()
    assert _core.cache_load(key, "bin") is None
    assert _core.cache_path(key, "bin") is None
    _core.cache_store(key, "bin", b"payload")        # cannot replace a directory: still a miss, no error
    assert _core.cache_load(key, "bin") is None


def test_host_compile_with_an_entry_that_is_a_directory(cache_dir):
    source = 'extern "C" __attribute__((visibility("default"))) int cj_answer() { return 42; }\n'
    include = str(Path(__file__).resolve().parents[1] / "kernels")
    first = _core.compile_host(source, [], include)
    os.unlink(first)
    os.mkdir(first)
    second = _core.compile_host(source, [], include)     # recompiled where it can be, never an exception
    assert second != first and ctypes.CDLL(second).cj_answer() == 42


LOGGING_COMPILER = """#!/bin/sh
case "$*" in *-shared*) echo compile >> "{log}";; esac
exec g++ "$@"
"""


@pytest.mark.skipif(shutil.which("g++") is None or shutil.which("c++") is None, reason="needs g++ and c++")
def test_compiler_under_another_name_reads_the_same_entries(tmp_path):
    # c++, g++ and a wrapper that execs g++ print different --version lines ("c++ (Debian ...)", "g++ (...)")
    # for one compiler: the key leaves the program name out, so the entries are shared.
    script = tmp_path / "kernel.py"
    script.write_text(READ_ONLY_SCRIPT)
    log = tmp_path / "compiles.log"
    wrapper = tmp_path / "cxx-wrapper"
    wrapper.write_text(LOGGING_COMPILER.format(log=log))
    wrapper.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUDAJIT_") and k != "CXX"}
    env.update(PYTHONPATH=str(Path(cudajit.__file__).resolve().parents[1]), CUDAJIT_BACKEND="cpu",
               CUDAJIT_CACHE_DIR=str(tmp_path / "cache"))
    subprocess.run([sys.executable, str(script)], env=env, check=True, capture_output=True)    # as c++
    subprocess.run([sys.executable, str(script)], env=dict(env, CXX=str(wrapper)), check=True, capture_output=True)
    assert not log.exists()
