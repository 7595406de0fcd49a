"""Extract the graph payloads of a TORCH_TRACE log into separate files, exactly as torch wrote them.

    python3 extract.py LOG OUTDIR PREFIX

Record format (docs/import-formats.md "TORCH_TRACE logs", tlparse): `<L>MMDD HH:MM:SS.uuuuuu PID path:line] {json}`,
payload = the following TAB-led lines, one TAB removed from each, joined by "\n"; its md5 equals has_payload.
Writes OUTDIR/PREFIX<kind>.txt for the record kinds in KINDS and PREFIX<name>.txt for the artifacts in ARTIFACTS
(a repeat gets _1, _2, ...) and prints an inventory
of the record kinds and artifact names. Exits 1 on an md5 mismatch or a line that is not a record.
"""
import collections
import hashlib
import json
import os
import re
import sys

RECORD = re.compile(r"([VIWEC])(\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2})\.(\d{6}) (\d+) ?([^:]+):(\d+)\] (.*)$")
# torch's own graph records: Dynamo's output graph (what DeepSpeed's backend receives) and AOT autograd's joint
# graph of the module after AutoSP's passes (torch._inductor.compile traces it)
# (aot_forward_graph / aot_backward_graph stay in the log only, to keep each case small); and Inductor's
# before_pre_grad_graph artifact: the module torch._inductor.compile was handed, i.e. the graph after AutoSP's passes
KINDS = ("dynamo_output_graph", "aot_joint_graph")
ARTIFACTS = ("before_pre_grad_graph",)


def main():
    log, out, prefix = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(out, exist_ok=True)
    with open(log, encoding="utf-8", newline="\n") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    kinds, names, seen = collections.Counter(), collections.Counter(), collections.Counter()
    bad = 0
    i = 0
    while i < len(lines):
        m = RECORD.match(lines[i])
        if not m:
            raise SystemExit(f"{log}:{i + 1}: not a record line: {lines[i][:120]!r}")
        env = json.loads(m.group(11))
        j = i + 1
        while j < len(lines) and lines[j].startswith("\t"):
            j += 1
        kind = next(iter(env))
        kinds[kind] += 1
        if kind == "artifact":
            names[env["artifact"]["name"]] += 1
        if "has_payload" in env:
            payload = "\n".join(x[1:] for x in lines[i + 1:j])
            if hashlib.md5(payload.encode("utf-8")).hexdigest() != env["has_payload"]:
                print(f"{log}:{i + 1}: md5 mismatch ({kind})", file=sys.stderr)
                bad += 1
            elif kind in KINDS or (kind == "artifact" and env["artifact"]["name"] in ARTIFACTS):
                name = env["artifact"]["name"] if kind == "artifact" else kind
                n = seen[name]
                seen[name] += 1
                fname = f"{prefix}{name}.txt" if n == 0 else f"{prefix}{name}_{n}.txt"
                with open(os.path.join(out, fname), "w", encoding="utf-8", newline="\n") as f:
                    f.write(payload)
                print(f"  {fname}: line {i + 1}, {m.group(9)}, md5 ok")
        i = j
    print("  record kinds: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    print("  artifacts: " + ", ".join(f"{k} {v}" for k, v in sorted(names.items())))
    if bad:
        raise SystemExit(f"{bad} payload md5 mismatches in {log}")


main()
