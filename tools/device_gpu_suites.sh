#!/usr/bin/env bash
# One device call: cudajit installed, then side by side the whole suite on the GPU machine (both backends, --gpu:
# it fails rather than skips without a GPU) and numba-cuda's suites on the GPU backend (tools/device_numba_suite.sh).
#     run(command="bash tools/device_gpu_suites.sh")
# Logs come back in $OUT (suite.log, numba_suite_*.log, gpu_*.txt).
set -u
out=${OUT:-/tmp/gs}; mkdir -p "$out"
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -m pip install -q --no-build-isolation --no-deps . > "$out/install.log" 2>&1 || { tail -30 "$out/install.log"; exit 1; }
echo "install: $(( $(date +%s) - t0 )) s"
( cd /tmp && python3 -m cudajit 2>&1 | grep -iE "nvrtc|device|driver" | head -4 )
( timeout "${SUITE_LIMIT:-330}" python3 -m pytest -q --gpu -p no:cacheprovider -n "${SUITE_JOBS:-8}" --tb=short -rfE tests \
    > "$out/suite.log" 2>&1; echo "rc=$?" >> "$out/suite.log" ) &
OUT=$out JOBS=${NC_JOBS:-4} LIMIT=${NC_LIMIT:-330} bash tools/device_numba_suite.sh > "$out/numba_suite.txt" 2>&1 &
wait
grep -E "^(FAILED|ERROR)" "$out/suite.log" | head -30
tail -3 "$out/suite.log"
cat "$out/numba_suite.txt"
echo "elapsed: $(( $(date +%s) - t0 )) s"
