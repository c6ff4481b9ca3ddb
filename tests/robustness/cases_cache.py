"""The disk cache: corrupt, truncated or replaced entries are detected and recompiled; an unusable cache
directory costs speed, never a result; a read-only cache directory is still read (issue 10); stray temporary
files of killed writers are removed once old, a live writer's kept; concurrent compiles agree."""
from cases import returns, with_category

SETUP = """
import glob, os, subprocess, sys, time
cache = os.environ["CUDAJIT_CACHE_DIR"]
child_env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
WARM = "import numpy as np, shared_kernels as K; a = np.zeros(40); K.add_one[2, 32](a); assert (a == 1).all()"
def populate():
    subprocess.run([sys.executable, "-c", WARM], env=child_env, check=True)
    return [f for f in glob.glob(os.path.join(cache, "**", "*"), recursive=True) if os.path.isfile(f)]
def result():
    a = rng.standard_normal(40); want = a + 1
    K.add_one[2, 32](a)
    return np.array_equal(a, want)
"""


def cache_case(name, body, check="ok", **kw):
    env = {"CUDAJIT_CACHE_DIR": "{workdir}/cache-" + name, **kw.pop("env", {})}
    return returns(name, SETUP + body, check, env=env, **kw)


def corrupt(name, how):
    return cache_case(name, f"""
files = populate()
assert files, "the warm-up left no cache entries"
for f in files:
{how}
ok = result()
""")


CASES = [
    corrupt("entry_truncated", "    data = open(f, 'rb').read(); open(f, 'wb').write(data[:len(data) // 2])"),
    corrupt("entry_empty", "    open(f, 'wb').close()"),
    corrupt("entry_garbage", "    n = os.path.getsize(f); open(f, 'wb').write(os.urandom(max(n, 64)))"),
    corrupt("entry_one_byte_flipped", "    b = bytearray(open(f, 'rb').read()); b[len(b) // 2] ^= 0xFF; open(f, 'wb').write(bytes(b))"),
    corrupt("entry_last_byte_flipped", "    b = bytearray(open(f, 'rb').read()); b[-1] ^= 0x01; open(f, 'wb').write(bytes(b))"),
    corrupt("entry_replaced_by_directory", "    os.unlink(f); os.mkdir(f)"),
    corrupt("entry_dangling_symlink", "    os.unlink(f); os.symlink('/nonexistent/entry', f)"),
    corrupt("entry_unreadable", "    os.chmod(f, 0)"),
    # a library this process has loaded, truncated in the cache (issue 37): its mapping raised SIGBUS at the next
    # launch; the CPU backend now loads a private copy (a GPU module is read, never mapped: ok there too)
    cache_case("entry_truncated_while_loaded", """
first = result()
for f in glob.glob(os.path.join(cache, "*")):
    if os.path.isfile(f):
        data = open(f, "rb").read(); open(f, "wb").write(data[:len(data) // 4])
again = result()
@cuda.jit
def after_truncation(a):
    a[cuda.grid(1)] += 3
b = np.zeros(32); after_truncation[1, 32](b)
ok = first and again and (b == 3).all()
"""),
    cache_case("entries_truncated_while_others_load", """
import re, threading
populate()
stop = threading.Event()
def truncate():   # every entry (a compiler's output before it is stored is its own business)
    while not stop.is_set():
        for f in [f for f in glob.glob(os.path.join(cache, "*")) if re.fullmatch(r"[0-9a-f]{32}[.](so|cubin)", os.path.basename(f))]:
            try:
                data = open(f, "rb").read(); open(f, "wb").write(data[:len(data) // 2])
            except OSError:
                pass
        time.sleep(0.001)
t = threading.Thread(target=truncate); t.start()
try:
    results = [result()]
    for n in range(2):
        @cuda.jit
        def meanwhile(a, n):
            a[cuda.grid(1)] += n
        b = np.zeros(32); meanwhile[1, 32](b, n + 1); results.append((b == n + 1).all())
    results.append(result())
finally:
    stop.set(); t.join()
ok = all(results)
""", timeout=60),
    # cudajit.cache.clear() while compiles are under way, from another thread or process: it deleted the sources of
    # compiles in flight, which then failed (issue 37); now it leaves the files of live writers
    cache_case("clear_from_another_thread_during_compiles", """
import threading, cudajit
stop = threading.Event()
def clear_often():
    while not stop.is_set():
        cudajit.cache.clear()
t = threading.Thread(target=clear_often); t.start()
try:
    results = []
    for n in range(3):
        @cuda.jit
        def meanwhile(a, n):
            a[cuda.grid(1)] += n
        b = np.zeros(32); meanwhile[1, 32](b, n + 1); results.append((b == n + 1).all())
finally:
    stop.set(); t.join()
ok = all(results)
""", timeout=90),
    cache_case("clear_from_another_process_during_compiles", """
import cudajit
clearer = subprocess.Popen([sys.executable, "-c", "import time, cudajit\\nend = time.time() + 60\\n"
                            "while time.time() < end: cudajit.cache.clear()"], env=child_env)
try:
    results = []
    for n in range(3):
        @cuda.jit
        def meanwhile(a, n):
            a[cuda.grid(1)] += n
        b = np.zeros(32); meanwhile[1, 32](b, n + 1); results.append((b == n + 1).all())
finally:
    clearer.kill(); clearer.wait()
ok = all(results)
""", timeout=90),
    # a compiler whose library cannot be loaded: refused now, and not cached, so that a working compiler works later
    # (a broken library was stored and every later run failed)
    cache_case("library_that_does_not_load_is_not_cached", """
wrapper = os.path.join(os.path.dirname(cache), "broken-cxx.sh")
open(wrapper, "w").write('#!/bin/sh\\ng++ "$@" || exit $?\\nout=; prev=\\nfor a in "$@"; do [ "$prev" = -o ] && out=$a; prev=$a; done\\n'
                         'case "$*" in *-shared*) echo "not a library" > "$out";; esac\\n')
os.chmod(wrapper, 0o755)
broken = subprocess.run([sys.executable, "-c", WARM], env=dict(child_env, CXX=wrapper), capture_output=True, text=True)
refused = broken.returncode != 0 and "cannot be loaded" in broken.stderr and "not cached" in broken.stderr
later = subprocess.run([sys.executable, "-c", WARM], env=child_env, capture_output=True, text=True)
print(broken.stderr[-1500:], later.stderr[-1500:], file=sys.stderr)
""", check="refused and later.returncode == 0", backends=("cpu",)),
    # an entry of 10 GiB (sparse): read whole, std::bad_alloc; now larger than any entry, so a miss
    corrupt("entry_of_10_gib", "    os.truncate(f, 10 * 2**30)"),
    cache_case("dir_is_a_file", "open(cache, 'w').write('not a directory')\nok = result()"),
    cache_case("dir_under_dev_null", "ok = result()", env={"CUDAJIT_CACHE_DIR": "/dev/null/cudajit"}),
    cache_case("dir_with_spaces_and_unicode", "ok = result()", env={"CUDAJIT_CACHE_DIR": "{workdir}/cache dir é ü"}),
    cache_case("readonly_dir_still_read", """
log = os.path.join(os.path.dirname(cache), "cxx-calls.log")
wrapper = os.path.join(os.path.dirname(cache), "cxx-wrapper.sh")
open(wrapper, "w").write(f'#!/bin/sh\\ncase "$*" in *-shared*) echo compile >> {log};; esac\\nexec g++ "$@"\\n')
os.chmod(wrapper, 0o755)
os.environ["CXX"] = child_env["CXX"] = wrapper   # one compiler for filling and reading: it counts compiles
populate()
@cuda.jit
def prime(a):
    a[0] = 1
prime[1, 1](np.zeros(1))  # this process learns its compiler and header hash (the key) while it can read them:
                          # CI's package lies under /root, which the other user cannot read
open(log, "w").close(); os.chmod(log, 0o666)
os.chmod(os.path.dirname(cache), 0o755)
for root, dirs, files in os.walk(cache):
    os.chmod(root, 0o555)
os.setgid(65534); os.setuid(65534)         # not root: the directory really is read-only now
os.environ.pop("CUDAJIT_CHECK_NVRTC", None)  # CI's NVRTC check reads headers from a checkout the other user may not read
right = result()
recompiles = open(log).read().count("compile")
""", check="right and recompiles == 0"),
    cache_case("stray_temp_files_removed", """
populate()
old = time.time() - 3600
strays = [os.path.join(cache, n) for n in ("tmp-0123456789abcdef-999999-0.cpp", ".0123456789abcdef.so.tmp.999999.1.0")]
for s in strays:
    open(s, "w").write("left by a killed writer")
    os.utime(s, (old, old))
fresh = os.path.join(cache, "tmp-fedcba9876543210-999998-0.cpp")
open(fresh, "w").write("a live writer's")
# a new kernel compiles (and is stored) here
@cuda.jit
def another(a):
    a[0] = 5
a = np.zeros(1); another[1, 1](a)
right = a[0] == 5
strays_left = [os.path.basename(s) for s in strays if os.path.exists(s)]
fresh_kept = os.path.exists(fresh)
""", check="right and not strays_left and fresh_kept"),
    cache_case("concurrent_compiles", """
procs = [subprocess.Popen([sys.executable, "-c", WARM], env=child_env) for _ in range(4)]
codes = [p.wait() for p in procs]
ok = codes == [0, 0, 0, 0] and result()
"""),
]

CASES = with_category("cache", CASES)
