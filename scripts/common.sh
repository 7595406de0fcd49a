# Shared by scripts/run.sh and scripts/test.sh: install missing Debian packages, configure and build.
# Source it; it defines ensure_deps and build_release.

SHARDSCOPE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SHARDSCOPE_BUILD="${SHARDSCOPE_BUILD:-$SHARDSCOPE_ROOT/build}"
# libopenblas0-pthread: Debian's LibTorch calls whatever libblas.so.3 the alternatives system points to, which on
# a fresh machine is netlib's reference BLAS (~8 GFLOP/s on this project's 2-core machine); OpenBLAS registers
# itself as libblas.so.3 with a higher priority (~265 GFLOP/s). The runner reports which one it got.
SHARDSCOPE_PACKAGES=(cmake ninja-build ccache g++ pkg-config python3 nlohmann-json3-dev libsimdjson-dev catch2 libimgui-dev libglfw3-dev
  libgl-dev libstb-dev libtorch-dev libgloo-dev libseccomp-dev libmd-dev libcli11-dev libopenblas0-pthread xvfb xauth fonts-dejavu-core python3-jsonschema
  man-db desktop-file-utils shared-mime-info)  # the last three: the install tests (tests/install/)

ensure_deps() {  # ensure_deps [EXTRA_PACKAGE...]
  local missing=()
  for p in "${SHARDSCOPE_PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then return 0; fi
  echo "shardscope: installing ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

build_release() {
  local jobs
  jobs="$(nproc 2>/dev/null || echo 2)"
  if [ ! -f "$SHARDSCOPE_BUILD/build.ninja" ]; then
    cmake -S "$SHARDSCOPE_ROOT" -B "$SHARDSCOPE_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
  fi
  cmake --build "$SHARDSCOPE_BUILD" -j "$jobs"
}
