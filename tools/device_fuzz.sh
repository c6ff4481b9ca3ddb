#!/usr/bin/env bash
# The differential tester on the GPU machine (issue 36), in one device call, from the repository root:
#   run(command="bash tools/device_fuzz.sh", carry=[".devcarry"])
# Unpacks the NVRTC/nvJitLink carried as .devcarry/*.tar.xz (NVIDIA's wheels' contents, e.g. 13.5: CUDA 13.0-13.3's
# ptxas miscompiles, see docs/INSTALL.md) onto PYTHONPATH, installs cudajit, and runs
#   tools/fuzz/run.py --backend gpu --numba --count $COUNT --seed $SEED --jobs $JOBS --state ... --stop-after $STOP
# going on from .devcarry/fz-state.json when it is there (a run longer than one call: copy $OUT/fz-state.json back
# to .devcarry/ before the next call). Reproducers come back as $OUT/fuzz-out.tgz, the log as $OUT/fuzz.log.
# SIDE, when set, is a command run beside the tester (its output is its own business).
set -u
out=${OUT:-/tmp/fz-out}; mkdir -p "$out"
COUNT=${COUNT:-20000} SEED=${SEED:-52} JOBS=${JOBS:-15} STOP=${STOP:-480} LIMIT=${LIMIT:-560}
export PYTHONUNBUFFERED=1
nv=/tmp/nv; mkdir -p "$nv"
for t in .devcarry/*.tar.xz; do [ -e "$t" ] && tar xJf "$t" -C "$nv"; done
export PYTHONPATH=$nv${PYTHONPATH:+:$PYTHONPATH}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
t0=$(date +%s)
python3 -m pip install -q --no-build-isolation --no-deps . > "$out/install.log" 2>&1 || { tail -30 "$out/install.log"; exit 1; }
echo "install: $(( $(date +%s) - t0 )) s"
(cd /tmp && python3 -m cudajit 2>&1 | grep -iE "nvrtc|nvjitlink|device|driver" | head -6)
state=/tmp/fz-state.json
[ -e "$state" ] || { [ -e .devcarry/fz-state.json ] && cp .devcarry/fz-state.json "$state"; }
side_pid=
if [ -n "${SIDE:-}" ]; then bash -c "$SIDE" & side_pid=$!; fi
timeout "$LIMIT" python3 tools/fuzz/run.py --backend gpu --numba --count "$COUNT" --seed "$SEED" --jobs "$JOBS" \
    --state "$state" --stop-after "$STOP" --out /tmp/fuzz-out --cache-dir /tmp/cj-fuzz > "$out/fuzz.log" 2>&1
echo "fuzz rc=$?"
cp "$state" "$out/fz-state.json" 2>/dev/null
[ -d /tmp/fuzz-out ] && tar czf "$out/fuzz-out.tgz" -C /tmp fuzz-out
grep -E "divergen|departs|programs" "$out/fuzz.log" | tail -12
[ -n "$side_pid" ] && wait "$side_pid"
echo "elapsed: $(( $(date +%s) - t0 )) s"
