# Sourced by the device scripts (tools/device_verify.sh, tools/device_multi_gpu.sh), from the repository root:
#   RES=/tmp/res; SITE=/tmp/site; source tools/device_lib.sh
# Makes $RES, defines stamp (a line of the timeline, seconds since start), records the GPUs, installs cudajit
# (no build isolation, no deps: the device has no package index) and the carried wheels of .whl into $SITE.
R=$PWD
mkdir -p "$RES"
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 ))s] $*" | tee -a "$RES/timeline.log"; }
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv > "$RES/gpu.txt" 2>&1
stamp install
python3 -m pip install -q --no-build-isolation --no-deps . > "$RES/install.log" 2>&1 || { stamp "install failed"; tail -50 "$RES/install.log"; exit 1; }
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" .whl/*.whl > "$RES/wheels.log" 2>&1
# the last lines of each log named
tails() { local n=$1; shift; for f in "$@"; do echo "== $f"; tail -n "$n" "$f"; done; }
