#!/usr/bin/env bash
# `shardscope check` on a big autoparallel export against Python's json.load of the same file, side by side in
# one run (check must take at most 0.4x what json.load takes). Each measurement is the median of RUNS
# alternating runs (check, then json.load), so both see the same machine load.
#   scripts/bench_check_vs_json.sh [LAYERS] [RUNS]      (defaults: 320 layers, about 95k nodes; 7 runs)
# Uses $SHARDSCOPE_BUILD/app/shardscope (default build/); prints one line per tool and the ratio.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="${SHARDSCOPE_BUILD:-$ROOT/build}/app/shardscope"
LAYERS=${1:-320}
RUNS=${2:-7}
[[ -x $BIN ]] || { echo "bench_check_vs_json: build $BIN first" >&2; exit 2; }
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
FILE=$DIR/llama$LAYERS.autoparallel.json
"$BIN" gen --layers "$LAYERS" --format autoparallel -o "$FILE" >/dev/null
python3 - "$BIN" "$FILE" "$RUNS" <<'PY'
import json, os, statistics, subprocess, sys, time
binary, path, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(path) as f:
    nodes = len(json.load(f)["nodes"])
check, load = [], []
for _ in range(runs):
    t = time.perf_counter()
    r = subprocess.run([binary, "check", path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    check.append(time.perf_counter() - t)
    if r.returncode not in (0, 1):
        sys.exit(f"shardscope check exited {r.returncode}")
    t = time.perf_counter()
    with open(path) as f:
        json.load(f)
    load.append(time.perf_counter() - t)
c, l = statistics.median(check) * 1e3, statistics.median(load) * 1e3
size = os.path.getsize(path) / 1e6
print(f"file: {nodes} nodes, {size:.1f} MB, median of {runs}")
print(f"shardscope check (process, load + check + report): {c:8.1f} ms")
print(f"python json.load (in process, parse only):          {l:8.1f} ms")
print(f"ratio check / json.load: {c / l:.2f} (target <= 0.40)")
PY
