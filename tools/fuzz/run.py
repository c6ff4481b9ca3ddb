"""The differential tester of issue 36. Generates random valid, race-free programs (kernels' bodies and the
device functions, closures and lambdas they call), runs each as plain Python with Numba's typing (the oracle), on
cudajit's CPU or GPU backend and, with --numba, through numba-cuda; reduces every difference to a minimal program
and saves it. Reproducible from --seed.

  python3 tools/fuzz/run.py --backend cpu|gpu --count N --seed S [--numba] [--jobs J] [--state F --stop-after T]

The last line printed is exactly 'N programs, M divergences' (M: programs where cudajit's results differ from the
oracle's, or from numba-cuda's where numba-cuda agrees with the oracle). With --numba, programs where numba-cuda
alone departs from the oracle (cudajit agreeing with it) are listed and counted on a line of their own."""
import argparse
import collections
import multiprocessing
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import campaign  # noqa: E402
import gen_program  # noqa: E402
import report  # noqa: E402
import runner  # noqa: E402

_workers = None
_args = None
_reduced = None


def _init(args, reduced):
    global _args, _reduced
    _args, _reduced = args, reduced


def _get_workers():
    global _workers
    if _workers is None:
        env = {"CUDAJIT_CACHE_DIR": _args.cache_dir} if _args.cache_dir else {}
        _workers = {"cudajit": runner.Worker("cudajit", _args.backend, python=_args.python, env=env,
                                             timeout=_args.timeout)}
        if _args.numba:
            nenv = {}
            if os.environ.get("NUMBA_ENABLE_CUDASIM"):
                nenv["NUMBA_ENABLE_CUDASIM"] = os.environ["NUMBA_ENABLE_CUDASIM"]
            _workers["numba"] = runner.Worker("numba", python=_args.numba_python, env=nenv, timeout=_args.timeout)
    return _workers


def options(args):
    size = args.size or ("small" if args.numba else "normal")
    o = gen_program.Options.small() if size == "small" else gen_program.Options()
    if args.no_dangerous:
        o.dangerous = 0.0
    return o


def _task(task):
    b, count = task
    args = _args
    if args.stop_after is not None and time.time() > args.deadline:
        return b, 0, None, None            # past --stop-after: not started (a later run with --state does it)
    workers = _get_workers()
    stats = collections.Counter()
    divs, stats, (arrays, scalars) = campaign.run_batch(args.seed, b, count, options(args), workers,
                                                       args.workdir, fma=args.backend == "gpu", stats=stats)
    out = []
    for d in divs:
        key = (d.against, d.kind, _sig_key(d))
        small, label = d.program, ""
        if not args.no_reduce and d.against != "numba-only" and _reduced.get(key, 0) < args.reduce_per_kind:
            _reduced[key] = _reduced.get(key, 0) + 1
            try:
                small = campaign.reduce_divergence(d, workers, args.workdir, arrays, scalars,
                                                   fma=args.backend == "gpu")
            except Exception as e:                 # noqa: B902 - an unreduced divergence is still reported
                print(f"reduction of {d.seed} failed: {e}", file=sys.stderr)
        label = ""
        path = report.save(args.out, d, small, args.backend, label, options(args))
        out.append((d.seed, d.against, d.kind, d.detail, label, path, small.body, small is not d.program))
    return b, count, out, stats


def _sig_key(d):
    import reduce
    return reduce.error_key(d.detail) if d.kind == "error" else d.kind


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backend", choices=["cpu", "gpu"], default="cpu")
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--numba", action="store_true", help="also compare with numba-cuda (its own process)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--batch", type=int, default=None,
                    help="programs per compilation (default 100; 200 with --numba)")
    ap.add_argument("--size", choices=["small", "normal"], default=None,
                    help="program size (default: normal; small with --numba, whose compiles are slow)")
    ap.add_argument("--out", default="fuzz-out", help="where reproducers of divergences are saved")
    ap.add_argument("--no-reduce", action="store_true")
    ap.add_argument("--reduce-per-kind", type=int, default=2, help="reductions per kind of divergence")
    ap.add_argument("--no-dangerous", action="store_true",
                    help="no identifiers from the dangerous set (C macros, C++ keywords, runtime names)")
    ap.add_argument("--python", default=sys.executable, help="interpreter that runs cudajit")
    ap.add_argument("--numba-python", default=sys.executable, help="interpreter that runs numba-cuda")
    ap.add_argument("--timeout", type=int, default=600, help="seconds a batch may take in a worker")
    ap.add_argument("--cache-dir", default=None, help="CUDAJIT_CACHE_DIR for the workers")
    ap.add_argument("--replay", default=None, help="run a saved reproducer again")
    ap.add_argument("--reduce", action="store_true", help="with --replay: reduce the program")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--state", default=None,
                    help="a file that records the finished batches: a run stopped by --stop-after (or killed) goes "
                         "on from it when started again with the same arguments")
    ap.add_argument("--stop-after", type=float, default=None,
                    help="seconds after which no new batch starts: the batches running finish, and the run stops "
                         "with its state saved (--state)")
    args = ap.parse_args(argv)
    args.workdir = tempfile.mkdtemp(prefix="cudajit-fuzz-")
    if args.batch is None:
        args.batch = 200 if args.numba else 100
    if args.replay:
        return replay(args)
    tasks = [(b, min(args.batch, args.count - b * args.batch)) for b in range((args.count + args.batch - 1)
                                                                            // args.batch)]
    t0 = time.time()
    args.deadline = t0 + (args.stop_after or 0)   # batches not started by then are left for the next run
    manager = multiprocessing.Manager()
    reduced = manager.dict()
    total = collections.Counter()
    diverged = set()
    numba_only = set()                     # numba-cuda departs from Python, cudajit does not: for review
    refusals = collections.Counter()       # numba-cuda's refusals by kind: each costs a recompile of its batch
    done = 0
    state = _load_state(args)
    if state["batches"]:
        tasks = [t for t in tasks if t[0] not in state["batches"]]
        done = sum(state["batches"].values())
        total.update(state["totals"])
        diverged.update(tuple(x) for x in state["diverged"])
        numba_only.update(tuple(x) for x in state["numba_only"])
        print(f"resuming from {args.state}: {done} programs in {len(state['batches'])} batches done, "
              f"{len(diverged)} divergent, {state['seconds']:.0f} s before", flush=True)
    t_before = state["seconds"]
    stopped, done_here = False, 0
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(args.jobs, initializer=_init, initargs=(args, reduced)) as pool:
        for b, count, out, stats in pool.imap_unordered(_task, tasks):
            if out is None:
                stopped = True
                continue
            done += count
            for k, v in stats.items():
                if isinstance(v, int):
                    total[k] += v
                elif k == "numba refusals":
                    import reduce
                    refusals.update(reduce.error_key(why or "") for _, why in v)
                elif not args.quiet and k == "generator errors":
                    for seed, why in v:
                        print(f"generator error at {seed}: {why.splitlines()[0]}", file=sys.stderr)
            for seed, against, kind, detail, label, path, body, reduced_ in out:
                if against == "numba-only":
                    numba_only.add(seed)
                    print(f"\n=== numba-cuda departs from Python at {seed} (cudajit agrees with Python): {path}")
                    print(detail[:600])
                    continue
                diverged.add(seed)
                print(f"\n=== divergence {seed} against {against}: {kind}" + (f" [{label}]" if label else ""))
                print(detail[:1500])
                print(f"--- {'minimal' if reduced_ else 'unreduced'} program ({path}):")
                print(report.compact(body) if reduced_ else "(see file)")
            if args.state:
                state["batches"][b] = count
                state["totals"] = {k: v for k, v in total.items() if isinstance(v, int)}
                state["diverged"], state["numba_only"] = sorted(diverged), sorted(numba_only)
                state["seconds"] = t_before + time.time() - t0
                _save_state(args, state)
            if not args.quiet:
                done_here += count
                rate = done_here / (time.time() - t0)
                print(f"[{done}/{args.count} programs, {len(diverged)} divergent, {rate:.1f} programs/s]",
                      file=sys.stderr, flush=True)
    for why, n in refusals.most_common(12):
        print(f"numba-cuda refused {n}: {why}")
    print(f"\nstatistics: {dict(total)}; {t_before + time.time() - t0:.0f} s")
    if args.numba:
        print(f"{len(numba_only)} programs where numba-cuda departs from Python and cudajit does not (listed above)")
    if stopped or done < args.count:
        print(f"stopped after {args.stop_after} s: {done} of {args.count} programs run, {len(diverged)} divergent; "
              f"the same command with --state {args.state} goes on")
        return 3
    print(f"{args.count} programs, {len(diverged)} divergences")
    return 1 if diverged else 0


def _load_state(args):
    """The run's record of finished batches (--state); a record of another run (seed, count, options) is an error,
    not silently mixed in."""
    import json
    ident = {"seed": args.seed, "count": args.count, "batch": args.batch, "backend": args.backend,
             "numba": args.numba, "size": args.size, "no_dangerous": args.no_dangerous}
    fresh = {"run": ident, "batches": {}, "totals": {}, "diverged": [], "numba_only": [], "seconds": 0.0}
    if not args.state or not os.path.exists(args.state):
        return fresh
    with open(args.state) as f:
        st = json.load(f)
    if st.get("run") != ident:
        raise SystemExit(f"--state {args.state} records another run: {st.get('run')} (this one: {ident})")
    st["batches"] = {int(k): v for k, v in st["batches"].items()}
    return st


def _save_state(args, state):
    import json
    tmp = args.state + ".tmp"
    with open(tmp, "w") as f:
        json.dump(state, f)
    os.replace(tmp, args.state)


def replay(args):
    """Runs a saved reproducer again: its program on the inputs of its seed, against the oracle (and numba-cuda)."""
    import ast
    import oracle
    seed, ret, body = report.parse_reproducer(args.replay)
    _init(args, {})
    arrays, scalars = campaign.batch_inputs(seed[0], seed[1])
    prog = gen_program.Program(seed, ast.parse(body), ret, set())
    regen = gen_program.generate(campaign.program_seed(seed), options(args))
    if regen.body == body:
        prog = regen              # its nodes carry their types: the reducer can replace expressions too
    elif args.reduce:
        print("(the file is not what its seed generates with these options: statements only are reduced)")
    try:
        exp = oracle.run(prog, arrays, scalars, fma=args.backend == "gpu")
    except oracle.Reject as e:
        print(f"the oracle rejects the program: {e}")
        return 2
    workers = _get_workers()
    inputs = runner.save_inputs(args.workdir, arrays, scalars)
    outs = runner.run_programs(workers["cudajit"], args.workdir, [(prog.body, prog.ret)], inputs)
    v = campaign.judge(outs.get(0), exp)
    print(f"against python: {v[0] + ': ' + v[1] if v else 'same results'}")
    if v and args.reduce:
        div = campaign.Divergence(seed, "python", v[0], v[1], prog, set())
        small = campaign.reduce_divergence(div, workers, args.workdir, arrays, scalars,
                                           fma=args.backend == "gpu", log=print)
        path = report.save(args.out, div, small, args.backend, "")
        print(f"--- minimal program ({path}):\n" + report.compact(small.body))
    if args.numba:
        nb = runner.run_programs(workers["numba"], args.workdir, [(prog.body, prog.ret)], inputs)
        p = campaign.judge_pair(outs.get(0), nb.get(0), exp)
        print(f"against numba-cuda: {p[0] + ': ' + p[1] if p else 'same results or numba-cuda failed'}")
        if p and args.reduce and not v:
            div = campaign.Divergence(seed, "numba", p[0], p[1], prog, set())
            small = campaign.reduce_divergence(div, workers, args.workdir, arrays, scalars,
                                               fma=args.backend == "gpu", log=print)
            path = report.save(args.out, div, small, args.backend, "")
            print(f"--- minimal program against numba-cuda ({path}):\n" + report.compact(small.body))
    for w in workers.values():
        w.stop()
    return 1 if v else 0


if __name__ == "__main__":
    sys.exit(main())
