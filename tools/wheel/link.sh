#!/usr/bin/env bash
# CMAKE_CXX_LINKER_LAUNCHER of tools/build_wheels.sh: CMake calls it with its whole link command ("g++ <flags> -o
# _core.so <objects> <libraries>"). The objects are the host g++'s as always; the link is zig's, against glibc
# $CUDAJIT_GLIBC's symbol versions (zig ships stub libraries of every glibc), with GCC's libstdc++ linked in
# statically, libgcc_s dynamically (every manylinux system has it), the shims of glibc_compat.c and an export list
# of PyInit__core only. Then every undefined symbol must be versioned (glibc, libgcc_s) or Python's own.
set -euo pipefail
cxx=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
: "${CUDAJIT_ZIG:?CUDAJIT_ZIG: the zig executable (tools/build_wheels.sh sets it)}"
: "${CUDAJIT_SHIMS:?CUDAJIT_SHIMS: glibc_compat.o (tools/build_wheels.sh builds it)}"
glibc=${CUDAJIT_GLIBC:-2.28}
out=""; shared=0; args=()
while (($#)); do
  case "$1" in
    -o) out=$2; args+=("$1" "$2"); shift 2; continue ;;
    -shared) shared=1 ;;
    -Wl,--no-as-needed|-Wl,--as-needed) ;;          # GNU ld only
  esac
  args+=("$1"); shift
done
extra=("$CUDAJIT_SHIMS" "$("$cxx" -print-file-name=libstdc++.a)" "$("$cxx" -print-file-name=libgcc_s.so.1)"
       "$("$cxx" -print-file-name=libgcc.a)" -lm -lpthread -ldl)
((shared)) && extra+=("-Wl,--version-script=$here/exports.map")
"$CUDAJIT_ZIG" cc -target "x86_64-linux-gnu.$glibc" "${args[@]}" "${extra[@]}"
if ((shared)) && [[ -n "$out" ]]; then
  bad=$(nm -D --undefined-only "$out" | awk '$1 != "w" && $2 !~ /@/ && $2 !~ /^_?Py|^_Py/ {print $2}')
  if [[ -n "$bad" ]]; then
    echo "link.sh: $out needs symbols glibc $glibc does not have; define them in tools/wheel/glibc_compat.c:" >&2
    echo "$bad" >&2
    exit 1
  fi
fi
