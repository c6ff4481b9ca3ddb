"""Expressions: one visitor method per AST node, each returning a ``Value`` (typed C++) or a ``Symbol``
(a compile-time object: module, intrinsic, type, device function). Names outside the function resolve through
the function's globals and closure, as Numba freezes them at compile time."""
import ast
import builtins
import copy
import enum
import types as pytypes

import numpy as np

from . import types as T
from . import intrinsics as I
from . import datetimes, fp8lib, pyvalues, records, vectors
from .closures import Captured
from .errors import CONSTRUCT_HINTS, describe_construct, require_literal
from ..errors import TypingError
from .frontend import NOT_FOLDED, TOO_LARGE, canonical_name, python_folded
from . import methods
from .operators import PY_OPS, binary, compare, unary
from .storage import compiler_name
from .typeconv import unify
from .typeof import int_enum_type, typeof
from .values import (Value, Symbol, cast, const_value, none_value, reinterpret, string_value, tuple_value, type_name,
                     typed, PRIMARY, UNARY, LAND, LOR, COND)

_BUILTIN_NAMES = {"abs", "min", "max", "round", "pow", "len", "int", "float", "bool", "complex", "print", "range",
                  "isinstance"}


def _numba_spelling(v):
    """An argument's type as numba-cuda's typing errors spell it: ``Literal[int](1)``, ``Tuple(Literal[int](1),
    int32)``, ``class(float32)`` for a type."""
    if isinstance(v, Symbol):
        return f"class({v.obj})" if v.path == "type" else v.path
    if v.elements is not None:
        return f"Tuple({', '.join(_numba_spelling(e) for e in v.elements)})"
    if v.literal and isinstance(v.const, int):
        return f"Literal[int]({v.const})"
    return str(v.type)


class Expressions:
    def __init__(self, fn):
        self.fn, self.st = fn, fn.state     # the function translator and the state they share

    def visit_expr(self, node, target_hint=None, optional=False):
        """The expression's Value or Symbol. A value that may be None at run time (``types.Optional``) is unwrapped
        (``unwrap_optional``) unless ``optional``: where it is kept (an assignment, a return, a device function's
        argument, ``is None``)."""
        v = self._visit_expr(node, target_hint)
        if isinstance(v, Value):
            self.st.need_type(v.type)
        if not optional and isinstance(v, Value) and isinstance(v.type, T.Optional):
            return self.unwrap_optional(node, v)
        return v

    def unwrap_optional(self, node, v):
        """An Optional used where its value is needed (numba's optional_to_any): when it is None the thread ends, as
        numba-cuda's TypeError status ends it; under debug=True the launch raises TypeError('expected T, got None')
        naming this line."""
        inner = v.type.type
        if self.st.program.options.debug:
            site = 0 if not self.st.final else \
                self.st.program.error_site(TypeError, (f"expected {inner}, got None",), self.st.loc, node)
            self.st.may_raise = True
            self.fn.order.note_effect(raises=True)
            return Value(inner, f"cj::opt_value({v.code}, {site})")
        return Value(inner, f"cj::opt_value({v.code})")

    def _visit_expr(self, node, target_hint=None):
        method = self.fn.expressions.get(type(node).__name__)
        if method is None:
            self.fn.unsupported(node, f"{describe_construct(node)} are not supported in CUDA kernels"
                                if type(node) in (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp,
                                                  ast.GeneratorExp)
                                else f"{describe_construct(node)} is not supported in CUDA kernels",
                                CONSTRUCT_HINTS.get(type(node)))
        self.st.target_hint = target_hint
        return method(node)

    def as_value(self, node, v):
        """A Symbol used as a value: constants become literals; anything else is an error."""
        if isinstance(v, Value):
            return v
        if v.path == "type":
            self.fn.error(node, f"the type {v.obj} cannot be used as a value here",
                          f"call it to convert: {v.obj}(x)")
        if v.path == "devfunc":
            self.fn.error(node, "device functions can only be called, not used as values")
        if v.path == "closure":
            self.fn.error(node, f"the inner function '{v.obj.name}' can only be called or passed to a device function "
                          f"here (as in Numba, a function cannot be returned or stored)")
        dim3 = I.dim3_value(v.path)
        if dim3 is not None:
            return dim3
        self.fn.error(node, f"'{v.path}' cannot be used as a value in a CUDA kernel")

    # ---- leaves --------------------------------------------------------------------------------------------
    def expr_Constant(self, node):
        c = node.value
        if isinstance(c, (str, bytes)):
            return string_value(c)
        if c is None:
            return none_value()
        self.check_int_range(node, c)
        v = const_value(c)
        if v is None:
            self.fn.unsupported(node, f"constants of type {type(c).__name__} are not supported in CUDA kernels")
        return v

    def folded_constant(self, node):
        """An operation on constants that Python folds is that constant (as in Numba); None for any other."""
        folded = python_folded(node)
        if folded is TOO_LARGE:
            self.fn.error(node, f"Int value is too large: {ast.unparse(node)} does not fit in int64 or uint64",
                          "integer constants in kernels must fit in int64 or uint64; use a float for larger values")
        if folded is NOT_FOLDED:
            return None
        return self.expr_Constant(ast.copy_location(ast.Constant(folded), node))

    def check_int_range(self, node, c):
        """Numba types integer constants as int64 or uint64; beyond both it is a typing error, not a wrapped value."""
        if isinstance(c, int) and not isinstance(c, bool) and not -2**63 <= c < 2**64:
            self.fn.error(node, f"Int value is too large: {c}",
                          "integer constants in kernels must fit in int64 or uint64; use a float for larger values")

    def expr_Name(self, node):
        held = self.st.function_params.get(node.id)
        if held is not None:
            return Symbol(held.path, held.obj)
        if node.id in self.st.locals:
            return self.fn.flow.load_var(node, node.id)
        found, obj = self.st.parsed.lookup(node.id)
        if not found and node.id == self.st.parsed.name and not self.st.is_kernel:
            # A device function compiled eagerly names itself before its decorator has bound the name.
            found, obj = True, _SelfReference(self.st.parsed.pyfunc, self.st.options)
        if not found:
            self.fn.error(node, f"NameError: name '{node.id}' is not defined",
                          "define it at module level before the kernel is first launched, or pass it as an argument")
        return self.global_value(node, node.id, obj)

    def global_value(self, node, name, obj):
        """A Python object a kernel names (global, closure cell, module attribute), as Numba freezes it."""
        if isinstance(obj, Captured):                 # what an inner function closes over (closures.py)
            return copy.copy(obj.value)
        if isinstance(obj, enum.EnumMeta):
            return Symbol(obj.__name__, obj)           # its members resolve as attributes (symbol_attribute)
        if isinstance(obj, enum.Enum):
            if isinstance(obj, int):
                v = const_value(int(obj))              # an IntEnum member is its int, as in Numba,
                v.const = obj                          # and keeps its member for `.value`
                try:                                   # typed IntEnumMember(cls, int64) as Numba types it, so a
                    v.type = int_enum_type(type(obj))  # device function returning members returns one too
                except TypingError:
                    pass                               # a heterogeneous enum's member: its int, as before
                return v
            return pyvalues.enum_member(self.fn, node, obj)
        if isinstance(obj, type) and issubclass(obj, int) and obj is not bool and obj.__module__ != "builtins":
            return Symbol(obj.__name__, obj)           # another library's int enum (cuda.bindings' cudaRoundMode)
        if isinstance(obj, int) and type(obj) not in (int, bool) and not isinstance(obj, np.generic):
            self.check_int_range(node, int(obj))
            return const_value(int(obj))               # and its members: their ints
        if isinstance(obj, (bool, int, float, complex)) and not isinstance(obj, np.generic):
            self.check_int_range(node, obj)
            return const_value(obj)
        if isinstance(obj, np.void) and obj.dtype.names is not None:
            return self.global_record(node, name, obj)
        if isinstance(obj, np.generic):
            t = T.from_dtype(obj.dtype)
            if t is None:
                self.fn.error(node, f"'{name}' is a NumPy scalar of unsupported dtype {obj.dtype}")
            if isinstance(t, T.FP8):                   # ml_dtypes' float8: its bits (a conversion would saturate)
                return Value(t, f"{t.cpp}::from_bits({int(np.asarray(obj).view(np.uint8))}u)")
            return cast(const_value(obj.item()), t)
        if isinstance(obj, tuple):
            parts = [self.global_value(node, name, o) for o in obj]
            if not all(isinstance(p, Value) and isinstance(p.type, (T.Scalar, T.Array, T.BaseTuple)) for p in parts):
                self.fn.error(node, f"global tuple '{name}' must hold numbers, arrays or tuples of them to be used "
                              f"in a kernel")
            cls = type(obj) if T.is_namedtuple_class(type(obj)) else None
            return tuple_value(T.named_tuple([p.type for p in parts], cls), parts)
        if T.is_namedtuple_class(obj):
            return Symbol("namedtuple", obj)           # called: a namedtuple built in the kernel
        if pyvalues.is_literal_unroll(obj):
            return Symbol("literal_unroll", obj)       # for x in literal_unroll(t): loops.for_unrolled
        if isinstance(obj, (str, bytes)):
            return string_value(obj)
        if obj is None:
            return none_value()
        if isinstance(obj, T.Type):
            return Symbol("type", obj)
        if isinstance(obj, type) and issubclass(obj, np.generic):
            t = T.from_dtype(obj)
            if t is None:
                self.fn.error(node, f"NumPy type {obj.__name__} is not supported in CUDA kernels")
            return Symbol("type", t)
        if isinstance(obj, np.dtype):
            t = T.from_dtype(obj)
            if t is None:
                self.fn.error(node, f"dtype {obj} is not supported in CUDA kernels")
            return Symbol("type", t)
        if isinstance(obj, np.ndarray):
            return self.st.program.frozen_array(self.fn, node, name, obj)
        if hasattr(obj, "__cudajit_pyfunc__"):
            return Symbol("devfunc", obj)
        if _is_numba_cpu_dispatcher(obj):
            return Symbol("devfunc", _numba_jit_function(obj))
        if getattr(obj, "__cudajit_extern__", False):
            return Symbol("extern", obj)
        if hasattr(obj, "__cuda_array_interface__"):
            return self.captured_device_array(node, name, obj)
        canon = canonical_name(obj)
        if canon:
            return Symbol(canon, obj)
        path = getattr(obj, "_path", None)
        if path is not None and type(obj).__module__.startswith(("cudajit.cuda", "numba")):
            return Symbol("cuda." + path, obj)
        rname = self.st.program.reverse_names.get(id(obj))
        if rname:
            return Symbol(rname, obj)
        if obj in (int, float, bool, complex, range) or (isinstance(obj, pytypes.BuiltinFunctionType)
                                                  and getattr(builtins, obj.__name__, None) is obj):
            if obj.__name__ in _BUILTIN_NAMES:
                return Symbol(obj.__name__, obj)
            self.fn.unsupported(node, f"the builtin {obj.__name__}() is not supported in CUDA kernels")
        if isinstance(obj, pytypes.ModuleType):
            return Symbol(obj.__name__, obj)
        if type(obj).__module__.startswith("cffi") and type(obj).__name__ == "FFI":
            return Symbol("cffi", obj)                # a cffi.FFI(): its from_buffer is an entry (pointers.py)
        if isinstance(obj, type) and obj.__module__ == "builtins" and not issubclass(obj, BaseException):
            # str, list, dict, bytes, ...: Python's own classes, not functions a user could decorate. A TypingError,
            # as numba-cuda raises for them
            if obj is str:
                self.fn.error(node, "str() is not supported in CUDA kernels: kernels have no strings (as in "
                              "numba-cuda, neither str() of a number nor string operations compile)",
                              "print() takes numbers and string constants directly: print('i =', i)")
            self.fn.error(node, f"the builtin {obj.__name__}() is not supported in CUDA kernels")
        if callable(obj):
            self.fn.error(node, f"'{name}' is a Python function, not a device function",
                          "decorate it with @cuda.jit(device=True) to call it from a kernel")
        self.fn.error(node, f"'{name}' refers to a {type(obj).__name__}, which cannot be used in a CUDA kernel")

    def global_record(self, node, name, obj):
        """A global structured scalar (``np.rec.array(...)[0]``, ``arr[0]`` of a structured array): Numba makes its
        bytes a constant record; here it is element 0 of a one-element frozen array of its dtype (read-only, as
        frozen arrays are)."""
        key = ("record", id(obj))
        known = self.st.program.frozen.get(key)
        if known is None:
            arr = np.empty(1, dtype=obj.dtype)
            arr[0] = obj
            known = self.st.program.frozen[key] = (obj, arr)    # keeps obj alive, so its id stays its own
        frozen = self.st.program.frozen_array(self.fn, node, name, known[1])
        return self.fn.index.element(node, frozen, [Value(T.int64, "0", const=0, nonneg=True)])

    def captured_device_array(self, node, name, obj):
        """A device array named by a kernel (global or closure): captured by pointer, as Numba does."""
        cai = obj.__cuda_array_interface__
        t = typeof(obj, name)
        ptr = cai["data"][0] or 0
        shape = [int(n) for n in cai["shape"]]
        item = np.dtype(cai["typestr"]).itemsize
        strides = cai.get("strides")
        if strides is None:
            strides, acc = [], item
            for n in reversed(shape):
                strides.insert(0, acc)
                acc *= max(n, 1)
        dims = ", ".join(map(str, shape)) or "0"
        strs = ", ".join(map(str, strides)) or "0"
        data = f"reinterpret_cast<{t.dtype.storage_cpp}*>({ptr}ull)"
        code = f"{t.cpp}{{{data}, {{{dims}}}, {{{strs}}}}}" if t.ndim else f"{t.cpp}{{{data}}}"
        return Value(t, code)

    # ---- attributes --------------------------------------------------------------------------------------
    def expr_Attribute(self, node):
        base = self.visit_expr(node.value)
        attr = node.attr
        if isinstance(base, Symbol):
            return self.symbol_attribute(node, base, attr)
        return self.value_attribute(node, base, attr)

    def symbol_attribute(self, node, base, attr):
        path = f"{base.path}.{attr}"
        entry = I.lookup(path)
        if entry is not None and entry.kind == "attr":
            self.st.intrinsics_used.add(entry.name)
            if entry.part:
                self.st.need(entry.part)
            return entry.impl(self.fn, node)
        obj = getattr(base.obj, attr, None) if base.obj is not None else None
        if entry is not None or I.is_namespace(path):
            canon = canonical_name(obj) if obj is not None else None
            return Symbol(canon or path, obj)
        if base.path in ("cuda", "cudajit.cuda") and obj is None:
            self.fn.unsupported(node, f"cuda.{attr} is not supported in CUDA kernels")
        if base.path in ("math", "cmath") and obj is not None and not isinstance(obj, float):
            self.fn.unsupported(node, f"{path}() is not supported in CUDA kernels")
        if base.path == "np" and callable(obj) and not isinstance(obj, type):
            self.fn.unsupported(node, f"{path}() is not supported in CUDA kernels",
                                "numba-cuda supports NumPy ufuncs such as np.sin, np.add, np.maximum (no array creation)")
        if base.path == "type" and attr in ("dtype", "type"):    # np.float32.dtype, a.dtype.type: the type itself
            return base
        if obj is None and not hasattr(base.obj, attr):
            self.fn.error(node, f"'{base.path}' has no attribute '{attr}'")
        return self.global_value(node, path, obj)

    def value_attribute(self, node, v, attr):
        t = v.type
        found = methods.value_attribute(self.fn, node, v, attr)     # arrays' and the other registered kinds'
        if found is not None:
            return found
        if isinstance(t, vectors.Vector):
            return vectors.attribute(self.fn, node, v, attr)
        if isinstance(t, T.Record):
            return records.load(self.fn, node, v, attr)
        if isinstance(t, (T.NamedUniTuple, T.NamedTuple)):
            return pyvalues.namedtuple_attribute(self.fn, node, v, attr)
        if isinstance(t, T.EnumMember):
            return pyvalues.enum_attribute(self.fn, node, v, attr)
        if fp8lib.involved(t):
            return fp8lib.attribute(self.fn, node, v, attr)
        if T.is_number(t) or t == T.boolean:
            if attr == "value" and isinstance(v.const, enum.IntEnum):
                return const_value(int(v.const))       # Agent.FIXED.value: an IntEnum member's int
            if attr == "value" and isinstance(t, T.IntEnumMember):
                return Value(t.base, v.code, v.prec, nonneg=v.nonneg)   # an IntEnum argument's int
            if attr in ("real", "imag"):
                if isinstance(t, T.Complex):
                    return Value(t.underlying, f"{v.at(PRIMARY)}.{'re' if attr == 'real' else 'im'}")
                return v if attr == "real" else cast(const_value(0), t)
            self.fn.error(node, f"'{t}' has no attribute '{attr}'")
        if t == T.undefined:
            return Value(T.undefined, "?")
        self.fn.error(node, f"'{t}' has no attribute '{attr}'")

    def component_view(self, node, v, attr):
        """``a.real`` / ``a.imag``: a strided view of a complex array's parts; of a real array ``.real`` is the
        array itself and ``.imag`` (NumPy: a new array of zeros) is refused, as Numba's CUDA target cannot
        allocate it."""
        t = v.type
        if not isinstance(t.dtype, T.Complex):
            if attr == "real":
                return v
            self.fn.unsupported(node, f"'.imag' of a {t.dtype} array is not supported in CUDA kernels",
                                "it would allocate an array of zeros: use 0 instead")
        offset = "0" if attr == "real" else str(t.dtype.underlying.dtype.itemsize)
        return reinterpret(v, T.Array(t.dtype.underlying, t.ndim, "A", t.readonly), offset)

    def transpose(self, v):
        t = v.type
        if t.ndim <= 1:                  # NumPy's: a 0-d or 1-d array is its own transpose
            return v
        layout = {"C": "F", "F": "C"}.get(t.layout, "A") if t.ndim == 2 else t.layout
        rt = T.Array(t.dtype, t.ndim, layout, t.readonly)
        return Value(rt, f"cj::transpose<{rt.cpp}>({v.code})")

    # ---- operators ---------------------------------------------------------------------------------------
    def expr_BinOp(self, node):
        folded = self.folded_constant(node)
        if folded is not None:
            return folded
        mark = self.fn.order.effects_mark()
        a = self.as_value(node.left, self.visit_expr(node.left))
        fa, mark = self.fn.order.effects_since(mark), self.fn.order.effects_mark()
        b = self.as_value(node.right, self.visit_expr(node.right))
        fb, mark = self.fn.order.effects_since(mark), self.fn.order.effects_mark()
        op = PY_OPS[type(node.op).__name__]
        result = self.binop(node, op, a, b)
        return self.fn.order.in_python_order(result, lambda ab: self.binop(node, op, *ab), [a, b], [fa, fb],
                                             self.fn.order.effects_since(mark))

    def binop(self, node, op, a, b):
        if op == "@":
            self.fn.unsupported(node, "the @ operator is not supported in CUDA kernels")
        return binary(self.fn, node, op, a, b)

    def expr_UnaryOp(self, node):
        folded = self.folded_constant(node)
        if folded is not None:
            return folded
        a = self.as_value(node.operand, self.visit_expr(node.operand))
        op = "not" if isinstance(node.op, ast.Not) else PY_OPS[type(node.op).__name__]
        return unary(self.fn, node, op, a)

    def expr_Compare(self, node):
        operands, effects = [], []
        is_op = [isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops]
        for i, n in enumerate([node.left] + node.comparators):
            mark = self.fn.order.effects_mark()
            # an operand of `is` / `is not` only keeps an Optional (its test reads the flag); any other unwraps it
            keep = all(is_op[j] for j in (i - 1, i) if 0 <= j < len(is_op))
            operands.append(self.as_value(n, self.visit_expr(n, optional=keep)))
            effects.append(self.fn.order.effects_since(mark))
        mark = self.fn.order.effects_mark()
        result = self.comparisons(node, operands)
        return self.fn.order.in_python_order(result, lambda vs: self.comparisons(node, vs), operands, effects,
                                             self.fn.order.effects_since(mark))

    def comparisons(self, node, operands):
        """``a < b <= c``: each comparison of neighbours, joined by ``&&``."""
        left, parts = operands[0], []
        for op, right in zip(node.ops, operands[1:]):
            if isinstance(op, (ast.In, ast.NotIn)):
                parts.append(self.contains(node, left, right, isinstance(op, ast.NotIn)))
                left = right
                continue
            name = {ast.Is: "is", ast.IsNot: "is not"}.get(type(op)) or PY_OPS.get(type(op).__name__)
            if name is None:
                self.fn.unsupported(node, f"the '{type(op).__name__}' comparison is not supported in CUDA kernels")
            parts.append(compare(self.fn, node, name, left, right))
            left = right
        if len(parts) == 1:
            return parts[0]
        if any(p.type == T.undefined for p in parts):
            return Value(T.undefined, "?")
        return Value(T.boolean, " && ".join(p.at(LAND + 1) for p in parts), LAND)

    def contains(self, node, item, container, negate):
        """``item in container`` (``not in``: negated) for a tuple, Numba's ``operator.contains`` of a tuple: true
        when ``item ==`` one of its elements (an empty tuple holds nothing). Each element is compared as ``==``
        compares them; a comparison known at compile time folds, so a constant test decides an ``if``."""
        if T.undefined in (item.type, container.type):
            return Value(T.undefined, "?")
        if not isinstance(container.type, T.BaseTuple):
            self.fn.unsupported(node, f"'in' is supported on tuples in CUDA kernels, not on {type_name(container)}",
                                "compare with each value, or loop over the array")
        tests = [compare(self.fn, node, "==", item, e) for e in self.tuple_elements(node, container)]
        if any(t.type == T.undefined for t in tests):
            return Value(T.undefined, "?")
        if any(t.is_const and t.const is True for t in tests):
            found = True
        elif all(t.is_const for t in tests):
            found = False
        else:
            code = " || ".join(t.at(LOR + 1) for t in tests if not t.is_const)
            if negate:
                return Value(T.boolean, f"!({code})", UNARY)
            return Value(T.boolean, code, LOR)
        r = found != negate
        return Value(T.boolean, "true" if r else "false", const=r)

    def expr_BoolOp(self, node):
        """``and``/``or`` short-circuit; on non-booleans the result is one of the operands (Numba unifies their
        types), as in Python: ``a or b`` is ``a`` if ``a`` is true, else ``b``."""
        is_and = isinstance(node.op, ast.And)
        values, skipped = [], None
        for n in node.values:
            v = self.as_value(n, self.visit_expr(n))
            if not values and (v.type == T.boolean and v.is_const or v.type == T.none and v.const is None
                               or isinstance(v.type, T.StringLiteral)):
                # A leading constant (``b is not None and b > 0`` with b None; a None, which is false) decides at
                # compile time; what it skips is never typed, as Numba prunes the branch.
                if bool(v.const) != is_and:
                    return v
                skipped = v
                continue
            values.append(v)
        if len(values) <= 1:
            return values[0] if values else skipped       # all skipped: Python's value is the last operand
        if any(v.type == T.undefined for v in values):
            return Value(T.undefined, "?")
        if all(v.type == T.boolean for v in values):
            op, prec = ("&&", LAND) if is_and else ("||", LOR)
            return Value(T.boolean, f" {op} ".join(v.at(prec + 1) for v in values), prec)
        t = values[0].type
        for v in values[1:]:
            t = unify(t, v.type)
            if t is None:
                self.fn.error(node, f"cannot unify {values[0].type} and {v.type} in '{'and' if is_and else 'or'}'")
        if not T.is_scalar(t):          # None, strings, arrays, tuples: no truth value the C++ can test
            self.fn.error(node, f"'{'and' if is_and else 'or'}' of {type_name(values[0])} values is not supported in "
                          f"CUDA kernels", "compare explicitly, e.g. x is not None")
        out = cast(values[-1], t)
        for v in reversed(values[:-1]):
            first = cast(v, t)
            test = f"cj::py_bool({v.code})"
            if is_and:
                out = Value(t, f"{test} ? {out.at(COND)} : {first.at(COND)}", COND)
            else:
                out = Value(t, f"{test} ? {first.at(COND)} : {out.at(COND)}", COND)
        return out

    def expr_IfExp(self, node):
        cond = self.fn.condition(node.test)
        if cond.is_const and isinstance(cond.const, bool):      # the other branch is never typed (Numba prunes it)
            chosen = node.body if cond.const else node.orelse
            return self.as_value(chosen, self.visit_expr(chosen, optional=True))
        a = self.as_value(node.body, self.visit_expr(node.body, optional=True))
        b = self.as_value(node.orelse, self.visit_expr(node.orelse, optional=True))
        if T.undefined in (a.type, b.type):
            # A branch not typed yet (a recursive call, a loop-carried variable): while typing, the other branch
            # gives the type so far (`n if n < 2 else fib(n - 1) + fib(n - 2)` has a base case); the passes'
            # fixed point unifies both.
            known = b if a.type == T.undefined else a
            return Value(T.undefined if self.st.final else known.type, "?")
        t = unify(a.type, b.type)
        if t is None:
            self.fn.error(node, f"cannot unify {a.type} and {b.type} in a conditional expression")
        # integer branches get their exact C++ type: `c ? int16_t(x) : 32767` would be a C++ int
        conv = typed if T.is_int(t) else cast
        return Value(t, f"{cond.at(COND + 1)} ? {conv(a, t).at(COND)} : {conv(b, t).at(COND)}", COND,
                     nonneg=a.nonneg and b.nonneg)

    def expr_Tuple(self, node):
        parts, effects, origins, bound = [], [], [], []
        for e in node.elts:
            if isinstance(e, ast.Starred):
                # (*t, x): the elements of the tuple t, as Numba's rewrite of LIST_TO_TUPLE makes of it
                spread = self.fn.calls.starred_argument(e, bound, "in a tuple display")
                if spread is None:
                    return Value(T.undefined, "?")
                parts.extend(spread)
                effects.extend([(0, 0)] * len(spread))
                origins.extend([e] * len(spread))
                continue
            mark = self.fn.order.effects_mark()
            parts.append(self.as_value(e, self.visit_expr(e)))
            effects.append(self.fn.order.effects_since(mark))
            origins.append(e)
        result = self.tuple_of(node, parts, origins)
        if not bound:
            return self.fn.order.in_python_order(result, lambda ps: self.tuple_of(node, ps, origins), parts, effects)
        for name, v in reversed(bound):
            # (*g(x), y): g runs once, its tuple is the parameter of a lambda around the new tuple
            result = Value(result.type, f"[&](const {v.type.cpp}& {name}) {{ return {result.code}; }}({v.code})")
        return result

    def tuple_of(self, node, parts, origins=None):
        if node is self.st.returned_node:
            for e in node.elts:
                if id(e) in self.st.self_calls:
                    # T = Tuple(..., T): the type nests one level deeper at each pass (numba-cuda's words first)
                    self.fn.error(e, f"Return type of recursive function does not converge: '{self.st.parsed.name}' "
                                  f"returns a tuple holding its own result, whose type would nest without end",
                               "return a value of a fixed type (write the parts into an array argument)")
        if any(p.type == T.undefined for p in parts):
            return Value(T.undefined, "?")
        for p, e in zip(parts, origins or node.elts):
            if not (T.is_scalar(p.type) or isinstance(p.type, (T.BaseTuple, T.Array, T.EnumMember))):
                self.fn.error(e, f"a tuple cannot hold a value of type {p.type}")
        parts = [typed(p, p.type) for p in parts]      # a literal 2 is int64 in the tuple, not C++'s int
        return tuple_value(T.Tuple([p.type for p in parts]), parts)

    # ---- tuples ------------------------------------------------------------------------------------------
    def tuple_elements(self, node, v):
        if v.elements is not None:
            return v.elements
        t = v.type
        if isinstance(t, T.UniTuple):
            return [Value(t.dtype, f"{v.at(PRIMARY)}.v[{i}]") for i in range(t.count)]
        return [Value(et, f"cj::get<{i}>({v.code})") for i, et in enumerate(t.types)]

    # ---- conversions used by intrinsics -------------------------------------------------------------------
    def convert(self, node, v, t):
        """Implicit conversion for stores and intrinsic arguments (Numba casts the value to the target type)."""
        v = self.as_value(node, v)
        if v.type == T.undefined:
            return Value(t, "?")
        if isinstance(v.type, T.Optional) and not isinstance(t, T.Optional):
            v = self.unwrap_optional(node, v)
        if isinstance(t, T.CharSeq) and v.type != t:
            return self.chars_value(node, v, t)
        if v.type != t and fp8lib.involved(v.type, t):
            fp8lib.implicit_error(self.fn, node, v, t)
        if datetimes.involved(v.type, t) and v.type != t and not datetimes.convertible(v.type, t):
            self.fn.error(node, f"cannot convert {v.type} to {t}",
                          "NumPy converts a datetime64/timedelta64 only to one of its kind with a finer unit")
        if not (T.is_scalar(v.type) and T.is_scalar(t)) and v.type != t and not datetimes.involved(v.type):
            self.fn.error(node, f"cannot convert {type_name(v)} to {t}")
        if isinstance(v.type, T.Complex) and not isinstance(t, T.Complex):
            self.fn.error(node, f"cannot convert {v.type} to {t} (a complex number has no real conversion)")
        return cast(v, t)

    def chars_value(self, node, v, t):
        """A string constant stored into a fixed-width string (an 'S'/'U' element or record field): its characters
        (a str's code points, a bytes' values; ASCII across kinds, as NumPy encodes), cut at the width."""
        if not isinstance(v.type, T.StringLiteral):
            self.fn.error(node, f"cannot store {type_name(v)} into {t}",
                          "store a string constant or an element of the same string type")
        s = v.const
        if isinstance(s, bytes) and t.unicode:
            s = s.decode("ascii", "replace") if s.isascii() else None
        elif isinstance(s, str) and not t.unicode:
            s = s.encode("ascii") if s.isascii() else None
        if s is None:
            self.fn.error(node, f"cannot store {type_name(v)} into {t}: NumPy stores only ASCII across str and bytes")
        codes = [ord(ch) for ch in s] if isinstance(s, str) else list(s)
        return Value(t, f"{t.cpp}{{{{{', '.join(map(str, codes[:t.count]))}}}}}")

    def explicit_cast(self, node, v, t):
        v = self.as_value(node, v)
        if v.type == T.undefined:
            return Value(T.undefined, "?")
        if fp8lib.involved(v.type, t):
            return fp8lib.explicit_cast(self.fn, node, v, t)
        if not T.is_scalar(v.type):
            self.fn.error(node, f"cannot convert {type_name(v)} to {t}")
        if t == T.boolean and v.type != T.boolean:
            # Numba casts any value to boolean by its truth: bool(z) and boolean(z) of a complex z too
            return Value(T.boolean, f"cj::py_bool({v.code})")
        if isinstance(v.type, T.Complex) and not isinstance(t, T.Complex):
            self.fn.error(node, f"cannot convert {v.type} to {t}")
        return cast(v, t)

    def const_shape(self, node, v, kind, dtype_arg=None):
        msg = (f"cuda.{kind}.array shape must be a constant (an int literal, a global int, or a tuple of them)")
        if isinstance(v, Value) and v.is_const:
            c = v.const
            if isinstance(c, int) and not isinstance(c, bool):
                return (c,)
            if isinstance(c, tuple) and all(isinstance(x, int) and not isinstance(x, bool) for x in c):
                return c
        hint = "use a number or a module-level constant, e.g. TPB = 16 ... (TPB, TPB)"
        if isinstance(v, Value) and v.param is not None and not self.st.is_kernel:
            # a device function's parameter: its callers may pass a constant (Program.device_function)
            raise require_literal(self.st.loc, node, msg, f"{hint}, or pass one to '{self.st.parsed.name}'")
        if dtype_arg is not None:
            # numba-cuda's first lines (its tests and users' searches look for them), then what to write
            msg = (f"No implementation of function Function(<function {kind}.array at 0x{id(kind):x}>) found for "
                   f"signature:\n \n >>> array(shape={_numba_spelling(v)}, dtype={_numba_spelling(dtype_arg)})\n \n"
                   f"{msg}")
        self.fn.error(node, msg, hint)

    def dtype_of(self, node, v):
        if isinstance(v, Symbol) and v.path == "type" and isinstance(v.obj, (T.Scalar, T.Record)):
            return v.obj
        if isinstance(v, Value) and isinstance(v.const, str):
            t = T.from_dtype(v.const) if v.const not in ("float", "int", "complex") else None
            if t is None:
                named = getattr(T, v.const, None)
                t = named if isinstance(named, T.Scalar) else None
            if t is not None:
                return t
            # numba-cuda's words first
            self.fn.error(node, f"Invalid NumPy dtype specified: {v.const!r:.60}; dtype must be a type such as "
                          f"float32, np.float32 or 'float32'")
        self.fn.error(node, "dtype must be a type such as float32, np.float32 or 'float32'")

    def declare_array_storage(self, node, kind, dtype, shape, alignment=None):
        """Storage for a shared/local array at the top of the function (it lives as long as the call);
        ``alignment``: bytes, or None for the dtype's own."""
        known = self.st.storage_decls.get(id(node))
        if known is None:
            hint = self.st.storage_hint or "arr"
            what = "storage" if kind == "shared" else "local"
            name = compiler_name(hint, what)                  # cj_sA_storage, cj_buf_local
            used = {n for n, _ in self.st.storage_decls.values()}
            k = 1
            while name in used:
                k += 1
                name = compiler_name(hint, f"{what}{k}")
            count = " * ".join(str(n) for n in shape)
            qual = "CJ_SHARED " if kind == "shared" else ""
            align = f"alignas({alignment}) " if alignment else ""
            known = (name, f"{align}{qual}{dtype.storage_cpp} {name}[{count}];")
            self.st.storage_decls[id(node)] = known
        if self.st.final and known[1] not in self.st.top_lines:
            self.st.top_lines.append(known[1])
        return known[0]

    # ---- calls ---------------------------------------------------------------------------------------------
def _is_numba_cpu_dispatcher(obj):
    """A ``@numba.jit``/``@numba.njit`` function: numba-cuda compiles its Python for the device when a kernel calls
    it (numba-cuda's CPU/GPU compatibility example), and so does cudajit."""
    return type(obj).__module__.startswith("numba.") and callable(getattr(obj, "py_func", None)) \
        and hasattr(obj, "targetoptions")


class _NumbaJitFunction:
    """A ``numba.jit`` function seen as a device function of its Python source (default options)."""
    def __init__(self, dispatcher):
        self.__cudajit_pyfunc__ = dispatcher.py_func
        self.__cudajit_options__ = None


_numba_jit_functions = {}     # id(numba dispatcher) -> (dispatcher, adapter): one adapter, one specialisation key


def _numba_jit_function(dispatcher):
    held = _numba_jit_functions.get(id(dispatcher))
    if held is None or held[0] is not dispatcher:
        held = _numba_jit_functions[id(dispatcher)] = (dispatcher, _NumbaJitFunction(dispatcher))
    return held[1]


class _SelfReference:
    """Stands for the device function being compiled when its own name is not bound yet (recursion)."""
    def __init__(self, pyfunc, options):
        self.__cudajit_pyfunc__ = pyfunc
        self.__cudajit_options__ = options
