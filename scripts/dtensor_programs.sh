#!/usr/bin/env bash
# Dev-time: DTensor programs (TP MLP, sequence-parallel block, FSDP2 + TP, eager ops with implicit redistributes,
# a Partial reaching a loss) run on gloo with 4 CPU processes in the sid root (PyTorch 2.14.1), and what DebugMode,
# CommDebugMode and TORCH_TRACE wrote about them: the fixtures of tests/data/real/dtensor/ (issue 40).
#
#   scripts/dtensor_programs.sh OUT [CASE...]      # then: cp -r OUT/<case> tests/data/real/dtensor/
#
# Cases and files: scripts/dtensor_programs/programs.py. Inductor needs a C++ compiler in the root: g++ is
# and torch's headers (libtorch-dev) are installed there from the sid mirror when missing (DTENSOR_BACKENDS=aot_eager skips inductor).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$(realpath -m "${1:?usage: dtensor_programs.sh OUT [CASE...]}")"; shift
root="$("$repo/scripts/dev_root.sh" sid)"
case ",${DTENSOR_BACKENDS:-aot_eager,inductor}," in
  *,inductor,*)
    if [ ! -x "$root/usr/bin/g++" ]; then
      "$repo/scripts/dev_root.sh" sid --run bash -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++ libtorch-dev >/dev/null' ||
        echo "dtensor_programs.sh: g++ could not be installed in the root: inductor cases will fail (their notes say so)" >&2
    fi ;;
esac
mkdir -p "$out"
# The root sees this checkout at its own path; OUT is written through a folder inside it, then moved.
stage="$repo/.dtensor_programs.tmp"
rm -rf "$stage"; mkdir -p "$stage"
"$repo/scripts/dev_root.sh" sid --run env USE_LIBUV=0 DTENSOR_BACKENDS="${DTENSOR_BACKENDS:-aot_eager,inductor}" python3 "$repo/scripts/dtensor_programs/programs.py" "$stage" "$@"
cp -r "$stage"/. "$out"/
rm -rf "$stage"
echo "dtensor_programs.sh: wrote $out"
