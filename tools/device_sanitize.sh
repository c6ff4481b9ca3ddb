#!/usr/bin/env bash
# compute-sanitizer over the GPU suite (issue 41): memcheck, racecheck, initcheck and synccheck, each over every
# test file that launches a kernel, on the GPU backend, with the tools' default settings (memcheck also reports
# CUDA API calls that fail). From the repository root of a GPU machine where cudajit is installed:
#     bash tools/device_sanitize.sh [tool[:lanes] ...]   (default: memcheck:4 initcheck:4 racecheck:4 synccheck:3)
# Each test file runs as a process of its own under the tool (so every report is tied to its file), `lanes` files at
# a time per tool, side by side, the longest first (by the times of tools/sanitize_times.txt when a file is there).
# LANES: files at a time for a tool named without them (default 3); LIMIT: seconds per tool in all (default 540); FILE_LIMIT: seconds
# per file (default 400); LOGS: where the logs go (default $OUT, else /tmp/sanitize); FILES: the test files
# (default: all below but the excluded). Prints, per tool, the sum of the ERROR SUMMARY lines, the files finished
# and the tests they passed; $LOGS/sanitize-<tool>.tsv has a line per file (seconds, rc, errors, pytest's last line).
set -u
args=("$@"); [ ${#args[@]} -eq 0 ] && args=(memcheck:4 initcheck:4 racecheck:4 synccheck:3)
LANES=${LANES:-3} LIMIT=${LIMIT:-540} FILE_LIMIT=${FILE_LIMIT:-400} LOGS=${LOGS:-${OUT:-/tmp/sanitize}}
mkdir -p "$LOGS"

# Files left out, with the reason:
#   robustness/            its cases fault on purpose (out-of-bounds stores without checks, traps, a kernel killed
#                          mid-run, a process exiting during a launch), each in its own process
#   test_interrupts.py     Ctrl-C and signals end a kernel that spins for ever: the sanitizer sees a killed kernel
#   test_shutdown.py       the interpreter exits with launches in flight, on purpose
#   test_vs_numba_cuda.py  runs numba-cuda in the same process: its driver calls and kernels are not cudajit's
#                          (memcheck: 34 failed cuGetProcAddress calls of cuda-bindings; 5 of its tests fail there)
#   test_install.py, test_notebooks.py, test_docs*.py, test_import*.py, test_core_stubs.py, test_lean_headers.py,
#   test_nvrtc.py, test_runtime_headers.py, test_cpu_*.py, test_host_pch.py
#                          launch no GPU kernel (builds, documents, imports, NVRTC alone, the CPU backend)
EXCLUDED='^tests/(robustness/|test_vs_numba_cuda\.py|test_interrupts\.py|test_shutdown\.py|test_install\.py|test_notebooks\.py|test_docs[a-z_]*\.py|test_import[a-z_]*\.py|test_core_stubs\.py|test_lean_headers\.py|test_nvrtc\.py|test_runtime_headers\.py|test_cpu_[a-z_]*\.py|test_host_pch\.py)'
FILES=${FILES:-$(ls tests/test_*.py | grep -Ev "$EXCLUDED" | tr '\n' ' ')}

# What the tools reported before, and what became of it:
#   memcheck: cuPointerGetAttribute INVALID_VALUE x106 (pointer probes): gone, drv::pointer_info; HOST_MEMORY_ALREADY_
#   REGISTERED (re-registering pinned memory): gone; OUT_OF_MEMORY from cuMemAllocFromPoolAsync x3: tests that ask for
#   1 PiB on purpose (test_alloc_cache, test_error_messages): such a request is now refused before the driver call
#   (memory.cpp, device_total_bytes); the same for cuMemHostAlloc (pinned memory beyond the machine's RAM).
#   CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE (test_graphs: a capture of another topology): an update is now tried only
#   where the node kinds match (graph.cpp). CUDA_ERROR_INVALID_HANDLE from cuEventElapsedTime (an event made with
#   timing=False): refused before the call (cuda/streams.py). initcheck: device-to-host copies of arrays no kernel had
#   written (test_graphs 206 reports, test_reduce_order 1; the 49 of 2026-11 were the first): legal, and the tests now
#   write them first.
# Tests deselected, with the reason (a prefix of test ids, as pytest's --deselect takes them):
ALL_TOOLS="tests/test_streams.py::test_gpu_per_thread_default_stream tests/test_lifetimes.py::test_memory_of_repeated_jits_is_bounded tests/test_fuzz_regressions.py::test_a_boolean_carried_through_an_unrolled_loop"
#   test_gpu_per_thread_default_stream   the tools run kernels one at a time: the concurrency it checks cannot occur
#   test_memory_of_repeated_jits_is_bounded   the tool keeps memory for each module loaded (4.8 KB per re-jit)
#   test_a_boolean_carried_through_an_unrolled_loop   fails under NVRTC 13.0-13.3 by design (their ptxas miscompiles
#       it, docs/INSTALL.md); a sanitizer run with the device image's NVRTC 13.0 (whose nvJitLink matches it, for
#       the link= tests) sees that, not a memory error
# The tool maps memory of its own next to a test's array: "2**40 bytes from it are not memory of this process" fails
MAPS="tests/test_api_bad_input.py::test_mempin_of_unmapped_memory_raises_on_the_cpu_backend"
# A legacy IPC handle's memory, written by the exporting process, is unwritten memory to the importer's tool
IPC="tests/test_ipc.py::test_legacy_handles_of_another_library"
declare -A DESELECT=(
  [memcheck]="$ALL_TOOLS $MAPS"
  [racecheck]="$ALL_TOOLS"
  [initcheck]="$ALL_TOOLS $IPC"
  [synccheck]="$ALL_TOOLS $MAPS $IPC"
)

# The files, longest first: seconds from tools/sanitize_times.txt ("<seconds> <file>" lines), else the file's size
# in bytes over 1000 (a stand-in: a test file's length roughly follows its count of kernels).
ordered_files() {
  local times=tools/sanitize_times.txt f s
  for f in $FILES; do
    s=$( [ -e "$times" ] && awk -v f="$f" '$2 == f {print $1}' "$times")
    echo "${s:-$(( $(stat -c %s "$f") / 1000 ))} $f"
  done | sort -rn | awk '{print $2}'
}

# One file under one tool: a line "<file>\t<seconds>\t<rc>\t<errors>\t<pytest's last line>" on stdout.
# A file is not started past the tool's deadline, and one started runs at most until it (and FILE_LIMIT).
one_file() {
  local tool=$1 f=$2 log extra=() t0 rc errors last left
  t0=$(date +%s); left=$(( DEADLINE - t0 )); [ "$left" -gt "$FILE_LIMIT" ] && left=$FILE_LIMIT
  [ "$left" -le 5 ] && return 0
  log="$LOGS/$tool/$(basename "$f" .py).log"
  for t in ${DESELECT[$tool]}; do extra+=(--deselect "$t"); done
  CUDAJIT_CACHE_DIR=/tmp/cj-san timeout "$left" compute-sanitizer --tool "$tool" --target-processes all \
      --print-limit 50 python3 -m pytest -q --gpu --backends gpu -p no:cacheprovider -n 0 "${extra[@]}" "$f" \
      > "$log" 2>&1
  rc=$?
  errors=$(grep -aEo 'ERROR SUMMARY: [0-9]+' "$log" | awk '{s += $3} END {print s + 0}')
  last=$(grep -aE ' in [0-9.]+s' "$log" | tail -1)
  printf '%s\t%s\t%s\t%s\t%s\n' "$f" "$(( $(date +%s) - t0 ))" "$rc" "$errors" "${last:-(no summary)}"
}
export -f one_file
export LOGS FILE_LIMIT
export DEADLINE=$(( $(date +%s) + LIMIT ))

run_tool() {
  local tool=$1 lanes=$2
  mkdir -p "$LOGS/$tool"
  ordered_files | xargs -P "$lanes" -I{} bash -c "$(declare -A -p DESELECT); one_file $tool {}" \
      > "$LOGS/sanitize-$tool.tsv"
}

tools=()
for a in "${args[@]}"; do
  tool=${a%%:*}; lanes=${a#*:}; [ "$lanes" = "$a" ] && lanes=$LANES
  tools+=("$tool"); run_tool "$tool" "$lanes" &
done
wait
nfiles=$(echo $FILES | wc -w)
for tool in "${tools[@]}"; do
  tsv="$LOGS/sanitize-$tool.tsv"
  awk -F'\t' -v tool="$tool" -v n="$nfiles" '
    { errors += $4; files++; secs += $2; if ($3 != 0) bad = bad " " $1 "(rc " $3 ")"
      if (match($5, /[0-9]+ passed/)) passed += substr($5, RSTART, RLENGTH) + 0
      if (match($5, /[0-9]+ failed/)) failed += substr($5, RSTART, RLENGTH) + 0
      if (match($5, /[0-9]+ skipped/)) skipped += substr($5, RSTART, RLENGTH) + 0 }
    END { printf "%s: ERROR SUMMARY: %d errors | %d of %d files, %d passed, %d failed, %d skipped, %d file-seconds%s\n",
                 tool, errors, files, n, passed, failed, skipped, secs, (bad ? " | not clean:" bad : "") }' "$tsv"
done
