#!/usr/bin/env bash
# Regenerates docs/images/*.png (the README's screenshots) with `shardscope render`: the app drawn off-screen
# in a hidden window. Without a DISPLAY the script re-runs itself under a private Xvfb (xvfb-run -a).
# Usage: scripts/screenshots.sh [BUILD_DIR]   (default: build; the shardscope binary must be built)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
BIN="$BUILD/app/shardscope"
if [ ! -x "$BIN" ]; then
  echo "screenshots.sh: $BIN not found: build it first (ninja -C $BUILD shardscope)" >&2
  exit 2
fi
if [ -z "${DISPLAY:-}" ] && [ -z "${SHARDSCOPE_SCREENSHOTS_INNER:-}" ]; then
  exec env SHARDSCOPE_SCREENSHOTS_INNER=1 xvfb-run -a -s "-screen 0 2560x1600x24" "$0" "$@"
fi
OUT=docs/images
mkdir -p "$OUT"
shot() {  # shot NAME FILE [render flags...]
  local name=$1 file=$2
  shift 2
  if [ ! -e "$file" ]; then
    echo "skip $name: $file missing"
    return
  fi
  "$BIN" render "$file" --out "$OUT/$name.png" "$@" >/dev/null
  echo "$OUT/$name.png"
}
FALCON=samples/falcon_index_put_2d.plan.json
shot app_falcon      "$FALCON" --size 1600x1000
shot app_falcon_light "$FALCON" --size 1600x1000 --theme light
shot graph_falcon    "$FALCON" --view graph --select index_put --size 1200x800
shot edge_falcon     "$FALCON" --view edge --select index_put:2 --size 1400x760
shot mesh_falcon     "$FALCON" --view mesh --select index_put:2 --size 1200x700
shot tensor_falcon   "$FALCON" --view tensor --select index_put:2 --size 1000x700
shot inspector_falcon "$FALCON" --view inspector --select index_put --size 700x900
shot diagnostics_falcon "$FALCON" --view diagnostics --size 1400x300
shot costs_falcon    "$FALCON" --view costs --size 1000x500
shot mesh_fsdp_tp    samples/teach_fsdp_tp.plan.json --view mesh --select mm_1 --size 1000x600
shot inspector_autosp samples/autosp_seq_first.plan.json --view inspector --size 700x800
# Real logs (tests/data/real: written by autoparallel and PyTorch themselves).
shot real_seed1_buggy tests/data/real/seed1_buggy/dedicated_log_torch_trace_rank_0_trj4f_tb.log --size 1600x1000
shot real_seed1_buggy_applied tests/data/real/seed1_buggy/dedicated_log_torch_trace_rank_0_trj4f_tb.log --view applied-graph --select index_put --size 1400x900
shot real_llama3_2d  tests/data/real/llama3_2d/rank0.log --size 1600x1000
shot real_dsv3_2x2   tests/data/real/dsv3_2x2/rank0.log --select add_1093 --size 1600x1000
shot real_flex_attn  tests/data/real/flex_attn/rank0.log --select flex_attention --size 1600x1000
shot real_autosp_seq0_buggy tests/data/real/autosp/seq0_buggy/rank0.log --select slice_2 --size 1600x1000
shot mesh_autosp_seq0_buggy tests/data/real/autosp/seq0_buggy/rank0.log --view mesh --select slice_2 --size 1200x700
# Small windows (issue 42): every pane usable from 1280x720 up, toolbars wrapped, cell text elided.
shot small_llama3_2d_1280x720 tests/data/real/llama3_2d/rank0.log --size 1280x720
shot small_llama3_2d_1366x768 tests/data/real/llama3_2d/rank0.log --size 1366x768
shot small_seed1_light_1280x720 tests/data/real/seed1_buggy --size 1280x720 --theme light
shot small_seed1_compare_1280x720 tests/data/real/seed1_buggy --compare tests/data/real/seed1_fixed --size 1280x720
# The graph overview (docs/app.md): Fit's level on the real LLaMA-3 log at three window sizes, its output selected
# (outside every module box), and one layer opened; DTensor programs: the eager and the compiled TP MLP, and the
# Communication view; AutoSP's seq_dim fix offered at the slice.
shot overview_llama3_2d_1280x720 tests/data/real/llama3_2d/rank0.log --view graph --select output --size 1280x720
shot overview_llama3_2d_1600x1000 tests/data/real/llama3_2d/rank0.log --view graph --select output --size 1600x1000
shot overview_llama3_2d_2560x1440 tests/data/real/llama3_2d/rank0.log --view graph --select output --size 2560x1440
shot overview_llama3_2d_open tests/data/real/llama3_2d/rank0.log --view graph --select add_4 --size 1600x1000
shot overview_seed1_1280x720 tests/data/real/seed1_buggy --size 1280x720
shot dtensor_tp_mlp_eager tests/data/real/dtensor/tp_mlp/debug_mode_nn_module.rank0.txt --size 1600x1000
shot dtensor_tp_mlp_compiled tests/data/real/dtensor/tp_mlp/trace_aot_eager --size 1600x1000
shot comm_fsdp_tp tests/data/real/dtensor/fsdp_tp/debug_mode_nn_module.rank0.txt --view comm --size 900x400
shot inspector_autosp_real tests/data/real/autosp/seq0_buggy/rank0.log --view inspector --select slice_2 --size 700x700
# Compare mode: seed 1 as shipped against its fix (fixed into a temporary file by the fix verb).
FIXED_DIR=$(mktemp -d)
FIXED="$FIXED_DIR/falcon_index_put_2d_fixed.plan.json"
"$BIN" fix "$FALCON" -o "$FIXED" >/dev/null
shot compare_falcon  "$FALCON" --compare "$FIXED" --size 1600x1000
rm -rf "$FIXED_DIR"
# The Run panel needs the runner (a Torch build, or SHARDSCOPE_RUNNER): skipped when it is missing.
if "$BIN" render "$FALCON" --run --scale 4 --view run --size 900x500 --out "$OUT/run_falcon_broken.png" >/dev/null 2>&1; then
  echo "$OUT/run_falcon_broken.png"
  "$BIN" render "$FALCON" --fix --run --scale 4 --view run --size 900x500 --out "$OUT/run_falcon_fixed.png" >/dev/null
  echo "$OUT/run_falcon_fixed.png"
else
  echo "skip run_falcon_*: no runner (build with Torch or set SHARDSCOPE_RUNNER)"
fi
# Teaching frames (docs/teach.md): `shardscope teach --out DIR` writes one PNG per step; keep step 1.
teach() {  # teach NAME [teach flags...]
  local name=$1 tmp
  shift
  tmp=$(mktemp -d)
  "$BIN" teach "$@" --out "$tmp" >/dev/null
  cp "$tmp/step_01.png" "$OUT/$name.png"
  rm -rf "$tmp"
  echo "$OUT/$name.png"
}
teach teach_all_to_all --shape 8,6 --mesh 2x4 --names dp,tp --from 'RS(1)' --to 'RS(0)' --dtype bf16 --size 1500x860
teach teach_reduce_scatter --shape 10,4 --mesh 4 --from 'P(sum)' --to 'S(0)' --size 1400x700
