#!/usr/bin/env python3
"""Where two DTensor versions answer cases.json differently, as the C++ comparison judges core against an answer
(tests/core/test_dtensor_oracle.cpp): layouts exactly; redistributes by steps (size-1 mesh dims dropped,
_StridedShard as Shard), where "raised" and "cannot run" both ask core to refuse; rules by output placements,
where "raised" and "redistributed" both ask core's rule to refuse. Core follows the newer version except in the
version-independent entries of known_differences.json (those cover their cases for every version, so they are
left out here); the rest are the version-specific entries for the older one.

    python3 tests/dtensor/version_differences.py [--old tests/dtensor/oracle_2.6.json] [--new ...oracle_2.14.json]
        [--write]    # replace the entries with "torch": <old major.minor> in known_differences.json
"""
import argparse, json, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))


def plain(p):
    m = re.match(r"_StridedShard\(dim=(\d+), sf=\d+\)$", p)
    return "Shard(dim=%s)" % m.group(1) if m else p


def judged(kind, case, a):
    """What an answer asks of core: None (skipped), ("refuse",) or what core must give."""
    if "skipped" in a:
        return None
    if kind == "layouts":
        return ("error",) if "error" in a else ("ranks", json.dumps(a["ranks"], sort_keys=True))
    if kind == "redistributes":
        if "error" in a or not a.get("runs", True):
            return ("refuse",)
        steps = [(s["mesh_dim"], plain(s["from"]), plain(s["to"])) for s in a["steps"] if case["mesh"][s["mesh_dim"]] > 1]
        return ("steps", tuple(steps))
    if "error" in a or a["redistributed"]:
        return ("refuse",)
    return ("runs", json.dumps([[plain_text(p) for p in o] if o is not None else None for o in a["outputs"]]))


def plain_text(p):
    """One spelling per placement (older PyTorch writes _StridedShard's split_factor out)."""
    return re.sub(r"split_factor=", "sf=", p)


def classify(kind, case, old, new):
    """(name, reason) of one difference."""
    if kind == "layouts":
        if any(p.startswith("_StridedShard") for p in case["placements"]):
            return ("2.6-strided-uneven-layout", "2.6 cuts the dim into k*sf chunks and gives rank i chunks i, i+k, ...; "
                    "2.14 cuts it into sf chunks and each of those into k (they differ when k*sf does not divide the size)")
        return ("2.6-empty-shard-offset", "2.6 gives an empty shard the offset where its chunk would start; 2.14 gives "
                "it the dim size (compute_local_shape_and_global_offset's zero_global_offset)")
    if kind == "redistributes":
        err = old.get("run_error", "")
        if "to P not supported" in err:
            return ("2.6-shard-to-partial", "2.6 refuses every Shard -> Partial ('redistribute from S(d) to P not supported yet'); "
                    "2.14 writes the shard into zeros (Shard._to_partial_tensor)")
        if "only support replicate to PartialSUM" in err:
            return ("2.6-replicate-to-partial-op", "2.6 turns Replicate only into Partial(sum); 2.14 also into avg, max, min")
        if "_StridedShard requires even" in err:
            return ("2.6-strided-uneven-redistribute", "2.6's _StridedShard redistributes only even shards")
        if any("_StridedShard" in p for p in case["src"]["placements"] + case["dst"]["placements"]):
            return ("2.6-strided-plan", "2.6 plans _StridedShard with the greedy planner; 2.14 decodes it into a shard "
                    "order and plans with its graph search")
        if "one partial type" in new.get("run_error", "") and old.get("runs", True):
            return ("2.6-partial-op-change", "2.6 runs a change of a Partial's reduce op (and leaves the values as "
                    "they are); 2.14 refuses it ('Redistribution from one partial type ... is unsupported')")
        return ("2.6-plan", "2.6's planner takes other steps")
    if "error" in old:
        return ("2.6-rule-error", "2.6's sharding propagation raises on these inputs; 2.14 has a strategy")
    op = case["op"].split(".")[1]
    return ("2.6-rule-" + op, "2.6's %s strategy differs from 2.14's (another output, or a redistribute where 2.14 needs none, "
            "or none where 2.14 needs one)" % op)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", default=os.path.join(HERE, "oracle_2.6.json"))
    ap.add_argument("--new", default=os.path.join(HERE, "oracle_2.14.json"))
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    cases = json.load(open(os.path.join(HERE, "cases.json")))
    old, new = json.load(open(a.old)), json.load(open(a.new))
    version = ".".join(old["torch_version"].split(".")[:2])
    known = json.load(open(os.path.join(HERE, "known_differences.json")))["differences"]
    everywhere = [d for d in known if "torch" not in d]

    def covered(kind, cid):  # by a version-independent entry
        for d in everywhere:
            if d["kind"] + "s" == kind and (cid in d.get("ids", []) or (d.get("id_contains") and d["id_contains"] in cid)):
                return True
        return False

    groups = {}
    for kind in ("layouts", "redistributes", "rules"):
        for c in cases[kind]:
            if covered(kind, c["id"]):
                continue
            o, n = old[kind][c["id"]], new[kind][c["id"]]
            jo, jn = judged(kind, c, o), judged(kind, c, n)
            if jo is None or jo == jn:
                continue
            name, reason = classify(kind, c, o, n)
            g = groups.setdefault(name, {"name": name, "kind": kind.rstrip("s"), "torch": version, "reason": reason, "ids": []})
            g["ids"].append(c["id"])
    entries = sorted(groups.values(), key=lambda g: (g["kind"], g["name"]))
    for g in entries:
        g["cases"] = {version: len(g["ids"])}
        print("%-36s %-12s %4d  %s" % (g["name"], g["kind"], len(g["ids"]), g["reason"][:80]))
    print("total", sum(len(g["ids"]) for g in entries))
    if a.write:
        path = os.path.join(HERE, "known_differences.json")
        doc = json.load(open(path))
        doc["differences"] = [d for d in doc["differences"] if d.get("torch") != version] + entries
        with open(path, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
