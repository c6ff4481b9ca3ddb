"""The one registry of intrinsics: a Python name (``cuda.atomic.add``, ``math.sqrt``, ``cuda.syncthreads``) maps
to an entry that types the call and emits its C++ (a ``Value``). Adding an intrinsic is one entry.

An entry's ``impl(cx, node, args, kwargs)`` receives the translator ``cx`` (its interface to entries: ``error``,
``unsupported``, ``emit``, ``state`` and translator.INTRINSIC_INTERFACE), the call's AST node and its translated arguments (``Value``/``Symbol``); an attribute entry
(``kind="attr"``, e.g. ``cuda.threadIdx.x``) receives ``(cx, node)``. ``barrier=True`` marks entries after which
the CPU backend must run a block's threads as fibers (syncthreads*, syncwarp, warp collectives). ``doc`` is the
user's documentation of the name: ``cudajit.cuda``'s placeholders take their docstrings from it (kernelapi.py).

The mechanism is registry.py. The cuda.* entries are here (cuda.bf16 in bf16lib.py, cuda.fp8 in fp8lib.py); math/cmath in mathlib.py;
NumPy ufuncs in npufuncs.py; NumPy's array reductions (np.sum, np.argmax, ...) in reductions.py; Python builtins in
pybuiltins.py; the operator module in pyoperator.py; libdevice.py, vectors.py; importing this module loads them all.
"""
import collections
import math
import zlib

from . import types as T
from .registry import REGISTRY, bind_args, expect_args, intrinsic, is_namespace, lookup  # noqa: F401 (the registry's face)
from .typeconv import resolve
from .errors import format_message, require_literal
from .values import REL, Value, none_value, tuple_value, type_name, typed
from ..errors import NumbaValueError
# Importing these modules registers their entries in REGISTRY.
from . import (bf16lib, flatiter, fp8lib, libdevice, mathlib, npufuncs, pointers, pybuiltins, pyoperator,  # noqa: F401
               reductions, vectors)

# Documentation of the cuda.* names that are namespaces of entries rather than entries themselves.
NAMESPACE_DOCS = {
    "cuda.threadIdx": "The thread's index within its block: ``.x``, ``.y``, ``.z`` (int32). Kernels only.",
    "cuda.blockIdx": "The block's index within the grid: ``.x``, ``.y``, ``.z`` (int32). Kernels only.",
    "cuda.blockDim": "The block's shape, in threads: ``.x``, ``.y``, ``.z`` (int32). Kernels only.",
    "cuda.gridDim": "The grid's shape, in blocks: ``.x``, ``.y``, ``.z`` (int32). Kernels only.",
    "cuda.shared": "Shared memory, one copy per block: ``cuda.shared.array(shape, dtype)``.",
    "cuda.local": "Local memory, private to each thread: ``cuda.local.array(shape, dtype)``.",
    "cuda.const": "Constant memory, read-only and cached: ``cuda.const.array_like(host_array)``.",
    "cuda.atomic": "Atomic read-modify-write operations on array elements (``add``, ``max``, ``cas`` ...); each "
                   "returns the element's old value.",
    "cuda.cg": "Cooperative groups, as numba.cuda.cg: ``cuda.cg.this_grid()`` gives the grid group, whose "
               "``sync()`` waits for every thread of the grid. A kernel that uses it is launched cooperatively.",
    "cuda.fp16": "Half-precision (float16) arithmetic and math for kernels, as numba.cuda.fp16.",
    "cuda.bf16": "bfloat16 arithmetic, comparisons, conversions (with rounding modes) and math for kernels, as "
                 "numba.cuda.bf16; its type is ``cuda.bf16.bfloat16``.",
    "cuda.fp8": "CUDA's fp8 conversion functions (cvt_float_to_fp8, cvt_float_to_e8m0 ...), as "
                "numba.cuda._internal.cuda_fp8; its types are ``cuda.fp8.fp8_e4m3``, ``fp8_e5m2``, ``fp8_e8m0``.",
    "cuda.libdevice": "libdevice's math functions with fixed types (``sin`` float64, ``sinf`` float32), those that "
                      "cudajit's math provides.",
}


# ---- thread indexing --------------------------------------------------------------------------------------
_DIM3 = {"threadIdx": "tid", "blockIdx": "ctaid", "blockDim": "ntid", "gridDim": "nctaid"}


_DIM3_DOCS = {"threadIdx": "the thread's index within its block", "blockIdx": "the block's index within the grid",
              "blockDim": "the number of threads per block", "gridDim": "the number of blocks in the grid"}


def _dim3_entry(fn):
    return lambda cx, node: Value(T.int32, f"cj::{fn}()", nonneg=True)


for _py, _cj in _DIM3.items():
    for _axis in "xyz":
        intrinsic(f"cuda.{_py}.{_axis}", kind="attr", doc=f"{_DIM3_DOCS[_py].capitalize()} along {_axis} (int32).")(
            _dim3_entry(f"{_cj}_{_axis}"))

# cuda.threadIdx & co. used whole (printed, assigned): Numba's Dim3, here a namedtuple of the three int32s
Dim3 = collections.namedtuple("Dim3", "x y z")


def dim3_value(path):
    """The Value of ``cuda.threadIdx`` (blockIdx, blockDim, gridDim) as a whole; None for any other path."""
    fn = _DIM3.get(path[len("cuda."):]) if path.startswith("cuda.") else None
    if fn is None:
        return None
    parts = [_dim3_entry(f"{fn}_{axis}")(None, None) for axis in "xyz"]
    return tuple_value(T.NamedUniTuple(T.int32, 3, Dim3), parts)


intrinsic("cuda.laneid", kind="attr", doc="The thread's lane in its warp, 0 to 31 (int32).")(lambda cx, node: Value(T.int32, "cj::laneid()", nonneg=True))
intrinsic("cuda.warpsize", kind="attr", doc="The number of threads in a warp, 32 (int32).")(lambda cx, node: Value(T.int32, "cj::warpsize()", nonneg=True))


def _grid_like(what, fn):
    def impl(cx, node, args, kwargs):
        expect_args(cx, node, f"cuda.{what}", args, 1)
        v = args[0]
        n = v.const if isinstance(v, Value) else None
        if isinstance(v, Value) and not v.is_const:
            # numba-cuda's RequireLiteralValue; a device function's parameter: its callers may pass a constant
            hint = f"write cuda.{what}(1) or cuda.{what}(2)"
            if v.param is not None and not cx.state.is_kernel:
                hint += f", or pass a constant to '{cx.state.parsed.name}'"
            raise require_literal(cx.state.loc, node, f"RequireLiteralValue: cuda.{what}() takes the literal 1, 2 "
                                                      f"or 3, not a value of type {v.type} known only at run time", hint)
        if n not in (1, 2, 3):
            cx.error(node, f"cuda.{what}() takes the literal 1, 2 or 3", f"write cuda.{what}(1) or cuda.{what}(2)")
        parts = [Value(T.int64, f"cj::{fn}_{a}()", nonneg=True, grid=d if what == "grid" else None)
                 for d, a in enumerate("xyz"[:n])]
        return parts[0] if n == 1 else tuple_value(T.UniTuple(T.int64, n), parts)
    return impl


intrinsic("cuda.grid", params=["ndim"], doc="cuda.grid(ndim): the thread's absolute position in the grid, "
          "``blockIdx * blockDim + threadIdx`` per axis: an int64 for ndim=1, a tuple of 2 or 3 for ndim=2, 3.")(_grid_like("grid", "grid"))
intrinsic("cuda.gridsize", params=["ndim"], doc="cuda.gridsize(ndim): the number of threads in the grid "
          "along each axis, ``blockDim * gridDim`` (int64, or a tuple for ndim=2, 3); the stride of grid-stride loops.")(_grid_like("gridsize", "gridsize"))


# ---- barriers and fences ----------------------------------------------------------------------------------
def _void_call(fn, barrier, doc):
    def impl(cx, node, args, kwargs):
        expect_args(cx, node, fn, args, 0)
        return Value(T.none, f"cj::{fn}()")
    return intrinsic(f"cuda.{fn}", barrier=barrier, doc=doc)(impl)


_void_call("syncthreads", True, "cuda.syncthreads(): wait until every thread of the block has reached this "
                                "point; writes to shared and global memory made before it are then visible to the "
                                "block. Every thread of the block must reach the same call.")
for _f, _scope in (("threadfence", "the device"), ("threadfence_block", "the block"),
                   ("threadfence_system", "the device and the host")):
    _void_call(_f, False, f"cuda.{_f}(): a memory fence: this thread's earlier writes are seen by {_scope} before "
                          f"its later ones. No thread waits.")


def _sync_reduce(fn, result):
    def impl(cx, node, args, kwargs):
        expect_args(cx, node, f"cuda.{fn}", args, 1)
        return Value(T.int32, f"cj::{fn}({cx.convert(node, args[0], T.int32).code})")
    intrinsic(f"cuda.{fn}", barrier=True, params=["predicate"],
              doc=f"cuda.{fn}(predicate): cuda.syncthreads(), then return {result} (int32).")(impl)


for _f, _result in (("syncthreads_count", "how many threads of the block passed a true predicate"),
                    ("syncthreads_and", "1 if the predicate was true in every thread of the block, else 0"),
                    ("syncthreads_or", "1 if the predicate was true in any thread of the block, else 0")):
    _sync_reduce(_f, _result)


@intrinsic("cuda.syncwarp", barrier=True, params=["mask"],
           doc="cuda.syncwarp(mask=0xffffffff): wait until the warp's lanes named in mask have reached this point.")
def _syncwarp(cx, node, args, kwargs):
    expect_args(cx, node, "cuda.syncwarp", args, 0, 1)
    mask = cx.convert(node, args[0], T.uint32).code if args else ""
    return Value(T.none, f"cj::syncwarp({mask})")


# ---- cooperative groups (numba.cuda.cg) ----------------------------------------------------------------------
# A kernel that takes the grid group is cooperative (as Numba decides it): launched with cuLaunchCooperativeKernel,
# its grid limited to the blocks that fit on the device at once; on the CPU every block runs at once as fibers.
@intrinsic("cuda.cg.this_grid", barrier=True,
           doc="cuda.cg.this_grid(): the grid group of the running kernel (a ``grid_group``); its ``sync()`` waits "
               "until every thread of the grid has reached it. Using it makes the kernel's launches cooperative.")
def _this_grid(cx, node, args, kwargs):
    expect_args(cx, node, "cuda.cg.this_grid", args, 0)
    cx.state.program.cooperative = True
    return Value(T.grid_group, "cj::this_grid()")


@intrinsic("grid_group.sync", kind="method", barrier=True,
           doc="g.sync(): wait until every thread of the grid has reached this point; memory written before it is "
               "then visible to the whole grid. Returns 0 (int32), as Numba's GridGroup.sync().")
def _grid_group_sync(cx, node, args, kwargs):
    expect_args(cx, node, "sync", args[1:], 0)
    return Value(T.int32, f"cj::grid_sync({args[0].code})")


# ---- shared, local and constant arrays ---------------------------------------------------------------------
# CUDA's limit on local memory per thread (CUDA C++ Programming Guide, "Technical Specifications per Compute
# Capability": 512 KB for every compute capability). Larger arrays fail on the GPU and on the CPU backend would
# overrun any thread's stack, so both backends refuse them when the kernel is typed.
LOCAL_MEMORY_LIMIT = 512 * 1024


# CUDA's limit on static shared memory per block (CUDA C++ Programming Guide, "Shared Memory": allocations above 48 KB
# per block must be dynamic). A larger static array fails ptxas on the GPU and, from 2 GiB on, the CPU backend's link.
STATIC_SHARED_LIMIT = 48 * 1024


def _check_array_size(cx, node, dtype, shape, kind, limit, what_limit, hint):
    """A local or shared array of more bytes than CUDA allows: a TypingError naming it, its bytes and the limit."""
    nbytes = math.prod(shape) * dtype.dtype.itemsize
    if nbytes > limit:
        name = cx.state.storage_hint
        what = f"{kind} array '{name}'" if name else f"{kind} array"
        cx.error(node, f"{what} of shape {shape} and dtype {dtype} takes {nbytes} bytes, more than {what_limit}", hint)
    return nbytes


def _check_local_size(cx, node, dtype, shape):
    cx.state.local_bytes[id(node)] = _check_array_size(
        cx, node, dtype, shape, "local", LOCAL_MEMORY_LIMIT,
        f"CUDA's per-thread local memory limit of {LOCAL_MEMORY_LIMIT} bytes (512 KiB)",
        "use a smaller array, or global memory (an array argument or cuda.device_array)")


def _check_shared_size(cx, node, dtype, shape):
    _check_array_size(cx, node, dtype, shape, "shared", STATIC_SHARED_LIMIT,
                      f"CUDA's limit of {STATIC_SHARED_LIMIT} bytes (48 KiB) of static shared memory per block",
                      "use dynamic shared memory: cuda.shared.array(0, dtype) and the launch's 4th item, "
                      "kernel[blocks, threads, stream, nbytes]")


def _alignment(cx, node, args, kind):
    """The ``alignment=`` of a shared/local array: None, or a constant power of two that is a multiple of a
    pointer's size (numba-cuda's rules: a non-constant is a RequireLiteralValueError, a bad int a ValueError)."""
    v = args[2] if len(args) > 2 else none_value()
    c = v.const if isinstance(v, Value) and v.is_const else Value.NOCONST
    if c is None:
        return None
    if not isinstance(c, int) or isinstance(c, bool):
        what = f"cuda.{kind}.array alignment must be a constant integer"
        hint = "e.g. alignment=16 (a power of two, a multiple of 8)"
        if isinstance(v, Value) and v.param is not None and not cx.state.is_kernel:
            raise require_literal(cx.state.loc, node, what, f"{hint}, or pass one to '{cx.state.parsed.name}'")
        raise require_literal(cx.state.loc, node, what + (f", got {c!r}" if c is not Value.NOCONST else ""), hint)
    problem = ("positive" if c <= 0 else "a power of 2" if c & (c - 1) else
               f"a multiple of {POINTER_SIZE}" if c % POINTER_SIZE else None)
    if problem:
        raise NumbaValueError(format_message(cx.state.loc, node, f"Alignment must be {problem}, got {c}"))
    return c


POINTER_SIZE = 8      # bytes of a device pointer (numba-cuda: struct.calcsize("P"))


def _array_alloc(kind):
    def impl(cx, node, args, kwargs):
        expect_args(cx, node, f"cuda.{kind}.array", args, 2, 3)
        shape = cx.const_shape(node, args[0], kind, args[1])
        dtype = cx.dtype_of(node, args[1])
        alignment = _alignment(cx, node, args, kind)
        if kind == "shared" and shape in ((0,), ()):
            cx.state.uses_dynamic_shared = True
            # Every dynamic shared array starts at the launch's dynamic shared memory, as in Numba.
            return Value(T.Array(dtype, 1, "C"),
                         f"cj::c_array(cj::dynamic_shared<{dtype.storage_cpp}>(), cj::dynamic_shared_count<{dtype.storage_cpp}>())")
        if any(n < 0 for n in shape) or (kind == "local" and 0 in shape):
            cx.error(node, f"cuda.{kind}.array shape must be positive, got {shape}")
        if kind == "local":
            _check_local_size(cx, node, dtype, shape)
        else:
            _check_shared_size(cx, node, dtype, shape)
        storage = cx.declare_array_storage(node, kind, dtype, shape, alignment)
        dims = ", ".join(str(n) for n in shape)
        return Value(T.Array(dtype, len(shape), "C"), f"cj::c_array({storage}, {dims})")
    return impl


intrinsic("cuda.shared.array", params=["shape", "dtype", "alignment"],
          doc="cuda.shared.array(shape, dtype, alignment=None): an array in shared memory, one per block, visible to "
              "all its threads and alive for the kernel. shape is a constant int or tuple; shape 0 takes the "
              "launch's dynamic shared memory. alignment: its bytes' alignment (a power of two, a multiple of 8).")(
    _array_alloc("shared"))
intrinsic("cuda.local.array", params=["shape", "dtype", "alignment"],
          doc="cuda.local.array(shape, dtype, alignment=None): an array private to the calling thread (a "
              "scratchpad); shape is a constant int or tuple. alignment: its bytes' alignment (a power of two, a "
              "multiple of 8).")(_array_alloc("local"))


@intrinsic("cuda.const.array_like", params=["ndarray"],
           doc="cuda.const.array_like(ndarray): the NumPy array (a global or closure variable) placed in constant "
               "memory: read-only, cached, shared by all threads. Given any other array (an argument, a slice of "
               "a global) it returns that array, as numba-cuda's does.")
def _const_array_like(cx, node, args, kwargs):
    expect_args(cx, node, "cuda.const.array_like", args, 1)
    arr = args[0]
    # A global/closure NumPy array is already frozen into constant memory when it is named (frontend); numba-cuda
    # lowers the call as a no-op on whatever array it is given, so an argument or a view is itself.
    if isinstance(arr, Value) and isinstance(arr.type, T.Array):
        return arr
    cx.error(node, f"cuda.const.array_like takes a NumPy array (a global or closure variable), not {arr.type if isinstance(arr, Value) else arr.path}")


# ---- atomics ----------------------------------------------------------------------------------------------
_INTS32_64 = (T.int32, T.int64, T.uint32, T.uint64)
_ATOMIC_TYPES = {
    "add": _INTS32_64 + (T.float32, T.float64), "sub": _INTS32_64 + (T.float32, T.float64),
    "max": _INTS32_64 + (T.float32, T.float64), "min": _INTS32_64 + (T.float32, T.float64),
    "nanmax": _INTS32_64 + (T.float32, T.float64), "nanmin": _INTS32_64 + (T.float32, T.float64),
    "and_": _INTS32_64, "or_": _INTS32_64, "xor": _INTS32_64, "exch": _INTS32_64,
    "inc": (T.uint32, T.uint64), "dec": (T.uint32, T.uint64),
}


def _atomic_target(cx, node, name, ary, idx, allowed):
    if not (isinstance(ary, Value) and isinstance(ary.type, T.Array)):
        cx.error(node, f"cuda.atomic.{name} needs an array as its first argument")
    if ary.type.dtype not in allowed:
        cx.error(node, f"cuda.atomic.{name} does not support arrays of {ary.type.dtype}",
                 f"supported dtypes: {', '.join(map(str, allowed))}")
    cx.check_writable(node, node.args[0] if node.args else node, ary)
    indices = cx.tuple_elements(node, idx) if isinstance(idx, Value) and isinstance(idx.type, T.BaseTuple) else [idx]
    for i in indices:     # numba-cuda casts an index to intp: numbers only (a str or None reached the C++)
        if not (isinstance(i, Value) and T.is_scalar(i.type) and not isinstance(i.type, T.Complex)):
            cx.error(node, f"cuda.atomic.{name}: the index must be an integer or a tuple of integers, not "
                           f"{type_name(i) if isinstance(i, Value) else i}")
    return f"&{cx.element(node, ary, idx).code}"


_ATOMIC_DOCS = {
    "add": "ary[idx] += val", "sub": "ary[idx] -= val", "max": "ary[idx] = max(ary[idx], val)",
    "min": "ary[idx] = min(ary[idx], val)", "nanmax": "ary[idx] = max(ary[idx], val), NaN if either is NaN",
    "nanmin": "ary[idx] = min(ary[idx], val), NaN if either is NaN", "and_": "ary[idx] &= val",
    "or_": "ary[idx] |= val", "xor": "ary[idx] ^= val", "exch": "ary[idx] = val",
    "inc": "ary[idx] = 0 if ary[idx] >= val else ary[idx] + 1", "dec": "ary[idx] = val if ary[idx] == 0 or "
                                                                      "ary[idx] > val else ary[idx] - 1",
}


def _atomic_rmw(name):
    def impl(cx, node, args, kwargs):
        expect_args(cx, node, f"cuda.atomic.{name}", args, 3)
        ary, idx, val = args
        ptr = _atomic_target(cx, node, name, ary, idx, _ATOMIC_TYPES[name])
        dt = ary.type.dtype
        return Value(dt, f"cj::atomic_{name}({ptr}, {typed(cx.convert(node, val, dt), dt).code})")
    intrinsic(f"cuda.atomic.{name}", params=["ary", "idx", "val"], effect=True, part="ATOMICS",
              doc=f"cuda.atomic.{name}(ary, idx, val): atomically ``{_ATOMIC_DOCS[name]}``; returns the old value. "
                  f"idx is an int or a tuple; dtypes: {', '.join(map(str, _ATOMIC_TYPES[name]))}.")(impl)


for _n in _ATOMIC_TYPES:
    _atomic_rmw(_n)


@intrinsic("cuda.atomic.compare_and_swap", params=["ary", "old", "val"], effect=True, part="ATOMICS",
           doc="cuda.atomic.compare_and_swap(ary, old, val): atomically set ary[0] to val if it equals old; returns "
               "the value found. ary is a 1-d integer array.")
def _atomic_compare_and_swap(cx, node, args, kwargs):
    # Numba's compare_and_swap works on element 0 of a 1-d array.
    expect_args(cx, node, "cuda.atomic.compare_and_swap", args, 3)
    ary, old, val = args
    if isinstance(ary, Value) and isinstance(ary.type, T.Array) and ary.type.ndim != 1:
        cx.error(node, "cuda.atomic.compare_and_swap takes a 1-d array", "use cuda.atomic.cas(ary, idx, old, val)")
    ptr = _atomic_target(cx, node, "compare_and_swap", ary, Value(T.int64, "0", const=0, nonneg=True), _INTS32_64)
    dt = ary.type.dtype
    return Value(dt, f"cj::atomic_cas({ptr}, {typed(cx.convert(node, old, dt), dt).code}, {typed(cx.convert(node, val, dt), dt).code})")


@intrinsic("cuda.atomic.cas", params=["ary", "idx", "old", "val"], effect=True, part="ATOMICS",
           doc="cuda.atomic.cas(ary, idx, old, val): atomically set ary[idx] to val if it equals old; returns the "
               "value found (integer arrays).")
def _atomic_cas(cx, node, args, kwargs):
    expect_args(cx, node, "cuda.atomic.cas", args, 4)
    ary, idx, old, val = args
    ptr = _atomic_target(cx, node, "cas", ary, idx, _INTS32_64)
    dt = ary.type.dtype
    return Value(dt, f"cj::atomic_cas({ptr}, {typed(cx.convert(node, old, dt), dt).code}, {typed(cx.convert(node, val, dt), dt).code})")


# ---- cache hints (numba.cuda.ldca ... stwt; cache_hints.h) -------------------------------------------------
# Numba's rules: an array of integers or reals (8 to 64 bits; bool and complex refused) with as many integer
# indices as it has dimensions (negative ones wrap, as a[i]), or a CPointer with one; the loaded value has the
# array's dtype, the stored one is converted to it. Indices are checked where a[i] is (boundscheck, the CPU).
_CACHE_LOADS = {"ca": "cache at all levels", "cg": "cache in L2, not L1", "cs": "cache streaming, likely read once",
                "lu": "last use: the line need not be kept", "cv": "do not cache: fetch again"}
_CACHE_STORES = {"cg": "cache in L2, not L1", "cs": "cache streaming, likely written once",
                 "wb": "write back at all coherent levels", "wt": "write through to system memory"}


def _cache_hint_target(cx, node, name, ary, idx):
    """The element ``ary[idx]`` that cuda.<name> loads or stores, after Numba's checks of its arguments."""
    if not (isinstance(ary, Value) and isinstance(ary.type, (T.Array, T.CPointer))):
        cx.error(node, f"cuda.{name} operates on arrays or pointers, not {getattr(ary, 'type', ary)}")
    dt = ary.type.dtype
    if not isinstance(dt, (T.Integer, T.Float)):
        cx.error(node, f"cuda.{name} requires array of integer or float type, not {dt}")
    if not isinstance(idx, Value):
        cx.error(node, f"cuda.{name}: the index must be an integer or a tuple of integers")
    indices = cx.tuple_elements(node, idx) if isinstance(idx.type, T.BaseTuple) else [idx]
    if not all(isinstance(i, Value) and T.is_int(i.type) for i in indices):
        cx.error(node, f"cuda.{name}: {idx.type} is not a valid index (integers, one per dimension)")
    if isinstance(ary.type, T.CPointer):
        if len(indices) != 1:
            cx.error(node, f"cuda.{name}: a pointer takes one integer index, got {len(indices)}")
        return cx.pointer_element(node, ary, indices)
    if len(indices) != ary.type.ndim:
        got = "a scalar" if not isinstance(idx.type, T.BaseTuple) else len(indices)     # numba-cuda's words
        cx.error(node, f"cuda.{name}: Expected {ary.type.ndim} indices, got {got}")
    return cx.element(node, ary, indices)


def _cache_load(op):
    def impl(cx, node, args, kwargs):
        expect_args(cx, node, f"cuda.ld{op}", args, 2)
        ref = _cache_hint_target(cx, node, f"ld{op}", *args)
        return Value(ref.type, f"cj::ld_{op}(&{ref.code})")
    intrinsic(f"cuda.ld{op}", params=["array", "i"], part="CACHE_HINTS",
              doc=f"cuda.ld{op}(array, i): array[i] loaded with PTX's ld.global.{op} ({_CACHE_LOADS[op]}); i is an "
                  f"int or a tuple. The CPU backend loads plainly.")(impl)


def _cache_store(op):
    def impl(cx, node, args, kwargs):
        expect_args(cx, node, f"cuda.st{op}", args, 3)
        ary, idx, val = args
        ref = _cache_hint_target(cx, node, f"st{op}", ary, idx)
        if isinstance(ary.type, T.Array):
            cx.check_writable(node, node.args[0], ary)
        dt = ref.type
        return Value(T.none, f"cj::st_{op}(&{ref.code}, {typed(cx.convert(node, val, dt), dt).code})")
    intrinsic(f"cuda.st{op}", params=["array", "i", "value"], effect=True, part="CACHE_HINTS",
              doc=f"cuda.st{op}(array, i, value): array[i] = value stored with PTX's st.global.{op} "
                  f"({_CACHE_STORES[op]}); i is an int or a tuple. The CPU backend stores plainly.")(impl)


for _op in _CACHE_LOADS:
    _cache_load(_op)
for _op in _CACHE_STORES:
    _cache_store(_op)


# ---- warp collectives (thread.h: CUDA's *_sync on the GPU; lanes exchanging at the barrier on the CPU) ------------
# Numba's types: the votes return bool, ballot an int32, the shuffles the value's type among int32, int64, float32
# and float64 (other numbers convert to one of these), match_any an int32, match_all (int32, bool).
_WARP_VALUES = [(t, (t,)) for t in (T.int32, T.int64, T.float32, T.float64)]


def _lane_arg(cx, node, name, v, what):
    if not (isinstance(v, Value) and (T.is_int(v.type) or v.type == T.boolean)):
        cx.error(node, f"cuda.{name}: {what} must be an integer")
    return v.code


def _vote_args(cx, node, name, mask, pred):
    """A vote's mask (an integer) and predicate (an integer or boolean) as C++, with numba-cuda's typing errors."""
    if not (isinstance(mask, Value) and T.is_int(mask.type)):
        cx.error(node, f"cuda.{name}: Mask type must be an integer, not {getattr(mask, 'type', mask)}")
    if not (isinstance(pred, Value) and (T.is_int(pred.type) or pred.type == T.boolean)):
        cx.error(node, f"cuda.{name}: Predicate must be an integer or boolean, not {getattr(pred, 'type', pred)}")
    bit = f"int32_t({pred.code})" if pred.type == T.boolean else f"int32_t({pred.at(REL)} != 0)"
    return f"uint32_t({mask.code})", bit


def _warp_value(cx, node, name, v):
    found = resolve(_WARP_VALUES, [v.type], [v.literal]) if isinstance(v, Value) else None
    if found is None:
        cx.error(node, f"cuda.{name} shuffles int32, int64, float32 or float64 values, not "
                       f"{getattr(v, 'type', v)}")
    t = found[0]
    return t, typed(cx.convert(node, v, t), t).code


def _vote(name, fn):
    def impl(cx, node, args, kwargs):
        expect_args(cx, node, f"cuda.{name}", args, 2)
        return Value(T.boolean, f"bool(cj::{fn}({', '.join(_vote_args(cx, node, name, *args))}))")
    intrinsic(f"cuda.{name}", barrier=True, params=["mask", "predicate"],
              doc=f"cuda.{name}(mask, predicate): True if the predicate is {_VOTES[name]} among the warp's lanes "
                  f"named in mask.")(impl)


_VOTES = {"all_sync": "true in all", "any_sync": "true in any", "eq_sync": "the same in all"}
for _n in _VOTES:
    _vote(_n, _n)


@intrinsic("cuda.ballot_sync", barrier=True, params=["mask", "predicate"],
           doc="cuda.ballot_sync(mask, predicate): a bit mask (int32) with bit i set when lane i's predicate is true.")
def _ballot_sync(cx, node, args, kwargs):
    expect_args(cx, node, "cuda.ballot_sync", args, 2)
    return Value(T.int32, f"int32_t(cj::ballot_sync({', '.join(_vote_args(cx, node, 'ballot_sync', *args))}))")


_SHUFFLES = {"shfl_sync": "from lane src_lane", "shfl_up_sync": "from the lane delta below this one",
             "shfl_down_sync": "from the lane delta above this one",
             "shfl_xor_sync": "from the lane whose id is this lane's xor lane_mask"}


def _shuffle(name, third, third_cpp):
    def impl(cx, node, args, kwargs):
        expect_args(cx, node, f"cuda.{name}", args, 3)
        mask, value, lane = args
        t, v = _warp_value(cx, node, name, value)
        m = _lane_arg(cx, node, name, mask, "mask")
        k = _lane_arg(cx, node, name, lane, third)
        return Value(t, f"cj::{name}(uint32_t({m}), {v}, {third_cpp}({k}))")
    intrinsic(f"cuda.{name}", barrier=True, params=["mask", "value", third],
              doc=f"cuda.{name}(mask, value, {third}): the value {_SHUFFLES[name]} of the warp (int32, int64, "
                  f"float32 or float64); the lanes in mask take part.")(impl)


_shuffle("shfl_sync", "src_lane", "int32_t")
_shuffle("shfl_up_sync", "delta", "uint32_t")
_shuffle("shfl_down_sync", "delta", "uint32_t")
_shuffle("shfl_xor_sync", "lane_mask", "int32_t")


@intrinsic("cuda.match_any_sync", barrier=True, params=["mask", "value"],
           doc="cuda.match_any_sync(mask, value): the mask of lanes (in mask) whose value equals this lane's.")
def _match_any_sync(cx, node, args, kwargs):
    expect_args(cx, node, "cuda.match_any_sync", args, 2)
    _, v = _warp_value(cx, node, "match_any_sync", args[1])
    m = _lane_arg(cx, node, "match_any_sync", args[0], "mask")
    return Value(T.int32, f"int32_t(cj::match_any_sync(uint32_t({m}), {v}))")


@intrinsic("cuda.match_all_sync", barrier=True, params=["mask", "value"],
           doc="cuda.match_all_sync(mask, value): (mask, True) if all lanes in mask hold the same value, else (0, False).")
def _match_all_sync(cx, node, args, kwargs):
    expect_args(cx, node, "cuda.match_all_sync", args, 2)
    _, v = _warp_value(cx, node, "match_all_sync", args[1])
    m = _lane_arg(cx, node, "match_all_sync", args[0], "mask")
    return Value(T.Tuple([T.int32, T.boolean]), f"cj::match_all_tuple(uint32_t({m}), {v})")


@intrinsic("cuda.activemask", barrier=True,
           doc="cuda.activemask(): the mask (uint32) of the warp's lanes executing this call.")
def _activemask(cx, node, args, kwargs):
    # The CPU backend's lanes wait for each other there (a barrier, thread.h) and the lanes at the same call form
    # the mask: the call's site, a number of its function and place, tells the calls apart.
    expect_args(cx, node, "cuda.activemask", args, 0)
    site = zlib.crc32(f"{cx.state.cname}:{node.lineno}:{node.col_offset}".encode())
    return Value(T.uint32, f"cj::activemask({site}u)")
intrinsic("cuda.lanemask_lt", doc="cuda.lanemask_lt(): the mask (uint32) of the lanes below this one.")(
    lambda cx, node, args, kwargs: expect_args(cx, node, "cuda.lanemask_lt", args, 0)
    or Value(T.uint32, "cj::lanemask_lt()"))


@intrinsic("cuda.nanosleep", params=["ns"], doc="cuda.nanosleep(ns): pause the thread for about ns nanoseconds.")
def _nanosleep(cx, node, args, kwargs):
    expect_args(cx, node, "cuda.nanosleep", args, 1)
    return Value(T.none, f"cj::nanosleep(uint32_t({_lane_arg(cx, node, 'nanosleep', args[0], 'ns')}))")


@intrinsic("cuda.selp", params=["test", "a", "b"],
           doc="cuda.selp(test, a, b): a if test else b, without a branch; a and b have one type.")
def _selp(cx, node, args, kwargs):
    expect_args(cx, node, "cuda.selp", args, 3)
    test, a, b = args
    if not (isinstance(a, Value) and isinstance(b, Value) and a.type == b.type and T.is_scalar(a.type)):
        cx.error(node, "cuda.selp(test, a, b) takes two numbers of one type",
                 f"got {getattr(a, 'type', a)} and {getattr(b, 'type', b)}; convert one of them")
    if not (isinstance(test, Value) and T.is_scalar(test.type)):
        cx.error(node, f"cuda.selp's test must be a number or a bool, not "
                       f"{type_name(test) if isinstance(test, Value) else test}")
    cond = test.code if test.type == T.boolean else f"cj::py_bool({test.code})"
    return Value(a.type, f"({cond} ? {a.code} : {b.code})")


# ---- cuda.random (random.h): a generator is row `index` of the states, seen in kernels as uint64[:, 2] ---------
def _xoroshiro(name, ret):
    def impl(cx, node, args, kwargs):
        expect_args(cx, node, name, args, 2)
        states, index = args
        if not (isinstance(states, Value) and isinstance(states.type, T.Array) and states.type.dtype == T.uint64
                and states.type.ndim == 2):
            cx.error(node, f"{name}() takes the states from cuda.random.create_xoroshiro128p_states, not "
                           f"{getattr(states, 'type', states)}")
        if not (isinstance(index, Value) and T.is_int(index.type)):
            cx.error(node, f"{name}(): the index must be an integer")
        state = cx.element(node, states, [index, Value(T.int64, "0", const=0, nonneg=True)])
        return Value(ret, f"cj::{name.rsplit('.', 1)[1]}(&{state.code})")
    if ret == T.none:
        doc = (f"{name}(states, index): advances generator ``index`` of the states made by "
               f"create_xoroshiro128p_states by 2**64 steps, to where the next generator starts.")
    else:
        doc = (f"{name}(states, index): the next {_RANDOM_DOCS[name.split('_')[1]]} ({ret}) from generator "
               f"``index`` of the states made by create_xoroshiro128p_states; advances that generator.")
    intrinsic(name, params=["states", "index"], doc=doc, effect=True, part="RANDOM")(impl)


_RANDOM_DOCS = {"next": "raw 64-bit number", "uniform": "number uniform in [0, 1)",
                "normal": "number from the standard normal distribution"}
for _n, _t in (("next", T.uint64), ("uniform_float32", T.float32), ("uniform_float64", T.float64),
               ("normal_float32", T.float32), ("normal_float64", T.float64), ("jump", T.none)):
    _xoroshiro(f"cuda.random.xoroshiro128p_{_n}", _t)


def _unit_float(name, ret):
    def impl(cx, node, args, kwargs):
        expect_args(cx, node, f"cuda.random.{name}", args, 1)
        x = args[0]
        if not (isinstance(x, Value) and T.is_int(x.type)):
            cx.error(node, f"cuda.random.{name}() takes an integer, not {getattr(x, 'type', x)}")
        code = f"cj::xoro_unit_double(uint64_t({x.code}))"
        return Value(ret, code if ret == T.float64 else f"float({code})")
    intrinsic(f"cuda.random.{name}", params=["x"], part="RANDOM",
              doc=f"cuda.random.{name}(x): the uint64 x as a {ret} in [0, 1) (its top 53 bits scaled, as Numba).")(impl)


_unit_float("uint64_to_unit_float64", T.float64)
_unit_float("uint64_to_unit_float32", T.float32)


# ---- cuda.fp16 (half.h): numba-cuda's half-precision functions; arguments convert to float16 -----------------
_FP16_OPS = {"hadd": "a + b", "hsub": "a - b", "hmul": "a * b", "hdiv": "a / b", "heq": "a == b", "hne": "a != b",
             "hgt": "a > b", "hge": "a >= b", "hlt": "a < b", "hle": "a <= b", "hneg": "-a", "habs": "abs(a)",
             "hfma": "a * b + c, rounded once", "hmax": "max(a, b)", "hmin": "min(a, b)", "hrcp": "1 / a",
             "hrsqrt": "1 / sqrt(a)", "hexp10": "10 ** a", "htanh_approx": "math.tanh(a)",
             "__hisnan": "math.isnan(a)", "__hisinf": "-1, 1 or 0: a is -inf, +inf or finite/nan (CUDA's int)",
             "__half2float": "a as float32", "__float2half": "a rounded to float16",
             "__double2half": "a rounded to float16 (once, from float64)"}


def _fp16(name, nargs, fmt, ret=T.float16, arg=T.float16):
    def impl(cx, node, args, kwargs):
        expect_args(cx, node, f"cuda.fp16.{name}", args, nargs)
        for a in args:
            if not (isinstance(a, Value) and T.is_number(a.type) and not isinstance(a.type, T.Complex)):
                got = type_name(a) if isinstance(a, Value) else a
                cx.error(node, f"cuda.fp16.{name} takes {arg} numbers, not {got}")
        conv = [typed(cx.convert(node, a, arg), arg).code for a in args]
        return Value(ret, fmt.format(*conv))
    what = _FP16_OPS.get(name) or f"math.{name[1:]}(a)"
    intrinsic(f"cuda.fp16.{name}", part="HALF",
              doc=f"cuda.fp16.{name}({', '.join('abc'[:nargs])}): {what} in half precision ({ret}); arguments "
                  f"convert to {arg}.")(impl)


# numba-cuda's fp16 module: the documented h* names, their CUDA spellings __h*, and its conversions.
for _prefix in ("", "__"):
    for _n, _op in (("hadd", "+"), ("hsub", "-"), ("hmul", "*"), ("hdiv", "/")):
        _fp16(_prefix + _n, 2, "({0} " + _op + " {1})")
    for _n, _op in (("heq", "=="), ("hne", "!="), ("hgt", ">"), ("hge", ">="), ("hlt", "<"), ("hle", "<=")):
        _fp16(_prefix + _n, 2, "({0} " + _op + " {1})", T.boolean)
    _fp16(_prefix + "hneg", 1, "(-{0})")
    _fp16(_prefix + "habs", 1, "cj::m::fabs({0})")
    _fp16(_prefix + "hfma", 3, "cj::hfma({0}, {1}, {2})")
    _fp16(_prefix + "hmax", 2, "cj::m::fmax({0}, {1})")
    _fp16(_prefix + "hmin", 2, "cj::m::fmin({0}, {1})")
for _n in ("sqrt", "exp", "exp2", "log", "log2", "log10", "sin", "cos", "floor", "ceil", "trunc", "rint"):
    _fp16(f"h{_n}", 1, f"cj::m::{_n}({{0}})")
_fp16("hrcp", 1, "(cj::half(1.0f) / {0})")
_fp16("hrsqrt", 1, "(cj::half(1.0f) / cj::m::sqrt({0}))")
_fp16("hexp10", 1, "cj::half(cj::m::pow(10.0f, float({0})))")
for _n in ("htanh", "htanh_approx"):
    _fp16(_n, 1, "cj::half(cj::m::tanh(float({0})))")
_fp16("__hisnan", 1, "cj::m::isnan({0})", T.boolean)
_fp16("__hisinf", 1, "cj::hisinf({0})", T.int32)
_fp16("__half2float", 1, "float({0})", T.float32)
_fp16("__float2half", 1, "cj::half({0})", arg=T.float32)
_fp16("__double2half", 1, "cj::half({0})", arg=T.float64)


_BITS_DOCS = {"popc": "the number of set bits", "brev": "the bits in reverse order",
              "clz": "the number of leading zero bits", "ffs": "the 1-based position of the lowest set bit (0 if none)"}


def _int_bits(name, fn, result):
    def impl(cx, node, args, kwargs):
        expect_args(cx, node, f"cuda.{name}", args, 1)
        x = args[0]
        if not (isinstance(x, Value) and T.is_int(x.type)):
            cx.error(node, f"cuda.{name} takes an integer")
        return Value(result(x.type), f"cj::{fn}({x.code})")
    intrinsic(f"cuda.{name}", doc=f"cuda.{name}(x): {_BITS_DOCS[name]} of the integer x.")(impl)


_int_bits("popc", "popc", lambda t: t)
_int_bits("brev", "brev", lambda t: t)
_int_bits("clz", "clz", lambda t: t)
_int_bits("ffs", "ffs", lambda t: T.uint32)


@intrinsic("cuda.fma", doc="cuda.fma(a, b, c): a * b + c with one rounding (float32 if all are float32, else float64).")
def _cuda_fma(cx, node, args, kwargs):
    expect_args(cx, node, "cuda.fma", args, 3)
    t = T.float32 if all(a.type == T.float32 for a in args) else T.float64
    return Value(t, f"cj::m::fma({', '.join(cx.convert(node, a, t).code for a in args)})")


@intrinsic("cuda.cbrt", doc="cuda.cbrt(x): the cube root of x (float32 for float32, else float64).")
def _cuda_cbrt(cx, node, args, kwargs):
    expect_args(cx, node, "cuda.cbrt", args, 1)
    t = T.float32 if args[0].type == T.float32 else T.float64
    return Value(t, f"cj::m::cbrt({cx.convert(node, args[0], t).code})")



# ---- cuda.reduce's producer-warp ring (internal: cuda/reduction.py's pass 1; kernels/cudajit/reduce_ring.h) ----
# Not user API: the names live under cuda._reduce, which kernelapi does not export.

# name -> (return type, parameters, what it does); a parameter is an array ("a") whose .data is passed, or an
# integer ("i") passed as int64_t. Each becomes cj::reduce_ring::<name without "ring_">(...).
_RING_ENTRIES = {
    "ring_init": (T.none, (("bars", "a"),), "thread 0 initialises the ring's four mbarriers (bars: a shared "
                  "uint64 array of 4); the block syncs after"),
    "ring_produce": (T.none, (("src", "a"), ("n_full", "i"), ("ring", "a"), ("bars", "a")),
                     "a producer thread's loop"),
    "ring_take": (T.int64, (("src", "a"), ("n_full", "i"), ("bars", "a"), ("c", "i")),
                  "waits for chunk c and gives its number of rows (0: no chunk c)"),
    "ring_stage": (T.int64, (("src", "a"), ("c", "i")), "the ring index of chunk c's first row"),
    "ring_release": (T.none, (("bars", "a"), ("c", "i")), "the fold thread is done with chunk c's stage"),
}


def _ring_entry(name, ret, params):
    full = f"cuda._reduce.{name}"

    def impl(cx, node, args, kwargs):
        expect_args(cx, node, full, args, len(params))
        parts = []
        for (what, kind), v in zip(params, args):
            if kind == "a":
                if not (isinstance(v, Value) and isinstance(v.type, T.Array) and v.type.ndim == 1):
                    cx.error(node, f"{full}: {what} must be a 1-d array")
                parts.append(f"{v.code}.data")
            else:
                if not (isinstance(v, Value) and T.is_int(v.type)):
                    cx.error(node, f"{full}: {what} must be an integer")
                parts.append(f"int64_t({v.code})")
        return Value(ret, f"cj::reduce_ring::{name[len('ring_'):]}({', '.join(parts)})", nonneg=ret != T.none)
    return impl


for _name, (_ret, _params, _what) in _RING_ENTRIES.items():
    intrinsic(f"cuda._reduce.{_name}", barrier=_name != "ring_stage", part="REDUCE_RING",
              doc=f"Internal to cuda.reduce: {_name}({', '.join(p for p, _ in _params)}), {_what}.")(
        _ring_entry(_name, _ret, _params))
