"""``cuda.vectorize`` and ``cuda.guvectorize``: NumPy-style (generalized) ufuncs on the device, as numba-cuda's.

The scalar (or core) function becomes a device function; a generated kernel calls it once per element (per loop
index for a gufunc). The kernels are ordinary cudajit kernels, so they run on the CPU backend too. Their source
is registered with ``linecache`` so the front end reads it as any other kernel's.

numba-cuda's call rules: ufunc array inputs must match a signature's dtypes exactly (casting 'no'), Python
scalars are matched by their NumPy dtype, then coerced; a gufunc takes the first signature whose dtypes cast
safely to the inputs' and casts host inputs to it (float64 data runs a float32 signature); inputs broadcast as NumPy's; the result stays on the device when
any input (or ``out``) is a device array, else it is copied back; ``stream=`` runs copies and the launch on that
stream. ``ufunc.reduce`` folds a 1-d array as numba-cuda does: an odd length first reduces all but the last
element, an even length adds the halves elementwise (``f(left, right)`` into ``left``) and recurses.
"""
import importlib
import itertools
import linecache
import re
import warnings

import numpy as np

from ..compiler import compile_device, parse_signature, types as T
from .arrays import device_array, to_device
from .dispatcher import jit, pickled_function, unpickled_function
from .interop import as_cuda_array, is_cuda_array

_BLOCK = 128
_serial = itertools.count()


def _compile(name, params, body, core):
    """A kernel from generated source calling ``core``; linecache keeps the text for the front end."""
    name = re.sub(r"\W", "_", name)  # a lambda's name is '<lambda>'
    filename = f"<cudajit.vectorize {name} #{next(_serial)}>"
    src = (f"def {name}({', '.join(params)}):\n    i = cuda.grid(1)\n    if i < {params[-1]}.shape[0]:\n"
           f"        {body}\n")
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    namespace = {"cuda": importlib.import_module("cudajit.cuda"), "core": core}
    exec(compile(src, filename, "exec"), namespace)
    return jit(namespace[name])


def _device_function(pyfunc, sig=None):
    if hasattr(pyfunc, "__cudajit_pyfunc__"):
        return pyfunc
    return jit(sig, device=True)(pyfunc) if sig is not None else jit(device=True)(pyfunc)


def _launch(kernel, n, stream, args):
    if n:
        kernel[(n + _BLOCK - 1) // _BLOCK, _BLOCK, stream](*args)


def _operand(a):
    """A device array for anything exposing the CUDA Array Interface (CuPy, PyTorch, ...), else a NumPy array."""
    return as_cuda_array(a) if is_cuda_array(a) else np.asarray(a)


def _on_device(a, shape, stream):
    """``a`` (host or device) broadcast to ``shape``, as a C-contiguous device array."""
    if is_cuda_array(a):
        dev = as_cuda_array(a)
        if tuple(dev.shape) == tuple(shape) and dev.is_c_contiguous():
            return dev
        a = dev.copy_to_host()              # broadcasting a device array goes through the host, as Numba
    return to_device(np.ascontiguousarray(np.broadcast_to(a, shape)), stream=stream)


def _loop_shape(outer):
    """The loop dimensions of a gufunc call from its inputs' outer (non-core) shapes. numba-cuda's rule where it
    applies: the first largest outer shape, every other the same or (1,) or () (given once for every iteration), so
    "(n),()->(n)" over shapes (4,) and (1,) loops over () and gives (4,); else NumPy's broadcasting."""
    sizes = [int(np.prod(o)) for o in outer]
    largest = outer[sizes.index(max(sizes))] if outer else ()
    if all(o == largest or o in ((1,), ()) for o in outer):
        return largest
    return np.broadcast_shapes(*outer)


def _pinned(a, core_ndim, loop):
    """An input whose outer shape is (1,) where the loop has none, as its core alone (numba-cuda's pinned input)."""
    if not loop and a.ndim == core_ndim + 1 and a.shape[0] == 1:
        return a[0]
    return a


def _finish(devout, shape, keep_on_device, out, stream):
    if keep_on_device:
        return devout.reshape(shape) if devout.shape != tuple(shape) else devout
    if out is not None:
        devout.copy_to_host(out.reshape(devout.shape), stream=stream)
        return out
    return devout.copy_to_host(stream=stream).reshape(shape)


def _select(typemap, dtypes, scalars, what):
    """numba-cuda's choice: the exact dtypes; else the one signature that differs only at scalar positions."""
    if dtypes in typemap:
        return dtypes
    found = [k for k in typemap if all(i in scalars or k[i] == d for i, d in enumerate(dtypes))]
    if len(found) == 1:
        return found[0]
    raise TypeError(f"{what}: no signature for input dtypes ({', '.join(map(str, dtypes))}); GPU ufuncs need "
                    f"arrays of exactly a signature's types (casting 'no'); signatures: "
                    f"{', '.join('(' + ', '.join(map(str, k)) + ')' for k in typemap) or 'none'}")


def _rebuild(cls, payload, source, args):
    return cls(unpickled_function(payload, source), *args)


class CUDAUFunc:
    """What ``cuda.vectorize`` returns: call it as a NumPy ufunc (``out=``, ``stream=``), or ``.reduce(a)``."""

    def __init__(self, pyfunc, sigs):
        self.py_func, self.__name__, self.__doc__ = pyfunc, pyfunc.__name__, pyfunc.__doc__
        self._eager = bool(sigs)
        self._core = _device_function(pyfunc)
        self._kernels = {}          # input dtypes -> (result dtype, kernel)
        for sig in sigs:
            s = parse_signature(sig)
            key = tuple(a.dtype for a in s.args)
            if s.return_type is None:       # argument types alone (Numba's ``[(t1, t2)]``): the result is inferred
                self._kernels[key] = self._inferred(s.args)
            else:
                self._kernels[key] = (s.return_type.dtype, self._kernel(len(s.args), _device_function(pyfunc, s)))
        self.nin = len(next(iter(self._kernels))) if sigs else pyfunc.__code__.co_argcount
        self._sigs = list(sigs)

    def __reduce__(self):       # as a kernel pickles: the Python function by value, with its text (dispatcher.py)
        return _rebuild, (CUDAUFunc, *pickled_function(self.py_func, self), (self._sigs,))

    def _kernel(self, nin, core):
        params = [f"a{k}" for k in range(nin)] + ["out"]
        return _compile(f"cj_vectorized_{self.__name__}", params,
                        f"out[i] = core({', '.join(f'a{k}[i]' for k in range(nin))})", core)

    def _inferred(self, argtypes):
        """(result dtype, kernel) for argument types whose result type is typing's."""
        ret = compile_device(self.py_func, tuple(argtypes)).return_type
        return ret.dtype, self._kernel(len(argtypes), self._core)

    def _resolve(self, dtypes, scalars):
        if not self._eager and dtypes not in self._kernels:
            self._kernels[dtypes] = self._inferred([T.from_dtype(d) for d in dtypes])
        key = _select(self._kernels, dtypes, scalars, f"{self.__name__}()")
        return key, self._kernels[key]

    def __call__(self, *args, out=None, stream=0):
        if len(args) != self.nin:
            raise TypeError(f"{self.__name__}() takes {self.nin} arguments, {len(args)} given")
        scalars = {i for i, a in enumerate(args) if isinstance(a, (int, float, complex, np.number))}
        arrays = [_operand(a) for a in args]
        key, (resty, kernel) = self._resolve(tuple(np.dtype(a.dtype) for a in arrays), scalars)
        # a scalar is a 1-element array, as numba-cuda's: a call of scalars alone gives shape (1,), not ()
        arrays = [np.array([a], dtype=key[i]) if i in scalars else a for i, a in enumerate(arrays)]
        shape = np.broadcast_shapes(*(tuple(a.shape) for a in arrays))
        n = int(np.prod(shape))
        on_device = any(is_cuda_array(a) for a in args) or (out is not None and is_cuda_array(out))
        dev_in = [_on_device(a, shape, stream).reshape(n) for a in arrays]
        if out is not None and not (is_cuda_array(out) or isinstance(out, np.ndarray)):
            raise TypeError(f"{self.__name__}(): out must be a device or NumPy array, not {type(out).__name__}")
        if out is not None and is_cuda_array(out):
            devout = as_cuda_array(out)
            # a device out is raveled, as numba-cuda's; another dtype or size was cast or a reshape error
            if devout.size != n or devout.dtype != resty:
                raise ValueError(f"{self.__name__}(): out must have shape {shape} and dtype {resty}, "
                                 f"not {devout.shape} and {devout.dtype}")
            devout = devout.reshape(n)
        else:
            if out is not None and (tuple(out.shape) != tuple(shape) or out.dtype != resty):
                raise ValueError(f"{self.__name__}(): out must have shape {shape} and dtype {resty}, "
                                 f"not {out.shape} and {out.dtype}")
            devout = device_array(n, resty, stream=stream)
        _launch(kernel, n, stream, dev_in + [devout])
        return _finish(devout, shape, on_device, out, stream)

    def reduce(self, arg, stream=0):
        """Fold a 1-d array with this binary ufunc in numba-cuda's order (see the module docstring)."""
        if self.nin != 2:
            raise TypeError(f"{self.__name__}.reduce needs a binary ufunc, this one takes {self.nin} inputs")
        if arg.ndim != 1:
            raise ValueError(f"{self.__name__}.reduce works on 1-d arrays, not {arg.ndim}-d")
        if arg.shape[0] == 0:
            raise TypeError("Reduction on an empty array.")
        if arg.shape[0] == 1:
            return arg[0]
        mem = as_cuda_array(arg) if is_cuda_array(arg) else to_device(np.ascontiguousarray(arg), stream=stream)
        result = self._reduce(mem, stream).copy_to_host(stream=stream)
        if stream:
            stream.synchronize()
        return result[0]

    def _reduce(self, mem, stream):
        n = mem.shape[0]
        if n % 2:
            head = self._reduce(mem[:n - 1], stream)
            return self(head, mem[n - 1:], out=head, stream=stream)
        left, right = mem[:n // 2], mem[n // 2:]
        self(left, right, out=left, stream=stream)
        return self._reduce(left, stream) if n // 2 > 1 else left


def _positional(n):
    return f"{n} positional argument{'s' * (n != 1)}"


def _parse_layout(layout):
    """``'(m,n),(n)->(m)'`` -> ([('m', 'n'), ('n',)], [('m',)])."""
    ins, arrow, outs = layout.replace(" ", "").partition("->")
    if not arrow:
        raise ValueError(f"gufunc layout {layout!r} has no '->'")

    def groups(text):
        if not (text.startswith("(") and text.endswith(")")):
            raise ValueError(f"gufunc layout {layout!r}: {text!r} is not a list of '(...)' groups")
        return [tuple(d for d in g.split(",") if d) for g in text[1:-1].split("),(")]
    inputs, outputs = groups(ins), groups(outs)
    undefined = {d for g in outputs for d in g} - {d for g in inputs for d in g}
    if undefined:
        raise NameError(f"gufunc layout {layout!r}: undefined output symbols: {', '.join(sorted(undefined))}")
    return inputs, outputs


class CUDAGUFunc:
    """What ``cuda.guvectorize`` returns: ``f(*inputs)`` or ``f(*inputs, *outputs)`` / ``out=``, ``stream=``."""

    def __init__(self, pyfunc, sigs, layout):
        if not sigs:
            raise TypeError("cuda.guvectorize needs signatures, e.g. ['void(float32[:], float32[:])']")
        self.py_func, self.__name__ = pyfunc, pyfunc.__name__
        self.inputs, self.outputs = _parse_layout(layout)
        self.nin, self.nout = len(self.inputs), len(self.outputs)
        self._kernels = {}         # input dtypes -> (output dtypes, kernel)
        core = _device_function(pyfunc)
        for sig in sigs:
            s = parse_signature(sig)
            if s.return_type not in (None, T.none):
                raise TypeError(f"guvectorized functions cannot return values: signature {sig} specifies "
                                f"{s.return_type} return type; declare it void and write the results into the "
                                f"output arrays")
            if len(s.args) != self.nin + self.nout:
                raise TypeError(f"signature {sig} has {len(s.args)} arguments, layout {layout!r} "
                                f"{self.nin + self.nout}")
            dims = self.inputs + self.outputs
            items = [f"a{k}[i:i + 1]" if isinstance(t, T.Array) and not d else
                     f"a{k}[i]" if not d else f"a{k}[i, {', '.join([':'] * len(d))}]"
                     for k, (t, d) in enumerate(zip(s.args, dims))]
            params = [f"a{k}" for k in range(len(dims))]
            kernel = _compile(f"cj_gufunc_{self.__name__}", params, f"core({', '.join(items)})", core)
            dtypes = [(t.dtype if isinstance(t, T.Array) else t).dtype for t in s.args]
            self._kernels[tuple(dtypes[:self.nin])] = (dtypes[self.nin:], kernel)
        self._sigs, self._layout = list(sigs), layout

    def __reduce__(self):
        return _rebuild, (CUDAGUFunc, *pickled_function(self.py_func, self), (self._sigs, self._layout))

    def __call__(self, *args, out=None, stream=0):
        if out is not None and len(args) > self.nin:
            raise ValueError("cannot specify argument 'out' as both positional and keyword")
        if len(args) not in (self.nin, self.nin + self.nout):
            # numba-cuda's words
            raise TypeError(f"{self.__name__}(): this gufunc accepts {_positional(self.nin)} (when providing input "
                            f"only) or {_positional(self.nin + self.nout)} (when providing input and output). Got "
                            f"{_positional(len(args))}.")
        outs = list(args[self.nin:]) or (list(out) if isinstance(out, (tuple, list)) else [out] * self.nout)
        ins = [_operand(a) for a in args[:self.nin]]
        for o in outs:
            if not (o is None or is_cuda_array(o) or isinstance(o, np.ndarray)):
                raise TypeError(f"{self.__name__}(): an output must be a device or NumPy array, not "
                                f"{type(o).__name__}")
        outs = [None if o is None else _operand(o) if is_cuda_array(o) else o for o in outs]
        dtypes = tuple(np.dtype(a.dtype) for a in ins)
        # numba-cuda's choice: the exact dtypes, else the first signature whose types cast safely *to* the
        # inputs' (so float64 data meets a float32 signature and is narrowed); host inputs are then cast.
        key = dtypes if dtypes in self._kernels else next(
            (k for k in self._kernels if all(np.can_cast(s, a) for a, s in zip(dtypes, k))), None)
        if key is None:
            _select(self._kernels, dtypes, set(), f"{self.__name__}()")
        outtypes, kernel = self._kernels[key]
        for k, (a, dt) in enumerate(zip(ins, key)):
            if is_cuda_array(a) and a.dtype != dt:
                raise TypeError(f"{self.__name__}(): argument {k + 1} is a device array of {a.dtype}; the "
                                f"signature takes {dt}, and device arrays are not cast (copy it as {dt})")
        ins = [a if is_cuda_array(a) or a.dtype == k else a.astype(k) for a, k in zip(ins, key)]
        sizes, loop = {}, []
        for k, (a, core) in enumerate(zip(ins, self.inputs)):
            if a.ndim < len(core):
                raise ValueError(f"{self.__name__}(): argument {k + 1} has {a.ndim} dimensions, its layout "
                                 f"{core} needs at least {len(core)}")
            for sym, n in zip(core, a.shape[a.ndim - len(core):]):
                if sizes.setdefault(sym, n) != n:
                    raise ValueError(f"{self.__name__}(): argument {k + 1}: dimension '{sym}' is {n}, "
                                     f"elsewhere {sizes[sym]}")
            loop.append(tuple(a.shape[:a.ndim - len(core)]))
        loop = _loop_shape(loop)
        n = int(np.prod(loop))
        on_device = any(is_cuda_array(a) for a in args) or any(o is not None and is_cuda_array(o) for o in outs)
        dev_args = [_on_device(_pinned(a, len(c), loop), loop + a.shape[a.ndim - len(c):], stream)
                    .reshape(n, *a.shape[a.ndim - len(c):]) for a, c in zip(ins, self.inputs)]
        results = []
        for o, core, dt in zip(outs, self.outputs, outtypes):
            shape = loop + tuple(sizes[s] for s in core)
            if o is not None and tuple(o.shape) != shape:
                raise ValueError(f"{self.__name__}(): output shape {tuple(o.shape)} should be {shape}")
            if o is not None and np.dtype(o.dtype) != np.dtype(dt):     # a device output of another dtype was cast
                raise ValueError(f"{self.__name__}(): output dtype {o.dtype} should be {np.dtype(dt)}")
            dev = as_cuda_array(o) if o is not None and is_cuda_array(o) else device_array(shape, dt, stream=stream)
            results.append((dev, shape, o))
            dev_args.append(dev.reshape(n, *shape[len(loop):]))
        _launch(kernel, n, stream, dev_args)
        done = [_finish(d, shape, on_device, o if o is not None and not is_cuda_array(o) else None, stream)
                for d, shape, o in results]
        return done[0] if self.nout == 1 else tuple(done)


def vectorize(ftylist_or_function=(), target="cuda", identity=None, cache=False, **options):
    """numba-cuda's ``vectorize(signatures, target='cuda')``: a GPU ufunc from a scalar function. With
    signatures (``['float32(float32, float32)']``) its kernels compile now; without, at each new dtype mix.
    Options as numba-cuda's: ``nopython`` is redundant (a RuntimeWarning), ``cache=True`` and any other refused."""
    _check_target(target)
    if cache:
        raise TypeError("caching is not supported")
    for opt in options:
        if opt != "nopython":
            raise KeyError(f"Unrecognized options. cuda vectorize target does not support option: '{opt}'")
        warnings.warn("nopython kwarg for cuda target is redundant", RuntimeWarning, stacklevel=2)
    if callable(ftylist_or_function):
        return CUDAUFunc(ftylist_or_function, [])
    sigs = _signature_list(ftylist_or_function, "cuda.vectorize")
    return lambda pyfunc: CUDAUFunc(pyfunc, sigs)


def _signature_list(sigs, what):
    """A signature (str or Signature) or a list of them, as a list (another object: a TypeError naming it)."""
    from ..compiler import types as T
    if isinstance(sigs, (str, T.Signature)):
        return [sigs]
    if not isinstance(sigs, (list, tuple)):
        raise TypeError(f"{what} takes a signature such as 'float32(float32)' or a list of them, not "
                        f"{type(sigs).__name__} {sigs!r:.60}")
    return list(sigs)


def guvectorize(ftylist, signature, target="cuda", identity=None, cache=False, writable_args=(), **options):
    """numba-cuda's ``guvectorize(signatures, layout, target='cuda')``: a generalized GPU ufunc; the core
    function writes its outputs (``void(float32[:], float32, float32[:])`` with ``'(n),()->(n)'``).
    Options as numba-cuda's: ``nopython=True`` only; ``cache=True``, ``writable_args`` and any other refused."""
    _check_target(target)
    if cache:
        raise TypeError("caching is not supported")
    if writable_args:
        raise TypeError("writable_args are not supported")
    if not options.pop("nopython", True):
        raise TypeError("nopython flag must be True")
    if options:
        raise TypeError(f"The following target options are not supported: {', '.join(map(repr, options))}")
    sigs = _signature_list(ftylist, "cuda.guvectorize")
    if not isinstance(signature, str):
        raise TypeError(f"cuda.guvectorize: the layout must be a str such as '(n),()->(n)', not "
                        f"{type(signature).__name__} {signature!r:.60}")
    return lambda pyfunc: CUDAGUFunc(pyfunc, sigs, signature)


def _check_target(target):
    if target != "cuda":
        raise ValueError(f"cudajit's vectorize compiles for target='cuda' only, not {target!r}")
