"""Subscripts: array elements (negative indices wrap only where an index may be negative), views by basic
slicing with Numba's layout rules, tuple indexing, and assignment to elements and slices."""
import ast
import enum

from . import flatiter, records, types as T
from .values import Value, Symbol, cast, const_value, tuple_value, type_name, cpp_int_literal, PRIMARY


class Indexing:
    def __init__(self, fn):
        self.fn, self.st = fn, fn.state     # the function translator and the state they share

    # ---- subscripts ------------------------------------------------------------------------------------------
    def expr_Subscript(self, node):
        if flatiter.flat_target(node) is not None:
            return self.flat_element(node)[1]
        base = self.fn.exprs.visit_expr(node.value)
        if isinstance(base, Symbol) and isinstance(base.obj, enum.EnumMeta):
            return self.enum_by_name(node, base.obj)
        if isinstance(base, Symbol) and base.path == "devfunc":
            name = getattr(base.obj, "__name__", None) or ast.unparse(node.value)
            self.fn.unsupported(node, f"launching kernel '{name}' from a kernel (dynamic parallelism) is not supported "
                                f"in CUDA kernels", "launch it from the host, after this kernel")
        if isinstance(base, Symbol):
            self.fn.unsupported(node, f"subscripting '{base.path}' is not supported in CUDA kernels")
        if isinstance(base.type, T.Record) and records.field_key(node.slice) is not None:
            return records.load(self.fn, node, base, records.field_key(node.slice))
        sl = node.slice
        elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
        idx, effects = [], [(0, 0)]            # the base was evaluated first (its effects: the caller's to order)
        for e in elts:
            mark = self.fn.order.effects_mark()
            idx.append(self.slice_spec(e) if isinstance(e, ast.Slice) else self._value(e))
            effects.append(self.fn.order.effects_since(mark))
        mark = self.fn.order.effects_mark()
        result = self.subscript(node, base, idx)
        if any(isinstance(i, tuple) for i in idx):
            return result
        return self.fn.order.in_python_order(result, lambda vs: self.subscript(node, base, vs[1:]), [base] + idx,
                                             effects, self.fn.order.effects_since(mark))

    def enum_by_name(self, node, cls):
        """``Color["red"]``: the member of that constant name, as ``Color.red`` (Numba)."""
        key = self.fn.exprs.visit_expr(node.slice)
        name = key.const if isinstance(key, Value) and key.is_const else None
        if not isinstance(name, str) or name not in cls.__members__:
            self.fn.error(node, f"{cls.__name__}[...] takes the constant name of one of its members "
                          f"({', '.join(cls.__members__)})")
        return self.fn.exprs.global_value(node, f"{cls.__name__}.{name}", cls[name])

    def flat_element(self, node):
        """``a.flat[k]``: (the array, the element at flat position k in C order, an lvalue as ``a[i, j]`` is)."""
        base = self.fn.exprs.as_value(node.value, self.fn.exprs.visit_expr(flatiter.flat_target(node)))
        k = self.fn.exprs.as_value(node.slice, self.fn.exprs.visit_expr(node.slice))
        if base.type == T.undefined:
            return base, Value(T.undefined, "?")
        if not isinstance(base.type, T.Array):
            self.fn.error(node, f"'{base.type}' has no attribute 'flat'")
        idx = flatiter.flat_indices(self.fn, node, base, k)
        return base, Value(T.undefined, "?") if idx is None else self.element(node, base, idx)

    def _value(self, node):
        """The expression ``node`` as a Value."""
        return self.fn.exprs.as_value(node, self.fn.exprs.visit_expr(node))

    def slice_spec(self, node):
        parts = [None if p is None else self._value(p) for p in (node.lower, node.upper,
                                                                                                         node.step)]
        for p in parts:
            if p is not None and p.type != T.none and not T.is_int(p.type) and p.type != T.undefined:
                self.fn.error(node, f"slice indices must be integers, not {p.type}")
        parts = [None if p is not None and p.type == T.none else p for p in parts]
        return ("slice", parts)

    def subscript(self, node, base, idx):
        t = base.type
        if t == T.undefined:
            return Value(T.undefined, "?")
        # a tuple used as an index: its elements are the indices
        if len(idx) == 1 and isinstance(idx[0], Value) and isinstance(idx[0].type, T.BaseTuple) \
                and isinstance(t, T.Array):
            idx = self.fn.exprs.tuple_elements(node, idx[0])
        if isinstance(t, T.BaseTuple):
            return self.tuple_subscript(node, base, idx)
        if isinstance(t, T.CPointer):
            return self.pointer_element(node, base, idx)
        if not isinstance(t, T.Array):
            self.fn.error(node, f"'{t}' object is not subscriptable")
        if any(isinstance(i, Value) and i.type == T.undefined for i in idx):
            return Value(T.undefined, "?")
        # a 0-d integer array is its integer, as NumPy and Numba take it (``ary[i]`` with ``i = np.asarray(3)``)
        idx = [self.element(node, i, []) if isinstance(i, Value) and isinstance(i.type, T.Array) and i.type.ndim == 0
               and T.is_int(i.type.dtype) else i for i in idx]
        for i in idx:
            if isinstance(i, Value) and not (T.is_int(i.type) or i.type == T.boolean):
                self.fn.error(node, f"array index must be an integer or a slice, not {i.type}",
                              "convert with int(...)")
        if len(idx) > t.ndim:
            self.fn.error(node, f"too many indices for {t}: {len(idx)}")
        if len(idx) == t.ndim and all(isinstance(i, Value) for i in idx):
            return self.element(node, base, idx)
        if not idx:                  # a[()] of an array with dimensions: the whole array, as NumPy's view
            return base
        return self.view(node, base, idx)

    def pointer_element(self, node, base, idx):
        """``p[i]`` of a ``CPointer(T)``: C's ``p[i]``, as in Numba (no extent is known: never bounds-checked)."""
        if len(idx) != 1 or not isinstance(idx[0], Value) or not T.is_int(idx[0].type):
            self.fn.error(node, f"a {base.type} takes one integer index")
        return Value(base.type.dtype, f"{base.code}[{idx[0].code}]", lvalue=True)

    def index_code(self, base, i, dim):
        """One index, wrapped only when it is signed and may be negative (Python's a[-1])."""
        if i.is_const and isinstance(i.const, int) and i.const >= 0:
            return str(i.const)
        if not _may_be_negative(i):
            return i.code
        if i.is_const:
            return f"{cpp_int_literal(i.const)} + {base.at(PRIMARY)}.shape[{dim}]"
        return f"cj::wrap({i.code}, {base.at(PRIMARY)}.shape[{dim}])"

    def element(self, node, base, idx):
        """``a[i, j]``: an lvalue of the element type."""
        if isinstance(idx, Value):
            idx = self.fn.exprs.tuple_elements(node, idx) if isinstance(idx.type, T.BaseTuple) else [idx]
        t = base.type
        if len(idx) != t.ndim:
            self.fn.error(node, f"{t} needs {t.ndim} indices, got {len(idx)}")
        if self.st.program.options.boundscheck and t.ndim:
            # Checked (boundscheck, or debug=True): out of range raises IndexError on the host (debug.h).
            site = self.st.program.error_site(IndexError, None, self.st.loc, node)
            self.fn.order.note_effect(raises=True)
            wrap = sum(1 << d for d, i in enumerate(idx) if _may_be_negative(i))
            codes = ", ".join(i.code for i in idx)
            fits = self.grid_axes(base, idx)
            known = sum(1 << axis for _, axis, _ in fits)
            if known:
                code = f"{base.at(PRIMARY)}.checked_in<{wrap}, {known}u>(cj_fits, {site}, {codes})"
            else:
                code = f"{base.at(PRIMARY)}.checked<{wrap}>({site}, {codes})"
            if fits and self.st.final:
                self.st.fit_codes.append((code, fits))
            return Value(t.dtype, code, lvalue=True)
        codes = [self.index_code(base, i, d) for d, i in enumerate(idx)]
        code = f"{base.at(PRIMARY)}({', '.join(codes)})"
        if self.st.is_kernel and base.param is not None and base.param in self.st.nc_params:
            # a read-only parameter's element (coarsen.py): through __ldg in the coarsened entry's body
            return Value(t.dtype, f"cj::ld_nc<cj_nc>({code})")
        return Value(t.dtype, code, lvalue=True)

    def grid_axes(self, base, idx):
        """In a kernel: (parameter, axis, grid component) for each axis of parameter array ``base`` that ``idx``
        indexes by ``cuda.grid``. On the CPU such a site skips those checks in the kernel's instantiation for the
        blocks whose grid indices all lie inside them (``cj_fits``: thread.h, Entry::run_fits); the GPU keeps
        them (config.h: ``cj_fits`` is false)."""
        if not (self.st.is_kernel and base.param is not None):
            return []
        return [(base.param, axis, i.grid) for axis, i in enumerate(idx) if isinstance(i, Value) and i.grid is not None]

    def view(self, node, base, idx):
        """Basic slicing -> a view, with Numba's layout rules (a C array stays C while the indices keep it
        contiguous)."""
        if self.st.is_kernel and base.param is not None and base.param in self.st.nc_params:
            self.st.nc_broken = True      # a view of it may be written: no coarsened entry (coarsen.blockers)
        t = base.type
        ndim = t.ndim - sum(1 for i in idx if isinstance(i, Value))
        kinds = ["int" if isinstance(i, Value) else ("slice3" if i[1][2] is not None else "slice2") for i in idx]
        layout = t.layout
        if layout == "C" and not _keeps_contiguity(kinds):
            layout = "A"
        elif layout == "F" and (len(idx) < t.ndim or not _keeps_contiguity(kinds[::-1])):
            layout = "A"
        rt = T.Array(t.dtype, ndim, layout, t.readonly)
        checked = self.st.program.options.boundscheck
        specs = []
        for i in idx:
            if isinstance(i, Value):
                specs.append(cast(i, T.int64).code)
            else:
                lo, hi, st = i[1]
                if st is not None and st.is_const and st.const == 0:
                    self.fn.error(node, "slice step cannot be zero")
                step = cast(st, T.int64).code if st else "1"
                if checked and st is not None and not st.is_const:
                    # a zero step raises ValueError, as Python's and Numba's slices do (unchecked, it counts as 1)
                    site = self.st.program.error_site(ValueError, ("slice step cannot be zero",), self.st.loc, node)
                    self.st.may_raise = True
                    self.fn.order.note_effect(raises=True)
                    step = f"cj::check_step({site}, {step})"
                specs.append("cj::slice({}, {}, {}, {}, {})".format(
                    cast(lo, T.int64).code if lo else "0", "true" if lo else "false",
                    cast(hi, T.int64).code if hi else "0", "true" if hi else "false", step))
        if checked and any(isinstance(i, Value) for i in idx):
            # a[i] of an n-d array, a[i, 1:]: each integer index checked as an element's (array.h, view_checked)
            site = self.st.program.error_site(IndexError, None, self.st.loc, node)
            self.fn.order.note_effect(raises=True)
            wrap = sum(1 << d for d, i in enumerate(idx) if isinstance(i, Value) and _may_be_negative(i))
            return Value(rt, f"cj::view_checked<{rt.cpp}, {wrap}>({site}, {base.code}, {', '.join(specs)})")
        return Value(rt, f"cj::view<{rt.cpp}>({base.code}, {', '.join(specs)})")

    def tuple_subscript(self, node, base, idx):
        t = base.type
        if len(idx) != 1:
            self.fn.error(node, "tuples take one index")
        i = idx[0]
        parts = self.fn.exprs.tuple_elements(node, base)
        if isinstance(i, tuple):                           # a constant slice of a tuple
            lo, hi, st = (None if p is None else p.const for p in i[1])
            if any(p is Value.NOCONST for p in (lo, hi, st)):
                self.fn.error(node, "tuple slices must be constant")
            sel = parts[slice(lo, hi, st)]
            return tuple_value(T.Tuple([p.type for p in sel]), sel)
        if i.is_const:
            k = i.const
            if not isinstance(k, int):             # None or a string constant (typed none)
                self.fn.error(node, f"tuple indices must be integers or slices, not {type_name(i)}")
            if not -t.count <= k < t.count:
                self.fn.error(node, f"tuple index {k} out of range for {t}")
            return parts[k]
        if isinstance(t, T.UniTuple) and T.is_int(i.type):
            whole = base.code if base.elements is None else f"({t.cpp}{{{{{', '.join(p.code for p in parts)}}}}})"
            if self.st.program.options.debug:
                # debug=True: a run-time index out of range raises IndexError on the host, as Numba's.
                site = self.st.program.error_site(IndexError, ("tuple index out of range",), self.st.loc, node,
                                                  names_index=True)
                self.fn.order.note_effect(raises=True)
                wrap = "true" if _may_be_negative(i) else "false"
                return Value(t.dtype, f"{whole}.checked<{wrap}>({site}, {i.code})")
            # without debug, numba-cuda's thread stops at the IndexError it cannot report: never a read past the
            # tuple here (cj::UniTuple::get gives 0 out of range)
            wrap = "true" if _may_be_negative(i) else "false"
            return Value(t.dtype, f"{whole}.get<{wrap}>({i.code})")
        self.fn.error(node, f"{t} can only be indexed by a constant", "use a UniTuple (all elements one type)")

    def slice_copy_site(self, node):
        """The error sites of ``a[...] = b`` (checks on: debug or boundscheck; else -1, -1), as C++ arguments: b's
        shape differs (Numba's message), b overlaps the view in another layout (copy_into in array.h)."""
        if not self.st.program.options.reports_errors:
            return "-1, -1"
        self.st.may_raise = True
        self.fn.order.note_effect(raises=True)
        shape = self.st.program.error_site(ValueError, ("cannot assign slice from input of different size",),
                                           self.st.loc, node)
        overlap = self.st.program.error_site(ValueError, ("cannot assign slice from an array that overlaps it in "
                                                          "another layout: copy it to a local array first",),
                                          self.st.loc, node)
        return f"{shape}, {overlap}"

    def check_writable(self, node, array_node, array):
        """A store (setitem, atomic) into ``array``: a TypingError naming it when it is read-only, as Numba's."""
        if not (isinstance(array.type, T.Array) and array.type.readonly):
            return
        name = array_node.id if isinstance(array_node, ast.Name) else ast.unparse(array_node)
        if array.is_const:
            self.fn.error(node, f"cannot write to '{name}': it is a global array frozen into constant memory",
                          "pass the array as an argument to write it")
        self.fn.error(node, f"cannot write to read-only array '{name}' ({array.type})",
                      "pass a writeable array (read-only CUDA array interface data and non-writeable NumPy arrays "
                      "are read-only in kernels, as in Numba)")

    def assign_subscript(self, target, value, stmt):
        if flatiter.flat_target(target) is not None:
            array, ref = self.flat_element(target)
            if ref.type != T.undefined and value.type != T.undefined:
                self.check_writable(target, flatiter.flat_target(target), array)
                if self.st.final:
                    self.fn.emit(f"{ref.code} = {self.fn.exprs.convert(target, value, ref.type).code};", stmt)
            return
        base = self.fn.exprs.as_value(target.value, self.fn.exprs.visit_expr(target.value))
        if isinstance(base.type, T.Record) and records.field_key(target.slice) is not None:
            if value.type != T.undefined:
                records.store(self.fn, target, base, records.field_key(target.slice), value, stmt)
            return
        sl = target.slice
        elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
        idx = [self.slice_spec(e) if isinstance(e, ast.Slice) else self._value(e) for e in elts]
        if base.type == T.undefined or value.type == T.undefined:
            return
        if isinstance(base.type, T.CPointer):
            ref = self.subscript(target, base, idx)
            if self.st.final:
                self.fn.emit(f"{ref.code} = {self.fn.exprs.convert(target, value, ref.type).code};", stmt)
            return
        if not isinstance(base.type, T.Array):
            self.fn.error(target, f"'{base.type}' does not support item assignment")
        self.check_writable(target, target.value, base)
        ref = self.subscript(target, base, idx)
        if isinstance(ref.type, T.Array):
            if isinstance(value.type, T.Array):
                if value.type.ndim > ref.type.ndim:
                    self.fn.error(target, f"cannot assign a {value.type.ndim}-d array to a {ref.type.ndim}-d slice "
                                  f"({value.type} into {ref.type})")
                # each element converts as a scalar store would (complex into a real array: a C++ error before)
                self.fn.exprs.convert(target, Value(value.type.dtype, "?"), ref.type.dtype)
                self.fn.emit(f"cj::copy_into({self.slice_copy_site(target)}, {ref.code}, {value.code});", stmt)
            elif isinstance(value.type, T.UniTuple) and value.type.count > 0:
                self.store_sequence(target, ref, value, stmt)
            else:
                filler = self.fn.exprs.convert(target, value, ref.type.dtype)
                self.fn.emit(f"cj::fill({ref.code}, {filler.code});", stmt)
            return
        if self.st.final:
            self.fn.emit(f"{ref.code} = {self.fn.exprs.convert(target, value, ref.type).code};", stmt)

    def store_sequence(self, target, ref, value, stmt):
        """``a[:3] = x, y, z``: a homogeneous tuple is one of Numba's sequences, stored element by element into a
        1-d view (its length must match: a view too short fails the elements' bounds checks)."""
        if ref.type.ndim != 1:
            self.fn.error(target, f"cannot assign a tuple to a {ref.type.ndim}-d array view",
                          "assign the tuple to a 1-d slice, or its elements one by one")
        if not self.st.final:
            return
        if value.elements is None and not value.code.isidentifier():
            whole = self.fn.temp()                    # a call's tuple: evaluated once
            self.fn.emit(f"const {value.type.cpp} {whole} = {value.code};", stmt)
            value = Value(value.type, whole)
        parts = []
        for p in self.fn.exprs.tuple_elements(target, value):  # all read before any store: a[:2] = a[1], a[0] swaps
            name = self.fn.temp()
            self.fn.emit(f"const {p.type.cpp} {name} = {p.code};", stmt)
            parts.append(Value(p.type, name))
        view = self.fn.temp("view")
        self.fn.emit(f"{ref.type.cpp} {view} = {ref.code};", stmt)
        v = Value(ref.type, view)
        for k, p in enumerate(parts):
            elt = self.element(target, v, [const_value(k)])
            self.fn.emit(f"{elt.code} = {self.fn.exprs.convert(target, p, elt.type).code};", stmt)


def _may_be_negative(i):
    """A signed index not known to be >= 0: Python's negative indices count from the end."""
    return T.is_int(i.type) and i.type.signed and not i.nonneg and not (i.is_const and i.const >= 0)


def _keeps_contiguity(kinds):
    """Numba's check: integer indices keep an array contiguous; a slice only as the innermost index, unstrided."""
    for k in kinds[:-1]:
        if k != "int":
            return False
    return not kinds or kinds[-1] in ("int", "slice2")
