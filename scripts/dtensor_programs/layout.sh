#!/usr/bin/env bash
# Arranges what scripts/dtensor_programs.sh wrote (OUT/<case>/) into the fixture layout of tests/data/real/dtensor/
# (files copied byte for byte, never edited): per case, every rank's default DebugMode trace in debug_mode/ (a
# folder opens as one run), rank 0's other recordings beside it (each under 4 MB), rank 0's TORCH_TRACE log per
# backend.
#
#   scripts/dtensor_programs/layout.sh OUT DEST [CASE...]
set -euo pipefail
out="${1:?usage: layout.sh OUT DEST [CASE...]}"; dest="${2:?usage: layout.sh OUT DEST [CASE...]}"; shift 2
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=($(cd "$out" && ls))
for c in "${cases[@]}"; do
  src="$out/$c"; dst="$dest/$c"
  rm -rf "$dst"; mkdir -p "$dst/debug_mode"
  cp "$src"/debug_mode.rank*.txt "$dst/debug_mode/"
  for f in debug_mode_ids debug_mode_nn_module debug_mode_stack_trace debug_mode_torchfunction; do
    # FSDP2's record_torchfunction trace is ~18 MB (every Python-level call of its hooks): left out past 4 MB.
    [ "$(stat -c %s "$src/$f.rank0.txt")" -le 4194304 ] && cp "$src/$f.rank0.txt" "$dst/"
  done
  cp "$src/debug_mode_logs.rank0.json" "$src/comm_debug.rank0.json" "$dst/"
  cp "$src"/notes_*.rank0.json "$dst/"
  for t in "$src"/trace_*; do
    [ -d "$t" ] || continue
    mkdir -p "$dst/$(basename "$t")"
    cp "$t"/dedicated_log_torch_trace_rank_0_*.log "$dst/$(basename "$t")/"
  done
done
