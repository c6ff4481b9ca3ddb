"""Resources (issue 37): what compiles leave behind (precompiled headers of short scripts), and compiles and cache
entries when the disk, the inodes or the cache directory fail them. Nothing may leak, and a cache that cannot be
used costs speed, never a result."""
from cases import returns, with_category

CPU = ("cpu",)

SETUP = """
import glob, os, subprocess, sys, tempfile, time
child_env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
here = os.path.dirname(os.path.abspath(__file__))
SHORT = "import numpy as np\\nfrom cudajit import cuda\\n@cuda.jit\\ndef k(a):\\n    a[cuda.grid(1)] += 1\\na = np.zeros(32); k[1, 32](a)\\nassert (a == 1).all()\\n"
def processes_naming(text):
    found = []
    for d in glob.glob("/proc/[0-9]*"):
        try:
            if text in open(d + "/cmdline", "rb").read().decode(errors="replace"):
                found.append(d)
        except OSError:
            pass
    return found
"""

CASES = [
    # a script that compiles once and exits at once left GCC building the precompiled runtime header (~20 MB) and its
    # half-written tmp-pch-*.gch behind (six runs: 117 MiB, no header ever installed)
    returns("short_scripts_leave_no_header_build", SETUP + """
cache = tempfile.mkdtemp(dir=here)
codes = [subprocess.run([sys.executable, "-c", SHORT], env=dict(child_env, CUDAJIT_CACHE_DIR=cache)).returncode
         for _ in range(3)]
left, compilers = [], []
for _ in range(30):   # for three seconds after the last exit, nothing of theirs runs or is written
    left += [f for f in os.listdir(cache) if f.startswith("tmp-") and f not in left]
    compilers += [p for p in processes_naming(cache) if p not in compilers]
    time.sleep(0.1)
""", "codes == [0, 0, 0] and not left and not compilers", backends=CPU, timeout=90, fails_as="leak"),
    # a header a killed writer left (its pid is no process now) goes at the next store; one a live writer is writing
    # stays, and counts towards CUDAJIT_CACHE_MAX: the entries make room for it
    returns("orphaned_header_removed_live_one_counted", SETUP + """
cache = os.environ["CUDAJIT_CACHE_DIR"]
subprocess.run([sys.executable, "-c", SHORT], env=dict(child_env, CUDAJIT_CPU_PCH="0"), check=True)
entries = [f for f in os.listdir(cache) if not f.startswith(("tmp-", "."))]
dead = subprocess.Popen(["true"]); dead.wait()
orphan = os.path.join(cache, f"tmp-pch-0123456789abcdef-{dead.pid}-0.gch")
live = os.path.join(cache, f"tmp-pch-fedcba9876543210-{os.getpid()}-0.gch")
for path in (orphan, live):
    open(path, "wb").write(b"\\0" * 1536 * 1024)
os.environ["CUDAJIT_CACHE_MAX"] = "1M"
@cuda.jit
def another(a):
    a[cuda.grid(1)] += 2
b = np.zeros(32); another[1, 32](b)
right = (b == 2).all()
orphan_gone, live_kept = not os.path.exists(orphan), os.path.exists(live)
old_entries_left = [f for f in entries if os.path.exists(os.path.join(cache, f))]
""", "entries and right and orphan_gone and live_kept and not old_entries_left", backends=CPU,
            env={"CUDAJIT_CACHE_DIR": "{workdir}/cache-orphaned-header", "CUDAJIT_CPU_PCH": "0"}, fails_as="leak"),
]

CASES = with_category("resources", CASES)

# The cache directory fills up, runs out of inodes or is a read-only file system: every case runs a script in a mount
# namespace of its own (unshare: nothing to unmount, whatever happens) whose cache directory is a small tmpfs, filled
# first. Compiles then fall back to a private temporary directory and results are right (issue 37: every compile
# failed). Needs root (mount), as cases_cache.py's read-only case does.
IN_SMALL_CACHE = """
def in_small_cache(script, options, fill):
    cache = tempfile.mkdtemp(dir=here)
    prelude = f"import os\\ncache = {cache!r}\\n" + fill + "\\n"
    r = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                        'mount -t tmpfs -o "$1" cudajit-test "$2" || exit 99; shift 2; exec "$@"', "sh", options, cache,
                        sys.executable, "-c", prelude + script], env=dict(child_env, CUDAJIT_CACHE_DIR=cache),
                       capture_output=True, text=True, timeout=90)
    if r.returncode == 99 or "unshare failed" in r.stderr:
        raise RuntimeError(f"this case needs root (a mount namespace and a tmpfs mount): {r.stderr[-300:]}")
    return r
"""
FILL_BYTES = """
try:
    with open(os.path.join(cache, "filler"), "wb") as f:
        while True:
            f.write(b"x" * 4096); f.flush()
except OSError:
    pass
"""
FILL_INODES = """
n = 0
try:
    while True:
        open(os.path.join(cache, f"filler-{n}"), "w").close(); n += 1
except OSError:
    pass
"""
COMPILES = """
import numpy as np
from cudajit import cuda
@cuda.jit
def k(a):
    a[cuda.grid(1)] += 1
a = np.arange(32.0); k[1, 32](a); k[1, 32](a)
assert (a == np.arange(32.0) + 2).all(), a
print("stored:", sorted(f for f in os.listdir(cache) if not f.startswith("filler")))
"""


def small_cache(name, options, fill, **kw):
    return returns(name, SETUP + IN_SMALL_CACHE + f"""
r = in_small_cache({COMPILES!r}, {options!r}, {fill!r})
print(r.stdout, r.stderr[-3000:], file=sys.stderr)
""", "r.returncode == 0", timeout=120, fails_as="unexpected-error", **kw)


CASES += with_category("resources", [
    small_cache("cache_disk_full", "size=256k", FILL_BYTES),
    small_cache("cache_no_inodes", "size=64m,nr_inodes=64", FILL_INODES),
    small_cache("cache_read_only_file_system", "size=64k,ro", ""),
])

# A broadcast kernel argument (np.broadcast_to: 4 bytes seen as 2**33 elements) was expanded to 32 GiB before the
# launch; it is copied at its true size and read through its zero strides (issue 37), and a writeable one written
# back into the elements it holds. The CPU backend's child may not use more than 8 GiB of address space, so that
# an expansion fails at once (MemoryError) instead of exhausting the machine.
BROADCAST = """
import resource
from cudajit import _backend
if _backend.name() == "cpu":
    resource.setrlimit(resource.RLIMIT_AS, (8 << 30, resource.getrlimit(resource.RLIMIT_AS)[1]))
@cuda.jit
def pick(out, a):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i * (a.size // out.size)] + i
@cuda.jit
def pick_rows(out, b):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = b[i * 1000, j]
@cuda.jit
def add_row_index(x):
    i, j = cuda.grid(2)
    if i < x.shape[0] and j == 0:
        x[i, j] += i + 1
a = np.broadcast_to(np.float32(3.5), (2**33,))
out = np.zeros(16, np.float32)
pick[1, 16](out, a)
row = rng.standard_normal(8)
rows = np.zeros((4, 8))
pick_rows[1, (4, 8)](rows, np.broadcast_to(row, (2**30, 8)))
held = rng.standard_normal(5)
want = held + np.arange(1, 6)
add_row_index[1, (5, 8)](np.lib.stride_tricks.as_strided(held, shape=(5, 1000), strides=(8, 0)))
"""

CASES += with_category("resources", [
    returns("broadcast_argument_at_true_size", BROADCAST,
            "np.array_equal(out, 3.5 + np.arange(16, dtype=np.float32)) and (rows == row).all() and "
            "np.array_equal(held, want)", timeout=60),
])
