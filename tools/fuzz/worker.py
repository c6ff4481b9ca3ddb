"""A process that runs batches for the fuzzer: ``python worker.py cudajit|numba``, then one JSON request per
line on stdin ({"dir", "tag", "count", "inputs"}), one JSON reply per line on stdout. It imports only the
compiler it serves (numba-cuda and cudajit never share a process). A crash of the compiled code ends the process;
its parent sees that and bisects."""
import importlib
import json
import os
import re
import sys
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import layout  # noqa: E402


def _load(flavour):
    if flavour == "numba":
        if not hasattr(np, "row_stack"):
            np.row_stack = np.vstack          # numba-cuda 0.30.4 reads it; NumPy 2.5 removed it
        import numba  # noqa: F401
        from numba import cuda
    else:
        from cudajit import cuda
    return cuda


def _run(req):
    d, tag, count = req["dir"], req["tag"], req["count"]
    if d not in sys.path:
        sys.path.insert(0, d)
    data = np.load(req["inputs"])
    arrays = [data[n] for n, _, _ in layout.INPUT_ARRAYS]
    scal = {"sn": np.int64(data["sn"]), "sk": np.int32(data["sk"]), "sx": np.float32(data["sx"]),
            "sy": float(data["sy"]), "su": np.uint64(data["su"]), "sb": bool(data["sb"])}
    scalars = [scal[n] for n, _ in layout.INPUT_SCALARS]
    outs, res = layout.make_outputs(count)
    mod = importlib.import_module(f"{tag}_batch")
    cuda = mod.cuda
    d_arrays = [cuda.to_device(a) for a in arrays]
    d_res = {n: cuda.to_device(res[n]) for n, _ in layout.RESULTS}
    d_outs = {n: cuda.to_device(outs[n]) for n, _ in layout.OUTPUTS}
    args = d_arrays + scalars + [d_res[n] for n, _ in layout.RESULTS] + [d_outs[n] for n, _ in layout.OUTPUTS]
    for k in range(count):                   # one launch per program (batch.py says why)
        mod.fuzz_batch[layout.BLOCKS, layout.THREADS_PER_BLOCK](*args, np.int64(k))
    res = {n: a.copy_to_host() for n, a in d_res.items()}
    outs = {n: a.copy_to_host() for n, a in d_outs.items()}
    path = os.path.join(d, f"{tag}_{req.get('flavour', 'out')}.npz")
    np.savez(path, **res, **outs)
    return {"ok": True, "results": path}


def _triage(req):
    """After a front-end error (not the C++ compiler's): translate each program's own one-line kernel, without
    compiling it, and name every program that fails there with its message. {index: message}."""
    from cudajit.compiler import compile_kernel, typeof
    d, tag, count = req["dir"], req["tag"], req["count"]
    batch_text = open(os.path.join(d, f"{tag}_batch.py")).read().splitlines()
    header = [ln for ln in batch_text if not ln.startswith("from " + tag)][:2]
    params = next(ln for ln in batch_text if ln.startswith("def fuzz_batch(")).strip()
    data = np.load(req["inputs"])
    outs, res = layout.make_outputs(1)
    args = [data[n] for n, _, _ in layout.INPUT_ARRAYS] + \
        [np.int64(data["sn"]), np.int32(data["sk"]), np.float32(data["sx"]), float(data["sy"]), np.uint64(data["su"]),
         bool(data["sb"])] + [res[n] for n, _ in layout.RESULTS] + [outs[n] for n, _ in layout.OUTPUTS] + \
        [np.int64(0)]
    argtypes = tuple(typeof(a) for a in args)
    failed = {}
    for k in range(count):
        call = "    " + next(ln for ln in batch_text if re.search(rf"= p{k}\(t[,)]", ln)).strip() \
            .replace(f"[{k}, t]", "[0, t]").replace(f"[{k}]", "[0]")
        src = "\n".join(header + [f"from {tag}_p{k} import prog as p{k}", "", "", "@cuda.jit",
                                   params.replace("fuzz_batch", "one"), "    t = cuda.grid(1)", call]) + "\n"
        path = os.path.join(d, f"{tag}_k{k}.py")
        with open(path, "w") as f:
            f.write(src)
        try:
            mod = importlib.import_module(f"{tag}_k{k}")
            compile_kernel(mod.one.py_func, argtypes)
        except BaseException as e:            # noqa: B902 - each failure is the program's
            failed[k] = f"{type(e).__name__}: {e}"[:5000]
    return failed


def _blame(tb_text, msg, tag):
    """Program files and batch lines an error names: for the C++ compiler's errors the files of its 'error:'
    lines (other lines cite callers and includes); for cudajit's own errors (which cite the user's file:line)
    the first file or batch line the message names."""
    prog = rf"{re.escape(tag)}_p(\d+)\.py"
    batchline = rf"{re.escape(tag)}_batch\.py(?:\", line |:)(\d+)"
    if "rejected the generated source" in msg:
        files = set(int(k) for k in re.findall(prog + r":\d+:\d+: error:", msg))
        lines = set(int(k) for k in re.findall(batchline + r":\d+: error:", msg))
        return sorted(files), sorted(lines)
    m = re.search(prog + "|" + batchline, msg)
    if not m:
        return [], []
    return ([int(m.group(1))], []) if m.group(1) else ([], [int(m.group(2))])


def main():
    flavour = sys.argv[1]
    _load(flavour)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        req = json.loads(line)
        req["flavour"] = flavour
        try:
            reply = _run(req)
        except BaseException as e:           # noqa: B902 - every failure is reported to the parent
            tb = traceback.format_exc()
            msg = f"{type(e).__name__}: {e}"
            files, lines = _blame(tb, msg, req["tag"])
            reply = {"ok": False, "error": type(e).__name__, "message": msg[:20000], "files": files,
                     "lines": lines, "traceback": tb[-6000:]}
            if flavour == "cudajit" and type(e).__name__ != "CompileError" and req["count"] > 1:
                try:
                    reply["each"] = _triage(req)
                except BaseException as t:     # noqa: B902 - triage is an optimisation
                    reply["triage_error"] = f"{type(t).__name__}: {t}"
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
