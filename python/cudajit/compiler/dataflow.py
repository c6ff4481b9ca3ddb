"""Definitions and uses of variables (Numba's SSA, in the translator's terms): each assignment is a definition,
each read is reached by a set of them, definitions that meet are one web (union-find) and their types unify; the
typing passes repeat until nothing changes (``state.changed``). The final pass records each definition and use as a
``Site`` (storage.py chooses the C++ variables from them) and reads the variables chosen."""
from . import types as T
from .storage import Site
from .typeconv import unify
from .values import Symbol, Value, cast, is_shape_constant, none_value, string_value


NOT_GRID = object()  # state.def_grid: a definition that is not cuda.grid's


class Dataflow:
    def __init__(self, fn):
        self.fn, self.st = fn, fn.state     # the function translator and the state they share

    def find(self, k):
        while self.st.parent.get(k, k) != k:
            k = self.st.parent[k]
        return k

    def _union(self, keys):
        keys = list(keys)
        roots = {self.find(k) for k in keys}
        if len(roots) > 1:
            first, *rest = sorted(roots, key=lambda r: self.st.def_order[r])
            for r in rest:
                self.st.parent[r] = first
            self.st.changed = True

    def _set_def_type(self, key, t, nonneg):
        old = self.st.def_types.get(key, T.undefined)
        new = unify(old, t)
        if new is None:
            self.unify_error(self.st.def_nodes[key], self.st.def_names[key], (old, t))
        if new != old:
            self.st.def_types[key] = new
            self.st.changed = True
        old_nn = self.st.def_nonneg.get(key, True)
        if old_nn and not nonneg and t != T.undefined:
            self.st.def_nonneg[key] = False
            self.st.changed = True

    @staticmethod
    def _merge(*envs):
        envs = [e for e in envs if e is not None]
        if not envs:
            return None
        out = dict(envs[0])
        for e in envs[1:]:
            for k, v in e.items():
                out[k] = out[k] | v if k in out else v
        return out

    def unify_error(self, node, name, ts):
        """Definitions of ``name`` of types ``ts`` meet and have no common type."""
        names = sorted({str(t) for t in ts})
        if T.none in ts or any(isinstance(t, T.Optional) for t in ts):
            # Numba makes such a variable Optional(T); cudajit wraps booleans and numbers only (types.Optional)
            others = " or ".join(n for n in names if n != "none")
            self.fn.error(node, f"variable '{name}' is None on one path and {others}"
                          f" on another: a value that may be None at run time (Numba's Optional) is supported "
                          f"in cudajit kernels for booleans and numbers only", "give it a value of one type on "
                          "every path, e.g. a sentinel with a flag, or decide with `is None` on a None that is "
                          "known when compiling (an argument's default)")
        self.fn.error(node, f"cannot unify {' and '.join(names)} for variable '{name}'",
                      "give the variable one type on every path")

    def _record(self, kind, name, keys, simple=False):
        self.st.pos += 1
        var = self.st.storage.get(next(iter(keys))) if self.st.final else None
        if var is None:
            return None
        sid = self.st.pos
        root = self.st.web_of.get(next(iter(keys)))
        st = self.st
        st.sites.append(Site(kind, var, keys, st.pos, st.block, st.chain, st.loops, simple, sid, root))
        return sid

    def load_var(self, node, name):
        defs = self.st.env.get(name) if self.st.env is not None else None
        if not defs:
            # Inside a loop a later iteration of the analysis may bring a definition around the back edge; the
            # use reads no variable only if the last visit still finds none (warned at the end of the pass).
            self.st.undefined_uses[id(node)] = (node, name)
            return self._unassigned_read(name) if self.st.env is not None else Value(T.undefined, name)
        self.st.undefined_uses.pop(id(node), None)
        if len(defs) > 1:
            self._union(defs)
        for d in defs:
            loop = self.st.def_loop.get(d)
            if loop is not None and loop not in self.st.loops and d not in self.st.escapes:
                self.st.escapes.add(d)
                self.st.changed = True
        t = T.undefined
        for d in defs:
            t = unify(t, self.st.def_types.get(d, T.undefined))
            if t is None:
                self.unify_error(node, name, [self.st.def_types[k] for k in defs if k in self.st.def_types])
        if t == T.none:                         # None on every path reaching here: a compile-time value
            return none_value()
        if isinstance(t, T.StringLiteral):      # a string constant (a literal parameter, ``s = "x"``)
            return string_value(t.value)
        if isinstance(t, T.FunctionValue):      # a type or function held by a local (``dtype = a.dtype``)
            return Symbol(t.path, t.obj)
        nonneg = all(self.st.def_nonneg.get(d, True) for d in defs)
        grids = {self.st.def_grid.get(d, NOT_GRID) for d in defs}
        grid = next(iter(grids)) if len(grids) == 1 else None
        grid = None if grid is NOT_GRID else grid
        only = next(iter(defs))
        param = only[1] if len(defs) == 1 and isinstance(only, tuple) and only[0] == "param" else None
        # A use reached by one definition of a constant keeps it (Numba's constant propagation): a local
        # ``N = 32`` can size a shared or local array.
        const = self.st.def_consts.get(next(iter(defs)), Value.NOCONST) if len(defs) == 1 else Value.NOCONST
        if not self.st.final:
            return Value(t, name, nonneg=nonneg, const=const, grid=grid, param=param)
        self._record("use", name, defs)
        var = self.st.storage[next(iter(defs))]
        if var.type != t:
            return cast(Value(var.type, var.cname, nonneg=nonneg, const=const), t)
        return Value(var.type, var.cname, nonneg=nonneg, const=const, grid=grid, param=param)

    def _unassigned_read(self, name):
        """A read of local ``name`` that no assignment reaches (Python raises UnboundLocalError there if it runs).
        Numba compiles it: its SSA gives such a read an ``undef`` definition, typed as whatever it meets and
        lowered as zero (numba-cuda's test_ssa.py::test_undefined_var). Here it is the zero of the type the
        name's assignments unify to (int64 when none has one). A read that some assignments reach and others do
        not reads the variable, which is declared zero-initialised before the paths meet (storage.py)."""
        t = T.undefined
        for key, other in self.st.def_names.items():
            if other == name:
                t = unify(t, self.st.def_types.get(key, T.undefined)) or t
        if t == T.none:
            return none_value()
        if t == T.undefined or T.is_compile_time(t):
            t = T.int64
        return Value(t, f"{t.cpp}{{}}", nonneg=True)

    def store_var(self, target, name, value, simple):
        """Assign ``value`` to variable ``name`` (``target``: the Name node that defines it). Returns the C++
        assignment statement (final pass) with a declaration marker."""
        if name in self.st.function_params:
            self.fn.error(target, f"cannot assign to '{name}': it holds {self.st.function_params[name]}, a "
                          f"compile-time value of this specialisation", "assign to a new variable name instead")
        key = id(target)
        if key not in self.st.def_order:
            self.st.def_order[key] = len(self.st.def_order)
        self.st.def_names[key], self.st.def_nodes[key] = name, target
        if isinstance(value.type, T.DType):
            self.fn.error(target, f"cannot assign a value of type {value.type} to variable '{name}'")
        self._set_def_type(key, value.type, value.nonneg)
        grid = NOT_GRID if value.grid is None else value.grid
        if key not in self.st.def_grid:
            self.st.def_grid[key] = grid
        elif self.st.def_grid[key] is not NOT_GRID and self.st.def_grid[key] != grid:
            self.st.def_grid[key] = NOT_GRID
            self.st.changed = True
        if is_shape_constant(value.const if value.is_const else None):
            self.st.def_consts[key] = value.const
        else:
            self.st.def_consts.pop(key, None)
        if self.st.env is not None:
            self.st.env[name] = frozenset([key])
        if getattr(target, "lineno", None):
            self.st.typed_vars[(target.lineno, name)] = self.st.def_types.get(key, value.type)
        if not self.st.final:
            return ""
        var = self.st.storage.get(key)
        if T.is_compile_time(value.type) and not (value.type == T.none and var is not None):
            # x = None, f = math.sqrt: no C++ variable (a call still runs); None into an Optional variable is its None
            return f"{value.code};" if value.code else ""
        if var is None:
            return ""
        sid = self._record("def", name, frozenset([key]), simple=simple)
        rhs = cast(value, var.type) if value.type != var.type else value
        return f"\0D{sid}\0{var.cname} = {rhs.code};"
