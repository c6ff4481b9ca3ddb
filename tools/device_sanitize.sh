#!/usr/bin/env bash
# compute-sanitizer over the GPU suite (issue 41): memcheck, racecheck, initcheck and synccheck, each over every
# test file that launches a kernel, on the GPU backend, with the tools' default settings (memcheck also reports
# CUDA API calls that fail). From the repository root of a GPU machine where cudajit is installed:
#     bash tools/device_sanitize.sh [tool ...]                 (default: the four, side by side)
# JOBS: pytest-xdist workers per tool (default 3); LIMIT: seconds per tool (default 540); LOGS: where the logs go
# (default $OUT, else /tmp/sanitize); FILES: the test files (default: all below but the excluded).
# Prints, per tool, the sum of the ERROR SUMMARY lines of every process the tool watched and pytest's last line.
set -u
tools=("$@"); [ ${#tools[@]} -eq 0 ] && tools=(memcheck racecheck initcheck synccheck)
JOBS=${JOBS:-3} LIMIT=${LIMIT:-540} LOGS=${LOGS:-${OUT:-/tmp/sanitize}}
mkdir -p "$LOGS"

# Files left out, with the reason:
#   robustness/            its cases fault on purpose (out-of-bounds stores without checks, traps, a kernel killed
#                          mid-run, a process exiting during a launch), each in its own process
#   test_interrupts.py     Ctrl-C and signals end a kernel that spins for ever: the sanitizer sees a killed kernel
#   test_shutdown.py       the interpreter exits with launches in flight, on purpose
#   test_install.py, test_notebooks.py, test_docs*.py, test_import*.py, test_core_stubs.py, test_lean_headers.py,
#   test_nvrtc.py, test_runtime_headers.py, test_cpu_*.py, test_host_pch.py
#                          launch no GPU kernel (builds, documents, imports, NVRTC alone, the CPU backend)
EXCLUDED='^tests/(robustness/|test_interrupts\.py|test_shutdown\.py|test_install\.py|test_notebooks\.py|test_docs[a-z_]*\.py|test_import[a-z_]*\.py|test_core_stubs\.py|test_lean_headers\.py|test_nvrtc\.py|test_runtime_headers\.py|test_cpu_[a-z_]*\.py|test_host_pch\.py)'
FILES=${FILES:-$(ls tests/test_*.py | grep -Ev "$EXCLUDED" | tr '\n' ' ')}

# What the tools reported before, and what became of it:
#   memcheck: cuPointerGetAttribute INVALID_VALUE x106 (pointer probes): gone, drv::pointer_info; HOST_MEMORY_ALREADY_
#   REGISTERED (re-registering pinned memory): gone; OUT_OF_MEMORY from cuMemAllocFromPoolAsync x3: tests that ask for
#   1 PiB on purpose (test_alloc_cache, test_error_messages): such a request is now refused before the driver call
#   (memory.cpp, device_total_bytes). initcheck: 49 reports of a 5 MB device-to-host copy of unwritten memory, not
#   yet traced to its test (an uninitialised cuda.device_array copied back is legal and numba-cuda's too).
# Tests deselected for one tool only, with the reason (none so far: each one added here says why).
declare -A DESELECT=(
  [memcheck]=""
  [racecheck]=""
  [initcheck]=""
  [synccheck]=""
)

run_tool() {
  local tool=$1 log="$LOGS/sanitize-$1.log" extra=()
  for t in ${DESELECT[$tool]}; do extra+=(--deselect "$t"); done
  CUDAJIT_CACHE_DIR=/tmp/cj-san-$tool timeout "$LIMIT" compute-sanitizer --tool "$tool" --target-processes all \
      --print-limit 50 python3 -m pytest -q --gpu --backends gpu -p no:cacheprovider -n "$JOBS" \
      "${extra[@]}" $FILES > "$log" 2>&1
  echo "rc=$?" >> "$log"
}

for tool in "${tools[@]}"; do run_tool "$tool" & done
wait
for tool in "${tools[@]}"; do
  log="$LOGS/sanitize-$tool.log"
  errors=$(grep -Eo 'ERROR SUMMARY: [0-9]+' "$log" | awk '{s += $3} END {print s + 0}')
  procs=$(grep -c 'ERROR SUMMARY' "$log")
  echo "$tool: ERROR SUMMARY: $errors errors (over $procs processes) | $(grep -E '(passed|failed|error)' "$log" | grep -E ' in [0-9.]+s' | tail -1) | $(tail -1 "$log")"
done
