"""One compilation unit per kernel specialization: ``#include <cudajit/runtime.h>``, frozen constant arrays, the
device functions it calls (each specialised per argument types, callees first), the kernel, ``CJ_ENTRY``."""
import dataclasses
import os
import itertools
import functools
import re
from typing import Optional

import numpy as np

from . import coarsen, headers, types as T
from .headers import LINKED_SOURCES_MARK  # noqa: F401 (its home was here: build.py, ptx.py read it)
from .frontend import ParsedFunction, check_kernel_def, reverse_map
from ..jitoptions import CompileOptions
from .storage import ascii_identifier
from . import intrinsics as I
from .closures import refuse_recursion
from .errors import typing_error
from .translator import FunctionTranslator
from .values import Value, cpp_float_literal, cpp_int_literal
from ..errors import RequireLiteralValueError, TypingError, UnsupportedError


@dataclasses.dataclass
class ParamSpec:
    """How the launcher packs one kernel parameter: kind 'array' or 'scalar', NumPy dtype code ('f4', 'i8', 'b1',
    'c8'), ndim and layout ('C', 'F', 'A'; '' for scalars)."""
    kind: str
    code: str
    ndim: int = 0
    layout: str = ""


class FunctionResult:
    def __init__(self, cname, return_type, uses_barriers, uses_dynamic_shared, translator):
        self.cname, self.return_type = cname, return_type
        self.uses_barriers, self.uses_dynamic_shared = uses_barriers, uses_dynamic_shared
        self.translator = translator
        self.cast_result = False


@dataclasses.dataclass
class ErrorSite:
    """A raise, assert, checked index or division of a kernel, as the host reports it."""
    cls: type
    args: Optional[tuple]           # the exception's constant arguments; None: an out-of-range array index
    filename: str
    lineno: int
    names_index: bool = False       # a run-time tuple index: the message adds the index and the tuple's length
    function: Optional[str] = None  # the function the raise is in (the kernel's or a device function's)

    def exception(self, kernel, tid, ctaid, values):
        """The exception to raise on the host, in numba-cuda's words: ``In function 'f', file <absolute path>, line
        N, tid=[..] ctaid=[..]: message``. ``values``: the record's (index, axis, extent, ndim, shape's first four
        dimensions)."""
        if self.args is None:
            index, axis, size, ndim, shape = values
            dims = ", ".join(map(str, shape)) + (", ..." if ndim > len(shape) else "," if ndim == 1 else "")
            msg = f"index {index} is out of bounds for axis {axis} with size {size} (array shape ({dims}))"
        else:
            msg = str(self.cls(*self.args))
            if self.names_index:
                msg += f" (index {values[0]}, length {values[2]})"
        path = self.filename if self.filename.startswith("<") else os.path.abspath(self.filename)
        where = (f"In function {self.function or kernel!r}, file {path}, line {self.lineno}, "
                 f"tid={list(tid)} ctaid={list(ctaid)}")
        return self.cls(f"{where}: {msg}" if msg else where)


class _Pending:
    """A device function specialization whose translation is under way (recursion reaches it)."""
    def __init__(self, declared_ret):
        self.declared_ret = declared_ret
        self.translator = None
        self.outside_calls = []      # (node, caller translator, return type used) from mutually recursive callers


class KernelSource:
    """What ``compile_kernel`` returns: the whole compilation unit and what the launcher needs to know."""
    def __init__(self, source, entry, params, uses_barriers, uses_dynamic_shared, signature, listing,
                 error_sites=(), cooperative=False, local_bytes=0, link_objects=(), coarse=None):
        self.source, self.entry, self.params = source, entry, params
        # GPU, an elementwise kernel (coarsen.py): (the coarsened entry, the launch parameter index of each
        # read-only array, the unit that has it); None otherwise
        self.coarse = coarse
        self.link_objects = link_objects          # GPU code (PTX, cubins, LTO-IR ...) nvJitLink links to the kernel
        self.cooperative = cooperative            # uses cuda.cg grid sync: launched cooperatively
        # Bytes of the local arrays of the kernel and every device function it calls: a bound on what one thread
        # keeps on its stack for them (the CPU backend sizes its fiber stacks by it).
        self.local_bytes = local_bytes
        self.error_sites = list(error_sites)      # debug/boundscheck: what the kernel can raise (ErrorSite)
        self.uses_barriers, self.uses_dynamic_shared, self.signature = uses_barriers, uses_dynamic_shared, signature
        self._listing = listing

    def typed_listing(self):
        """Numba's ``inspect_types`` text: each source line followed by the types of the variables it binds."""
        return self._listing


_PARSED = {}


def parse_function(pyfunc, device=False):
    """The parsed ``def`` of ``pyfunc`` (cached per code object); a kernel's (``device`` False) is checked as
    one: no ``*args``."""
    p = _parse_function(pyfunc)
    if not device:
        check_kernel_def(p)
    return p


def _parse_function(pyfunc):
    key = pyfunc.__code__
    p = _PARSED.get(key)
    if p is None or p.pyfunc.__globals__ is not pyfunc.__globals__:
        p = _PARSED[key] = ParsedFunction(pyfunc)
    if p.pyfunc is not pyfunc:
        # Same code, other closure cells (e.g. cuda.reduce's kernel per dtype): keep the AST, rebind the names.
        fresh = ParsedFunction.__new__(ParsedFunction)
        fresh.__dict__.update(p.__dict__)
        fresh.pyfunc = pyfunc
        fresh.closure = {}
        if pyfunc.__closure__:
            for name, cell in zip(pyfunc.__code__.co_freevars, pyfunc.__closure__):
                try:
                    fresh.closure[name] = cell.cell_contents
                except ValueError:
                    pass
        fresh.defaults = pyfunc.__defaults__ or ()
        return fresh
    return p


def _ident(name):
    return re.sub(r"\W", "_", ascii_identifier(name)) or "f"


class Program:
    def __init__(self, options):
        self.options = options
        self.functions = []          # rendered device functions, callees first
        self.specs = {}              # (pyfunc, argtypes) -> FunctionResult, or _Pending while being translated
        self.needs_literals = set()  # (pyfunc, argtypes) that need constant arguments: keyed (..., consts) instead
        self.prototypes = {}         # (pyfunc, argtypes) -> translator: declared first (mutual recursion)
        self.externs = {}            # name -> ExternalFunction (cuda.declare_device) the unit calls
        self.link = list(options.link)   # what the unit links (cuda/ffi.py's LinkableCode), in order
        self._link_texts = None
        self.error_sites = []        # ErrorSite per raise/assert/checked index (debug, boundscheck); one is recorded
        self._site_index = {}
        self.constants = []          # file-scope CJ_CONSTANT arrays
        self.cooperative = False     # cuda.cg.this_grid() is used: the kernel needs a cooperative launch
        self.spins = False           # a while loop: on the CPU a thread of a block run as a loop may wait in it
        self.frozen = {}             # id(ndarray) -> (array kept alive, Value)
        self.names = set()
        self.listings = []

    @functools.cached_property
    def reverse_names(self):
        """id(object) -> intrinsic name (frontend.reverse_map), made on the first lookup: most kernels name
        intrinsics through their modules (``cuda.grid``) and never need it."""
        return reverse_map(_registry_names())

    def unique(self, base):
        name, n = base, 0
        while name in self.names:
            n += 1
            name = f"{base}_{n}"
        self.names.add(name)
        return name

    def translate(self, pyfunc, argtypes, is_kernel, options, on_start=None, literals=None):
        # an inner function (compiler/closures.py) carries its parsed def
        parsed = getattr(pyfunc, "cj_parsed", None) or parse_function(pyfunc, device=not is_kernel)
        prefix = "cj_k_" if is_kernel else "cj_dev_"
        cname = self.unique(f"{prefix}{_ident(parsed.name)}_0")
        tr = FunctionTranslator(self, parsed, argtypes, is_kernel, options, cname, literals)
        if on_start is not None:
            on_start(tr)
        # Each line's Python position as (file, line): a device function may live in another file than the kernel.
        lines = [(indent, text, None if line is None else (parsed.loc.filename, line))
                 for indent, text, line in tr.translate()]
        self.listings.append(_listing(tr))
        return tr, lines

    def header_parts(self, tr):
        """The runtime header parts the unit of ``tr`` needs: what it and every function it calls recorded as their
        code was emitted, and the types of the foreign functions' declarations (headers.py)."""
        parts = set(tr.state.header_parts)
        for res in self.specs.values():
            if isinstance(res, FunctionResult):
                parts |= res.translator.state.header_parts
        for ext in self.externs.values():
            for t in (ext.sig.return_type, *ext.sig.args):
                parts |= headers.type_parts(t)
        return parts

    def link_texts(self):
        """name -> text of each linked CUDA C++ source (file or cuda.CUSource), in link order (read once)."""
        if self._link_texts is None:
            self._link_texts = {}
            for item in self.link:
                if item.kind == "cu":
                    # in-memory sources share a default name ("<CUSource>"): number the later ones
                    name = next(n for n in (item.name if k == 1 else f"{item.name} ({k})" for k in itertools.count(1))
                                if n not in self._link_texts)
                    self._link_texts[name] = item.text()
        return self._link_texts

    def gpu_objects(self):
        """The linked GPU code (PTX, cubins, LTO-IR ...: everything but CUDA C++ sources), which nvJitLink links."""
        return tuple(item for item in self.link if item.kind != "cu")

    def error_site(self, cls, args, loc, node, names_index=False):
        """The index of a place that can raise (debug=True): the kernel records it, the host raises from it."""
        site = ErrorSite(cls, args, loc.filename, loc.lineno(node), names_index, getattr(loc, "function", None))
        key = (cls, repr(args), site.filename, site.lineno, names_index)
        if key not in self._site_index:
            self._site_index[key] = len(self.error_sites)
            self.error_sites.append(site)
        return self._site_index[key]

    def device_function(self, cx, node, obj, argtypes, declared_ret=None, consts=()):
        """The specialization of device function ``obj`` for ``argtypes``. ``consts``: the arguments' values
        where they are constant ints or tuples of ints, else None. As in Numba, a function is first typed
        without them; if it needs a parameter as a constant (``cuda.shared.array(n, dtype)``: its typing raises
        RequireLiteralValueError), it is specialised on those values (a key of its own) and typed again."""
        pyfunc = obj.__cudajit_pyfunc__
        key = (pyfunc, argtypes)
        literals = None
        if key in self.needs_literals and any(c is not None for c in consts):
            literals = consts
            key = (pyfunc, argtypes, consts)
        if key in self.specs:
            res = self.specs[key]
            if isinstance(res, _Pending):
                self._refuse_inner_recursion(cx, pyfunc, node)
                return self._recursive_call(cx, node, key, res, declared_ret)
            return res
        self._refuse_inner_recursion(cx, pyfunc, node, argtypes_differ=True)
        options = getattr(obj, "__cudajit_options__", None) or CompileOptions()
        pending = _Pending(declared_ret)
        self.specs[key] = pending
        try:
            tr, lines = self.translate(pyfunc, argtypes, False, options,
                                       on_start=lambda t: setattr(pending, "translator", t), literals=literals)
        except RequireLiteralValueError:
            del self.specs[key]
            if literals is not None or not any(c is not None for c in consts):
                raise
            self.needs_literals.add(key)
            return self.device_function(cx, node, obj, argtypes, declared_ret, consts)
        except (TypingError, UnsupportedError) as e:
            del self.specs[key]
            if type(e) not in (TypingError, UnsupportedError):     # RequireLiteralValueError: its caller retries
                raise
            # numba-cuda's trail of where the callee was reached (its tests and users look for these lines)
            raise type(e)(f"{e}\nDuring: resolving callee type: type(CUDADispatcher(<function {pyfunc.__qualname__} "
                          f"at 0x{id(pyfunc):x}>))\nDuring: typing of call at {cx.state.loc.filename}:"
                          f"{cx.state.loc.lineno(node)}") from None
        except BaseException:
            del self.specs[key]
            raise
        for call_node, caller, seen in pending.outside_calls:
            if seen != tr.state.return_type:
                caller.error(call_node, f"the return type of recursive function '{pyfunc.__name__}' was taken as "
                                        f"{seen} here but is {tr.state.return_type}",
                             "declare its signature: @cuda.jit('<return type>(<argument types>)', device=True)")
        self.functions.append(lines)
        st = tr.state
        res = FunctionResult(st.cname, st.return_type, st.uses_barriers, st.uses_dynamic_shared, tr)
        self.specs[key] = res
        return res

    def _refuse_inner_recursion(self, cx, pyfunc, node, argtypes_differ=False):
        """An inner function (compiler/closures.py) reached again while it is translated: Numba inlines inner
        functions, so they may not recurse (with other argument types too: that would never end)."""
        cdef = getattr(pyfunc, "cdef", None)
        if cdef is None:
            return
        if argtypes_differ and not any(isinstance(r, _Pending) and k[0] is pyfunc for k, r in self.specs.items()):
            return
        raise refuse_recursion(cx.state.loc, node, cdef.name)

    def _recursive_call(self, cx, node, key, pending, declared_ret):
        """A call to a device function whose translation is under way: self-recursion, or mutual recursion
        through other functions. Its return type is the one declared, else what its typing has found so far
        (its non-recursive returns); the fixed point of the typing passes settles it."""
        tr = pending.translator
        tr.state.recursive = True
        ret = declared_ret or pending.declared_ret or tr.state.return_type
        if cx is not tr:
            # Mutual recursion: the function is defined after this caller, so the unit needs its prototype.
            self.prototypes[key] = tr
            if cx.state.final:
                if ret == T.undefined:
                    cx.error(node, f"cannot infer the return type of recursive function '{tr.state.parsed.name}' here",
                             "give it a return that does not recurse before this call, or declare its signature")
                pending.outside_calls.append((node, cx, ret))
        res = FunctionResult(tr.state.cname, ret, tr.state.uses_barriers, tr.state.uses_dynamic_shared, tr)
        res.cast_result = ret is not tr.state.return_type     # a declared type: the C++ function's may differ
        return res

    def frozen_array(self, cx, node, name, arr):
        """A global NumPy array frozen into constant memory (Numba's behaviour), read-only in the kernel."""
        known = self.frozen.get(id(arr))
        if known is not None:
            return known[1]
        dt = T.from_dtype(arr.dtype)
        if dt is None or dt in (T.float16, T.bfloat16):
            cx.error(node, f"global array '{name}' of dtype {arr.dtype} and {arr.ndim} dimensions cannot be "
                           f"frozen into a kernel")
        if arr.nbytes > 65536:
            cx.error(node, f"global array '{name}' is {arr.nbytes} bytes; constant memory holds 64 KiB",
                     "pass large arrays as kernel arguments")
        flat = np.ascontiguousarray(arr).ravel()
        cname = self.unique(f"cj_const_{_ident(name.split('.')[-1])}")
        self.constants.append(f"CJ_CONSTANT {dt.storage_cpp} {cname}[{max(flat.size, 1)}] = {{{_initializer(flat, dt)}}};")
        t = T.Array(dt, arr.ndim, "C", readonly=True)
        data = f"const_cast<{dt.storage_cpp}*>({cname})"
        if arr.ndim == 0:                           # a 0-d array is its data pointer alone
            v = Value(t, f"{t.cpp}{{{data}}}", const=arr)
        else:
            v = Value(t, f"cj::c_array({data}, {', '.join(str(n) for n in arr.shape)})", const=arr)
        self.frozen[id(arr)] = (arr, v)
        return v


_REGISTRY_NAMES = [-1, ()]    # the size of I.REGISTRY they were made for; its names and their prefixes


def _registry_names():
    if _REGISTRY_NAMES[0] != len(I.REGISTRY):
        _REGISTRY_NAMES[:] = [len(I.REGISTRY), tuple(list(I.REGISTRY) + _prefixes(I.REGISTRY))]
    return _REGISTRY_NAMES[1]


def _prefixes(names):
    out = set()
    for n in names:
        parts = n.split(".")
        for i in range(1, len(parts)):
            out.add(".".join(parts[:i]))
    return sorted(out)


def _initializer(flat, dt):
    if flat.size == 0:
        return "0"
    if dt == T.boolean:
        return ", ".join("true" if x else "false" for x in flat)
    if isinstance(dt, T.Record):                   # a record's bytes, as NumPy lays them out
        return ", ".join("{{" + ", ".join(map(str, x.tobytes())) + "}}" for x in flat)
    if T.is_int(dt):
        return ", ".join(cpp_int_literal(int(x), dt) for x in flat)
    if T.is_float(dt):
        return ", ".join(cpp_float_literal(float(x), dt) for x in flat)
    return ", ".join(f"{{{cpp_float_literal(float(x.real), dt.underlying)}, "
                     f"{cpp_float_literal(float(x.imag), dt.underlying)}}}" for x in flat)


# The file name that #line gives lines the compiler wrote itself; their line number is their line in the unit's text
# (KernelSource.source, inspect_source), so a diagnostic there can be found.
GENERATED = "cudajit-generated.cu"


def render(lines):
    """Lines (indent, text, where) -> C++ text in which the compiler's idea of every line's position is exact.
    ``where`` is (file, line): a Python line, or a line of a linked source; None: generated here, which is
    GENERATED at its own line of the returned text. A ``#line`` directive goes wherever the compiler's own count
    would be wrong, and nowhere else."""
    out = []
    presumed = None                       # (file, line) the compiler gives the next line of ``out``
    for indent, text, where in lines:
        for part in (text.split("\n") if text else [""]):
            if where is None:            # its own line in the text: after a directive, if one comes first
                where_now = (GENERATED, len(out) + 1 + (presumed != (GENERATED, len(out) + 1)))
            else:
                where_now = where
            if presumed != where_now:
                out.append(f'#line {where_now[1]} "{_escape(where_now[0])}"')
            out.append(("    " * indent + part) if part else "")
            presumed = (where_now[0], where_now[1] + 1)     # each part of a text of several lines is at ``where``
    return "\n".join(out) + "\n"


def _escape(filename):
    return filename.replace("\\", "\\\\").replace('"', '\\"')


def _listing(tr):
    st = tr.state
    loc, p = st.loc, st.parsed
    out = [f"{p.name} ({', '.join(map(str, st.argtypes))})" + ("" if st.is_kernel else f" -> {st.return_type}"),
           "-" * 80, f"# File: {loc.filename}"]
    by_line = {}
    for (line, name), t in tr.state.typed_vars.items():
        by_line.setdefault(line, []).append((name, t))
    for name, t in zip(p.params, tr.state.argtypes):
        by_line.setdefault(p.tree.lineno, []).append((name, t))
    for i, text in enumerate(loc.lines, start=1):
        out.append(f"# --- LINE {loc.firstlineno + i - 1} --- ")
        out.append(text)
        for name, t in by_line.get(i, ()):
            out.append(f"    #   {name} :: {t}")
    out.append("=" * 80)
    return "\n".join(out)


def param_leaves(t):
    """The launch parameters a kernel argument of type ``t`` takes: itself, or a tuple's elements in order
    (nested tuples flattened), as the launcher flattens a tuple argument; none for an omitted one."""
    if isinstance(t, T.BaseTuple):
        return [leaf for e in t.types for leaf in param_leaves(e)]
    if isinstance(t, T.Omitted):                    # left out of the launch: a constant of the kernel, no parameter
        return []
    if isinstance(t, T.EnumMember) and isinstance(t.dtype, T.BaseTuple):    # its value, a tuple
        return param_leaves(t.dtype)
    return [t]


def _param_specs(t, name, parsed):
    return [_param_spec(leaf, name, parsed) for leaf in param_leaves(t)]


def _param_spec(t, name, parsed):
    if isinstance(t, T.Array):
        return ParamSpec("array", t.dtype.code, t.ndim, t.layout)
    if T.is_scalar(t) or isinstance(t, T.NPTime):     # datetimes: their int64 count
        return ParamSpec("scalar", t.code, 0, "")
    if isinstance(t, T.Record):                     # one record: a pointer to its device copy (record.h)
        return ParamSpec("pointer", t.code, 0, "")
    if isinstance(t, T.CPointer):                   # a declared CPointer(T): an address, passed as an int
        return ParamSpec("scalar", T.uint64.code, 0, "")
    if isinstance(t, T.EnumMember):                 # an Enum member: its value (args._enum_scalar)
        return ParamSpec("scalar", t.dtype.code, 0, "")
    raise UnsupportedError(f"{parsed.loc.filename}:{parsed.loc.lineno(parsed.tree)}: kernel argument '{name}' of "
                           f"type {t} is not supported (pass arrays, scalars and tuples of them)")


def compile_kernel(pyfunc, argtypes, options=None):
    """Translate kernel ``pyfunc`` for ``argtypes`` (a tuple of types) into one C++ compilation unit."""
    options = options or CompileOptions()
    argtypes = tuple(argtypes)
    prog = Program(options)
    parsed = parse_function(pyfunc)
    if len(argtypes) != len(parsed.params):
        raise typing_error(parsed.loc, parsed.tree, f"kernel takes {len(parsed.params)} arguments, "
                                                    f"{len(argtypes)} given")
    params = [spec for t, n in zip(argtypes, parsed.params) for spec in _param_specs(t, n, parsed)]
    tr, lines = prog.translate(pyfunc, argtypes, True, options)
    entry = tr.state.cname
    coarse_lines = None
    if options.target == "gpu" and not coarsen.blockers(tr, prog.specs, options, prog):
        coarse_lines = coarsen.transform(lines, tr, entry)
    uses_barriers = tr.state.uses_barriers or any(r.uses_barriers for r in prog.specs.values())
    dyn = tr.state.uses_dynamic_shared or any(r.uses_dynamic_shared for r in prog.specs.values())
    filename = parsed.loc.filename
    head = [(0, f"// cudajit: kernel '{parsed.name}' from {filename}:{parsed.loc.firstlineno}", None),
            (0, f"// argument types: ({', '.join(map(str, argtypes))})", None),
            *_runtime_include(prog, tr)]
    if options.reports_errors:
        head.insert(2, (0, "#define CJ_ERROR_RECORD 1  // debug=True / boundscheck: raises and index errors reach "
                           "the host", None))
        if prog.cooperative:
            head.insert(3, (0, "#define CJ_INDEX_ERROR_RUNS_ON 1  // grid sync waits for every block's thread 0",
                            None))
    if prog.spins:
        head.insert(2, (0, "#define CJ_CPU_SPINS 1  // while loops: a CPU block loop may hand its later threads "
                           "over to a fiber (thread.h)", None))
    body = [(0, c, None) for c in prog.constants] + ([(0, "", None)] if prog.constants else [])
    body += _externs(prog)
    body += _prototypes(prog)
    for f in prog.functions:
        body += f + [(0, "", None)]
    kernel_at = len(body)
    body += lines
    leaves, first_leaf = [], {}          # the launch parameters, and each kernel parameter's first one
    for name, t in zip(parsed.params, argtypes):
        first_leaf[name] = len(leaves)
        leaves += param_leaves(t)
    ptypes = ", ".join(t.cpp for t in leaves)
    tail = [(0, f"CJ_ENTRY({entry}, {ptypes})" if leaves else f"CJ_ENTRY0({entry})", None)]
    if tr.state.fit_sites:
        tail = _entry_fits(entry, ptypes, first_leaf, tr.state.fit_sites)
    source = render(head + _linked_sources(prog) + body + tail)
    coarse = None
    if coarse_lines is not None:
        # a second unit, compiled when a launch first wants it (build.py): the first compile costs what it did
        coarse_source = render(head + _linked_sources(prog) + body[:kernel_at] + coarse_lines + tail)
        coarse = (f"{entry}_x{coarsen.COARSE}", sorted(first_leaf[p] for p in tr.state.nc_params), coarse_source)
    listing = "\n\n".join(reversed(prog.listings))
    local_bytes = sum(tr.state.local_bytes.values()) + sum(
        sum(r.translator.state.local_bytes.values()) for r in prog.specs.values() if isinstance(r, FunctionResult))
    return KernelSource(source, entry, params, uses_barriers, dyn, T.Signature(T.none, argtypes), listing,
                        prog.error_sites if options.reports_errors else (), prog.cooperative, local_bytes,
                        prog.gpu_objects(), coarse)


def _entry_fits(entry, ptypes, first_leaf, fit_sites):
    """The entry of a kernel whose body is a template on ``cj_fits`` (indexing.py, grid_axes): the launch
    parameter index of each (parameter, axis, grid component), as ``CJ_FIT`` (cpu_exec.h)."""
    fits = ", ".join(f"CJ_FIT({leaf}, {axis}, {d})"
                     for leaf, axis, d in sorted((first_leaf[p], axis, d) for p, axis, d in fit_sites))
    return [(0, f"CJ_ENTRY_FITS({entry}, ({fits}), {ptypes})", None)]


def _prototypes(prog):
    return [(0, f"{tr.qualifier()} {tr.state.return_type.cpp} {tr.state.cname}("
             f"{', '.join(t.cpp for t in tr.state.argtypes if not T.is_compile_time(t))});", None)
            for tr in prog.prototypes.values()] + ([(0, "", None)] if prog.prototypes else [])


def _runtime_include(prog, tr):
    """The unit's prelude: the linked-sources mark, the runtime parts its functions recorded (headers.py), the
    runtime include."""
    mark = [(0, LINKED_SOURCES_MARK, None)] if prog.link_texts() else []
    return mark + [(0, headers.parts_line(prog.header_parts(tr)), None), (0, headers.RUNTIME_INCLUDE, None),
                   (0, "", None)]


def _linked_sources(prog):
    """The linked CUDA C++ files' lines, each at its own file:line; on the CPU, CUDA's function qualifiers are
    defined away so simple device code compiles with the host compiler too."""
    if not prog.link_texts():
        return []
    out = [(0, text, None) for text in ("#if defined(CJ_CPU)", "#define __device__", "#define __host__",
                                        "#define __forceinline__ inline", "#endif")]
    for path, text in prog.link_texts().items():
        out += [(0, line, (path, k)) for k, line in enumerate(text.rstrip("\n").split("\n"), start=1)]
    return out


# The start of the static_assert message of a foreign function whose definition does not fit its declaration.
FOREIGN_MISMATCH = "cudajit: the foreign function"


def _externs(prog):
    """One wrapper per foreign function (cuda/ffi.py): its ABI to a value."""
    texts = prog.link_texts()
    lines = []
    for name, ext in prog.externs.items():
        in_source = any(re.search(rf"\b{re.escape(name)}\s*\(", t) for t in texts.values())
        if not in_source and not prog.gpu_objects():
            from ..errors import TypingError
            raise TypingError(f"the foreign device function '{name}' (cuda.declare_device) is not defined in the "
                              f"linked sources {list(texts)}\nhint: pass its CUDA C++ file with "
                              f"cuda.jit(link=[...]) or cuda.declare_device(..., link=[...])")
        lines += [(0, line, None) for line in ext.wrapper(in_source, FOREIGN_MISMATCH)]
    return lines + ([(0, "", None)] if lines else [])


def compile_device(pyfunc, argtypes, options=None):
    """Type-check and translate a device function on its own (eager ``cuda.jit('f4(f4)', device=True)``);
    returns (C++ text of the unit, return type)."""
    options = options or CompileOptions()
    prog = Program(options)
    tr, lines = prog.translate(pyfunc, tuple(argtypes), False, options)
    body = _externs(prog) + _prototypes(prog)
    for f in prog.functions:
        body += f + [(0, "", None)]
    body += lines
    source = render(_runtime_include(prog, tr) + _linked_sources(prog) + body)
    st = tr.state
    return DeviceSource(source, st.return_type, T.Signature(st.return_type, tuple(argtypes)), st.cname,
                        tuple(prog.gpu_objects()))


class DeviceSource:
    def __init__(self, source, return_type, signature, cname, link_objects=()):
        self.source, self.return_type, self.signature, self.cname = source, return_type, signature, cname
        self.link_objects = link_objects          # linked GPU code that is not CUDA C++ (that is in the source)

    def __iter__(self):                       # allows: source, restype = compile_device(...)
        return iter((self.source, self.return_type))
