#!/usr/bin/env bash
# Issue 8 on two GPUs, for the device tool (run from the repository root; carry ".whl", which holds the wheels of
# tools/dask_wheels.txt):
#   run(command="bash tools/device_multi_gpu.sh", carry=[".whl"], kind="nvidia-h200-x2")
# Installs cudajit; runs the multi-GPU tests and the Dask GPU test, then the scaling benchmark (triad over 80 % of
# each GPU's memory, one GPU against all). Results come back in $OUT/res3.tgz. About 3 minutes.
set -u
R=$PWD
RES=/tmp/res3
mkdir -p $RES
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 ))s] $*" | tee -a $RES/timeline.log; }
nvidia-smi --query-gpu=index,name,memory.total --format=csv > $RES/gpu.txt 2>&1
stamp install
python3 -m pip install -q --no-build-isolation --no-deps . > $RES/install.log 2>&1 || { stamp "install failed"; tail -40 $RES/install.log; exit 1; }
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site3 .whl/*.whl > $RES/wheels.log 2>&1
stamp tests
( PYTHONPATH=/tmp/site3 timeout 200 python3 -m pytest -q --gpu -p no:cacheprovider --tb=short -rsfE tests/test_multi_gpu.py tests/test_dask.py > $RES/tests.log 2>&1; echo "rc=$?" >> $RES/tests.log )
stamp bench
( cd /tmp && timeout 120 python3 $R/benchmarks/bench_multi_gpu.py > $RES/bench.log 2>&1; echo "rc=$?" >> $RES/bench.log )
stamp done
tar czf $OUT/res3.tgz -C /tmp res3
tail -25 $RES/tests.log; tail -5 $RES/bench.log; cat $RES/timeline.log
