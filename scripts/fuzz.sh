#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) and runs each for SECONDS seconds on one core.
#   scripts/fuzz.sh SECONDS [TARGET...]      e.g. scripts/fuzz.sh 20 (CI), scripts/fuzz.sh 300 (before a release)
# First replays fuzz/regressions/<target>/* (every crash found so far), then fuzzes from a corpus seeded with
# samples/ and tests/data/ (and fuzz/seeds/). Crashes land in build-fuzz/artifacts/<target>/; a summary line per
# target (executions, seconds, exec/s, new corpus units, crashes) goes to build-fuzz/fuzz-summary.txt.
# Exit status: 0 when no target crashed, 1 otherwise. Env: BUILD_DIR (build-fuzz), JOBS (2), RSS_MB (2048),
# FUZZ_ARGS (extra libFuzzer flags, e.g. "-fork=1 -ignore_crashes=1" to keep going after a crash),
# SUMMARY_FILE (default build-fuzz/fuzz-summary.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SECONDS_PER_TARGET=${1:?usage: scripts/fuzz.sh SECONDS [TARGET...]}
shift
ALL_TARGETS=(fuzz_load_plan fuzz_native_plan fuzz_native_fast fuzz_autoparallel_json fuzz_placements_json fuzz_fx_text
             fuzz_placement fuzz_redistribute)
if [[ $# -gt 0 ]]; then TARGETS=("$@"); else TARGETS=("${ALL_TARGETS[@]}"); fi
BUILD=${BUILD_DIR:-build-fuzz}
JOBS=${JOBS:-2}
RSS_MB=${RSS_MB:-2048}

if [[ ! -f $BUILD/build.ninja ]]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
    -DSHARDSCOPE_FUZZ=ON -DSHARDSCOPE_WITH_TORCH=OFF -DSHARDSCOPE_WITH_GUI=OFF -DSHARDSCOPE_TESTS=OFF >/dev/null
fi
ninja -C "$BUILD" -j "$JOBS" "${TARGETS[@]}"

# Seed files per target: globs under samples/ and tests/data/ (missing folders are fine).
seed_files() {
  local patterns=()
  case $1 in
    fuzz_load_plan) patterns=('*.json' '*.py' '*.txt' '*.fx') ;;
    fuzz_native_plan|fuzz_native_fast) patterns=('*.plan.json') ;;
    fuzz_autoparallel_json|fuzz_placements_json) patterns=('*.json') ;;
    fuzz_fx_text) patterns=('*.py' '*.txt' '*.fx') ;;
    # Applied graphs: the real logs' parallel graphs (and torch's aot_joint_graph of the same run), the
    # applied-only fixtures, and graphs with every collective form (reduce_scatter, all_to_all_single, ...).
    fuzz_applied_graph) patterns=('*parallel_graph.txt' 'aot_joint_graph.txt' '*applied*.txt' '*applied*.py'
                                  'collectives.print_readable.py' 'moe_hop.repro.py') ;;
    *) return 0 ;;
  esac
  for dir in samples tests/data; do
    [[ -d $dir ]] || continue
    # Seeds under 64 KiB: the real LLaMA-3 artifacts (100-350 KiB) cut a target's executions to ~100/s; the
    # small real ones (seed 1, conv) keep the real forms in the corpus.
    for p in "${patterns[@]}"; do find "$dir" -type f -name "$p" -size -64k; done
  done
}
dict_for() {
  case $1 in
    fuzz_placement) echo fuzz/dict/placement.dict ;;
    fuzz_fx_text) echo fuzz/dict/fx.dict ;;
    fuzz_redistribute) ;;
    fuzz_applied_graph) echo fuzz/dict/applied.dict ;;
    *) echo fuzz/dict/json.dict ;;
  esac
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
SUMMARY=${SUMMARY_FILE:-$BUILD/fuzz-summary.txt}
printf '%-24s %12s %8s %10s %6s %8s\n' target executions seconds exec/s new crashes | tee "$SUMMARY"
failed=0
for t in "${TARGETS[@]}"; do
  bin=$BUILD/fuzz/$t
  seeds=$BUILD/seeds/$t corpus=$BUILD/corpus/$t artifacts=$BUILD/artifacts/$t
  mkdir -p "$seeds" "$corpus" "$artifacts"
  while IFS= read -r f; do cp -f "$f" "$seeds/$(echo "$f" | tr '/' '_')"; done < <(seed_files "$t")
  if [[ $t == fuzz_placement ]]; then
    n=0
    while IFS= read -r line; do printf '%s' "$line" > "$seeds/line_$n"; n=$((n + 1)); done < fuzz/seeds/placements.txt
  fi
  [[ -n $(ls -A "$seeds") ]] || printf '\0\0\0\0\0\0\0\0' > "$seeds/zero"
  regressions=fuzz/regressions/$t
  if [[ -d $regressions && -n $(ls -A "$regressions") ]]; then
    if ! "$bin" -rss_limit_mb="$RSS_MB" -timeout=10 "$regressions"/* > "$BUILD/$t.replay.log" 2>&1; then
      echo "$t: a regression input fails again, see $BUILD/$t.replay.log" >&2
      failed=1
    fi
  fi
  dict=$(dict_for "$t")
  log=$BUILD/$t.log
  set +e
  started=$SECONDS
  stamp=$BUILD/$t.started
  touch "$stamp"  # crashes of this run: artifacts newer than this (older ones stay for reference)
  "$bin" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb="$RSS_MB" -print_final_stats=1 \
    -artifact_prefix="$artifacts/" ${dict:+-dict=$dict} ${FUZZ_ARGS:-} "$corpus" "$seeds" > "$log" 2>&1
  rc=$?
  elapsed=$((SECONDS - started))
  set -e
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  new=$(grep -o 'stat::new_units_added: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  if [[ -z $execs || $execs == 0 ]]; then  # -fork mode prints "#EXECS: cov: ... exec/s RATE ..." lines instead
    last=$(grep -E '^#[0-9]+:' "$log" | tail -1 || true)
    execs=$(echo "$last" | sed -n 's/^#\([0-9]*\):.*/\1/p')
    rate=$(echo "$last" | sed -n 's/.*exec\/s \([0-9]*\).*/\1/p')
  fi
  crashes=$(find "$artifacts" -type f -newer "$stamp" | wc -l)
  printf '%-24s %12s %8s %10s %6s %8s\n' "$t" "${execs:-0}" "$elapsed" "${rate:-0}" "${new:-0}" \
    "$crashes" | tee -a "$SUMMARY"
  if [[ $rc -ne 0 || $crashes -ne 0 ]]; then
    echo "$t: crashed (exit $rc); inputs in $artifacts, log $log" >&2
    grep -m3 -E 'ERROR|FUZZ_CHECK|runtime error' "$log" >&2 || true
    failed=1
  fi
done
exit $failed
