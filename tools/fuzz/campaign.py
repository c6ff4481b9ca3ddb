"""One batch of the fuzzer: generate programs the oracle accepts, run them on cudajit (and numba-cuda), compare,
and return the divergences. Program i of batch b comes from seed (S, b, i): a run is reproducible from S."""
import collections
import dataclasses
import os
import tempfile

import numpy as np

import compare
import gen_program
import layout
import oracle
import runner


@dataclasses.dataclass
class Divergence:
    seed: tuple            # (run seed, batch, index, attempt): generate(program_seed(seed)) rebuilds it
    against: str           # 'python' or 'numba'
    kind: str              # 'wrong', 'error', 'crash', 'hang'
    detail: str
    program: object        # gen_program.Program
    features: set


def program_seed(seed):
    s, b, i, attempt = seed
    return ((s * 1000003 + b) * 1000003 + i) * 101 + attempt


def batch_inputs(run_seed, b):
    return layout.make_inputs(np.random.default_rng([run_seed, b]))


def generate_valid(run_seed, b, i, opts, arrays, scalars, fma, stats):
    """The first attempt's program that the oracle accepts, with its expected results."""
    for attempt in range(50):
        seed = (run_seed, b, i, attempt)
        prog = gen_program.generate(program_seed(seed), opts)
        try:
            exp = oracle.run(prog, arrays, scalars, fma=fma)
        except oracle.Reject as e:
            stats["rejected " + e.kind] += 1
            if e.kind == "generator":
                stats.setdefault("generator errors", []).append((seed, e.why))
            continue
        stats["programs"] += 1
        return seed, prog, exp
    raise RuntimeError(f"no valid program for {(run_seed, b, i)}")


def judge(outcome, exp, k=0):
    """(kind, detail) when a backend's outcome differs from the expected, else None."""
    if outcome is None:
        return ("error", "no outcome")
    if outcome.failure:
        kind = outcome.failure.split(":")[0]
        return (kind, outcome.failure)
    mism = compare.mismatches(exp, outcome.results, 0)
    if mism:
        return ("wrong", compare.describe(mism))
    return None


def run_batch(run_seed, b, count, opts, workers, workdir, fma=False, stats=None):
    """Divergences of batch b: programs (run_seed, b, 0..count-1) against every worker."""
    stats = stats if stats is not None else collections.Counter()
    arrays, scalars = batch_inputs(run_seed, b)
    progs = [generate_valid(run_seed, b, i, opts, arrays, scalars, fma, stats) for i in range(count)]
    directory = tempfile.mkdtemp(prefix=f"b{b}_", dir=workdir)
    inputs = runner.save_inputs(directory, arrays, scalars)
    found = []
    for against, worker in workers.items():
        outcomes = runner.run_programs(worker, directory, [(p.body, p.ret) for _, p, _ in progs], inputs)
        for k, (seed, prog, exp) in enumerate(progs):
            verdict = judge(outcomes.get(k), exp)
            if verdict:
                found.append(Divergence(seed, against, verdict[0], verdict[1], prog, prog.features))
    return found, stats, (arrays, scalars)
