"""The names kernels use from ``cuda``: ``threadIdx``, ``grid``, ``shared.array``, ``atomic.add`` …

Each is a placeholder object: the compiler recognises it (by its path under ``cudajit.cuda``)
and emits the intrinsic; called from host code it raises, as in Numba.
"""


class Intrinsic:
    """A kernel-only name such as ``cuda.syncthreads`` or ``cuda.atomic.add``."""

    def __init__(self, path, **children):
        self._path = path
        for name, child in children.items():
            setattr(self, name, child)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"cuda.{self._path} can only be used inside a @cuda.jit kernel or device function")

    def __repr__(self):
        return f"<cudajit intrinsic cuda.{self._path}>"


def _dim3(name):
    return Intrinsic(name, x=Intrinsic(name + ".x"), y=Intrinsic(name + ".y"), z=Intrinsic(name + ".z"))


def _group(name, members):
    return Intrinsic(name, **{m: Intrinsic(f"{name}.{m}") for m in members})


threadIdx = _dim3("threadIdx")
blockIdx = _dim3("blockIdx")
blockDim = _dim3("blockDim")
gridDim = _dim3("gridDim")
laneid = Intrinsic("laneid")
warpsize = Intrinsic("warpsize")
grid = Intrinsic("grid")
gridsize = Intrinsic("gridsize")

shared = _group("shared", ["array"])
local = _group("local", ["array"])
const = _group("const", ["array_like"])
atomic = _group("atomic", ["add", "sub", "max", "min", "nanmax", "nanmin", "and_", "or_", "xor", "exch",
                           "inc", "dec", "compare_and_swap", "cas"])

fp16 = _group("fp16", ["hadd", "hsub", "hmul", "hdiv", "hneg", "habs", "hfma", "hmax", "hmin", "heq", "hne",
                       "hgt", "hge", "hlt", "hle", "hsqrt", "hrsqrt", "hrcp", "hexp", "hexp2", "hlog", "hlog2",
                       "hlog10", "hsin", "hcos", "hfloor", "hceil", "htrunc", "hrint"])

syncthreads = Intrinsic("syncthreads")
syncthreads_count = Intrinsic("syncthreads_count")
syncthreads_and = Intrinsic("syncthreads_and")
syncthreads_or = Intrinsic("syncthreads_or")
syncwarp = Intrinsic("syncwarp")
threadfence = Intrinsic("threadfence")
threadfence_block = Intrinsic("threadfence_block")
threadfence_system = Intrinsic("threadfence_system")

# Warp-level intrinsics (typed by the compiler where supported).
all_sync = Intrinsic("all_sync")
any_sync = Intrinsic("any_sync")
eq_sync = Intrinsic("eq_sync")
ballot_sync = Intrinsic("ballot_sync")
shfl_sync = Intrinsic("shfl_sync")
shfl_up_sync = Intrinsic("shfl_up_sync")
shfl_down_sync = Intrinsic("shfl_down_sync")
shfl_xor_sync = Intrinsic("shfl_xor_sync")
match_any_sync = Intrinsic("match_any_sync")
match_all_sync = Intrinsic("match_all_sync")
activemask = Intrinsic("activemask")
lanemask_lt = Intrinsic("lanemask_lt")
popc = Intrinsic("popc")
brev = Intrinsic("brev")
clz = Intrinsic("clz")
ffs = Intrinsic("ffs")
fma = Intrinsic("fma")
cbrt = Intrinsic("cbrt")
selp = Intrinsic("selp")
nanosleep = Intrinsic("nanosleep")

__all__ = [n for n, v in dict(globals()).items() if isinstance(v, Intrinsic)]
