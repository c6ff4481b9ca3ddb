#!/usr/bin/env bash
# numba-cuda's own test folders (cudapy, cudadrv, doc_examples of the numba-cuda the GPU machine has installed) run
# against cudajit through tools/numba_cuda_suite/run.py, on the GPU backend, each folder's files split over
# parallel runs. From the repository root, with cudajit installed:
#     JOBS=4 LIMIT=330 bash tools/device_numba_suite.sh      (BACKEND=cpu: the CPU backend instead)
# Writes $OUT/gpu_<folder>.txt (the tests that passed, one a line, as expected_cpu*.txt) and
# $OUT/numba_suite_<folder>.log (each file's counts and failure lines); prints each folder's totals.
set -u
JOBS=${JOBS:-4} LIMIT=${LIMIT:-330} FILE_TIMEOUT=${FILE_TIMEOUT:-150}
out=${OUT:-/tmp/ncs}; mkdir -p "$out"
work=$(mktemp -d)
loc=$(python3 -m pip show numba-cuda 2>/dev/null | sed -n 's/^Location: //p')
base=${NC_TESTS:-$loc/numba_cuda/numba/cuda/tests}     # NC_TESTS: another copy (an unpacked wheel)
[ -d "$base/cudapy" ] || { echo "numba-cuda's tests not found under '$base'"; exit 1; }
for folder in cudapy cudadrv doc_examples; do
  n=$JOBS; [ "$folder" = cudapy ] || n=1
  i=0
  for f in $(cd "$base/$folder" && ls test_*.py); do
    echo "$f" >> "$work/$folder-$((i % n)).lst"; i=$((i + 1))
  done
  for lst in "$work/$folder"-*.lst; do
    part=$(basename "$lst" .lst)
    CUDAJIT_BACKEND=${BACKEND:-gpu} timeout "$LIMIT" python3 tools/numba_cuda_suite/run.py "$base/$folder" $(cat "$lst") -v \
        --timeout "$FILE_TIMEOUT" --record "$work/$part.rec" > "$work/$part.log" 2>&1 &
  done
done
wait
for folder in cudapy cudadrv doc_examples; do
  cat "$work/$folder"-*.rec 2>/dev/null | sort > "$out/gpu_$folder.txt"
  cat "$work/$folder"-*.log > "$out/numba_suite_$folder.log"
  grep -hE "^test_[A-Za-z0-9_]+\.py: " "$work/$folder"-*.log | cut -d: -f2- | tr ',' '\n' | grep -oE "[0-9]+ [a-z]+" |
    awk -v f="$folder" -v files="$(grep -chE "^test_[A-Za-z0-9_]+\.py: " "$work/$folder"-*.log | awk '{s += $1} END {print s + 0}')" \
        -v all="$(cat "$work/$folder"-*.lst | wc -l)" '{s[$2] += $1} END {
      printf "%s: %d passed, %d failed, %d error, %d skipped (%d of %d files run)\n", f, s["passed"], s["failed"],
             s["error"], s["skipped"], files, all }'
done
