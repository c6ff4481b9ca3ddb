#!/usr/bin/env bash
# One device session: install, run the whole suite on the GPU (it fails, not skips, without one),
# then the benchmarks named in $BENCH. Logs go to $OUT when set.
set -uo pipefail
out=${OUT:-/tmp/cj-out}; mkdir -p "$out"
export PYTHONUNBUFFERED=1
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
t0=$(date +%s)
python3 -m pip install -q --no-build-isolation --no-deps . 2>&1 | tail -5 || exit 1
echo "install: $(( $(date +%s) - t0 )) s"
python3 -m pytest -q --gpu --slow -p no:cacheprovider ${TESTS:-tests} 2>&1 | tee "$out/pytest.log" | tail -${TAIL:-40}
for b in ${BENCH:-}; do python3 "$b" 2>&1 | tee "$out/$(basename "$b" .py).log" | tail -40; done
