#!/usr/bin/env bash
# Issue 11's device run (run from the repository root; carry ".whl" and probe/before.tar):
#   git archive 01088b2 --prefix=before/ -o probe/before.tar
#   run(command="bash tools/device_speed.sh", carry=[".whl", "probe"], kind="nvidia-h100-x1")
# Installs this tree (and, in the background, the commit in probe/before.tar into /tmp/before); the whole GPU suite
# (-v, every thread's stack after 120 s in one test, cut at 300 s so that the benchmarks still run); then
# benchmarks/bench_table.py (this tree and the older one side by side with numba-cuda and CuPy; its last rows are
# 100 small kernels one by one and as a cuda.graph), bench_reduce.py and racecheck over cuda.reduce's ring tests
# (the whole file under racecheck outlasts 150 s); QUICK=1: the suite and the table only.
# Every step has its own time limit, cut further so that the whole script ends by ${DEADLINE:-560} s (a run's call
# may last 600 s). Results: $OUT/res.tgz.
set -u
RES=/tmp/res SITE=/tmp/site
source tools/device_lib.sh
DEADLINE=${DEADLINE:-560}
# lim N: N seconds, or what is left before the deadline if that is less (at least 1)
lim() { local left=$(( DEADLINE - ($(date +%s) - t0) )); [ "$left" -lt 1 ] && left=1; echo $(( $1 < left ? $1 : left )); }
export PYTHONPATH=$SITE
if [ -f probe/before.tar ]; then
  ( mkdir -p /tmp/bsrc && tar -xf probe/before.tar -C /tmp/bsrc && timeout 200 python3 -m pip install -q \
      --no-build-isolation --no-deps --target /tmp/before /tmp/bsrc/before > $RES/before-install.log 2>&1
    echo "before-install rc=$?" >> $RES/before-install.log ) &
fi
stamp suite
( timeout -k 10 $(lim 300) python3 -m pytest -v --gpu --slow -p no:cacheprovider -n 8 -o faulthandler_timeout=120 --tb=short -rfE tests \
    > $RES/suite.log 2>&1; echo "rc=$?" >> $RES/suite.log )
wait
stamp bench_table
before=; [ -d /tmp/before/cudajit ] && before="--before /tmp/before"
( timeout $(lim 200) python3 benchmarks/bench_table.py gpu $before --out $RES/gpu.json > $RES/table.log 2>&1; echo "rc=$?" >> $RES/table.log )
if [ "${QUICK:-0}" != 1 ]; then  # QUICK=1: the suite and the table only
stamp bench_reduce
( timeout $(lim 45) python3 benchmarks/bench_reduce.py > $RES/reduce.log 2>&1; echo "rc=$?" >> $RES/reduce.log )
stamp racecheck
( CUDAJIT_CACHE_DIR=/tmp/cj-san timeout $(lim 150) compute-sanitizer --tool racecheck --error-exitcode 99 --print-limit 20 \
    python3 -m pytest -q -n 0 --gpu --backends gpu -p no:cacheprovider tests/test_reduce_order.py \
      -k "long_rows and (float32 or float64) or equals_numba and add" > $RES/racecheck.log 2>&1
  echo "rc=$?" >> $RES/racecheck.log )
fi
stamp done
tar czf $OUT/res.tgz -C /tmp res
grep -E "passed|failed|rc=" $RES/suite.log | tail -3; grep -E "^(FAILED|ERROR)|Timeout|node down" $RES/suite.log | head -20
tail -24 $RES/table.log; [ -f $RES/reduce.log ] && grep reduce_sum $RES/reduce.log | cut -c1-300
[ -f $RES/racecheck.log ] && tails 3 $RES/racecheck.log; cat $RES/timeline.log
