#!/usr/bin/env bash
# Dev-time: DTensor itself executes every sample plan (issue 26); its losses are the fixture the runner tests compare
# `shardscope run` with (tests/runner/test_runner_dtensor.cpp).
#
#   scripts/dtensor_run.sh        # writes tests/dtensor/run_2.14.json
#
# The sid root (scripts/dev_root.sh: PyTorch 2.14.1, CPU only, cached outside the repository) runs
# scripts/dtensor_run.py: gloo processes on 127.0.0.1, one per mesh rank, DTensor.from_local on the runner's local
# pieces, every op through torch.ops.aten on DTensors. The fixture is written only when it is whole: the torch version
# is the one its name promises, every samples/*.plan.json (and seed 1 with its fix) has an entry, no entry is the
# script's own failure or a rank that never answered, and every answered batch has all its rank losses. A plan that
# DTensor refuses is an answer ("error"), not a reason to withhold the file; an error outside any node (the process
# group, the mesh, the root's mounts) is not. Timings are dropped from the file.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
version=2.14
out="tests/dtensor/run_$version.json"
tmp="tests/dtensor/.run_$version.json.partial"
scripts/dev_root.sh sid >/dev/null
rm -f "$tmp"
scripts/dev_root.sh sid --run python3 scripts/dtensor_run.py -o "$tmp"
python3 - "$tmp" "$out" "$version" <<'EOF'
import glob, json, math, os, sys
tmp, out, version = sys.argv[1:]
with open(tmp) as f:
    doc = json.load(f)
problems = []
if doc.get("format") != "shardscope-dtensor-run/1":
    problems.append("format %r" % doc.get("format"))
if not str(doc.get("torch_version", "")).startswith(version + "."):
    problems.append("torch %s, expected %s.x" % (doc.get("torch_version"), version))
want = set()
for p in sorted(glob.glob("samples/*.plan.json")):
    with open(p) as f:
        name = json.load(f)["name"]
    want.add(name)
    if name == "falcon_index_put_2d":
        want.add(name + "+fix")
plans = doc.get("plans", {})
if want - set(plans):
    problems.append("no entry for %s" % ", ".join(sorted(want - set(plans))))
for key, e in sorted(plans.items()):
    variants = [("", e)] + ([(" (as_spec)", e["as_spec"])] if "as_spec" in e else [])
    if "script_failure" in e:
        problems.append("%s: the script failed: %s" % (key, e["script_failure"]))
        continue
    for label, v in variants:
        err = v.get("error")
        if err and (err.get("message", "").startswith("no answer within") or not err.get("node")):
            # not DTensor's answer at a node: the setup (process group, mesh) or the environment failed
            problems.append("%s%s: %s" % (key, label, err["message"]))
        ranks = math.prod(e["mesh"])
        for b in v["batches"]:
            if len(b["rank_losses"]) != ranks:
                problems.append("%s%s batch %d: %d rank losses" % (key, label, b["batch"], len(b["rank_losses"])))
        if not err and len(v["batches"]) == 0:
            problems.append("%s%s: no batch and no error" % (key, label))
if problems:
    sys.exit("dtensor_run.sh: %s not written: %s" % (out, "; ".join(problems)))
print("dtensor_run.sh: %d plans in %.1f s" % (len(plans), doc.get("seconds", 0)))
doc.pop("seconds", None)
for e in plans.values():
    e.pop("seconds", None)
with open(out, "w") as f:
    json.dump(doc, f, indent=1, sort_keys=True)
    f.write("\n")
print("dtensor_run.sh: torch %s -> %s" % (doc["torch_version"], out))
EOF
rm -f "$tmp"
