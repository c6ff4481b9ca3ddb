"""Python variables -> C++ variables, and where each is declared.

Typing follows Numba's SSA: every assignment is a definition with its own type, and definitions meet (are
unified) only where control flow joins - a use that several definitions reach. Definitions that meet form a
"web" and share one C++ variable of the unified type; a later, unrelated redefinition with another type gets its
own C++ variable (``x_1``). A variable is declared at its first assignment when that assignment comes first in the
innermost block enclosing all its uses; otherwise it is declared just before the statement of that block that
first touches it (Python's function scoping, e.g. assigned in both branches of an ``if`` and used after it, or
carried from one loop iteration to the next).
"""
from . import types as T
from .typeconv import unify_all

CPP_RESERVED = set("""
alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t class compl
concept const consteval constexpr constinit const_cast continue co_await co_return co_yield decltype default delete
do double dynamic_cast else enum explicit export extern false float for friend goto if inline int long mutable
namespace new noexcept not not_eq nullptr operator or or_eq private protected public register reinterpret_cast
requires return short signed sizeof static static_assert static_cast struct switch template this thread_local throw
true try typedef typeid typename union unsigned using virtual void volatile wchar_t while xor xor_eq
int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t size_t ptrdiff_t intptr_t uintptr_t
threadIdx blockIdx blockDim gridDim warpSize printf main cj std NULL assert signbit isnan isinf isfinite
""".split())


def cpp_identifier(name):
    """A Python identifier as a C++ one: kept as is, with a suffix only where C++ reserves it. Non-ASCII letters
    (stumpy's μ_Q, σ_Q, ρ), which g++ takes but NVRTC does not, are spelled by their code points (U03BC_Q)."""
    name = ascii_identifier(name)
    if "__" in name or (name.startswith("_") and name[1:2].isupper()):
        name = "v" + name.replace("__", "_u_")
    if name in CPP_RESERVED or name.startswith("cj_"):
        return name + "_"
    return name


def ascii_identifier(name):
    """``name`` with each non-ASCII character written as U + its code point in hex (4 digits or more)."""
    if name.isascii():
        return name
    return "".join(c if c.isascii() else f"U{ord(c):04X}" for c in name)


class StorageVar:
    """One C++ variable: its name and type; ``declared_by`` is 'param' or 'for' when it needs no declaration."""
    def __init__(self, cname, type_):
        self.cname, self.type, self.declared_by = cname, type_, None


def assign_storage(tr):
    """Group definitions into webs and webs into C++ variables (``tr.storage``: def key -> StorageVar)."""
    webs = {}
    for key in sorted(tr.def_names, key=lambda k: tr.def_order[k]):
        webs.setdefault(tr.find(key), []).append(key)
    by_name = {}
    for root, keys in webs.items():
        by_name.setdefault(tr.def_names[keys[0]], []).append(keys)
    used = set(tr.reserved_names)
    tr.storage = {}
    tr.web_of = {}
    for name in sorted(by_name, key=lambda n: min(tr.def_order[k] for ks in by_name[n] for k in ks)):
        base = cpp_identifier(name)
        by_type = {}
        for keys in by_name[name]:
            t = unify_all([tr.def_types.get(k, T.undefined) for k in keys])
            if t is None:
                k1 = keys[0]
                ts = sorted({str(tr.def_types[k]) for k in keys})
                tr.error(tr.def_nodes[k1], f"cannot unify {' and '.join(ts)} for variable '{name}'",
                         "give the variable one type on every path (e.g. convert with float(...) or int(...))")
            if t == T.undefined or T.is_compile_time(t):     # None, a type, a function: no C++ variable
                continue
            # Webs of one name that never meet are separate variables, as Numba's SSA versions are (``x``, ``x.1``):
            # each keeps its own type, so ``r0 = r0[i]`` may turn a 2-d array parameter into its 1-d row, or an int
            # into a tuple. Only definitions that meet at a use must unify (above).
            var = by_type.get(t)
            if var is None:
                cname = base
                n = 0
                while cname in used:
                    n += 1
                    cname = f"{base}_{n}"
                used.add(cname)
                var = by_type[t] = StorageVar(cname, t)
            root = tr.find(keys[0])
            for k in keys:
                tr.storage[k] = var
                tr.web_of[k] = root


class Site:
    """A definition or use of a variable (or a loop start) in the final pass, with where it sits."""
    __slots__ = ("kind", "var", "keys", "pos", "block", "chain", "loops", "simple", "sid", "root")

    def __init__(self, kind, var, keys, pos, block, chain, loops, simple=False, sid=None, root=None):
        self.kind, self.var, self.keys, self.pos = kind, var, keys, pos
        self.block, self.chain, self.loops, self.simple, self.sid, self.root = block, chain, loops, simple, sid, root


def place_declarations(tr, sites, loop_sites, excluded_roots):
    """Decide each C++ variable's declaration: returns ({site sid: 'T '} for declare-at-assignment,
    {statement sid: ['T x{};', ...]} for declarations hoisted before a statement)."""
    at_def, before = {}, {}
    by_var = {}
    for s in sites:
        if s.root in excluded_roots or s.var.declared_by:
            continue
        by_var.setdefault(id(s.var), (s.var, []))[1].append(s)
    for var, vsites in by_var.values():
        anchors = list(vsites)
        defs_at = {}
        for s in vsites:
            if s.kind == "def":
                for k in s.keys:
                    defs_at.setdefault(k, []).append(s)
        # A value carried around a loop (used before it is redefined in the loop) must outlive the loop.
        for u in vsites:
            if u.kind != "use":
                continue
            for k in u.keys:
                for d in defs_at.get(k, ()):
                    if d.pos >= u.pos:
                        common = _common_prefix(u.loops, d.loops)
                        if common:
                            anchors.append(loop_sites[common[-1]])
        common = _common_prefix(*[a.block for a in anchors])
        first = min(anchors, key=lambda a: a.pos)
        decl = f"{var.type.cpp} "
        if first.kind == "def" and first.simple and first.block == common:
            at_def[first.sid] = decl
        else:
            stmt = first.chain[len(common) - 1]
            before.setdefault(stmt, []).append(f"{decl}{var.cname}{{}};")
    return at_def, before


def _common_prefix(*paths):
    out = []
    for parts in zip(*paths):
        if all(p == parts[0] for p in parts):
            out.append(parts[0])
        else:
            break
    return tuple(out)
