#!/usr/bin/env bash
# Installs what is missing, builds Release into build/, and runs every test through ctest.
# GUI pixel tests need an X server: without DISPLAY the whole ctest run goes under xvfb-run.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ensure_deps
build_release
cd "$SHARDSCOPE_BUILD"
if [ -z "${DISPLAY:-}" ] && command -v xvfb-run >/dev/null; then
  exec xvfb-run -a -s "-screen 0 1920x1200x24" ctest --output-on-failure -j "$(nproc 2>/dev/null || echo 2)" "$@"
fi
exec ctest --output-on-failure -j "$(nproc 2>/dev/null || echo 2)" "$@"
