"""The oracle's ``cuda``: the thread's position from a per-thread state, typed as numba-cuda types it
(threadIdx.x int32, cuda.grid(1) int64), local and shared arrays that refuse reads of elements never written,
``syncthreads`` as a barrier of Python threads (one per CUDA thread of the block) when a program uses it, and
``cuda.jit`` that leaves a function as it is: the oracle runs each function's py_func."""
import threading
import types as _types

import numpy as np

import nbtypes as nt
from numeric import Undefined
from values import V, cast, lift

_state = threading.local()


def set_position(tid, bid, bdim, gdim, barrier=None):
    _state.tid, _state.bid, _state.bdim, _state.gdim, _state.barrier = tid, bid, bdim, gdim, barrier
    _state.shared = getattr(_state, "shared_for_block", None)


def _np_dtype(t):
    return np.dtype("bool" if t == "bool" else t)


def _py(x, t):
    if t == "bool":
        return bool(x)
    if nt.is_int(t):
        return int(x)
    if nt.is_complex(t):
        return complex(x)
    return float(x)


class OArr:
    """An array as Numba types it: elements are V of its dtype, stores convert as Numba's setitem does."""

    def __init__(self, data, t, track=False, err=None):
        self.data, self.t = data, t
        self.written = np.zeros(data.shape, bool) if track else None
        self.err = err if err is not None else np.zeros(data.shape)

    @property
    def shape(self):
        return tuple(V("int64", n) for n in self.data.shape)

    @property
    def size(self):
        return V("int64", self.data.size)

    @property
    def ndim(self):
        return self.data.ndim

    def __len__(self):
        return self.data.shape[0]

    def _index(self, idx):
        if not isinstance(idx, tuple):
            idx = (idx,)
        out = []
        for i, n in zip(idx, self.data.shape):
            i = lift(i)
            if not nt.is_int(i.t):
                raise TypeError(f"index of type {i.t}")
            k = i.v
            if not -n <= k < n:
                raise Undefined(f"index {k} out of bounds for {n}")
            out.append(k + n if k < 0 else k)
        return tuple(out), len(idx) < self.data.ndim

    def __getitem__(self, idx):
        k, partial = self._index(idx)
        if partial:
            return OArr(self.data[k], self.t, err=self.err[k])
        if self.written is not None and not self.written[k]:
            raise Undefined("read of an element never written")
        return V(self.t, _py(self.data[k], self.t), float(self.err[k]))

    def __setitem__(self, idx, value):
        k, partial = self._index(idx)
        if partial:
            raise TypeError("store to a partial index is not generated")
        value = lift(value)
        if nt.is_complex(value.t) and not nt.is_complex(self.t):
            raise TypeError("complex stored into a real array")
        v = cast(value, self.t)
        self.data[k] = v.v
        self.err[k] = v.e
        if self.written is not None:
            self.written[k] = True


class _Dim:
    def __init__(self, attr):
        self._attr = attr

    @property
    def x(self):
        return V("int32", getattr(_state, self._attr))

    @property
    def y(self):
        return V("int32", 0 if self._attr in ("tid", "bid") else 1)

    @property
    def z(self):
        return V("int32", 0 if self._attr in ("tid", "bid") else 1)


def _dtype_of(ctor):
    t = getattr(ctor, "__name__", None)
    if t not in nt.ALL:
        raise TypeError(f"array dtype {ctor!r}")
    return t


def _shape(shape):
    if isinstance(shape, tuple):
        return tuple(lift(s).v for s in shape)
    return (lift(shape).v,)


def _local_array(shape, dtype):
    t = _dtype_of(dtype)
    return OArr(np.zeros(_shape(shape), _np_dtype(t)), t, track=True)


def _shared_array(shape, dtype):
    """One array per block and call site: every thread of the block gets the same one."""
    import sys
    f = sys._getframe(1)
    key = (f.f_code, f.f_lasti)
    store = _state.shared
    if key not in store:
        with _SHARED_LOCK:
            if key not in store:
                t = _dtype_of(dtype)
                store[key] = OArr(np.zeros(_shape(shape), _np_dtype(t)), t, track=True)
    return store[key]


_SHARED_LOCK = threading.Lock()


def _syncthreads():
    b = _state.barrier
    if b is None:
        raise RuntimeError("syncthreads outside a threaded run")
    b.wait()


def _grid(n):
    if lift(n).v != 1:
        raise TypeError("cuda.grid(n>1) is not generated")
    return V("int64", _state.bid * _state.bdim + _state.tid)


def _gridsize(n):
    return V("int64", _state.bdim * _state.gdim)


def _jit(fn=None, **kw):
    if fn is None:
        return lambda f: _jit(f, **kw)
    if not kw.get("device", False):
        fn.py_func = fn
    return fn


def make_cuda():
    cuda = _types.SimpleNamespace()
    cuda.jit = _jit
    cuda.threadIdx, cuda.blockIdx, cuda.blockDim, cuda.gridDim = _Dim("tid"), _Dim("bid"), _Dim("bdim"), \
        _Dim("gdim")
    cuda.grid, cuda.gridsize = _grid, _gridsize
    cuda.local = _types.SimpleNamespace(array=_local_array)
    cuda.shared = _types.SimpleNamespace(array=_shared_array)
    cuda.syncthreads = _syncthreads
    return cuda
