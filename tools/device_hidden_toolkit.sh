#!/usr/bin/env bash
# The `[cuda13]` route on a GPU machine, with the CUDA toolkit hidden: builds and installs cudajit
# with NVRTC and the CUDA headers from NVIDIA's wheels only, prints `python -m cudajit` (where NVRTC
# came from), and runs a kernel on the GPU against NumPy.
#
#   tools/device_hidden_toolkit.sh          (from the repository root, as root: needs unshare -m)
#
# No package index is needed: NVIDIA's wheels (nvidia-cuda-nvrtc, -runtime, -cccl, CUDA 13) are
# taken from site-packages, else from .whl/ (or $CUDAJIT_WHEELS); the build uses the installed
# scikit-build-core, pybind11, cmake and ninja (--no-build-isolation).
set -euo pipefail
cd "$(dirname "$0")/.."
wheels=${CUDAJIT_WHEELS:-$PWD/.whl}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== the [cuda13] extra's wheels (pyproject.toml), installed or from $wheels"
mapfile -t extra < <(python3 -c "import tomllib
for r in tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['cuda13']: print(r)")
python3 -m pip install --no-index --find-links "$wheels" "${extra[@]}" 2>&1 | grep -v "^Looking in links" || true
python3 -m pip list 2>/dev/null | grep -iE "^(nvidia-cuda-(nvrtc|runtime|cccl)|scikit.build.core|pybind11|cmake|ninja|numpy) "
echo "driver: $(ldconfig -p | grep -m1 'libcuda.so.1 ' || echo 'libcuda.so.1 not in the ldconfig cache')"

# Everything below runs where no toolkit is visible: an empty tmpfs over each toolkit directory
# (and the environment variables that name one removed), in a private mount namespace.
toolkits=$(ls -d /usr/local/cuda* 2>/dev/null | xargs -r -n1 realpath | sort -u | tr '\n' ' ')
echo "== hiding: ${toolkits:-nothing (no toolkit installed)}"
cat > "$work/gpu_kernel.py" <<'EOF'
import numpy as np
import cudajit
from cudajit import _core, cuda

info = _core.nvrtc_info()
assert cudajit.backend() == "gpu", "no GPU backend: " + cudajit._backend.reason()
assert info["origin"].startswith("wheel"), f"NVRTC did not come from a wheel: {info}"

@cuda.jit
def saxpy(out, a, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]

x, y = np.random.default_rng(0).standard_normal((2, 1 << 20)).astype(np.float32)
out = cuda.device_array_like(x)
saxpy[(x.size + 255) // 256, 256](out, np.float32(2.5), cuda.to_device(x), cuda.to_device(y))
# NVRTC contracts a * x + y to one FMA (as numba-cuda does): compare with the exact value, not NumPy's float32
np.testing.assert_allclose(out.copy_to_host(), 2.5 * x.astype(np.float64) + y, rtol=1e-6, atol=1e-7)
name = cuda.get_current_device().name
name = name.decode() if isinstance(name, bytes) else name
print(f"OK: saxpy on {name} with NVRTC {info['version'][0]}.{info['version'][1]} from {info['origin']}: {info['path']}")
EOF
unshare -m env -u CUDA_HOME -u CUDA_PATH -u LIBRARY_PATH -u CPATH \
    CUDAJIT_CACHE_DIR="$work/cache" bash -euo pipefail -c '
    for d in '"$toolkits"'; do mount -t tmpfs cudajit-hidden-toolkit "$d"; done
    test ! -e /usr/local/cuda/include/cuda.h && echo "toolkit hidden: /usr/local/cuda/include/cuda.h is gone"
    echo "== building and installing cudajit (no toolkit, --no-build-isolation --no-deps)"
    start=$(date +%s)
    python3 -m pip install -q --no-build-isolation --no-deps --target "'"$work"'/site" \
        --config-settings=build-dir="'"$work"'/build" .
    echo "build + install: $(( $(date +%s) - start )) s"
    cd "'"$work"'"
    echo "== python -m cudajit"
    PYTHONPATH="'"$work"'/site" python3 -m cudajit
    echo "== a kernel on the GPU"
    PYTHONPATH="'"$work"'/site" python3 gpu_kernel.py
'
