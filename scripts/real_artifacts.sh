#!/usr/bin/env bash
# Dev-time only: run the REAL autoparallel + PyTorch (Debian sid's python3-torch, CPU, fake process group,
# TORCH_TRACE on) on the project's drivers (scripts/real_artifacts/<case>.py) and write what they leave:
#
#   scripts/real_artifacts.sh AUTOPARALLEL_GITDIR_OR_DIR OUT [CASE...]
#
# AUTOPARALLEL: a git dir (bare or not; HEAD is archived) or a plain folder holding autoparallel/. It is copied
# into the root (ROOT/opt/ap), never into the repository.
# OUT/<case>/: the trace log (rank<N>.log; seed1_buggy keeps the name torch gave it, so the folder form is
# exercised), the autoparallel_* artifact payloads extracted from it (md5-checked against has_payload),
# save_placements.json (what autop.sharding_optimizer.save_placements() writes) and driver_output.out (the
# driver's stdout+stderr). OUT/versions.txt: torch and autoparallel versions.
# Cases (default: all): seed1_fixed seed1_buggy llama3_1d llama3_2d conv dsv3_2x2 flex_attn
# `corpus` stands for the applied-graph corpus (issue 39; tests/data/real/README.md "The corpus"): autoparallel's
# examples and LLaMA-3 / DeepSeek-V3 on more meshes and constraints. llama3_8b (~24 MB log) is never committed.
# Each driver run is capped at SHARDSCOPE_CASE_TIMEOUT seconds (default 1800).
# (seed1_loaded and seed1_edited load shardscope's exports: run them through scripts/real_artifacts_loadback.sh)
set -euo pipefail
ap_src="${1:?usage: real_artifacts.sh AUTOPARALLEL_GITDIR_OR_DIR OUT [CASE...]}"
out="${2:?usage: real_artifacts.sh AUTOPARALLEL_GITDIR_OR_DIR OUT [CASE...]}"; shift 2
corpus=(ex_autoparallel_2x4 ex_autoparallel_2x2 ex_local_map_2x2x2 llama3_4_fsdp llama3_4_tp llama3_8 llama3_2x4
        llama3_2x2_dp2 llama3_2x2_vocab llama3_4x2_seq llama3_2x2x2 dsv3_4 dsv3_2x2x2)
cases=()
for c in "$@"; do if [ "$c" = corpus ]; then cases+=("${corpus[@]}"); else cases+=("$c"); fi; done
[ ${#cases[@]} -gt 0 ] || cases=(seed1_fixed seed1_buggy llama3_1d llama3_2d conv dsv3_2x2 flex_attn)
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="$("$repo/scripts/dev_root.sh" sid)"
mkdir -p "$out"; out="$(cd "$out" && pwd)"

# one run at a time per copy of autoparallel in the root: each run replaces ROOT$ap_dir (SHARDSCOPE_AP_DIR, default
# /opt/ap; a second folder lets two checkouts run at once: the stack traces in the logs then name that folder)
ap_dir="${SHARDSCOPE_AP_DIR:-/opt/ap}"
exec 8>"$root.real_artifacts$(printf '%s' "${ap_dir#/opt/ap}" | tr '/' '_').lock"
flock 8
# autoparallel into the root
rm -rf "$root$ap_dir"; mkdir -p "$root$ap_dir"
if git --git-dir="$ap_src" rev-parse --verify -q HEAD >/dev/null 2>&1; then
  git --git-dir="$ap_src" archive HEAD | tar x -C "$root$ap_dir"
  ap_rev="$(git --git-dir="$ap_src" log -1 --format='%H %cs %s')"
elif [ -d "$ap_src/autoparallel" ]; then
  cp -a "$ap_src/." "$root$ap_dir/"; rm -rf "$root$ap_dir/.git"
  ap_rev="$(git -C "$ap_src" log -1 --format='%H %cs %s' 2>/dev/null || echo "unknown (plain folder $ap_src)")"
else
  echo "real_artifacts.sh: $ap_src is neither a git dir nor a folder holding autoparallel/" >&2; exit 2
fi
torch_v="$("$repo/scripts/dev_root.sh" sid --run python3 -c 'import torch; print(torch.__version__)')"
printf 'torch %s (Debian sid python3-torch)\nautoparallel %s\n' "$torch_v" "$ap_rev" >"$out/versions.txt"
cat "$out/versions.txt"

work=/tmp/shardscope-real   # inside the root
status=0
for c in "${cases[@]}"; do
  driver="$repo/scripts/real_artifacts/$c.py"
  [ -f "$driver" ] || { echo "real_artifacts.sh: no driver $driver" >&2; exit 2; }
  rm -rf "$root$work/$c"; mkdir -p "$root$work/$c/trace" "$root$work/$c/user"
  echo "== $c"
  t0=$(date +%s%N)
  rc=0
  "$repo/scripts/dev_root.sh" sid --run timeout "${SHARDSCOPE_CASE_TIMEOUT:-1800}" env PYTHONPATH="$ap_dir" TORCH_TRACE="$work/$c/trace" \
      SHARDSCOPE_CASE_OUT="$work/$c/user" SHARDSCOPE_LOADBACK_IN="${SHARDSCOPE_LOADBACK_IN:-}" python3 "$driver" >"$root$work/$c/driver_output.out" 2>&1 || rc=$?
  t1=$(date +%s%N)
  echo "   rc $rc, $(( (t1 - t0) / 1000000 )) ms"
  [ "$rc" = 0 ] || { status=1; tail -5 "$root$work/$c/driver_output.out" | sed 's/^/   /'; }
  rm -rf "$out/$c"; mkdir -p "$out/$c"
  cp "$root$work/$c/driver_output.out" "$out/$c/"
  cp "$root$work/$c/user/"* "$out/$c/" 2>/dev/null || true
  for log in "$root$work/$c/trace"/*.log; do
    [ -f "$log" ] || continue
    base="$(basename "$log")"
    if [ "$c" = seed1_buggy ]; then dst="$base"
    elif [[ "$base" =~ ^dedicated_log_torch_trace_rank_([0-9]+)_ ]]; then dst="rank${BASH_REMATCH[1]}.log"
    else dst="nodist.log"; fi
    cp "$log" "$out/$c/$dst"
    echo "   $dst ($(wc -c <"$log") bytes)"
    rm -rf "$root$work/$c/art"
    "$repo/scripts/dev_root.sh" sid --run python3 "$repo/scripts/real_artifacts/extract.py" "$work/$c/trace/$base" \
        "$work/$c/art" | tee "$root$work/$c/extract.out" || status=1
    cp "$root$work/$c/art/"* "$out/$c/" 2>/dev/null || true
  done
done
exit $status
