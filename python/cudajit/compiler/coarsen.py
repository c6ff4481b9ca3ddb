"""Block coarsening of elementwise kernels on the GPU (docs/INTERNALS.md, "Coarsened launches").

A kernel in which each thread reads a few elements and writes one, with no loop, barrier, shared memory, warp
collective, atomic or fence, leaves most of the memory system idle on a large grid: each thread has one or two
loads in flight. For such a kernel the GPU module holds a second entry, ``<entry>_x4``, in which each block runs
the body of ``COARSE`` consecutive blocks of the user's grid, one after another, with ``blockIdx.x``/``gridDim.x``
(and ``cuda.grid(1)``/``cuda.gridsize(1)``) those of the block it stands for. CUDA orders nothing between the
threads of different blocks, so this is one of the schedules the user's program already allows.

In that entry, elements of the read-only parameters (``read_only_params``: used only as ``a[i]`` loads and
``a.shape``) are loaded through the non-coherent path (``__ldg``); that lets the compiler issue the loads of the
next logical blocks before the stores of this one, which is where the time goes. The launcher (src/launch.cpp)
takes the entry only for a large 1-d launch (``Kernel::takes_coarse``) whose read-only arrays overlap no other
array argument (then nothing the kernel writes can be read through them); anything else launches the
user's grid as it is. Measured on an H100 (benchmarks/RESULTS.md): a one-element-per-thread saxpy over 2^26
float32 went from 2,755 to about 3,040 GB/s of kernel time.
"""
import ast

from . import types as T

COARSE = 4

# cuda.* intrinsics a coarsened kernel may use: those that depend on no other thread and on no block index but x.
_ALLOWED = {"cuda.grid", "cuda.gridsize", "cuda.threadIdx.x", "cuda.blockIdx.x", "cuda.blockDim.x",
            "cuda.gridDim.x", "cuda.warpsize", "cuda.local.array", "cuda.const.array_like", "cuda.brev", "cuda.cbrt",
            "cuda.clz", "cuda.ffs", "cuda.fma", "cuda.popc", "cuda.selp", "cuda.ldca", "cuda.ldcg", "cuda.ldcs",
            "cuda.ldcv", "cuda.ldlu", "cuda.stcg", "cuda.stcs", "cuda.stwb", "cuda.stwt"}
_ALLOWED_PREFIXES = ("cuda.fp16.", "cuda.bf16.", "cuda.fp8.", "cuda.libdevice.", "cuda.random.")
# Thread identity: a device function reading any of it would see the physical block, so it blocks coarsening.
_IDENTITY = ("cuda.grid", "cuda.gridsize", "cuda.threadIdx.", "cuda.blockIdx.", "cuda.blockDim.", "cuda.gridDim.",
             "cuda.laneid")
# What the kernel's own text may not contain: the y and z axes (a 1-d launch only is coarsened, but a kernel
# reading them is not elementwise in x).
_YZ = tuple(f"cj::{f}_{a}()" for f in ("tid", "ctaid", "ntid", "nctaid", "grid", "gridsize") for a in "yz")
# The x-axis identity as the coarsened body reads it (cj_bx / cj_nbx: the block stood for and the user's grid).
_X_IDENTITY = {"cj::ctaid_x()": "cj_bx", "cj::nctaid_x()": "cj_nbx", "cj::grid_x()": "cj::grid_x_at(cj_bx)",
               "cj::gridsize_x()": "cj::gridsize_x_of(cj_nbx)"}
_META = {"shape", "size", "ndim", "strides", "itemsize", "nbytes", "dtype"}
_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _allowed(name):
    if not name.startswith("cuda."):
        return True
    if name.startswith(_ALLOWED_PREFIXES):
        return True
    return name in _ALLOWED


def nc_dtype(t):
    """Element types loaded through __ldg (kernels/cudajit/lang.h, ld_nc): a scalar of 1, 2, 4 or 8 bytes."""
    return isinstance(t, T.Array) and (T.is_int(t.dtype) or t.dtype in (T.boolean, T.float16, T.bfloat16, T.float32,
                                                                           T.float64))


def read_only_params(tree, params, argtypes):
    """The kernel's array parameters that it only reads as whole elements (``a[i]``, ``a[i, j]`` with every
    index), measures (``a.shape``, ``a.size``, ``len(a)``) and never rebinds, passes on, views or writes.
    Decided on the syntax: ``subscript`` makes sure each such subscript is an element (Translator.nc_broken)."""
    cands = {p for p, t in zip(params, argtypes) if nc_dtype(t)}
    if not cands:
        return set()
    parents = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    for node in ast.walk(tree):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            cands -= set(node.names)
        if not isinstance(node, ast.Name) or node.id not in cands:
            continue
        up = parents.get(node)
        ok = False
        if isinstance(node.ctx, ast.Load):
            if isinstance(up, ast.Subscript) and up.value is node and isinstance(up.ctx, ast.Load):
                outer = parents.get(up)
                sl = up.slice
                elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
                ok = (not isinstance(outer, (ast.Subscript, ast.Attribute))
                      and not any(isinstance(e, (ast.Slice, ast.Starred)) for e in elts))
            elif isinstance(up, ast.Attribute) and up.value is node and up.attr in _META:
                ok = not (isinstance(parents.get(up), ast.Call) and parents[up].func is up)
            elif (isinstance(up, ast.Call) and isinstance(up.func, ast.Name) and up.func.id == "len"
                  and up.args == [node]):
                ok = True
        if not ok:
            cands.discard(node.id)
    return cands


def blockers(kernel_tr, specs, options, prog):
    """Why the kernel is not coarsened (an empty list: it is)."""
    out = []
    if options.target != "gpu":
        out.append("not the GPU")
    if options.reports_errors:
        out.append("debug or boundscheck (the error record names the physical block)")
    if prog.cooperative:
        out.append("cooperative")
    if prog.link_texts() or prog.externs or prog.gpu_objects():
        out.append("linked or foreign code")
    if kernel_tr.state.nc_broken:
        out.append("a read-only parameter is viewed")
    if any(isinstance(t, T.CPointer) for t in kernel_tr.state.argtypes):
        out.append("a pointer parameter")
    for tr, is_kernel in [(kernel_tr, True)] + [(r.translator, False) for r in specs.values()
                                                  if getattr(r, "translator", None) is not None]:
        if any(isinstance(n, _LOOPS) for n in ast.walk(tr.state.parsed.tree)):
            out.append(f"a loop in {tr.state.parsed.name}")
        bad = sorted(n for n in tr.state.intrinsics_used if not _allowed(n) or (not is_kernel and n.startswith(_IDENTITY)))
        if bad:
            out.append(f"{', '.join(bad)} in {tr.state.parsed.name}")
        if tr.state.uses_barriers or tr.state.uses_dynamic_shared:
            out.append(f"barriers or dynamic shared memory in {tr.state.parsed.name}")
    return out


def transform(lines, tr, entry):
    """The kernel's rendered lines (Translator.render: a comment, the head, the body, "}") as the GPU's coarsened
    form: the body as a template on ``cj_nc`` (the read-only loads through __ldg) taking the block it runs as and
    the user's grid, the plain entry calling it with blockIdx.x/gridDim.x, and ``<entry>_x4`` running COARSE
    blocks per block. None when the body reads the y or z axis."""
    body = lines[2:-1]
    text = "\n".join(t for _, t, _ in body)
    if any(s in text for s in _YZ):
        return None
    out_body = []
    for indent, t, line in body:
        for k, v in _X_IDENTITY.items():
            t = t.replace(k, v)
        out_body.append((indent, t, line))
    params = ", ".join(tr.state.head_params)
    names = ", ".join(p.rsplit(" ", 1)[1] for p in tr.state.head_params)
    sep = ", " if params else ""
    bounds = tr.state.head_bounds
    head_line = lines[1][2]
    return ([lines[0],
             (0, f"template <bool cj_nc> CJ_INLINE void {entry}_body(const int32_t cj_bx, const int32_t cj_nbx"
                 f"{sep}{params}) {{", head_line)]
            + out_body + [(0, "}", None),
                          (0, f"CJ_GLOBAL void{bounds} {entry}({params}) {{", None),
                          (1, f"{entry}_body<false>(cj::ctaid_x(), cj::nctaid_x(){sep}{names});", None),
                          (0, "}", None),
                          (0, f"// {COARSE} of the user's blocks per block (src/launch.cpp takes it for large 1-d "
                              f"launches); cj_g: the user's gridDim.x", None),
                          (0, f"CJ_GLOBAL void{bounds} {entry}_x{COARSE}({params}{sep}const int32_t cj_g) {{", None),
                          (1, f"const int64_t cj_b0 = int64_t(blockIdx.x) * {COARSE};", None),
                          # every block of the group in the grid (all but the last group): no test per block, so
                          # that ptxas can issue the next blocks' loads early
                          (1, f"if (cj_b0 + {COARSE} <= cj_g) {{", None),
                          (0, "#pragma unroll", None),
                          (2, f"for (int32_t cj_c = 0; cj_c < {COARSE}; ++cj_c) "
                              f"{entry}_body<true>(int32_t(cj_b0) + cj_c, cj_g{sep}{names});", None),
                          (1, "} else {", None),
                          (0, "#pragma unroll 1", None),
                          (2, f"for (int64_t cj_b = cj_b0; cj_b < cj_g; ++cj_b) "
                              f"{entry}_body<true>(int32_t(cj_b), cj_g{sep}{names});", None),
                          (1, "}", None),
                          (0, "}", None)])
