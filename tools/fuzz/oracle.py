"""The oracle: a program's ``prog`` run as plain Python, once per CUDA thread, with Numba-typed values
(values.V), this package's ``cuda``, ``math`` and builtins. What it returns is what every correct implementation
must compute, with an error bound per float; a program whose result is undefined or implementation-defined
raises Reject (it is then no test and another is generated)."""
import ast
import dis
import threading
import types
import traceback
import warnings

import numpy as np

import layout
import nbtypes as nt
import oracle_builtins as ob
import oracle_cuda as oc
from numeric import Undefined
from values import V, Uncertain, cast, lift, literal


warnings.filterwarnings("ignore", category=RuntimeWarning)


class Reject(Exception):
    """The program is not a valid test (``kind``: 'undefined', 'uncertain', or 'generator' for a bug of ours)."""

    def __init__(self, kind, why):
        super().__init__(f"{kind}: {why}")
        self.kind, self.why = kind, why


class _NumbaBooleans(ast.NodeTransformer):
    """`not x`, `x is y` and `x is not y` give Python bools; in the oracle they give Numba booleans
    (``_B(...)``), so that ``~(not x)`` inverts a boolean as Numba does."""

    def visit_UnaryOp(self, node):
        if _folded_by_cpython(node):
            return node           # ``~(not False)`` is the constant -2 in the bytecode Numba reads: leave it so
        self.generic_visit(node)
        return self._wrap(node) if isinstance(node.op, ast.Not) else node

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)):
            return self._wrap(node)
        return node

    @staticmethod
    def _wrap(node):
        name = ast.copy_location(ast.Name(id="_B", ctx=ast.Load()), node)
        return ast.copy_location(ast.Call(func=name, args=[node], keywords=[]), node)


def _folded_by_cpython(node):
    """Whether CPython's compiler turns the expression into one constant (as it does ``not False``)."""
    if not all(isinstance(n, (ast.Constant, ast.BinOp, ast.UnaryOp, ast.operator, ast.unaryop))
               for n in ast.walk(node)):
        return False
    code = compile(ast.Expression(body=node), "<constant>", "eval")
    return [i.opname for i in dis.get_instructions(code) if i.opname not in ("RESUME", "NOP", "CACHE")] in \
        (["LOAD_CONST", "RETURN_VALUE"], ["RETURN_CONST"])


def _typed_constants(code):
    """The code object with every number constant a values.Lit. CPython has already folded constant
    sub-expressions (``~False`` is the constant -1, ``10 ** -6`` is 1e-06) when it compiled the function, and
    Numba, which reads the bytecode, types exactly these constants: so does the oracle."""
    def conv(c):
        if type(c) in (bool, int, float, complex):
            return literal(c)
        if type(c) is tuple:
            return tuple(conv(x) for x in c)
        if isinstance(c, types.CodeType):
            return _typed_constants(c)
        return c
    return code.replace(co_consts=tuple(conv(c) for c in code.co_consts))


def oracle_code(body, filename):
    """The program as the oracle runs it: its functions, with Numba's booleans and typed constants."""
    tree = _NumbaBooleans().visit(ast.parse(body))
    return _typed_constants(compile(tree, filename, "exec"))


def namespace():
    env = ob.make_builtins()
    env["math"], env["cmath"], env["cuda"] = ob.make_math(), ob.make_cmath(), oc.make_cuda()
    env["_B"] = lambda b: V("bool", bool(b))
    return env


class Expected:
    """What the program computes: per result and output array, the values and their error bounds."""

    def __init__(self, arrays, errors):
        self.arrays, self.errors = arrays, errors


def _run_threads(prog, args_for, nblocks, nthreads, threaded):
    results = [None] * (nblocks * nthreads)
    for b in range(nblocks):
        if not threaded:
            for t in range(nthreads):
                oc.set_position(t, b, nthreads, nblocks)
                oc._state.shared = {}
                g = b * nthreads + t
                results[g] = prog(*args_for(g))
            continue
        barrier = threading.Barrier(nthreads)
        shared = {}
        errors = []

        def body(t, b=b, barrier=barrier, shared=shared, errors=errors):
            oc.set_position(t, b, nthreads, nblocks, barrier)
            oc._state.shared = shared
            g = b * nthreads + t
            try:
                results[g] = prog(*args_for(g))
            except threading.BrokenBarrierError:
                pass
            except BaseException as e:            # noqa: B902 - handed to the caller below
                errors.append(e)
                barrier.abort()
        threads = [threading.Thread(target=body, args=(t,)) for t in range(nthreads)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        if errors:
            raise errors[0]
    return results


def run(program, arrays, scalars, fma=False):
    """Expected results of ``program`` on the inputs, or Reject."""
    from values import Config
    Config.fma = fma
    ns = namespace()
    try:
        exec(oracle_code(program.body, f"<fuzz program {program.seed}>"), ns)
        prog = ns["prog"]
        ins = [oc.OArr(arrays[n].copy(), dt) for n, dt, _ in layout.INPUT_ARRAYS]
        scal = [V(t, bool(scalars[n]) if t == "bool" else (int(scalars[n]) if nt.is_int(t) else float(scalars[n])))
                for n, t in layout.INPUT_SCALARS]
        outs = [oc.OArr(np.zeros((layout.SLOTS, layout.THREADS), oc._np_dtype(dt)), dt)
                for _, dt in layout.OUTPUTS]
        threaded = "syncthreads" in program.body
        wanted = prog.__code__.co_varnames[:prog.__code__.co_argcount]
        by_name = dict(zip([n for n, _, _ in layout.INPUT_ARRAYS], ins))
        by_name.update(zip([n for n, _ in layout.INPUT_SCALARS], scal))
        by_name.update(zip([n for n, _ in layout.OUTPUTS], outs))
        rets = _run_threads(prog, lambda g: [V("int64", g) if n == "t" else by_name[n] for n in wanted],
                            layout.BLOCKS, layout.THREADS_PER_BLOCK, threaded)
    except Undefined as e:
        raise Reject("undefined", str(e))
    except Uncertain as e:
        raise Reject("uncertain", str(e))
    except RecursionError as e:
        raise Reject("generator", f"recursion: {e}")
    except Exception as e:                          # noqa: B902 - any other failure is a generator bug
        raise Reject("generator", "".join(traceback.format_exception_only(type(e), e)).strip()
                     + "\n" + traceback.format_exc(limit=-3))
    arrays_out, errs_out = {}, {}
    kind = layout.result_array(program.ret)
    rdt = dict(layout.RESULTS)[kind]
    vals = np.zeros(layout.THREADS, oc._np_dtype(rdt))
    errs = np.zeros(layout.THREADS)
    for g, r in enumerate(rets):
        r = lift(r) if isinstance(r, (bool, int, float, complex)) else r
        if not isinstance(r, V) or r.t != program.ret:
            raise Reject("generator", f"prog returned {r!r}, the generator typed {program.ret}")
        try:
            v = cast(r, rdt)
        except (Undefined, Uncertain) as e:
            raise Reject("undefined", f"result conversion: {e}")
        vals[g], errs[g] = v.v, v.e
    arrays_out[kind], errs_out[kind] = vals, errs
    for (n, _), o in zip(layout.OUTPUTS, outs):
        arrays_out[n], errs_out[n] = o.data, o.err
    return Expected(arrays_out, errs_out)
