"""Checks the generator's typing against numba-cuda's, program by program, without a GPU: compiles each program's
``prog`` to PTX with numba-cuda (``compile_ptx``, cc 9.0) and compares the return type Numba infers with the one
the generator wrote (and the oracle computed). Run with an interpreter that has numba-cuda:
  NUMBA_ENABLE_CUDASIM=0 venv-numba/bin/python tools/fuzz/numba_typecheck.py --count 50 --seed 1
Prints each disagreement or refusal, and last 'N programs, M disagreements'."""
import argparse
import collections
import importlib.util
import os
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack
import batch  # noqa: E402
import campaign  # noqa: E402
import gen_program  # noqa: E402
import layout  # noqa: E402


def signature(params):
    """numba-cuda types of prog's parameters (each a name of layout's frame)."""
    from numba import types
    t = lambda n: getattr(types, "boolean" if n == "bool" else n)
    kinds = {"t": types.int64}
    kinds.update({n: types.Array(t(dt), len(shape), "C") for n, dt, shape in layout.INPUT_ARRAYS})
    kinds.update({n: t(dt) for n, dt in layout.INPUT_SCALARS})
    kinds.update({n: types.Array(t(dt), 2, "C") for n, dt in layout.OUTPUTS})
    return tuple(kinds[p] for p in params)


def _no_device_cc():
    """Callees compiled for compile_ptx ask the current device for its cc; there is none here: say sm_90."""
    import types
    from numba.cuda import codegen, dispatcher
    codegen.CUDACodeLibrary._ensure_cc = lambda self, cc: cc if cc is not None else (9, 0, "a")
    dispatcher.get_current_device = lambda: types.SimpleNamespace(compute_capability=(9, 0))


def check(prog, directory, k):
    from numba import cuda
    path = os.path.join(directory, f"tc{k}.py")
    with open(path, "w") as f:
        f.write(batch.HEADERS["numba"] + prog.body)
    spec = importlib.util.spec_from_file_location(f"tc{k}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    _, resty = cuda.compile_ptx(mod.prog.py_func, signature(batch.prog_params(prog.body)), device=True, cc=(9, 0))
    name = str(resty)
    if name.startswith("Literal[int]"):        # a literal result is an int64 once stored
        return "int64"
    if name.startswith("Literal[bool]"):
        return "bool"
    return name


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--small", action="store_true", help="the small programs of --numba runs")
    args = ap.parse_args()
    _no_device_cc()
    opts = gen_program.Options.small() if args.small else gen_program.Options()
    arrays, scalars = campaign.batch_inputs(args.seed, 0)
    stats = collections.Counter()
    directory = tempfile.mkdtemp(prefix="typecheck")
    bad = 0
    t0 = time.time()
    for i in range(args.count):
        seed, prog, _ = campaign.generate_valid(args.seed, 0, i, opts, arrays, scalars, False, stats)
        try:
            got = check(prog, directory, i)
        except Exception as e:                     # noqa: B902 - a refusal is reported
            bad += 1
            print(f"--- {seed}: numba-cuda refuses: {type(e).__name__}: {str(e)[:1500]}\n{prog.body}")
            continue
        if got != prog.ret:
            bad += 1
            print(f"--- {seed}: numba-cuda types prog's result {got}, the generator {prog.ret}\n{prog.body}")
    print(f"{time.time() - t0:.1f} s")
    print(f"{args.count} programs, {bad} disagreements")


if __name__ == "__main__":
    main()
