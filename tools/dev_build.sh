#!/usr/bin/env bash
# Builds cudajit._core in place (python/cudajit/_core*.so) for quick iteration without pip:
#   tools/dev_build.sh && PYTHONPATH=python python3 -m pytest tests
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${CUDAJIT_DEV_BUILD:-$root/build/dev}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -Dpybind11_DIR="$(python3 -m pybind11 --cmakedir)" -DPython_EXECUTABLE="$(command -v python3)" >/dev/null
ninja -C "$build" >/dev/null || { ninja -C "$build" | tail -30; exit 1; }
cp "$build"/_core*.so "$root/python/cudajit/"
