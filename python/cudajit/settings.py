"""Every ``CUDAJIT_*`` environment variable, declared once and read here only.

Each setting is one ``Setting``: its variable, what it takes and its default (the README's table is checked against
these), what it does, and how its text is read. ``value(name)`` reads the environment at the moment it is called,
so a program (or a test) that sets a variable after ``import cudajit`` is obeyed from its next compile or launch;
the settings the C++ core uses are passed to it (``_core.set_settings``) by ``sync()``, which the core calls as it
is imported and at the start of each binding whose call reads one (a compile, a cache query, loading a CPU kernel,
setting the backend, loading the driver: ``sync_settings`` in src/bindings.h): a comparison of a dozen strings
when nothing changed. The core reads no ``CUDAJIT_*`` variable itself (``tests/test_settings.py`` scans the
sources for one).

Numba's own ``NUMBA_*`` knobs are ``cudajit.config``'s, as ``numba.config`` holds them.
"""
import dataclasses
import os
import re
import warnings
from typing import Any, Callable


class SettingError(ValueError):
    """A ``CUDAJIT_*`` variable whose text is not a value it takes (the settings that refuse, not warn)."""


@dataclasses.dataclass(frozen=True)
class Setting:
    name: str             # the environment variable
    takes: str            # what it takes and, in parentheses, its default: the README table's second column
    doc: str              # what it does: the README table's third column
    read: Callable[[str], Any]   # the value from the variable's non-empty text; a malformed one raises ValueError
    #                              whose text says what was expected ("a cache size: give bytes or ...")
    default: Any          # the value when the variable is unset or empty
    malformed: str = "raise"     # "raise" (SettingError) or "warn" (as Numba warns of a NUMBA_* it cannot parse)
    core: bool = False    # passed to the C++ core


def _choice(what, *allowed):
    def read(text):
        t = text.strip().lower()
        if t not in allowed:
            raise ValueError(f"{what}: use {', '.join(repr(a) for a in allowed[:-1])} or {allowed[-1]!r}")
        return t
    return read


def _bool01(text):
    t = text.strip()
    if t not in ("0", "1"):
        raise ValueError("0 or 1")
    return t == "1"


def _flag_off(text):
    """'0' turns it off; anything else leaves it on (the C++'s rule before this module)."""
    return text.strip() != "0"


def _positive(text):
    if not re.fullmatch(r"[0-9]+", text) or int(text) == 0:
        raise ValueError("a positive number")
    return min(int(text), 1024)


def _stack(text):
    m = re.fullmatch(r"([0-9]+)([kKmM]?)", text)
    n = int(m[1]) << {"": 0, "k": 10, "m": 20}[m[2].lower()] if m else 0
    if n < 16 * 1024:
        raise ValueError("a stack size: bytes, or a number with k or m, of at least 16 KiB")
    return n


_SIZE_SHIFTS = {"": 0, "K": 10, "M": 20, "G": 30, "T": 40}


def _size(text):
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([kKmMgGtT]?)(?:i?[bB])?\s*", text)
    n = float(m[1]) * 2.0 ** _SIZE_SHIFTS[m[2].upper()] if m else 0.0
    if not 1 <= n < 2.0 ** 63:
        raise ValueError("a cache size: give bytes or a number with K, M, G or T (powers of 1024), e.g. 500M or 2G")
    return int(n)


def _folder(text):
    return text


def _sanitizers(text):
    if not re.fullmatch(r"[a-z-]+(,[a-z-]+)*", text):       # -fsanitize= names; nothing a shell would read
        raise ValueError("a list of sanitizers: use e.g. address,undefined")
    return text


def _one(text):
    return text == "1"


def _default_cache_dir():
    """``$XDG_CACHE_HOME/cudajit``, else ``~/.cache/cudajit``; '' when neither is known (no caching)."""
    xdg, home = os.environ.get("XDG_CACHE_HOME"), os.environ.get("HOME")
    return os.path.join(xdg, "cudajit") if xdg else os.path.join(home, ".cache", "cudajit") if home else ""


SETTINGS = (
    Setting("CUDAJIT_BACKEND", "`gpu`, `cpu`, `auto` (`auto`)",
            "which backend runs kernels; `auto`: the GPU when a driver and a device are present",
            _choice("a backend", "gpu", "cpu", "auto"), "auto"),
    Setting("CUDAJIT_BOUNDSCHECK", "`0`, `1` (unset)",
            "bounds checks off or on for every kernel, over `boundscheck=` and `debug=`",
            _bool01, None, malformed="warn"),
    Setting("CUDAJIT_CACHE_DIR", "a folder (`~/.cache/cudajit`)",
            "where compiled kernels (and the CPU backend's precompiled header) are kept",
            _folder, _default_cache_dir, core=True),
    Setting("CUDAJIT_CACHE_MAX", "bytes, or `500M`, `2G`, ... (`1G`)",
            "the cache's size limit; the least recently used entries go first",
            _size, 1 << 30, core=True),
    Setting("CUDAJIT_CPU_PCH", "`0`, `1` (`1`)",
            "the CPU backend's precompiled runtime header (GCC only)",
            _flag_off, True, core=True),
    Setting("CUDAJIT_NUM_THREADS", "a number (every core)",
            "OS threads that run the CPU backend's blocks",
            _positive, 0, malformed="warn", core=True),
    Setting("CUDAJIT_CPU_STACK", "bytes, or `128K`, `1M` (`64K`; at least 16 KiB)",
            "each CPU-backend thread's stack, on top of its local arrays",
            _stack, 64 * 1024, malformed="warn", core=True),
    Setting("CUDAJIT_CPU_SANITIZE", "e.g. `address,undefined` (unset)",
            "builds CPU-backend kernels with `-fsanitize=` (load the sanitizer's runtime first)",
            _sanitizers, "", core=True),
    Setting("CUDAJIT_IPC_POOL", "`0`, `1` (`1`)",
            "device memory from cudajit's exportable pool (CUDA IPC); `0`: CUDA's default pool",
            _flag_off, True, core=True),
    Setting("CUDAJIT_FULL_TRACEBACK", "`1` (unset)",
            "keeps cudajit's own frames in the tracebacks of compile errors",
            _one, False),
    Setting("CUDAJIT_CHECK_NVRTC", "`1` (unset)",
            "for testing: every CPU-backend kernel is also compiled for sm_90 with NVRTC",
            _one, False),
)
BY_NAME = {s.name: s for s in SETTINGS}


def value(name, stacklevel=3):
    """The setting ``name`` (a ``CUDAJIT_*`` variable) as it stands now: its default when unset or empty; a
    malformed value raises SettingError naming the variable, or warns (``stacklevel`` as warnings.warn's, counted
    from the caller of this function's caller) and gives the default (see ``Setting``)."""
    s = BY_NAME[name]
    text = os.environ.get(name, "")
    if not text.strip():
        return s.default() if callable(s.default) else s.default
    try:
        return s.read(text)
    except ValueError as e:
        default = s.default() if callable(s.default) else s.default
        if s.malformed == "warn":
            # Numba's words for a NUMBA_* value it cannot parse
            warnings.warn(f"Environment variable '{name}' is defined but its associated value '{text}' could not "
                          f"be parsed (expected {e}); the default ({_shown(s)}) is used", RuntimeWarning, stacklevel=stacklevel)
            return default
        raise SettingError(f"{name}={text!r} is not {e}") from None


def _shown(s):
    """The default as the README shows it: the parenthesised part of ``takes``."""
    m = re.search(r"\((.*)\)\s*$", s.takes)
    return m[1].replace("`", "") if m else str(s.default)


_CORE = [s.name for s in SETTINGS if s.core]
_pushed = None      # what the core's values were computed from at the last sync (None: nothing passed yet)


def sync(core=None, strict=True):
    """Pass the core's settings to it (``_core.set_settings``) if what they are read from changed since the last
    call: their variables, the two the cache folder's default reads, and ``config.CUDA_PER_THREAD_DEFAULT_STREAM``.
    A malformed value raises SettingError here, before the core would use it; with ``strict=False`` (the core's
    own import, which passes itself as ``core``) nothing is passed then and the next sync raises."""
    global _pushed
    from . import config
    env = os.environ
    texts = tuple(env.get(n) for n in _CORE) + (env.get("XDG_CACHE_HOME"), env.get("HOME"),
                                                  bool(config.CUDA_PER_THREAD_DEFAULT_STREAM))
    if texts == _pushed:
        return
    if core is None:
        from . import _core as core
    try:
        values = {n[len("CUDAJIT_"):].lower(): value(n) for n in _CORE}
    except SettingError:
        if strict:
            raise
        return
    core.set_settings(**values, per_thread_default_stream=texts[-1])
    _pushed = texts
