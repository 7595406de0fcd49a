#!/usr/bin/env python3
"""Writes scripts/gpu_check.sh's summary.json from its work folder (steps.jsonl, runs/NAME.json, env.json).

    python3 scripts/gpu_summary.py WORK SUMMARY.json [--cpu-only 0|1] [--scale N]

Plain python3 (no torch). Each check says pass/fail, what was expected and what happened; the runs also give
how collectives ran (the report's backend and notes) and the times, and each plan run on both devices is paired
(gpu_vs_cpu: verdicts agree? seconds side by side). Missing pieces (a step that never ran) are failed checks,
never a crash: the summary is rewritten after every step of a run that may be cut short.
"""
import argparse
import json
import os
import sys

FORMAT = "shardscope-gpu-check/1"

# What each run must give (docs/runner.md, "The samples"). On the GPU: the same verdicts as on the CPU.
EXPECTED = {
    "seed1_fixed": ("match", None),
    "seed1_shipped": ("failed", "index_put"),
    "autosp_seq_first": ("mismatch", None),
    "autosp_seq_first_fixed": ("match", None),
    "autosp_batch_first": ("match", None),
}


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def load_steps(work):
    steps = {}
    try:
        with open(os.path.join(work, "steps.jsonl")) as f:
            for line in f:
                line = line.strip()
                if line:
                    s = json.loads(line)
                    steps[s["step"]] = s
    except (OSError, ValueError):
        pass
    return steps


def error_text(err):
    """'rank 3, node index_put: shape mismatch ...' (rank and node only where the error has them)."""
    where = []
    if err.get("rank", -1) >= 0:
        where.append("rank %d" % err["rank"])
    if err.get("node"):
        where.append("node %s" % err["node"])
    return "%s%s: %s" % (err.get("stage", "?"), " (" + ", ".join(where) + ")" if where else "", err.get("message"))


def run_check(name, step, report, cpu_only):
    plan, device = name.rsplit("_", 1)
    want, at_node = EXPECTED[plan]
    c = {"name": name, "plan": plan, "device": device, "expected": want}
    if cpu_only and device == "cuda":
        # A CPU build must refuse --device cuda with exit 3 and say why.
        c["expected"] = "failed"
        at_node = None
        want = "failed"
    if step is None:
        c.update({"pass": False, "detail": "did not run"})
        return c
    c["seconds"] = step["seconds"]
    if step["status"] != "done" or report is None:
        c.update({"pass": False, "detail": "%s (rc %d), no report" % (step["status"], step["rc"])})
        return c
    err = report.get("error") or {}
    c.update({
        "verdict": report.get("verdict"), "exit_code": report.get("exit_code"), "backend": report.get("backend"),
        "notes": report.get("notes", []), "ranks": report.get("ranks"), "scale": report.get("scale"),
        "reference_seconds": report.get("reference_s"), "sharded_seconds": report.get("sharded_s"),
        "rel_errors": [b.get("rel_error") for b in report.get("batches", [])],
        "error": error_text(err) if err else None,
    })
    if err and err.get("stage") in ("load", "scale", "memory", "setup"):
        c["backend"] = None  # it failed before any process group existed
    ok = c["verdict"] == want and step["rc"] == report.get("exit_code")
    if ok and at_node:
        ok = at_node in (err.get("node") or "") or at_node in (err.get("message") or "")
    if ok and cpu_only and device == "cuda":
        ok = "without CUDA" in (err.get("message") or "")
    c["pass"] = bool(ok)
    c["detail"] = "%s (expected %s)%s%s" % (c["verdict"], want, "; backend " + c["backend"] if c["backend"] else "",
                                           "; " + c["error"] if c["error"] else "")
    return c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("work")
    ap.add_argument("summary")
    ap.add_argument("--cpu-only", type=int, default=0)
    ap.add_argument("--scale", type=int, default=1)
    a = ap.parse_args()
    steps = load_steps(a.work)
    env = load_json(os.path.join(a.work, "env.json")) or {}
    checks = []

    def step_check(name, detail_ok):
        s = steps.get(name)
        ok = s is not None and s["status"] == "done" and s["rc"] == 0
        checks.append({"name": name, "pass": ok, "seconds": s["seconds"] if s else None,
                       "detail": detail_ok if ok else ("did not run" if s is None else
                                                       "%s (rc %d)%s" % (s["status"], s["rc"],
                                                                         ", " + s["note"] if s["note"] else ""))})

    step_check("configure", "CUDA off (rehearsal)" if a.cpu_only else "SHARDSCOPE_CUDA=ON, sm_90")
    step_check("build", "shardscope + shardscope-runner")
    step_check("fix_seed1", "the fixed seed 1 plan")
    if "configure" not in steps and "build" not in steps:  # --skip-build: a prebuilt runner
        checks = [c for c in checks if c["name"] not in ("configure", "build")]

    runs = ["seed1_fixed_cuda"]
    if not a.cpu_only:
        runs += ["seed1_shipped_cuda", "autosp_seq_first_cuda", "autosp_seq_first_fixed_cuda", "autosp_batch_first_cuda"]
    runs += ["autosp_seq_first_cpu", "autosp_seq_first_fixed_cpu", "autosp_batch_first_cpu", "seed1_shipped_cpu",
             "seed1_fixed_cpu"]
    by_name = {}
    for name in runs:
        report = load_json(os.path.join(a.work, "runs", name + ".json"))
        c = run_check(name, steps.get(name), report, a.cpu_only)
        by_name[name] = c
        checks.append(c)

    pairs = []
    if not a.cpu_only:
        for plan in EXPECTED:
            g, c = by_name.get(plan + "_cuda"), by_name.get(plan + "_cpu")
            if not g or not c:
                continue
            pairs.append({"plan": plan, "gpu_verdict": g.get("verdict"), "cpu_verdict": c.get("verdict"),
                          "agree": g.get("verdict") is not None and g.get("verdict") == c.get("verdict"),
                          "gpu_seconds": g.get("seconds"), "cpu_seconds": c.get("seconds"),
                          "gpu_sharded_seconds": g.get("sharded_seconds"),
                          "cpu_sharded_seconds": c.get("sharded_seconds"),
                          "gpu_backend": g.get("backend"), "gpu_notes": g.get("notes")})
        checks.append({"name": "gpu_matches_cpu", "pass": bool(pairs) and all(p["agree"] for p in pairs),
                       "detail": ", ".join("%s %s/%s" % (p["plan"], p["gpu_verdict"], p["cpu_verdict"])
                                           for p in pairs)})

    oracle_step = steps.get("oracle")
    oracle = None
    if oracle_step is not None:
        doc = load_json(os.path.join(os.path.dirname(a.summary), "oracle.json"))
        if doc:
            oracle = {"torch_version": doc.get("torch_version"), "apis": doc.get("apis"),
                      "seconds": doc.get("seconds"), "tally": doc.get("tally"),
                      "answers": {k: len(doc.get(k, {})) for k in ("layouts", "redistributes", "rules")}}
    ok = oracle_step is not None and oracle_step["rc"] == 0 and oracle is not None
    if a.cpu_only and oracle_step is not None and oracle_step["rc"] == 3:
        ok, detail = True, "no DTensor here (rc 3), as expected in a CPU rehearsal"
    elif oracle_step is None:
        detail = "still running" if os.path.exists(os.path.join(a.work, "logs", "oracle.log")) else "did not run"
    else:
        detail = ("answers %s" % oracle["answers"]) if oracle else "%s (rc %d), no oracle.json" % (
            oracle_step["status"], oracle_step["rc"])
    checks.append({"name": "dtensor_oracle", "pass": ok, "detail": detail,
                   "seconds": oracle_step["seconds"] if oracle_step else None})

    doc = {"format": FORMAT, "cpu_only": bool(a.cpu_only), "scale": a.scale, "env": env,
           "pass": all(c["pass"] for c in checks), "seconds": round(sum(s["seconds"] for s in steps.values()
                                                                       if s["step"] != "oracle"), 1),
           "checks": checks, "gpu_vs_cpu": pairs, "oracle": oracle, "steps": list(steps.values())}
    tmp = "%s.%d.tmp" % (a.summary, os.getpid())
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, a.summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
