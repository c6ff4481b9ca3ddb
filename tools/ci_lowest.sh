#!/usr/bin/env bash
# CI's lowest-versions job: a fresh venv of the oldest Python the metadata allows (requires-python), cudajit and its
# test extra installed at the LOWEST versions pyproject.toml declares (uv's --resolution lowest-direct: every direct
# dependency at its lower bound, build requirements included), then a subset of the suite that exercises each
# dependency: NumPy everywhere, cloudpickle (test_pickle, test_dask), ml_dtypes (bf16, fp8), dask and distributed,
# pytest and pytest-xdist themselves. A lower bound that lies fails here. The newest versions stay the default:
# .ci/run's main job installs with plain pip.
#   tools/ci_lowest.sh [PYTHON]        (default: the newest python3.10 found, else python3)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
py=${1:-}
if [[ -z "$py" ]]; then
  for candidate in python3.10 /root/.pyenv/versions/3.10*/bin/python3.10 /usr/local/bin/python3.10; do
    if command -v "$candidate" >/dev/null 2>&1; then py=$(command -v "$candidate"); fi
  done
  if [[ -z "$py" ]]; then
    py=python3
    echo "ci_lowest: no Python 3.10 here; using $(python3 -V) (requires-python's floor is not tested)"
  fi
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore --target "$work/uv" uv
uv=("$(echo "$work"/uv/bin/uv)")
"${uv[@]}" venv -q -p "$py" "$work/venv"
"${uv[@]}" pip install -q -p "$work/venv/bin/python" --resolution lowest-direct ".[test]"
echo "lowest versions on $("$work/venv/bin/python" -V):"
"${uv[@]}" pip list -p "$work/venv/bin/python" 2>/dev/null \
  | grep -E -i "^(numpy|cloudpickle|pytest|pytest-xdist|ml.dtypes|dask|distributed|scikit-build-core|pybind11) " \
  | tr -s ' ' | paste -sd ';' -
# From a folder outside the checkout, so that the installed cudajit is the one imported; the tests and their
# conftest come from the checkout.
cd "$work"
"$work/venv/bin/python" -m pytest -q -p no:cacheprovider --rootdir "$root" -c "$root/pyproject.toml" \
  "$root/tests/test_import.py" "$root/tests/test_pickle.py" "$root/tests/test_dask.py" \
  "$root/tests/test_kernels_arith.py" "$root/tests/test_arrays.py" "$root/tests/test_dispatcher.py" \
  "$root/tests/test_array_reductions.py" "$root/tests/test_bfloat16.py" "$root/tests/test_fp8.py" \
  "$root/tests/test_interop_validation.py" "$root/tests/test_random.py" "$root/tests/test_records.py" \
  "$root/tests/test_streams.py" "$root/tests/test_graphs.py"
