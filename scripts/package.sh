#!/usr/bin/env bash
# Builds the Debian package: shardscope_<version>_amd64.deb, or shardscope-cuda_<version>_amd64.deb for a build
# with -DSHARDSCOPE_CUDA=ON (cmake/install.cmake: its layout, and Depends computed by dpkg-shlibdeps from the
# binaries' NEEDED libraries). Prints the package's path on its last line.
#
#   scripts/package.sh [CMAKE_ARGS...]   # e.g. -DSHARDSCOPE_CUDA=ON -DTorch_DIR=... for the GPU package
#
# Build folder: $SHARDSCOPE_DEB_BUILD (default build-deb/), configured here (Release, no tests or benchmarks) when
# it has not been yet; an existing build folder is used as it is (SHARDSCOPE_DEB_BUILD=build packages the
# folder scripts/run.sh builds). scripts/package_check.sh installs the result into a fresh Debian 12 root.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ensure_deps dpkg-dev  # dpkg-shlibdeps
build="${SHARDSCOPE_DEB_BUILD:-$SHARDSCOPE_ROOT/build-deb}"
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(dirname "$SHARDSCOPE_ROOT")}"  # shares objects with build/
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$SHARDSCOPE_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSHARDSCOPE_TESTS=OFF \
    -DSHARDSCOPE_BENCH=OFF "$@"
elif [ $# -gt 0 ]; then
  cmake "$build" "$@"
fi
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)"
rm -f "$build"/*.deb
(cd "$build" && cpack -G DEB >"$build/cpack.log" 2>&1) || { cat "$build/cpack.log" >&2; exit 1; }
deb="$(ls "$build"/*.deb)"
dpkg-deb --field "$deb" Package Version Installed-Size Depends Recommends Suggests >&2
echo "$deb"
