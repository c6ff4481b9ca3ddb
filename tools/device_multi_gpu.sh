#!/usr/bin/env bash
# Issue 8 on two GPUs, for the device tool (run from the repository root; carry ".whl", which holds the wheels of
# tools/dask_wheels.txt):
#   run(command="bash tools/device_multi_gpu.sh", carry=[".whl"], kind="nvidia-h200-x2")
# Installs cudajit; runs the multi-GPU tests and the Dask GPU test, then the scaling benchmarks: the triad over 80 % of
# each GPU's memory, one GPU against all, and Dask's (benchmarks/bench_dask.py: 1 worker against one per GPU, issue
# 42). Results come back in $OUT/res3.tgz. About 4 minutes.
set -u
RES=/tmp/res3 SITE=/tmp/site3
source tools/device_lib.sh
stamp tests
( PYTHONPATH=/tmp/site3 timeout 200 python3 -m pytest -q --gpu --slow -p no:cacheprovider --tb=short -rsfE tests/test_multi_gpu.py tests/test_dask.py > $RES/tests.log 2>&1; echo "rc=$?" >> $RES/tests.log )
stamp bench
( cd /tmp && timeout 120 python3 $R/benchmarks/bench_multi_gpu.py > $RES/bench.log 2>&1; echo "rc=$?" >> $RES/bench.log )
( cd /tmp && PYTHONPATH=$SITE timeout 240 python3 $R/benchmarks/bench_dask.py --json $RES/dask.json > $RES/bench_dask.log 2>&1; echo "rc=$?" >> $RES/bench_dask.log )
stamp done
tar czf $OUT/res3.tgz -C /tmp res3
tail -25 $RES/tests.log; tail -5 $RES/bench.log; tail -8 $RES/bench_dask.log; cat $RES/timeline.log
