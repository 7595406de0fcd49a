"""Extract the payloads of a TORCH_TRACE log's autoparallel artifacts into separate files, exactly as written.

    python3 extract.py LOG OUTDIR

Per docs/import-formats.md "TORCH_TRACE logs" (and tlparse): a record is one line
`<L>MMDD HH:MM:SS.uuuuuu PID path:line] {json envelope}`; its payload is the following lines that start with a
TAB; with one TAB removed from each and joined by "\n" its md5 equals the envelope's has_payload.
Writes OUTDIR/<artifact name>.txt (string) or .json (json) for the autoparallel_* artifacts and
OUTDIR/aot_joint_graph.txt for torch's aot_joint_graph record (a second record of
the same name gets _1, _2, ...), and prints an inventory of every record kind / artifact name in the log.
Exits 1 when an md5 does not match.
"""
import collections
import hashlib
import json
import os
import re
import sys

RECORD = re.compile(r"([VIWEC])(\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2})\.(\d{6}) (\d+) ?([^:]+):(\d+)\] (.*)$")


def records(path):
    with open(path, encoding="utf-8", newline="\n") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    i = 0
    while i < len(lines):
        m = RECORD.match(lines[i])
        if not m:
            raise SystemExit(f"{path}:{i + 1}: not a record line: {lines[i][:120]!r}")
        env = json.loads(m.group(11))
        j = i + 1
        payload = []
        while j < len(lines) and lines[j].startswith("\t"):
            payload.append(lines[j][1:])
            j += 1
        yield i + 1, m.group(9), env, ("\n".join(payload) if "has_payload" in env else None)
        i = j


def main():
    log, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    kinds = collections.Counter()
    names = collections.Counter()
    seen = collections.Counter()
    bad = 0
    for lineno, caller, env, payload in records(log):
        kind = next(iter(env))
        kinds[kind] += 1
        if payload is not None and hashlib.md5(payload.encode("utf-8")).hexdigest() != env["has_payload"]:
            print(f"{log}:{lineno}: md5 mismatch ({kind})", file=sys.stderr)
            bad += 1
        def save(name, ext):
            # name.ext, then name_1.ext, ... when a record of that name repeats
            n = seen[name]
            seen[name] += 1
            fname = f"{name}.{ext}" if n == 0 else f"{name}_{n}.{ext}"
            with open(os.path.join(out, fname), "w", encoding="utf-8", newline="\n") as f:
                f.write(payload)
            print(f"  {fname}: line {lineno}, {caller}, md5 {env['has_payload']} ok")

        if kind == "aot_joint_graph" and payload is not None:
            # torch's own record (not an artifact): the joint graph AOT autograd compiles, i.e. autoparallel's
            # parallel graph, printed with expanded_def=True (descriptor comments)
            save(kind, "txt")
        if kind != "artifact":
            continue
        name = env["artifact"]["name"]
        names[name] += 1
        if not name.startswith("autoparallel_"):
            continue
        save(name, "json" if env["artifact"].get("encoding") == "json" else "txt")
    print("  record kinds: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    print("  artifacts: " + ", ".join(f"{k} {v}" for k, v in sorted(names.items())))
    if bad:
        raise SystemExit(f"{bad} payload md5 mismatches in {log}")


main()
