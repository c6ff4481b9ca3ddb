"""Python variables -> C++ variables, and where each is declared.

Typing follows Numba's SSA: every assignment is a definition with its own type, and definitions meet (are
unified) only where control flow joins - a use that several definitions reach. Definitions that meet form a
"web" and share one C++ variable of the unified type; a later, unrelated redefinition with another type gets its
own C++ variable (``x_1_``; cpp_identifier says how user names are spelled). A variable is declared at its first assignment when that assignment comes first in the
innermost block enclosing all its uses; otherwise it is declared just before the statement of that block that
first touches it (Python's function scoping, e.g. assigned in both branches of an ``if`` and used after it, or
carried from one loop iteration to the next).
"""
from . import types as T
from .typeconv import unify_all

def cpp_identifier(name):
    """The C++ name of a user's identifier (variable, parameter, keyword argument): every one gets the suffix ``_``
    (``x`` -> ``x_``, ``INT_MAX`` -> ``INT_MAX_``), and never begins with ``_`` nor holds ``__`` (an underscore that
    would is spelled ``u``: ``_x`` -> ``u_x_``; non-ASCII letters, which NVRTC refuses, by their code points:
    ``μ_Q`` -> ``U03BC_Q_``). That space (a letter or digit, then one ``_``, at the end) is the user's alone:
    no C or C++ keyword ends in ``_``; the standards reserve for headers names beginning with ``_`` or holding
    ``__``, prefixes (``is``, ``str``, ``E``, ``SIG``, ...) and suffixes (POSIX's ``_t``, ``_MAX``, ``_MIN``), none
    of which such a name can end with; and the runtime headers name nothing so (the compiler's own names begin
    with ``cj_`` or ``CJ_``). So no macro a header defines (``NAN``, ``errno``, ``assert``, ``M_PI``, ``CJ_CPU``)
    and no name the generated code uses can meet a user's name, whatever the headers list:
    tests/test_identifiers.py checks the real macro sets of both targets and compiles the names. Messages name
    the Python names (the compiler keeps both)."""
    parts = ascii_identifier(name).split("_")
    return "_".join(p or "u" for p in parts) + "_"


def numbered(cname, n):
    """The n-th other C++ variable of one user name: ``x_`` -> ``x_1_`` (in the user's space too)."""
    return f"{cname[:-1]}_{n}_"


def compiler_name(hint, what):
    """A name of the compiler's own for something of a user's name (``cj_sA_storage``: a shared array's storage)."""
    return f"cj_{cpp_identifier(hint)}{what}"


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
    """Group definitions into webs and webs into C++ variables (``tr.state.storage``: def key -> StorageVar)."""
    webs = {}
    for key in sorted(tr.state.def_names, key=lambda k: tr.state.def_order[k]):
        webs.setdefault(tr.flow.find(key), []).append(key)
    by_name = {}
    for root, keys in webs.items():
        by_name.setdefault(tr.state.def_names[keys[0]], []).append(keys)
    # Parameters are spelled first (tr.state.param_cnames), each its own even where it has no variable (unused, or a
    # tuple's elements): two names spelled alike (``_x`` and ``u_x`` are both ``u_x_``) are numbered instead of
    # redeclaring one, as locals are below.
    used = set(tr.state.reserved_names)
    tr.state.param_cnames = {}
    for p in tr.state.parsed.params:
        cname, n = cpp_identifier(p), 0
        while cname in used:
            n += 1
            cname = numbered(cpp_identifier(p), n)
        used.add(cname)
        tr.state.param_cnames[p] = cname
    tr.state.storage = {}
    tr.state.web_of = {}
    for name in sorted(by_name, key=lambda n: min(tr.state.def_order[k] for ks in by_name[n] for k in ks)):
        base = cpp_identifier(name)
        own = tr.state.param_cnames.get(name)           # the first variable of a parameter's name takes its spelling
        by_type = {}
        for keys in by_name[name]:
            t = unify_all([tr.state.def_types.get(k, T.undefined) for k in keys])
            if t is None:
                k1 = keys[0]
                ts = sorted({str(tr.state.def_types[k]) for k in keys})
                tr.error(tr.state.def_nodes[k1], f"cannot unify {' and '.join(ts)} for variable '{name}'",
                         "give the variable one type on every path (e.g. convert with float(...) or int(...))")
            if t == T.undefined or T.is_compile_time(t):     # None, a type, a function: no C++ variable
                continue
            # Webs of one name that never meet are separate variables, as Numba's SSA versions are (``x``, ``x.1``):
            # each keeps its own type, so ``r0 = r0[i]`` may turn a 2-d array parameter into its 1-d row, or an int
            # into a tuple. Only definitions that meet at a use must unify (above).
            var = by_type.get(t)
            if var is None:
                cname = own if own and not by_type else base
                n = 0
                while cname in used and not (own and cname == own and not by_type):
                    n += 1
                    cname = numbered(base, n)
                used.add(cname)
                var = by_type[t] = StorageVar(cname, t)
            root = tr.flow.find(keys[0])
            for k in keys:
                tr.state.storage[k] = var
                tr.state.web_of[k] = root


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
