"""One batch of the fuzzer: generate programs the oracle accepts, run them on cudajit (and numba-cuda), compare,
and return the divergences. Program i of batch b comes from seed (S, b, i): a run is reproducible from S."""
import collections
import dataclasses
import os
import tempfile
import time

import numpy as np

import compare
import gen_program
import layout
import oracle
import runner
import static_check


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


def judge_pair(ours, theirs, exp):
    """cudajit's outcome against numba-cuda's (None when numba-cuda itself failed: no verdict), with the
    oracle's error bounds."""
    if theirs is None or theirs.failure:
        return None
    if ours is None or ours.failure:
        return judge(ours, exp)
    ref = oracle.Expected({n: theirs.results[n][0] for n in exp.arrays}, exp.errors)
    mism = compare.mismatches(ref, ours.results, 0)
    return ("wrong", "numba-cuda: " + compare.describe(mism)) if mism else None


def run_batch(run_seed, b, count, opts, workers, workdir, fma=False, stats=None):
    """Divergences of batch b: programs (run_seed, b, 0..count-1), cudajit against the oracle ('python') and,
    when workers has 'numba', against numba-cuda."""
    stats = stats if stats is not None else collections.Counter()
    arrays, scalars = batch_inputs(run_seed, b)
    t0 = time.time()
    progs = [generate_valid(run_seed, b, i, opts, arrays, scalars, fma, stats) for i in range(count)]
    directory = tempfile.mkdtemp(prefix=f"b{b}_", dir=workdir)
    inputs = runner.save_inputs(directory, arrays, scalars)
    bodies = [(p.body, p.ret) for _, p, _ in progs]
    t1 = time.time()
    ours = runner.run_programs(workers["cudajit"], directory, bodies, inputs)
    t2 = time.time()
    theirs = runner.run_programs(workers["numba"], directory, bodies, inputs) if "numba" in workers else {}
    t3 = time.time()
    stats["seconds generating"] += round(t1 - t0)
    stats["seconds in cudajit"] += round(t2 - t1)
    if "numba" in workers:
        stats["seconds in numba-cuda"] += round(t3 - t2)
    found = []
    for k, (seed, prog, exp) in enumerate(progs):
        verdict = judge(ours.get(k), exp)
        if verdict:
            found.append(Divergence(seed, "python", verdict[0], verdict[1], prog, prog.features))
        if "numba" not in workers:
            continue
        nb = theirs.get(k)
        if nb is None or nb.failure:
            stats["numba-cuda refused"] += 1
            stats.setdefault("numba refusals", []).append((seed, nb.failure if nb else "no outcome"))
            continue
        numba_vs_oracle = judge(nb, exp)
        if numba_vs_oracle:
            stats["oracle and numba-cuda disagree"] += 1
            stats.setdefault("oracle notes", []).append((seed, numba_vs_oracle[1]))
        pair = judge_pair(ours.get(k), nb, exp)
        if pair and not verdict:
            # cudajit gives the oracle's answer: where numba-cuda gives another one too, numba-cuda departs from
            # Python (README's "Where results differ from numba-cuda"): listed for review, not counted
            against = "numba-only" if numba_vs_oracle else "numba"
            found.append(Divergence(seed, against, pair[0], pair[1], prog, prog.features))
    return found, stats, (arrays, scalars)


def make_judge(workers, against, workdir, arrays, scalars, ret, seed, fma=False):
    """A judge_batch for reduce.Reducer: candidate trees -> verdicts (None for a candidate that the oracle, or
    for a numba-cuda divergence numba-cuda, does not accept: it is no valid program)."""
    inputs = runner.save_inputs(workdir, arrays, scalars)

    def judge_batch(trees):
        verdicts = [None] * len(trees)
        valid = []
        for i, tree in enumerate(trees):
            if tree is None:
                continue
            prog = gen_program.Program(seed, tree, ret, set())
            if not static_check.ok(tree):
                continue
            try:
                exp = oracle.run(prog, arrays, scalars, fma=fma)
            except (oracle.Reject, SyntaxError, ValueError):
                continue
            valid.append((i, prog, exp))
        if not valid:
            return verdicts
        bodies = [(p.body, p.ret) for _, p, _ in valid]
        ours = runner.run_programs(workers["cudajit"], workdir, bodies, inputs)
        theirs = runner.run_programs(workers["numba"], workdir, bodies, inputs) if against == "numba" else {}
        for pos, (i, prog, exp) in enumerate(valid):
            verdicts[i] = judge(ours.get(pos), exp) if against == "python" else \
                judge_pair(ours.get(pos), theirs.get(pos), exp)
        return verdicts
    return judge_batch


def reduce_divergence(div, workers, workdir, arrays, scalars, fma=False, log=None):
    """The divergence's program, reduced while the same divergence persists."""
    import reduce
    d = tempfile.mkdtemp(prefix="reduce_", dir=workdir)
    judge_batch = make_judge(workers, div.against, d, arrays, scalars, div.program.ret, div.program.seed, fma)
    r = reduce.Reducer(div.program, (div.kind, div.detail), judge_batch, log=log)
    return r.run()
