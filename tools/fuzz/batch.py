"""Many programs in one compilation: each program is a module of its own (its names are its own, as a user's
would be), and one kernel calls program ``sel``'s ``prog`` and stores its result; the worker launches it once per
program. One launch per program, not one call after another in one launch: a program that raises (numba-cuda,
without debug, then ends the thread) would otherwise leave every later program's results unwritten. The same files
serve cudajit and numba-cuda: only the header line that imports ``cuda`` and the type names differs."""
import ast
import dataclasses
import os

import layout

TYPE_NAMES = "int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64, complex64, complex128, " \
             "boolean"
HEADERS = {"cudajit": f"import math, cmath\nfrom cudajit import cuda, {TYPE_NAMES}\n",
           "numba": f"import math, cmath\nfrom numba import cuda, {TYPE_NAMES}\n"}
HEADER_LINES = 2


@dataclasses.dataclass
class Batch:
    directory: str
    tag: str
    count: int
    call_lines: dict           # line of the batch module -> program index
    rets: list                 # each program's return type

    @property
    def kernel_module(self):
        return f"{self.tag}_batch"

    def program_module(self, k):
        return f"{self.tag}_p{k}"

    def program_of_file(self, filename):
        base = os.path.basename(filename)
        if base.startswith(self.tag + "_p") and base.endswith(".py"):
            try:
                return int(base[len(self.tag) + 2:-3])
            except ValueError:
                return None
        return None


def kernel_params():
    return [n for n, _, _ in layout.INPUT_ARRAYS] + [n for n, _ in layout.INPUT_SCALARS] + \
        [n for n, _ in layout.RESULTS] + [n for n, _ in layout.OUTPUTS]


def prog_params(body):
    """The parameter names of a program's prog (a subset of layout.param_names(), in that order)."""
    for node in ast.parse(body).body:
        if isinstance(node, ast.FunctionDef) and node.name == "prog":
            return [a.arg for a in node.args.args]
    raise ValueError("no prog in the program")


def write(directory, tag, bodies, rets, flavour):
    """Writes the program modules and the batch kernel module for ``flavour`` ('cudajit' or 'numba')."""
    os.makedirs(directory, exist_ok=True)
    header = HEADERS[flavour]
    for k, body in enumerate(bodies):
        with open(os.path.join(directory, f"{tag}_p{k}.py"), "w") as f:
            f.write(header + body)
    lines = [header.rstrip("\n")]
    for k in range(len(bodies)):
        lines.append(f"from {tag}_p{k} import prog as p{k}")
    lines += ["", "", "@cuda.jit", f"def fuzz_batch({', '.join(kernel_params() + ['sel'])}):", "    t = cuda.grid(1)"]
    call_lines = {}
    outputs = {n for n, _ in layout.OUTPUTS}

    def dispatch(lo, hi, indent):             # a binary tree of ifs on sel: nesting log2(count) deep
        if hi - lo == 1:
            res = layout.result_array(rets[lo])
            args = [f"{p}[{lo}]" if p in outputs else p for p in prog_params(bodies[lo])]
            lines.append(f"{indent}{res}[{lo}, t] = p{lo}({', '.join(args)})")
            call_lines[len(lines) + header.count("\n") - 1] = lo
            return
        mid = (lo + hi) // 2
        lines.append(f"{indent}if sel < {mid}:")
        dispatch(lo, mid, indent + "    ")
        lines.append(f"{indent}else:")
        dispatch(mid, hi, indent + "    ")
    if bodies:
        dispatch(0, len(bodies), "    ")
    with open(os.path.join(directory, f"{tag}_batch.py"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return Batch(directory, tag, len(bodies), call_lines, list(rets))
