#!/usr/bin/env bash
# One H100 session's verification, for the device tool (run from the repository root; carry ".whl"):
#   run(command="bash tools/device_verify.sh", carry=[".whl"], kind="nvidia-h100-x1")
# Installs cudajit; executes the six notebooks alone (their outputs kept: notebooks.tgz); the [cuda13] route with the
# toolkit hidden; then the whole GPU suite (-n 8), the GPU robustness report, compute-sanitizer memcheck and
# racecheck over the kernel tests, and the bounds-check and reduce benchmarks. Logs and results come back in
# $OUT/res.tgz (the device returns few files: everything is in two tarballs). About 6 minutes.
# .whl holds the wheels of tools/notebook_wheels.txt and tools/dask_wheels.txt and nvidia-cuda-cccl (pip download
# for Python 3.12, see tools/notebook_wheels.txt).
set -u
RES=/tmp/res SITE=/tmp/site
source tools/device_lib.sh

stamp "notebooks (alone: their timings are committed) + hidden toolkit (CPU-bound build)"
( PYTHONPATH=/tmp/site timeout 300 python3 tools/run_notebooks.py > $RES/notebooks.log 2>&1; echo "rc=$?" >> $RES/notebooks.log ) &
pn=$!
( CUDAJIT_WHEELS=$R/.whl timeout 300 bash tools/device_hidden_toolkit.sh > $RES/hidden_toolkit.log 2>&1; echo "rc=$?" >> $RES/hidden_toolkit.log ) &
ph=$!
wait $pn
tar czf $OUT/notebooks.tgz notebooks/*.ipynb
wait $ph

# The suite alone: it runs the robustness suite on both backends, whose 20 s timeouts do not survive sharing the
# cores with the sanitizers and the report (8 + 4 cases timed out that way on 2026-11-23).
stamp suite
( timeout 400 python3 -m pytest -q --gpu --slow -p no:cacheprovider -n 8 --tb=short -rfE tests > $RES/suite.log 2>&1; echo "rc=$?" >> $RES/suite.log )
stamp "robustness report + sanitizers"
( CUDAJIT_BACKEND=gpu timeout 300 python3 tests/robustness/runner.py --report --jobs 4 > $RES/robust_gpu.log 2>&1; echo "rc=$?" >> $RES/robust_gpu.log; cp tests/robustness/results-gpu.md $RES/ 2>/dev/null ) &
pr=$!
SAN="tests/test_seeds.py tests/test_kernels_arrays.py tests/test_kernels_atomics.py tests/test_kernels_warp.py tests/test_boundscheck.py tests/test_reduce_order.py tests/test_cooperative.py tests/test_kernels_control.py"
( CUDAJIT_CACHE_DIR=/tmp/cj-san1 timeout 300 compute-sanitizer --tool memcheck --target-processes all --error-exitcode 99 --print-limit 20 python3 -m pytest -q -x -n 0 --gpu --backends gpu -p no:cacheprovider $SAN > $RES/memcheck.log 2>&1; echo "rc=$?" >> $RES/memcheck.log ) &
( CUDAJIT_CACHE_DIR=/tmp/cj-san2 timeout 300 compute-sanitizer --tool racecheck --target-processes all --error-exitcode 99 --print-limit 20 python3 -m pytest -q -x -n 0 --gpu --backends gpu -p no:cacheprovider tests/test_seeds.py tests/test_kernels_warp.py tests/test_reduce_order.py tests/test_boundscheck.py > $RES/racecheck.log 2>&1; echo "rc=$?" >> $RES/racecheck.log ) &
wait
stamp benchmarks
( cd /tmp && timeout 120 python3 $R/benchmarks/bench_boundscheck.py --skip-cpu > $RES/bench_boundscheck.log 2>&1 )
( cd /tmp && timeout 120 python3 $R/benchmarks/bench_reduce.py > $RES/bench_reduce.log 2>&1 )
stamp done
tar czf $OUT/res.tgz -C /tmp res
tail -12 $RES/suite.log; tails 4 $RES/robust_gpu.log $RES/memcheck.log $RES/racecheck.log $RES/hidden_toolkit.log
grep -v WARNING $RES/notebooks.log | tail -8; tails 3 $RES/bench_boundscheck.log $RES/bench_reduce.log; cat $RES/timeline.log
