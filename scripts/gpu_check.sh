#!/usr/bin/env bash
# The GPU check in one script: builds the runner against the PyTorch wheel's CUDA LibTorch, runs the seeds and
# the AutoSP samples with --device cuda and on CPU, runs the DTensor oracle, and leaves in OUTDIR:
#   summary.json      every check: pass/fail, verdict, expected verdict, times GPU vs CPU, how collectives ran
#   oracle.json       DTensor's answers to tests/dtensor/cases.json (copy to tests/dtensor/oracle.json; the
#                     ctest "DTensor oracle" cases then compare core with it)
#   details.tar.gz    every log, every run's JSON report, the fixed plan, env.json, steps.jsonl
# (three files: the device tool returns at most 8 files from $OUT). summary.json and details.tar.gz are
# rewritten after every step, so a run killed at its limit still returns what it found.
#
#   scripts/gpu_check.sh OUTDIR [--cpu-only] [--build-dir DIR] [--skip-build] [--scale N] [--budget SECONDS]
#   scripts/gpu_check.sh --prepare-deps     (here, on Debian: puts nlohmann-json, simdjson, libmd and CLI11 into .gpu_deps/)
#
# On the GPU machine (python3 holds PyTorch 2.x with CUDA; cmake, ninja, nvcc there): Torch_DIR comes from
# torch.utils.cmake_prefix_path, -DSHARDSCOPE_CUDA=ON, CMAKE_CUDA_ARCHITECTURES=90, nproc jobs, GUI, tests and
# bench off, targets shardscope and shardscope-runner only. The image has no nlohmann-json, simdjson or libmd and
# nothing can be fetched there: run --prepare-deps here first and carry .gpu_deps (git-ignored); this script
# uses it when cmake finds no system copy. NCCL: /usr/local/cuda's, else the nvidia-nccl wheel's.
#
# --cpu-only rehearses everything but CUDA on a CPU machine: a CPU build (system LibTorch when python3 has no
# torch), the CPU runs, one --device cuda run that must fail cleanly (exit 3), the oracle (which reports that
# DTensor is missing) and the summary. --scale N runs seed 1 at 1/N size (a GPU check uses 1: real size).
# --budget caps the whole script (default 420 s: under the 8 minutes the session allows, leaving a rerun).
# Exit: 0 every check passed, 1 some check failed (see summary.json), 2 bad arguments.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
usage() {
  grep '^#   scripts/gpu_check.sh' "${BASH_SOURCE[0]}" | sed 's/^#   /usage: /' >&2
  exit 2
}

prepare_deps() {  # Debian only: download the packages and unpack them under .gpu_deps/root.
  local dir="$ROOT/.gpu_deps"
  rm -rf "$dir" && mkdir -p "$dir/debs" "$dir/root" || exit 1
  (cd "$dir/debs" && apt-get download nlohmann-json3-dev libsimdjson-dev libsimdjson14 libmd-dev libmd0 libcli11-dev) || {
    echo "gpu_check: apt-get download failed (run apt-get update first)" >&2
    exit 1
  }
  local deb
  for deb in "$dir"/debs/*.deb; do dpkg -x "$deb" "$dir/root" || exit 1; done
  rm -rf "$dir/debs"
  echo "gpu_check: $(du -sh "$dir" | cut -f1) in $dir; carry .gpu_deps to the GPU machine"
  exit 0
}

OUTDIR=""
CPU_ONLY=0
SKIP_BUILD=0
BUILD=""
SCALE=1
BUDGET=420
while [[ $# -gt 0 ]]; do
  case "$1" in
    --prepare-deps) prepare_deps ;;
    --cpu-only) CPU_ONLY=1 ;;
    --skip-build) SKIP_BUILD=1 ;;
    --build-dir) [[ $# -ge 2 ]] || usage; BUILD="$2"; shift ;;
    --scale) [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || usage; SCALE="$2"; shift ;;
    --budget) [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || usage; BUDGET="$2"; shift ;;
    -h | --help) usage ;;
    -*) echo "gpu_check: unknown option $1" >&2; usage ;;
    *) [[ -z $OUTDIR ]] || usage; OUTDIR="$1" ;;
  esac
  shift
done
[[ -n $OUTDIR ]] || usage
mkdir -p "$OUTDIR" || exit 2
OUTDIR="$(cd "$OUTDIR" && pwd)"
BUILD="${BUILD:-$ROOT/build-gpu-check}"
[[ $BUILD = /* ]] || BUILD="$ROOT/$BUILD"
WORK="$(mktemp -d)"
mkdir -p "$WORK/logs" "$WORK/runs"
START=$(date +%s)
export PYTHONUNBUFFERED=1

# ---- bookkeeping: one JSON line per step in steps.jsonl; summary.json and details.tar.gz after each ----
record() {  # record NAME STATUS SECONDS RC [NOTE]
  python3 - "$WORK/steps.jsonl" "$@" <<'EOF'
import json, sys
path, name, status, secs, rc = sys.argv[1:6]
note = sys.argv[6] if len(sys.argv) > 6 else ""
with open(path, "a") as f:
    f.write(json.dumps({"step": name, "status": status, "seconds": float(secs), "rc": int(rc), "note": note}) + "\n")
EOF
  publish
}
publish() {
  python3 "$ROOT/scripts/gpu_summary.py" "$WORK" "$OUTDIR/summary.json" --cpu-only "$CPU_ONLY" --scale "$SCALE" \
    >/dev/null 2>>"$WORK/logs/summary.log"
  # The oracle's subshell publishes too: temporary names of its own, then an atomic rename.
  local tmp="$OUTDIR/.details.$BASHPID.tmp"
  tar czf "$tmp" -C "$WORK" . 2>/dev/null && mv -f "$tmp" "$OUTDIR/details.tar.gz"
}
left() { echo $((BUDGET - ($(date +%s) - START))); }
# step NAME TIMEOUT [--stdout FILE] CMD...: runs CMD under timeout (capped by what the budget leaves), logs to
# logs/NAME.log (stdout to FILE when given), records rc and seconds. Returns CMD's exit code.
step() {
  local name="$1" limit="$2" out=""
  shift 2
  if [[ ${1:-} == --stdout ]]; then out="$2"; shift 2; fi
  local remain
  remain=$(left)
  if ((remain < 15)); then
    record "$name" skipped 0 0 "time budget spent"
    return 124
  fi
  ((limit > remain - 5)) && limit=$((remain - 5))
  local t0 t1 rc
  t0=$(date +%s.%N)
  echo "gpu_check: $name (limit ${limit}s)"
  local log="$WORK/logs/$name.log"
  { printf '$'; printf ' %q' "$@"; printf '\n'; } >"$log"  # the command, first line of its log
  if [[ -n $out ]]; then
    timeout --kill-after=5 "$limit" "$@" >"$out" 2>>"$log"
  else
    timeout --kill-after=5 "$limit" "$@" >>"$log" 2>&1
  fi
  rc=$?
  t1=$(date +%s.%N)
  local status="done"
  ((rc == 124 || rc == 137)) && status=timeout
  record "$name" "$status" "$(python3 -c "print(round($t1 - $t0, 3))")" "$rc" "limit ${limit}s"
  return $rc
}

# ---- environment ----
step env 30 --stdout "$WORK/env.json" python3 - <<'EOF'
import json, platform, shutil, subprocess
env = {"python": platform.python_version(), "machine": platform.machine(), "nproc": __import__("os").cpu_count(),
       "cmake": shutil.which("cmake"), "ninja": shutil.which("ninja"), "nvcc": shutil.which("nvcc")}
try:
    import torch
    env.update(torch=torch.__version__, cmake_prefix_path=torch.utils.cmake_prefix_path,
               cxx11_abi=bool(torch._C._GLIBCXX_USE_CXX11_ABI), cuda=torch.version.cuda,
               cuda_available=torch.cuda.is_available(), gpus=torch.cuda.device_count())
    if torch.cuda.is_available():
        env["gpu"] = torch.cuda.get_device_name(0)
        env["nccl"] = ".".join(map(str, torch.cuda.nccl.version()))
except Exception as e:  # no torch (a CPU rehearsal): the build uses the system LibTorch
    env["torch_error"] = "%s: %s" % (type(e).__name__, e)
try:
    env["nvidia_smi"] = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=10).stdout.strip()
except Exception:
    pass
print(json.dumps(env, indent=1))
EOF

# ---- the DTensor oracle, in the background while the build runs (one core; it needs no build) ----
step oracle_cases 20 python3 "$ROOT/scripts/dtensor_oracle.py" --dry-run
ORACLE_BUDGET=$(($(left) * 2 / 3))
((ORACLE_BUDGET > 240)) && ORACLE_BUDGET=240
(OMP_NUM_THREADS=1 step oracle $((ORACLE_BUDGET + 40)) python3 "$ROOT/scripts/dtensor_oracle.py" \
  -o "$OUTDIR/oracle.json" --budget "$ORACLE_BUDGET") &
ORACLE_PID=$!

# ---- configure and build ----
JOBS=$(nproc)
CMAKE_ARGS=(-S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSHARDSCOPE_WITH_GUI=OFF
  -DSHARDSCOPE_TESTS=OFF -DSHARDSCOPE_BENCH=OFF -DSHARDSCOPE_WITH_TORCH=ON)
TORCH_PREFIX=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null || true)
[[ -n $TORCH_PREFIX ]] && CMAKE_ARGS+=(-DTorch_DIR="$TORCH_PREFIX/Torch")
if [[ -d $ROOT/.gpu_deps/root/usr ]]; then
  CMAKE_ARGS+=(-DCMAKE_PREFIX_PATH="$ROOT/.gpu_deps/root/usr")
  export LD_LIBRARY_PATH="$ROOT/.gpu_deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
if ((CPU_ONLY)); then
  CMAKE_ARGS+=(-DSHARDSCOPE_CUDA=OFF)
else
  CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
  if [[ ! -x $CUDA_HOME/bin/nvcc ]] && command -v nvcc >/dev/null; then  # a toolkit elsewhere: nvcc's own
    CUDA_HOME=$(dirname "$(dirname "$(command -v nvcc)")")
  fi
  export TORCH_CUDA_ARCH_LIST=9.0  # Torch's CMake config would otherwise probe the GPU for it
  CMAKE_ARGS+=(-DSHARDSCOPE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCUDAToolkit_ROOT="$CUDA_HOME"
    -DCMAKE_CUDA_COMPILER="$CUDA_HOME/bin/nvcc")
  if [[ ! -f $CUDA_HOME/include/nccl.h ]]; then  # the wheel's NCCL (nvidia-nccl-cu13): headers and libnccl.so.2
    NCCL_DIR=$(python3 -c 'import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__) if nvidia.nccl.__file__ else list(nvidia.nccl.__path__)[0])' 2>/dev/null || true)
    [[ -n $NCCL_DIR ]] && CMAKE_ARGS+=(-DNCCL_INCLUDE_DIR="$NCCL_DIR/include" -DNCCL_LIBRARY="$NCCL_DIR/lib/libnccl.so.2")
  fi
fi
BUILT=1
if ((!SKIP_BUILD)); then
  step configure 120 cmake "${CMAKE_ARGS[@]}" || BUILT=0
  ((BUILT)) && { step build 300 ninja -C "$BUILD" -j "$JOBS" shardscope shardscope-runner || BUILT=0; }
fi
SS="$BUILD/app/shardscope"
[[ -x $SS && -x $BUILD/app/shardscope-runner ]] || BUILT=0
# Which LibTorch, CUDA runtime and NCCL the runner loads (logs/linkage.log; a diagnosis aid, never a failure).
((BUILT)) && step linkage 20 ldd "$BUILD/app/shardscope-runner"

# ---- runs: GPU first (the point of the session), then CPU; seed 1 at real size on CPU last (the longest) ----
run() {  # run NAME DEVICE LIMIT PLAN [FLAGS...]
  local name="$1" device="$2" limit="$3" plan="$4"
  shift 4
  step "$name" "$limit" --stdout "$WORK/runs/$name.json" "$SS" run "$plan" --device "$device" --json "$@"
}
SAMPLES="$ROOT/samples"
SEED1=(--scale "$SCALE" --batches 1)
if ((BUILT)); then
  step fix_seed1 30 "$SS" fix "$SAMPLES/falcon_index_put_2d.plan.json" -o "$WORK/seed1_fixed.plan.json"
  if ((CPU_ONLY)); then
    run seed1_fixed_cuda cuda 30 "$WORK/seed1_fixed.plan.json" "${SEED1[@]}"  # must fail: a CPU build
  else
    run seed1_fixed_cuda cuda 120 "$WORK/seed1_fixed.plan.json" "${SEED1[@]}"
    run seed1_shipped_cuda cuda 60 "$SAMPLES/falcon_index_put_2d.plan.json" "${SEED1[@]}"
    for s in autosp_seq_first autosp_seq_first_fixed autosp_batch_first; do
      run "${s}_cuda" cuda 40 "$SAMPLES/$s.plan.json"
    done
  fi
  for s in autosp_seq_first autosp_seq_first_fixed autosp_batch_first; do
    run "${s}_cpu" cpu 40 "$SAMPLES/$s.plan.json"
  done
  run seed1_shipped_cpu cpu 60 "$SAMPLES/falcon_index_put_2d.plan.json" "${SEED1[@]}"
  run seed1_fixed_cpu cpu 200 "$WORK/seed1_fixed.plan.json" "${SEED1[@]}"
else
  record runs skipped 0 0 "no runner was built (see logs/configure.log, logs/build.log)"
fi

# ---- the oracle's own timeout bounds this wait ----
wait "$ORACLE_PID"
publish
rm -rf "$WORK"
python3 - "$OUTDIR/summary.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
for c in s["checks"]:
    print("gpu_check: %-28s %-4s %s" % (c["name"], "pass" if c["pass"] else "FAIL", c.get("detail", "")))
print("gpu_check: %s in %.0f s -> %s" % ("all passed" if s["pass"] else "FAILED", s["seconds"], sys.argv[1]))
sys.exit(0 if s["pass"] else 1)
EOF
