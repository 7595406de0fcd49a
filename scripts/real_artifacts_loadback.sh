#!/usr/bin/env bash
# Dev-time only: hand shardscope's placements exports back to the REAL autoparallel (load_placements +
# apply_placement, scripts/real_artifacts/loadback.py) and keep what those runs write as fixtures:
#
#   scripts/real_artifacts_loadback.sh AUTOPARALLEL_GITDIR_OR_DIR OUT [SHARDSCOPE_BINARY]
#   # then: cp -r OUT/seed1_loaded OUT/seed1_edited tests/data/real/
#
# seed1_loaded: `shardscope export tests/data/real/seed1_fixed/rank0.log --placements` (the plan unedited);
# seed1_edited: the same with `--placement sum_1=RS(0)` (the user's edit, through shardscope's edit commands).
# The exports are written under build/loadback-in/ (inside the checkout, which the root sees) and each case
# folder keeps its input as shardscope_placements.json.
set -euo pipefail
ap="${1:?usage: real_artifacts_loadback.sh AUTOPARALLEL_GITDIR_OR_DIR OUT [SHARDSCOPE_BINARY]}"
out="${2:?usage: real_artifacts_loadback.sh AUTOPARALLEL_GITDIR_OR_DIR OUT [SHARDSCOPE_BINARY]}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${3:-$repo/build/app/shardscope}"
in="$repo/build/loadback-in"
mkdir -p "$in"
log="$repo/tests/data/real/seed1_fixed/rank0.log"
"$bin" export "$log" --placements "$in/seed1_loaded.placements.json"
"$bin" export "$log" --placement 'sum_1=RS(0)' --placements "$in/seed1_edited.placements.json"
SHARDSCOPE_AP_DIR="${SHARDSCOPE_AP_DIR:-/opt/ap-loadback}" SHARDSCOPE_LOADBACK_IN="$in" "$repo/scripts/real_artifacts.sh" "$ap" "$out" seed1_loaded seed1_edited
