"""Calls: of intrinsics (the registry), of device functions and inner functions, of foreign functions
(``cuda.declare_device``), of methods of values, with ``*args`` and keywords; and the values a call's arguments
stand for (``argument_value``)."""
import ast
import inspect
import types as pytypes
from . import types as T
from . import intrinsics as I
from . import fp8lib, pyvalues
from .closures import function_value
from ..errors import CudaJitError
from .methods import call_value_method
from .typeconv import resolve
from .values import Value, Symbol, is_shape_constant, tuple_value, typed, PRIMARY


_TAKES_OPTIONAL = {"devfunc", "closure", "print"}


class Calls:
    def __init__(self, fn):
        self.fn, self.st = fn, fn.state     # the function translator and the state they share

    def expr_Call(self, node):
        hint = self.st.target_hint
        self.st.storage_hint = hint.id if isinstance(hint, ast.Name) else None
        if isinstance(node.func, ast.Attribute):
            base = self.fn.exprs.visit_expr(node.func.value)
            if isinstance(base, Value):                        # a method: z.conjugate()
                func = Symbol("method:" + node.func.attr, base)
            else:
                func = self.fn.exprs.symbol_attribute(node.func, base, node.func.attr)
        else:
            func = self.fn.exprs.visit_expr(node.func)
        args, bound, effects = [], [], []
        # device functions take an Optional as it is (a specialisation of their own, as Numba's dispatcher); print()
        # refuses one (_print_item); everything else unwraps it
        keep = getattr(func, "path", None) in _TAKES_OPTIONAL
        for a in node.args:
            if isinstance(a, ast.Tuple) and getattr(func, "path", None) == "isinstance":
                args.append(tuple(self.fn.exprs.visit_expr(e) for e in a.elts))   # a tuple of classes: never a value
                effects.append((0, 0))
                continue
            if not isinstance(a, ast.Starred):
                mark = self.fn.order.effects_mark()
                args.append(self.fn.exprs.visit_expr(a, optional=keep))
                effects.append(self.fn.order.effects_since(mark))
                continue
            spread = self.starred_argument(a, bound)
            if spread is None:
                return Value(T.undefined, "?")
            args.extend(spread)
            effects.extend([(0, 0)] * len(spread))
        kwargs = {}
        for k in node.keywords:
            mark = self.fn.order.effects_mark()
            kwargs[k.arg] = self.fn.exprs.visit_expr(k.value, optional=keep)
            effects.append(self.fn.order.effects_since(mark))
        if None in kwargs:
            self.fn.unsupported(node, "**kwargs in calls is not supported in CUDA kernels")
        if isinstance(func, Value):
            self.fn.error(node, f"a value of type {func.type} is not callable")
        mark = self.fn.order.effects_mark()
        result = self.call_symbol(node, func, args, kwargs)
        if not bound:
            # Python evaluates the arguments in order (keywords last), then calls
            n = len(args)
            result = self.fn.order.in_python_order(
                result, lambda vs: self.call_symbol(node, func, vs[:n], dict(zip(kwargs, vs[n:]))),
                args + list(kwargs.values()), effects, self.fn.order.effects_since(mark))
        for name, v in reversed(bound):
            # f(*g(x)): g runs once, its tuple is the parameter of a lambda around the call
            result = Value(result.type, f"[&](const {v.type.cpp}& {name}) {{ return {result.code}; }}({v.code})")
        return result

    def starred_argument(self, node, bound, where="in a call"):
        """The elements of the tuple ``*t`` spreads into a call's arguments or a tuple (None while ``t``'s type is
        unknown). A tuple that is neither a variable nor built in place is named once: (name, value) joins ``bound``."""
        v = self.fn.exprs.as_value(node, self.fn.exprs.visit_expr(node.value))
        if v.type == T.undefined:
            return None
        if not isinstance(v.type, T.BaseTuple):
            self.fn.error(node, f"*args {where} must be a tuple, not {v.type}")
        if v.elements is None and not v.code.isidentifier():
            name = self.fn.temp("spread")
            bound.append((name, v))
            v = Value(v.type, name)
        return self.fn.exprs.tuple_elements(node, v)

    def call_symbol(self, node, func, args, kwargs):
        if func.path == "type":
            if isinstance(func.obj, (T.FP8, T.FP8Vector)):
                return fp8lib.construct(self.fn, node, func.obj, args, kwargs)
            if kwargs or len(args) != 1:
                self.fn.error(node, f"{func.obj}() takes exactly one argument")
            return self.fn.exprs.explicit_cast(node, args[0], func.obj)
        if func.path == "devfunc":
            return self.call_device_function(node, func.obj, args, kwargs)
        if func.path == "closure":
            return self.fn.closures.call_closure(node, func.obj, args, kwargs)
        if func.path == "extern":
            return self.call_extern(node, func.obj, args, kwargs)
        if func.path == "namedtuple":
            return pyvalues.construct_namedtuple(self.fn, node, func.obj, args, kwargs)
        if func.path == "literal_unroll":
            self.fn.unsupported(node, "literal_unroll() is supported only as the iterable of a for loop",
                                "write: for x in literal_unroll(t): ...")
        if func.path.startswith("method:"):
            return self.call_method(node, func, args, kwargs)
        entry = I.lookup(func.path)
        if entry is None or entry.kind != "call":
            if func.path.startswith("cuda."):
                self.fn.unsupported(node, f"{func.path}() is not supported in CUDA kernels")
            self.fn.error(node, f"'{func.path}' is not callable in a CUDA kernel")
        args = I.bind_args(self.fn, node, entry, args, kwargs)
        self.st.intrinsics_used.add(entry.name)
        if entry.part:
            self.st.need(entry.part)
        if entry.barrier:
            self.st.uses_barriers = True
        if entry.effect:
            self.fn.order.note_effect(writes=True)
        try:
            return entry.impl(self.fn, node, args, {})
        except CudaJitError:
            raise
        except (AttributeError, TypeError, KeyError, IndexError) as e:
            # an implementation given a compile-time object (a module, a function, a type) where it reads a value
            bad = next((a for a in args if isinstance(a, Symbol)), None)
            if bad is None:
                raise
            self.fn.error(node, f"{entry.name}() cannot take '{bad.path}' {_symbol_kind(bad)} as an argument")

    def call_method(self, node, func, args, kwargs):
        v, name = func.obj, func.path.split(":", 1)[1]
        entry = I.lookup(f"{v.type.name}.{name}")
        if entry is not None and entry.kind == "method":     # g.sync() of a grid group: the registry's
            self.st.intrinsics_used.add(entry.name)
            if entry.part:
                self.st.need(entry.part)
            if entry.barrier:
                self.st.uses_barriers = True
            if entry.effect:
                self.fn.order.note_effect(writes=True)
            return entry.impl(self.fn, node, [v] + list(args), kwargs)
        if name == "conjugate" and not args:
            if isinstance(v.type, T.Complex):
                return Value(v.type, f"cj::conj({v.code})")
            return v
        result = call_value_method(self.fn, node, v, name, args, kwargs)
        if result is None:
            self.fn.error(node, f"'{v.type}' has no method '{name}'")
        return result

    def call_extern(self, node, ext, args, kwargs):
        """A foreign device function (cuda.declare_device): arguments converted to its declared types."""
        sig = ext.sig
        if kwargs or len(args) != len(sig.args):
            self.fn.error(node, f"{ext.name}() takes {len(sig.args)} positional arguments as declared ({sig}), "
                          f"{len(args)} given")
        vals = [self.fn.exprs.as_value(node, a) for a in args]
        if any(v.type == T.undefined for v in vals):
            return Value(T.undefined, "?")
        conv = [self.extern_argument(node, ext, k, v, t) for k, (v, t) in enumerate(zip(vals, sig.args), 1)]
        known = self.st.program.externs.get(ext.name)
        if known is not None and (known.sig, known.abi) != (sig, ext.abi):
            self.fn.error(node, f"the foreign function {ext.name} is declared twice with different signatures")
        self.st.program.externs[ext.name] = ext
        for item in ext.link:
            if item not in self.st.program.link:
                self.st.program.link.append(item)
        if ext.cooperative:
            self.st.program.cooperative = True
        self.fn.order.note_effect(writes=True)
        return Value(sig.return_type, f"cj_ext_{ext.name}({', '.join(conv)})")

    def extern_argument(self, node, ext, k, v, t):
        """Argument ``k`` of a foreign function declared as ``t``: a number converted to it; for a CPointer or array
        parameter, a pointer of the same element type or an array's data pointer."""
        if isinstance(t, (T.CPointer, T.Array)):
            if isinstance(v.type, T.CPointer) and v.type.dtype == t.dtype:
                return v.code
            if isinstance(v.type, T.Array) and v.type.dtype == t.dtype:
                return f"{v.at(PRIMARY)}.data"
        elif T.is_scalar(v.type) and not (isinstance(v.type, T.Complex) and not isinstance(t, T.Complex)):
            return self.fn.exprs.convert(node, v, t).code
        self.fn.error(node, f"{ext.name}() argument {k}: cannot convert {v.type} to {t} (the foreign function "
                      f"{ext.name} is declared as {ext.declared} with cuda.declare_device)")

    def call_device_function(self, node, obj, args, kwargs, hidden=()):
        """A call of a device function: arguments bound to its parameters as Python binds them (keywords,
        defaults, the extra positional ones as the ``*args`` tuple), then ``hidden`` (an inner function's
        captured variables, closures.py)."""
        pyfunc = obj.__cudajit_pyfunc__
        name = pyfunc.__name__
        params, defaults, vararg = device_signature(pyfunc)
        extra = list(args[len(params):])
        if extra and vararg is None:
            self.fn.error(node, f"{name}() takes {len(params)} arguments, {len(args)} given")
        bound = list(args[:len(params)]) + [None] * (len(params) - min(len(args), len(params)))
        for k, v in kwargs.items():
            if k not in params:
                self.fn.error(node, f"{name}() got an unexpected keyword argument '{k}'")
            if bound[params.index(k)] is not None:
                self.fn.error(node, f"{name}() got multiple values for argument '{k}'")
            bound[params.index(k)] = v
        for i, b in enumerate(bound):
            if b is None:
                j = i - (len(params) - len(defaults))
                if j < 0:
                    self.fn.error(node, f"{name}() missing argument '{params[i]}'")
                # Numba's Omitted: the default as a constant, as the kernel sees a global of that value (a number,
                # None, a tuple, an array frozen into constant memory, an Enum member, a function)
                bound[i] = self.fn.exprs.global_value(node, params[i], defaults[j])
        vals = [self.argument_value(node, b) for b in bound]
        if vararg is not None:
            vals.append(self.star_args(node, name, vararg, extra))
        vals += hidden
        if any(v.type == T.undefined for v in vals):
            return Value(T.undefined, "?")
        sigs = [s for s in (getattr(obj, "__cudajit_signatures__", None) or ()) if s is not None]
        if sigs:
            # Declared signatures (cuda.jit("f4(f4)", device=True)): Numba picks one and converts the arguments.
            found = resolve([(s.return_type, tuple(s.args)) for s in sigs], [v.type for v in vals],
                            [v.literal for v in vals])
            if found is None:
                given = ", ".join(str(v.type) for v in vals)
                # numba-cuda's first words, then which signatures there are
                self.fn.error(node, f"Invalid use of type(CUDADispatcher(<function {pyfunc.__qualname__} at "
                              f"0x{id(pyfunc):x}>)) with parameters ({given}): {pyfunc.__name__}() has no signature "
                              f"matching ({given}); declared: {', '.join(str(s) for s in sigs)}")
            vals = [self.fn.exprs.convert(node, v, t) if T.is_scalar(t) else v for v, t in zip(vals, found[1])]
        declared_ret = found[0] if sigs else None
        argtypes = tuple(v.type for v in vals)
        consts = tuple(v.const if v.is_const and is_shape_constant(v.const) else None for v in vals)
        res = self.st.program.device_function(self.fn, node, obj, argtypes, declared_ret, consts)
        if res.translator is self.fn:
            self.st.self_calls.add(id(node))
        if res.return_type == T.undefined:     # recursion whose return type is not known yet
            return Value(T.undefined, "?")
        if res.translator.state.may_raise:
            self.st.may_raise = True
        # it may write arrays (evalorder.py)
        self.fn.order.note_effect(writes=True, raises=res.translator.state.may_raise)
        if res.uses_barriers:
            self.st.uses_barriers = True
        if res.uses_dynamic_shared:
            self.st.uses_dynamic_shared = True
        call = f"{res.cname}({', '.join(v.code for v in vals if not T.is_compile_time(v.type))})"
        call = Value(res.return_type, f"{res.return_type.cpp}({call})" if res.cast_result else call)
        if declared_ret is not None and T.is_scalar(declared_ret) and res.return_type != declared_ret:
            call = self.fn.exprs.convert(node, call, declared_ret)
        return call

    def star_args(self, node, name, vararg, extra):
        """The ``*args`` parameter's value: a tuple of the extra positional arguments (Numba's StarArgTuple)."""
        parts = [self.argument_value(node, a) for a in extra]
        if any(T.is_compile_time(p.type) for p in parts):
            self.fn.unsupported(node, f"a function, type or None passed through *{vararg} of {name}() is not supported "
                                f"in CUDA kernels", "give it a parameter of its own")
        if any(p.type == T.undefined for p in parts):
            return Value(T.undefined, "?")
        return tuple_value(T.Tuple([p.type for p in parts]), [typed(p, p.type) for p in parts])

    def argument_value(self, node, v):
        """An argument of a device function: a Value, or a function or type passed as a value (Numba's
        first-class Dispatcher/Function/NumberClass arguments), which becomes a compile-time FunctionValue."""
        if isinstance(v, Value):
            return v
        return I.dim3_value(v.path) or Value(function_value_type(self.fn, node, v), "")


def function_value_type(cx, node, sym):
    """The FunctionValue type of the Symbol ``sym`` used as a value; an error for a module or namespace."""
    if sym.path == "closure":                        # an inner function escapes: a device function of its own
        return function_value(cx.escape_closure(node, sym.obj))
    if sym.path == "type":
        return T.FunctionValue("type", sym.obj, ("type", sym.obj.key), f"class({sym.obj})")
    if sym.path in ("devfunc", "extern"):
        pyfunc = getattr(sym.obj, "__cudajit_pyfunc__", None)
        name = pyfunc.__name__ if pyfunc is not None else sym.obj.name
        return T.FunctionValue(sym.path, sym.obj, (sym.path, id(sym.obj)), f"function({name})")
    entry = I.lookup(sym.path)
    if entry is not None and entry.kind == "call":
        return T.FunctionValue(sym.path, sym.obj, ("intrinsic", sym.path), f"Function({sym.path})")
    cx.as_value(node, sym)      # raises: a module, a namespace, a method, an attribute


def device_signature(pyfunc):
    """(positional parameter names, their default values, the ``*args`` parameter's name or None) of a device
    function's Python function (an inner function gives its own: closures.py)."""
    sig = getattr(pyfunc, "cj_signature", None)
    if sig is not None:
        return sig
    ps = inspect.signature(pyfunc).parameters.values()
    names = [p.name for p in ps if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    vararg = next((p.name for p in ps if p.kind == p.VAR_POSITIONAL), None)
    return names, tuple(pyfunc.__defaults__ or ()), vararg


def _symbol_kind(sym):
    """What a compile-time object is, for a message: '(a module)', '(a type)', '(a function)' ..."""
    obj = sym.obj
    if sym.path == "type":
        return f"(the type {obj})"
    if isinstance(obj, pytypes.ModuleType):
        return "(a module)"
    if callable(obj):
        return "(a function)"
    return f"(a {type(obj).__name__})"
