#!/usr/bin/env bash
# Dev-time only: run DeepSpeed's REAL AutoSP passes (a fetched snapshot) with Debian sid's PyTorch on CPU, 2 gloo
# ranks on loopback, TORCH_TRACE on, on the project's drivers (scripts/autosp_artifacts/<case>.py), and write
# what a user would have:
#
#   scripts/autosp_artifacts.sh DEEPSPEED OUT [CASE...]
#
# DEEPSPEED: a git dir (bare or not; HEAD is archived) or a plain folder holding deepspeed/. It is copied into the
# root (ROOT/opt/ds), never into the repository. The Debian packages DeepSpeed imports are installed into the
# sid root once (apt-get, network needed that once).
# OUT/<case>/: rank<N>.log (each rank's TORCH_TRACE log), the graph payloads extracted from them
# (rank<N>.dynamo_output_graph.txt, rank<N>.aot_joint_graph.txt, md5-checked),
# graph_{before,after}_autosp.rank<N>{.txt,.graph.txt} (the driver printing the GraphModule with torch's API
# before/after apply_autosp) and driver_output.out (stdout+stderr of the driver and both ranks).
# OUT/versions.txt: torch and DeepSpeed versions. Then: cp -r OUT/<case> tests/data/real/autosp/
# Cases (default: all): seq1 seq0_buggy seq0_fixed seq0_static
set -euo pipefail
ds_src="${1:?usage: autosp_artifacts.sh DEEPSPEED OUT [CASE...]}"
out="${2:?usage: autosp_artifacts.sh DEEPSPEED OUT [CASE...]}"; shift 2
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(seq1 seq0_buggy seq0_fixed seq0_static)
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="$("$repo/scripts/dev_root.sh" sid)"
mkdir -p "$out"; out="$(cd "$out" && pwd)"

exec 8>"$root.autosp_artifacts.lock"
flock 8
# what DeepSpeed imports, and what Inductor's CPU C++ codegen needs (AutoSP's backend ends in torch._inductor.compile):
# g++, torch's C++ headers (libtorch-dev puts torch/csrc/inductor/cpp_prefix.h under torch/include) and Python.h
pkgs=(python3-pydantic python3-hjson python3-msgpack python3-cpuinfo python3-tqdm python3-einops python3-packaging
      python3-psutil ninja-build g++ libtorch-dev python3-dev)
if ! chroot "$root" dpkg -s "${pkgs[@]}" >/dev/null 2>&1; then
  chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root DEBIAN_FRONTEND=noninteractive \
      sh -c 'apt-get update -q && apt-get install -y -q "$@"' sh "${pkgs[@]}" >"$root.autosp_apt.log" 2>&1 || {
    echo "autosp_artifacts.sh: apt-get install failed, see $root.autosp_apt.log" >&2; exit 1; }
fi
# DeepSpeed into the root
rm -rf "$root/opt/ds"; mkdir -p "$root/opt/ds"
if git --git-dir="$ds_src" rev-parse --verify -q HEAD >/dev/null 2>&1; then
  # only what `import deepspeed` reads: the snapshot lacks some large blobs elsewhere (git prints "invalid object"
  # for a blogs/ image and still exits 0)
  git --git-dir="$ds_src" archive HEAD deepspeed accelerator op_builder csrc version.txt | tar x -C "$root/opt/ds"
  ds_rev="$(git --git-dir="$ds_src" log -1 --format='%H %cs %s')"
elif [ -d "$ds_src/deepspeed" ]; then
  cp -a "$ds_src/." "$root/opt/ds/"; rm -rf "$root/opt/ds/.git"
  ds_rev="$(git -C "$ds_src" log -1 --format='%H %cs %s' 2>/dev/null || echo "unknown (plain folder $ds_src)")"
else
  echo "autosp_artifacts.sh: $ds_src is neither a git dir nor a folder holding deepspeed/" >&2; exit 2
fi
torch_v="$("$repo/scripts/dev_root.sh" sid --run python3 -c 'import torch; print(torch.__version__)')"
printf 'torch %s (Debian sid python3-torch)\nDeepSpeed %s (version.txt %s)\n' "$torch_v" "$ds_rev" \
    "$(cat "$root/opt/ds/version.txt")" >"$out/versions.txt"
cat "$out/versions.txt"

work=/tmp/shardscope-autosp   # inside the root
status=0
for c in "${cases[@]}"; do
  driver="$repo/scripts/autosp_artifacts/$c.py"
  [ -f "$driver" ] || { echo "autosp_artifacts.sh: no driver $driver" >&2; exit 2; }
  rm -rf "${root:?}$work/$c"; mkdir -p "$root$work/$c/trace" "$root$work/$c/user"
  echo "== $c"
  t0=$(date +%s%N)
  rc=0
  # Inductor's caches off: every case compiles afresh, so its log holds the same records on every run
  "$repo/scripts/dev_root.sh" sid --run env PYTHONPATH="/opt/ds:$repo/scripts/autosp_artifacts" DS_ACCELERATOR=cpu \
      TORCH_TRACE="$work/$c/trace" SHARDSCOPE_CASE_OUT="$work/$c/user" OMP_NUM_THREADS=1 \
      TORCHINDUCTOR_FORCE_DISABLE_CACHES=1 python3 "$driver" >"$root$work/$c/driver_output.out" 2>&1 || rc=$?
  t1=$(date +%s%N)
  echo "   rc $rc, $(( (t1 - t0) / 1000000 )) ms"
  # seq0_static is expected to fail (its driver output is the fixture)
  [ "$rc" = 0 ] || [ "$c" = seq0_static ] || { status=1; tail -5 "$root$work/$c/driver_output.out" | sed 's/^/   /'; }
  rm -rf "${out:?}/$c"; mkdir -p "$out/$c"
  cp "$root$work/$c/driver_output.out" "$out/$c/"
  cp "$root$work/$c/user/"* "$out/$c/" 2>/dev/null || true
  for log in "$root$work/$c/trace"/*.log; do
    [ -f "$log" ] || continue
    base="$(basename "$log")"
    if [[ "$base" =~ ^dedicated_log_torch_trace_rank_([0-9]+)_ ]]; then dst="rank${BASH_REMATCH[1]}"
    else dst="nodist"; fi
    cp "$log" "$out/$c/$dst.log"; chmod 644 "$out/$c/$dst.log"   # torch creates it 0600
    echo "   $dst.log ($(wc -c <"$log") bytes, torch named it $base)"
    "$repo/scripts/dev_root.sh" sid --run python3 "$repo/scripts/autosp_artifacts/extract.py" "$work/$c/trace/$base" \
        "$work/$c/art" "$dst." || status=1
  done
  cp "$root$work/$c/art/"* "$out/$c/" 2>/dev/null || true
done
exit $status
