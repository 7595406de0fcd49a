#!/usr/bin/env python3
"""Writes tests/dtensor/cases.json: the case list that both DTensor (scripts/dtensor_oracle.py) and core
(tests/core/test_dtensor_oracle.cpp) answer, so the two answer the very same questions.

    python3 tests/dtensor/gen_cases.py            # rewrites tests/dtensor/cases.json
    python3 tests/dtensor/gen_cases.py --check    # exit 1 when the committed file is not what this writes

Plain python3, no torch. Deterministic: the same file every run (no randomness, sorted keys).

Format (shardscope-dtensor-cases/1):
  placements are DTensor's own repr strings, one per mesh dim: "Replicate()", "Shard(dim=0)",
  "_StridedShard(dim=0, sf=2)", "Partial(sum)" (core's parseSpec reads the same strings);
  a shard order is null (default: mesh-dim order) or DTensor's ShardOrderEntry list
  [[tensor_dim, [mesh_dim, ...]], ...] (mesh dims in the order they split that tensor dim);
  rule args are JSON values with {"tensor": i} for tensor input i (numbered in argument order, depth first).
Every case has an id that names it in both answer files ("layout [7, 5] on 2x3: S(0)S(1)").
"""
import argparse
import itertools
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "cases.json")
FORMAT = "shardscope-dtensor-cases/1"

R = "Replicate()"


def S(d):
    return "Shard(dim=%d)" % d


def SS(d, sf):
    return "_StridedShard(dim=%d, sf=%d)" % (d, sf)


def P(op="sum"):
    return "Partial(%s)" % op


def short(p):
    """Core's mesh-centric short form of one placement, for readable ids."""
    if p == R:
        return "R"
    if p.startswith("Shard("):
        return "S(%s)" % p[len("Shard(dim="):-1]
    if p.startswith("_StridedShard("):
        inner = p[len("_StridedShard(dim="):-1].replace(" sf=", "")
        return "_S(%s)" % inner.replace(",", ", ")
    return "P(%s)" % p[len("Partial("):-1]


def spec_id(placements, order=None):
    """Mesh-centric spec text; with a shard order, core's bracket form S(1)[1]S(1)[0]R."""
    if not order:
        return "".join(short(p) for p in placements)
    index = {}
    for _tensor_dim, mesh_dims in order:
        for i, m in enumerate(mesh_dims):
            index[m] = i
    return "".join(short(p) + ("[%d]" % index[m] if m in index else "") for m, p in enumerate(placements))


def mesh_id(mesh):
    return "x".join(str(s) for s in mesh)


# ---- layouts -------------------------------------------------------------------------------------------------
# Tensor ranks 1-4 with uneven sizes (and sizes below the shard count: empty shards), meshes 1-3-D with uneven
# dim sizes and a size-1 dim. Every placement kind: Replicate, Shard on each dim, Partial of each reduce op,
# _StridedShard (valid FSDP+TP split factors and one DTensor cannot normalise), non-default shard orders.
LAYOUT_SHAPES = [[7], [3], [5, 6], [1, 4], [3, 7, 4], [2, 5, 3, 9]]
LAYOUT_MESHES = [[4], [3], [1], [2, 2], [2, 3], [3, 1], [2, 2, 2], [2, 1, 3]]


def layout_cases():
    cases = []

    def add(shape, mesh, placements, order=None):
        cases.append({
            "id": "layout %s on %s: %s" % (shape, mesh_id(mesh), spec_id(placements, order)),
            "shape": shape, "mesh": mesh, "placements": placements, "shard_order": order,
        })

    for shape in LAYOUT_SHAPES:
        choices = [R, P()] + [S(d) for d in range(len(shape))]
        for mesh in LAYOUT_MESHES:
            combos = list(itertools.product(choices, repeat=len(mesh)))
            if len(mesh) == 3:
                combos = combos[::7]  # a deterministic sample of the 3-D products
            for c in combos:
                add(shape, mesh, list(c))
    # Partial of every reduce op (the layout is the whole tensor on every rank).
    for op in ["avg", "max", "min", "product"]:
        add([5, 6], [2, 3], [P(op), S(1)])
    # _StridedShard: FSDP over TP (split factor = the later mesh dim's size), uneven, and on a 3-D mesh.
    add([8, 4], [2, 2], [SS(0, 2), S(0)])
    add([12, 5], [2, 3], [SS(0, 3), S(0)])
    add([7, 5], [2, 3], [SS(0, 3), S(0)])
    add([11], [3, 2], [SS(0, 2), S(0)])
    add([16, 3], [2, 2, 2], [S(0), SS(0, 2), S(0)])
    add([9, 4], [2, 2], [SS(0, 3), S(0)])   # split factor no product of later mesh sizes
    add([6, 4], [2, 2], [SS(1, 2), S(0)])   # strided on a dim nothing else shards
    # Shard orders: one tensor dim split by later mesh dims first.
    add([7, 5], [2, 3], [S(0), S(0)], [[0, [1, 0]]])
    add([5, 7], [2, 2], [S(1), S(1)], [[1, [1, 0]]])
    add([10, 3], [2, 1, 3], [S(0), R, S(0)], [[0, [2, 0]]])
    add([13, 6], [2, 2, 2], [S(0), S(0), S(0)], [[0, [2, 0, 1]]])
    add([9, 8, 3], [2, 2, 2], [S(0), S(1), S(0)], [[0, [2, 0]], [1, [1]]])
    return cases


# ---- redistributes -------------------------------------------------------------------------------------------
def redistribute_cases():
    cases = []
    seen = set()

    def add(shape, mesh, src, dst, src_order=None, dst_order=None):
        cid = "redistribute %s on %s: %s -> %s" % (shape, mesh_id(mesh), spec_id(src, src_order),
                                                   spec_id(dst, dst_order))
        if cid in seen:
            return
        seen.add(cid)
        cases.append({
            "id": cid, "shape": shape, "mesh": mesh, "dtype": "f32",
            "src": {"placements": src, "shard_order": src_order},
            "dst": {"placements": dst, "shard_order": dst_order},
        })

    basic = [R, S(0), S(1), P()]
    for shape, mesh in [([7, 5], [4]), ([6, 4], [3]), ([8, 6], [2, 2]), ([7, 5], [2, 3]), ([6, 5], [2, 1])]:
        for src in itertools.product(basic, repeat=len(mesh)):
            for dst in itertools.product(basic, repeat=len(mesh)):
                if src != dst:
                    add(shape, mesh, list(src), list(dst))
    # 3-D mesh: a deterministic sample.
    three = list(itertools.product([R, S(0), S(1), P()], repeat=3))
    for i, src in enumerate(three[::5]):
        for dst in three[(3 * i) % 7::9]:
            if src != dst:
                add([8, 6, 4], [2, 2, 2], list(src), list(dst))
    # Meshes with a size-1 dim, Partial included (DTensor runs a size-1 mesh dim's transform as a no-op; the plan
    # must still end in the target): every pair on 1x4, a deterministic sample on 2x1x3, and the three cases
    # that once ended in an internal error.
    for src in itertools.product(basic, repeat=2):
        for dst in itertools.product(basic, repeat=2):
            if src != dst:
                add([7, 5], [1, 4], list(src), list(dst))
    three_1 = list(itertools.product(basic, repeat=3))
    pairs = [(a, b) for a in three_1 for b in three_1 if a != b]
    for src, dst in pairs[::11]:
        add([9, 6], [2, 1, 3], list(src), list(dst))
    add([9], [2, 1, 3], [S(0), R, S(0)], [R, P(), S(0)])
    add([9], [2, 1, 3], [R, P(), S(0)], [R, R, R])
    add([4, 6, 9], [2, 1, 3], [S(2), R, R], [S(1), P(), R])
    # Reduce ops other than sum, and changing the reduce op.
    for op in ["avg", "max", "min"]:
        add([8, 6], [2, 2], [P(op), S(0)], [R, S(0)])
        add([8, 6], [2, 2], [P(op), R], [S(1), R])
    add([8, 6], [2, 2], [P("sum"), R], [P("avg"), R])
    for op in ["avg", "max", "min", "product"]:  # Replicate -> Partial of other reduce ops (local, if at all)
        add([7, 5], [4], [R], [P(op)])
    add([8, 6], [4], [P("max")], [P("sum")])
    # _StridedShard sources and targets (FSDP over TP).
    add([8, 4], [2, 2], [SS(0, 2), S(0)], [R, R])
    add([8, 4], [2, 2], [SS(0, 2), S(0)], [R, S(0)])
    add([8, 4], [2, 2], [R, R], [SS(0, 2), S(0)])
    add([12, 6], [2, 3], [SS(0, 3), S(0)], [S(0), R])
    add([12, 6], [2, 3], [SS(0, 3), S(0)], [R, S(1)])
    add([9, 4], [2, 2], [SS(0, 3), S(0)], [R, R])
    # Non-default shard orders.
    add([8, 6], [2, 2], [S(0), S(0)], [R, R], [[0, [1, 0]]], None)
    add([8, 6], [2, 2], [S(0), S(0)], [S(0), S(0)], [[0, [1, 0]]], None)
    add([8, 6], [2, 2], [S(0), S(0)], [S(0), S(0)], None, [[0, [1, 0]]])
    add([8, 6], [2, 2], [S(0), S(0)], [R, S(0)], [[0, [1, 0]]], None)
    add([7, 5], [2, 3], [S(1), S(1)], [S(0), S(1)], [[1, [1, 0]]], None)
    add([8, 6, 4], [2, 2, 2], [S(0), S(0), S(0)], [S(1), R, S(0)], [[0, [2, 1, 0]]], None)
    return cases


# ---- sharding propagation ------------------------------------------------------------------------------------
# Op families core has rules for (core/rules/*): pointwise, matmul (and embedding), view, reduction, index,
# attention (softmax); output shapes written out.
def T(i):
    """Tensor input i in an args list."""
    return {"tensor": i}


OPS = [
    # (op, input shapes, input dtypes (None = f32), args, out shapes)
    ("aten.mm.default", [[8, 16], [16, 4]], None, [T(0), T(1)], [[8, 4]]),
    ("aten.bmm.default", [[4, 8, 6], [4, 6, 2]], None, [T(0), T(1)], [[4, 8, 2]]),
    ("aten.add.Tensor", [[8, 6], [8, 6]], None, [T(0), T(1)], [[8, 6]]),
    ("aten.add.Tensor", [[8, 6], [6]], None, [T(0), T(1)], [[8, 6]]),
    ("aten.mul.Tensor", [[8, 6], [8, 6]], None, [T(0), T(1)], [[8, 6]]),
    # Generic pointwise ops (no Partial carried through): unary, binary, and a property test giving bool.
    ("aten.acos.default", [[8, 6]], None, [T(0)], [[8, 6]]),
    ("aten.atan2.default", [[8, 6], [8, 6]], None, [T(0), T(1)], [[8, 6]]),
    ("aten.isfinite.default", [[8, 6]], None, [T(0)], [[8, 6]]),
    ("aten.sum.dim_IntList", [[8, 6, 4]], None, [T(0), [1]], [[8, 4]]),
    ("aten.mean.dim", [[8, 6, 4]], None, [T(0), [2], True], [[8, 6, 1]]),
    ("aten._softmax.default", [[8, 6]], None, [T(0), 1, False], [[8, 6]]),
    ("aten.t.default", [[8, 6]], None, [T(0)], [[6, 8]]),
    ("aten.transpose.int", [[4, 8, 6]], None, [T(0), 0, 2], [[6, 8, 4]]),
    ("aten.view.default", [[8, 6]], None, [T(0), [8, 2, 3]], [[8, 2, 3]]),
    ("aten.view.default", [[4, 2, 6]], None, [T(0), [8, 6]], [[8, 6]]),
    ("aten.cat.default", [[8, 6], [4, 6]], None, [[T(0), T(1)], 0], [[12, 6]]),
    ("aten.embedding.default", [[10, 4], [8]], [None, "i64"], [T(0), T(1)], [[8, 4]]),
    ("aten.gather.default", [[8, 6], [8, 3]], [None, "i64"], [T(0), 1, T(1)], [[8, 3]]),
    ("aten.index_select.default", [[8, 6], [3]], [None, "i64"], [T(0), 0, T(1)], [[3, 6]]),
]
# Families added since live in tests/dtensor/case_ops/<family>.py, each a list OPS in the same form (one file per
# family, so families grow apart); they are appended in file-name order.
def _family_ops():
    folder = os.path.join(HERE, "case_ops")
    out = []
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        if not name.endswith(".py") or name.startswith("_"):
            continue
        scope = {"T": T}
        with open(os.path.join(folder, name)) as f:
            exec(compile(f.read(), os.path.join(folder, name), "exec"), scope)
        out.extend(scope["OPS"])
    return out


OPS += _family_ops()
# Not here: factories (their output spec is the plan's choice: core takes a declared one) and _c10d_functional
# collectives (no DTensor op).


def mixed_partials(placements):
    ops = {p[len("Partial("):-1] for p in placements if p.startswith("Partial(")}
    return len(ops) > 1 and ops != {"sum", "avg"}


def rule_cases():
    cases = []
    for mesh in [[4], [2, 2]]:
        for entry in OPS:
            op, shapes, dtypes, args, out_shapes = entry[:5]
            # Optional 6th element: {"stride_1d": k, "stride_2d": k} keeps every k-th combination (ops with many
            # inputs would otherwise give thousands of cases); {"partials": ["sum", "max", "min"]} tries those;
            # {"kwargs": {"lr": 0.01, "grad_scale": T(5)}} the keyword arguments (tensors numbered after the
            # positional ones, as core and DTensor number them: args, then kwargs, depth first).
            sampling = entry[5] if len(entry) > 5 else {}
            dtypes = dtypes or [None] * len(shapes)
            per_input = []
            for shape, dt in zip(shapes, dtypes):
                # Index tensors are never Partial (DTensor has no partial integer index).
                # "partials" (6th element): the Partial reduce ops to try (default: sum only).
                opts = [R] + [S(d) for d in range(len(shape))] + \
                    ([] if dt == "i64" else [P(r) for r in sampling.get("partials", ["sum"])])
                per_input.append(list(itertools.product(opts, repeat=len(mesh))))
            # A placement list mixing Partial reduce ops (but sum with avg) is no DTensor (from_local refuses it,
            # as core's validateSpec does): not a question for the rule.
            combos = [c for c in itertools.product(*per_input) if not any(mixed_partials(p) for p in c)]
            combos = combos[::sampling.get("stride_2d" if len(mesh) == 2 else "stride_1d", 11 if len(mesh) == 2 else 1)]
            for combo in combos:
                inputs = [{"shape": s, "dtype": dt or "f32", "placements": list(p)}
                          for s, dt, p in zip(shapes, dtypes, combo)]
                cases.append({
                    "id": "rule %s on %s: %s" % (op, mesh_id(mesh), ", ".join(spec_id(list(p)) for p in combo)) +
                          ("" if sum(o[0] == op for o in OPS) == 1 else " %s" % shapes),
                    "op": op, "mesh": mesh, "inputs": inputs,
                    "args": args, "kwargs": sampling.get("kwargs", {}), "out_shapes": out_shapes,
                })
    return cases


def build():
    cases = {"format": FORMAT, "generator": "tests/dtensor/gen_cases.py",
             "layouts": layout_cases(), "redistributes": redistribute_cases(), "rules": rule_cases()}
    ids = [c["id"] for k in ("layouts", "redistributes", "rules") for c in cases[k]]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise SystemExit("gen_cases: duplicate ids: %s" % sorted(dup)[:5])
    return cases


def dump(cases):
    """One case per line (diffs stay readable), keys sorted."""
    lines = ["{"]
    for k in ("format", "generator"):
        lines.append("%s: %s," % (json.dumps(k), json.dumps(cases[k])))
    kinds = ("layouts", "redistributes", "rules")
    for n, k in enumerate(kinds):
        lines.append("%s: [" % json.dumps(k))
        items = cases[k]
        for i, c in enumerate(items):
            lines.append(" " + json.dumps(c, sort_keys=True, separators=(", ", ": ")) + ("," if i + 1 < len(items) else ""))
        lines.append("]" + ("," if n + 1 < len(kinds) else ""))
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="compare with the committed file instead of writing")
    ap.add_argument("-o", "--output", default=OUT)
    a = ap.parse_args()
    text = dump(build())
    if a.check:
        try:
            with open(a.output) as f:
                same = f.read() == text
        except OSError:
            same = False
        if not same:
            print("gen_cases: %s is not what tests/dtensor/gen_cases.py writes; rerun it" % a.output)
            return 1
        return 0
    with open(a.output, "w") as f:
        f.write(text)
    c = json.loads(text)
    print("gen_cases: %d layouts, %d redistributes, %d rules -> %s" % (
        len(c["layouts"]), len(c["redistributes"]), len(c["rules"]), a.output))
    return 0


if __name__ == "__main__":
    sys.exit(main())
