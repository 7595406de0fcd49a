#!/usr/bin/env python3
"""Writes tests/data/trace/: seed 1 (the first bug of README.md) as a user has it, a TORCH_TRACE log of an autoparallel
run, in the exact record format of torch/_logging (see docs/import-formats.md "TORCH_TRACE logs").

Inputs (already in the tree, hand-checked): tests/data/io/falcon_mqa_joint.print_readable.py (the joint
forward+backward graph of Falcon-7b multi-query attention reduced to one projection) and
tests/data/io/falcon_mqa_joint.autoparallel.json (the solver's solution for it on a 2x4 mesh). From them this
writes the four autoparallel artifacts:
  autoparallel_joint_graph             the joint graph text (string payload)
  autoparallel_sharding_optimizer_log  the same code, each node line ending "  # placement=<strategy> , cost=[...]"
  autoparallel_solution                the solution JSON (json payload, one line)
  autoparallel_parallel_graph          the applied graph on the tracing rank: rank-local shapes, fresh
                                       <op>_<n> names (t traced as permute), the planned transitions inserted as
                                       collectives before their consumers
mixed with records a reader must skip (dynamo_start, str interning, graph_dump, compilation_metrics, inductor
artifacts). The solution plans three transitions: slice_scatter's tangents_1 RS(1) -> RS(0) and index_put's
values sum_1 RS(1) -> RS(0) (all-to-alls on mesh dim 1), mm_1's view S(0)R -> RS(0) (all-gather on mesh dim 0,
then a local chunk on mesh dim 1). Seed 1's applied graph lacks the all-to-all before index_put.

Files:
  seed1_missing.log    rank 0; the applied graph has no collective on index_put's values path (seed 1)
  seed1_applied.log    rank 0; every planned transition applied
  seed1_ranks/         per-rank logs of the seed-1 run, ranks 0 and 5 (coordinates (0, 0) and (1, 1))
  seed1_tlparse/-_0_0_0/<artifact>.txt|.json   the same artifacts as tlparse writes them (seed 1)
  seed1_applied_only.txt                       the fixed applied graph alone
  falcon_export_no_transition.autoparallel.json  the export whose index_put takes values as RS(1), no transition
  damaged_md5.log, damaged_truncated.log, damaged_envelope.log   one defect each (the reader refuses them)

Run from anywhere: python3 samples/gen/trace_log.py (stdlib only; md5 by hashlib; output is deterministic).
"""
import copy
import hashlib
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
IO = os.path.join(ROOT, "tests", "data", "io")
OUT = os.path.join(ROOT, "tests", "data", "trace")

MESH = [2, 4]
GROUPS = ["1", "2"]  # group name of mesh dim 0 and 1 (nothing in the artifacts says so; sizes and use do)
PID = 81234

# ---------------------------------------------------------------- placements and local shapes


def parse_spec(s):
    """'RS(0)' -> [('R',), ('S', 0)]; 'P(sum)' -> ('P', 'sum')."""
    out = []
    i = 0
    while i < len(s):
        if s[i] == "R":
            out.append(("R",))
            i += 1
        elif s[i] in "SP":
            j = s.index(")", i)
            arg = s[i + 2:j]
            out.append(("S", int(arg)) if s[i] == "S" else ("P", arg))
            i = j + 1
        else:
            raise ValueError(s)
    assert len(out) == len(MESH), s
    return out


def spec_str(p):
    return "".join("R" if x[0] == "R" else f"S({x[1]})" if x[0] == "S" else f"P({x[1]})" for x in p)


def local_shape(shape, spec, coord):
    """torch.chunk semantics, mesh dims in order, nested on the same tensor dim."""
    shape = list(shape)
    for i, p in enumerate(parse_spec(spec) if isinstance(spec, str) else spec):
        if p[0] == "S":
            n, k = shape[p[1]], MESH[i]
            chunk = -(-n // k)
            shape[p[1]] = max(0, min(chunk, n - coord[i] * chunk))
    return shape


def strides(shape):
    out, acc = [], 1
    for s in reversed(shape):
        out.append(acc)
        acc *= max(s, 1)
    return list(reversed(out))


def ann(dtype, shape, device, stride=None):
    st = strides(shape) if stride is None else stride
    return f'"{dtype}[{", ".join(map(str, shape))}][{", ".join(map(str, st))}]{device}"'


# ---------------------------------------------------------------- the joint graph, parsed

SIG = re.compile(r'(\w+): "(\w+)\[([\d, ]*)\]\[[\d, ]*\](\S*?)"')
LINE = re.compile(r'^(\s*)(\w+)(?:: "(\w+)\[([\d, ]*)\](?:\[([\d, ]*)\])?(\S*?)")? = (.*?)(;  .* = None)?$')


def read_joint():
    text = open(os.path.join(IO, "falcon_mqa_joint.print_readable.py")).read()
    nodes = []  # {name, kind, dtype, shape, device, expr, comment}
    comment = None
    for line in text.split("\n"):
        s = line.strip()
        if s.startswith("def forward"):
            for m in SIG.finditer(s):
                nodes.append({"name": m.group(1), "kind": "placeholder", "dtype": m.group(2),
                              "shape": [int(x) for x in m.group(3).split(",") if x.strip()], "device": m.group(4)})
        elif s.startswith("#"):
            comment = s
        elif s.startswith("return"):
            nodes.append({"name": "output", "kind": "output", "expr": s[len("return "):]})
        elif s and not s.startswith("class"):
            m = LINE.match(line)
            assert m, line
            nodes.append({"name": m.group(2), "kind": "call", "dtype": m.group(3),
                          "shape": [int(x) for x in m.group(4).split(",") if x.strip()], "device": m.group(6),
                          "expr": m.group(7), "comment": comment, "stride": m.group(5)})
            comment = None
    return text, nodes


def op_of(expr):
    m = re.match(r"torch\.ops\.([\w.]+)\(", expr)
    return m.group(1) if m else None


# ---------------------------------------------------------------- the applied graph

BUILTIN_NAMES = {"sum", "pow", "slice", "max", "min", "abs", "all", "any"}


class Namer:
    """make_fx's fresh names: <base>, <base>_1, ...; bases shadowing Python builtins start at _1."""

    def __init__(self):
        self.count = {}

    def __call__(self, base):
        n = self.count.get(base, 0)
        if base in BUILTIN_NAMES and n == 0:
            n = 1
        self.count[base] = n + 1
        return base if n == 0 else f"{base}_{n}"


def applied_graph(joint, sol, coord, skip_transition=None):
    """The graph apply_sharding traces on the rank at `coord`. `skip_transition` = (consumer, input name) whose
    planned transition is not inserted (seed 1)."""
    by_name = {n["name"]: n for n in sol["nodes"]}
    namer = Namer()
    rename = {}
    local = {}   # joint name -> (dtype, local shape, device) of the value the applied graph holds
    lines = []
    sig = []
    for n in joint:
        if n["kind"] == "placeholder":
            shp = local_shape(n["shape"], by_name[n["name"]]["placement"], coord)
            rename[n["name"]] = n["name"]
            local[n["name"]] = (n["dtype"], shp, n["device"])
            sig.append(f'{n["name"]}: {ann(n["dtype"], shp, n["device"])}')
    last_comment = None
    for n in joint:
        if n["kind"] == "placeholder":
            continue
        if n["kind"] == "output":
            # A gradient ends in its parameter's placement: AOT's output order is the forward outputs, then one
            # value per primal (the non-tangent placeholders); where the solution leaves a gradient elsewhere
            # (mm_1's Partial), the apply pass redistributes it to the parameter's placement before returning.
            values = [v.strip() for v in n["expr"].strip("[]() ").split(",")]
            primals = [p for p in joint if p["kind"] == "placeholder" and not p["name"].startswith("tangents")]
            forward = len(values) - len(primals)
            out_subst = {}
            for i, prim in enumerate(primals):
                v = values[forward + i] if forward + i < len(values) else "None"
                if v == "None" or v not in by_name:
                    continue
                src, dst = by_name[v]["placement"], by_name[prim["name"]]["placement"]
                if src != dst:
                    out_subst[v] = emit_transition(lines, namer, rename[v], local[v], by_name[v]["shape"], src, dst,
                                                   coord, local)
            expr = re.sub(r"\b(\w+)\b", lambda m: out_subst.get(m.group(1), rename.get(m.group(1), m.group(1))),
                          n["expr"])
            lines.append(f"        return {expr}")
            continue
        s = by_name[n["name"]]
        if n["comment"] and n["comment"] != last_comment:
            lines.append("")
            lines.append("         " + n["comment"] if n["comment"].startswith("# File") else "        " + n["comment"])
            last_comment = n["comment"]
        # Planned transitions of this consumer, inserted just before it (once per consumer).
        arg_subst = {}
        for inp in s.get("inputs", []):
            src, dst = inp.get("src_placement"), inp.get("dst_placement")
            if not src or src == dst or (n["name"], inp["name"]) == skip_transition:
                continue
            arg_subst[inp["name"]] = emit_transition(lines, namer, rename[inp["name"]], local[inp["name"]],
                                                     by_name[inp["name"]]["shape"], src, dst, coord, local)
        op = op_of(n["expr"])
        if op is None:  # get_attr
            rename[n["name"]] = n["name"]
            shp = n["shape"]
            local[n["name"]] = (n["dtype"], shp, n["device"])
            lines.append(f'        {n["name"]}: {ann(n["dtype"], shp, n["device"])} = {n["expr"]}')
            continue
        expr = n["expr"]
        base = op.split(".")[1]
        if op == "aten.t.default":  # make_fx with decompositions traces t as permute
            expr = expr.replace("torch.ops.aten.t.default(", "torch.ops.aten.permute.default(")[:-1] + ", [1, 0])"
            base = "permute"
        shp = local_shape(n["shape"], s["placement"], coord)
        # Size arguments equal to the global output shape are the local shape on this rank.
        glob = "[" + ", ".join(map(str, n["shape"])) + "]"
        expr = expr.replace(glob, "[" + ", ".join(map(str, shp)) + "]")
        expr = re.sub(r"\b(\w+)\b", lambda m: arg_subst.get(m.group(1), rename.get(m.group(1), m.group(1)))
                      if m.group(1) in rename or m.group(1) in arg_subst else m.group(1), expr)
        new = namer(base)
        rename[n["name"]] = new
        local[n["name"]] = (n["dtype"], shp, n["device"])
        lines.append(f'        {new}: {ann(n["dtype"], shp, n["device"])} = {expr}')
    head = ["class GraphModule(torch.nn.Module):", f'    def forward(self, {", ".join(sig)}):']
    return "\n".join(head + lines) + "\n        \n"


def emit_transition(lines, namer, x, xmeta, gshape, src, dst, coord, local):
    """Appends the ops DTensor's redistribute traces for src -> dst (one mesh dim at a time, in mesh-dim order);
    returns the name of the value the consumer then reads."""
    dtype, _, device = xmeta
    cur = parse_spec(src)
    want = parse_spec(dst)

    def emit(base, expr, spec):
        name = namer(base)
        shp = local_shape(gshape, spec, coord)
        lines.append(f"        {name}: {ann(dtype, shp, device)} = {expr}")
        return name, shp

    for i in range(len(MESH)):
        a, b = cur[i], want[i]
        if a == b:
            continue
        nxt = list(cur)
        nxt[i] = b
        n, g = MESH[i], GROUPS[i]
        if a[0] == "S" and b[0] == "R":
            if a[1] == 0:
                y, _ = emit("all_gather_into_tensor",
                            f"torch.ops._c10d_functional.all_gather_into_tensor.default({x}, {n}, '{g}')", nxt)
                x, _ = emit("wait_tensor", f"torch.ops._c10d_functional.wait_tensor.default({y})", nxt)
            else:
                raise NotImplementedError("S(d) -> R with d != 0 is not in this plan")
        elif a[0] == "P" and b[0] == "R":
            y, _ = emit("all_reduce", f"torch.ops._c10d_functional.all_reduce.default({x}, '{a[1]}', '{g}')", nxt)
            x, _ = emit("wait_tensor", f"torch.ops._c10d_functional.wait_tensor.default({y})", nxt)
        elif a[0] == "S" and b[0] == "S":
            x, _ = emit("shard_dim_alltoall",
                        f"torch.ops._dtensor.shard_dim_alltoall.default({x}, {a[1]}, {b[1]}, '{g}')", nxt)
        elif a[0] == "R" and b[0] == "S":
            full = local_shape(gshape, cur, coord)[b[1]]
            chunk = -(-full // n)
            sp = namer("split")
            lines.append(f"        {sp} = torch.ops.aten.split.Tensor({x}, {chunk}{'' if b[1] == 0 else ', ' + str(b[1])})")
            x, _ = emit("getitem", f"{sp}[{coord[i]}]", nxt)
        else:
            raise NotImplementedError(f"{spec_str(cur)} -> {spec_str(nxt)}")
        cur = nxt
    return x


# ---------------------------------------------------------------- the optimizer log


def optimizer_log(joint, sol):
    """autoparallel's format_sharding_log (log_formatting.py): the graph's python_code(verbose=True) (annotations
    without strides, no class wrapper), each node's assignment line ending "  # placement=<strategy> , cost=[...]"
    (strategy = str(OpSpec): "(in, ...) -> out"; one (comm, compute, transition) per input), placeholders that
    have no line of their own as "    # <name>:  # placement=..." comments after the def line, then the totals."""
    by_name = {n["name"]: n for n in sol["nodes"]}
    text = open(os.path.join(IO, "falcon_mqa_joint.print_readable.py")).read()
    out = []
    tot = [0.0, 0.0, 0.0, 0.0]
    for line in text.split("\n"):
        if line.startswith("class ") or not line.strip():
            continue
        line = re.sub(r'(\[[\d, ]*\])\[[\d, ]*\]', r"\1", line[4:])  # python_code: no strides, one indent less
        if line.lstrip().startswith("def forward"):
            out.append(line)
            for n in sol["nodes"]:
                if n["op"] == "placeholder":
                    out.append(f"    # {n['name']}:  # placement={n['placement']} , cost=[(0.0, 0.0, 0.0)]")
            continue
        m = LINE.match(line)
        s = by_name.get(m.group(2)) if m and not line.strip().startswith(("#", "return")) else None
        if s is not None and s["op"] not in ("placeholder", "output"):
            ins = [i.get("dst_placement", "") for i in s.get("inputs", [])]
            strat = (f"({', '.join(ins)}) -> " if ins else "") + s["placement"]
            cc = s.get("compute_cost", 0.0)
            costs = [(i.get("comm_cost", 0.0), cc, i.get("transition_cost", 0.0)) for i in s.get("inputs", [])]
            costs = costs or [(0.0, cc, 0.0)]
            for c in costs:
                tot[1] += c[0]; tot[2] += c[1]; tot[3] += c[2]; tot[0] += sum(c)
            line = f"{line}  # placement={strat} , cost={costs}"
        out.append(line)
    return ("\n".join(out) + f"\ntotal_cost: {tot[0]:.2f}\n  comm_cost: {tot[1]:.2f}\n  compute_cost: {tot[2]:.2f}"
            f"\n  transition_cost: {tot[3]:.2f}\nViolated constraints: []")


# ---------------------------------------------------------------- the log records


class Log:
    """One process's TORCH_TRACE file: records `<prefix> <envelope JSON>` then TAB-prefixed payload lines."""

    def __init__(self, rank):
        self.rank = rank
        self.lines = []
        self.strings = {}
        self.sec = 2

    def intern(self, path):
        if path not in self.strings:
            self.strings[path] = len(self.strings)
            self.record("torch/_logging/structured.py", 28, {"str": [path, self.strings[path]]}, None, rank=False)
        return self.strings[path]

    def record(self, caller, line, env, payload, rank=True):
        self.sec += 1
        prefix = f"V1201 10:22:{self.sec % 60:02d}.{(self.sec * 137) % 1000000:06d} {PID} {caller}:{line}]"
        if rank and self.rank is not None:
            key = next(iter(env))
            env = {key: env[key], "rank": self.rank, **{k: v for k, v in env.items() if k != key}}
        if payload is not None:
            env["has_payload"] = hashlib.md5(payload.encode("utf-8")).hexdigest()
        self.lines.append(f"{prefix} {json.dumps(env)}")
        if payload is not None:
            self.lines.extend("\t" + p for p in payload.split("\n"))

    def stack(self, frames):
        return [{"line": ln, "name": fn, "filename": self.intern(f)} for f, ln, fn in frames]

    def text(self):
        return "\n".join(self.lines) + "\n"


USER_STACK = [("/home/user/train.py", 88, "<module>"), ("/home/user/train.py", 61, "main"),
              ("/usr/lib/python3/site-packages/autoparallel/api.py", 430, "optimize_placement")]


def write_log(rank, coord, joint_text, joint, sol, applied):
    log = Log(rank)
    # Records of other subsystems, skipped by a reader.
    frames = log.stack(USER_STACK[:2])
    log.record("torch/_dynamo/convert_frame.py", 1012, {"dynamo_start": {"stack": frames}, "frame_id": 0,
                                                       "frame_compile_id": 0, "attempt": 0}, None)
    log.record("torch/_dynamo/output_graph.py", 1450, {"dynamo_output_graph": {"sizes": {"l_x_": [16, 128, 4672]}},
                                                       "frame_id": 0, "frame_compile_id": 0, "attempt": 0},
               "class GraphModule(torch.nn.Module):\n    def forward(self, L_x_: \"bf16[16, 128, 4672]\"):\n"
               "        l_x_ = L_x_\n        return (l_x_,)\n")
    log.record("torch/_functorch/_aot_autograd/dispatch_and_compile_graph.py", 222,
               {"graph_dump": {"name": "aot_joint_graph"}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0},
               joint_text)
    st = log.stack(USER_STACK)
    api = "autoparallel/api.py"
    log.record(api, 212, {"artifact": {"name": "autoparallel_joint_graph", "encoding": "string"}, "stack": st},
               joint_text)
    log.record("torch/_dynamo/utils.py", 1350, {"compilation_metrics": {"compile_id": "0/0", "entire_frame_compile_time_s": 1.25,
                                                                        "fail_type": None}, "frame_id": 0,
                                               "frame_compile_id": 0, "attempt": 0}, None)
    log.record(api, 409, {"artifact": {"name": "autoparallel_sharding_optimizer_log", "encoding": "string"},
                          "stack": st}, optimizer_log(joint, sol))
    log.record(api, 430, {"artifact": {"name": "autoparallel_solution", "encoding": "json"}, "stack": st},
               json.dumps(sol))
    log.record(api, 481, {"artifact": {"name": "autoparallel_parallel_graph", "encoding": "string"}, "stack": st},
               applied)
    log.record("torch/_inductor/graph.py", 2120, {"inductor_output_code": {"filename": "/tmp/torchinductor_user/ab/cabc.py"},
                                                 "frame_id": 0, "frame_compile_id": 0, "attempt": 0},
               "# AOT ID: ['0_forward']\nfrom ctypes import c_void_p, c_long, c_int\nimport torch\n")
    log.record("torch/_inductor/compile_fx.py", 880, {"artifact": {"name": "fx_graph_cache_miss", "encoding": "json"},
                                                     "frame_id": 0, "frame_compile_id": 0, "attempt": 0},
               json.dumps({"key": "f2x4c", "components": ["[abc] gm: <lambda>()"], "cache_event_time": 1733048522}))
    return log.text()


def main():
    os.makedirs(OUT, exist_ok=True)
    joint_text, joint = read_joint()
    sol = json.load(open(os.path.join(IO, "falcon_mqa_joint.autoparallel.json")))
    seed1 = ("index_put", "sum_1")

    def write(rel, text):
        path = os.path.join(OUT, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    missing = applied_graph(joint, sol, (0, 0), skip_transition=seed1)
    fixed = applied_graph(joint, sol, (0, 0))
    write("seed1_missing.log", write_log(0, (0, 0), joint_text, joint, sol, missing))
    write("seed1_applied.log", write_log(0, (0, 0), joint_text, joint, sol, fixed))
    write("seed1_applied_only.txt", fixed)
    for f in os.listdir(os.path.join(OUT, "seed1_ranks")) if os.path.isdir(os.path.join(OUT, "seed1_ranks")) else []:
        os.remove(os.path.join(OUT, "seed1_ranks", f))
    for rank, coord, tag in [(0, (0, 0), "4f1c2a"), (5, (1, 1), "9d03be")]:
        write(f"seed1_ranks/dedicated_log_torch_trace_rank_{rank}_{tag}.log",
              write_log(rank, coord, joint_text, joint, sol, applied_graph(joint, sol, coord, seed1)))
    tl = "seed1_tlparse/-_0_0_0/"
    write(tl + "autoparallel_joint_graph.txt", joint_text)
    write(tl + "autoparallel_sharding_optimizer_log.txt", optimizer_log(joint, sol))
    write(tl + "autoparallel_solution.json", json.dumps(sol))
    write(tl + "autoparallel_parallel_graph.txt", missing)

    # The export whose solver hands index_put values as RS(1) with no transition.
    bad = copy.deepcopy(sol)
    for n in bad["nodes"]:
        if n["name"] == "index_put":
            for i in n["inputs"]:
                if i["name"] == "sum_1":
                    i["dst_placement"] = "RS(1)"
                    i.pop("transition_cost", None)
            n["transition_cost"] = 0.0
    bad["summary"]["transition"] = 0.0
    bad["summary"]["total"] = bad["summary"]["total"] - 1.0
    write("falcon_export_no_transition.autoparallel.json", json.dumps(bad, indent=1) + "\n")

    # Damaged logs: one defect each, in the solution record (line numbers are what the reader must name).
    good = open(os.path.join(OUT, "seed1_missing.log")).read().split("\n")
    sol_line = next(i for i, l in enumerate(good) if '"autoparallel_solution"' in l)
    d = list(good)
    d[sol_line + 1] = d[sol_line + 1].replace('"RS(1)"', '"RS(0)"', 1)  # payload edited after the md5 was taken
    write("damaged_md5.log", "\n".join(d))
    graph_line = next(i for i, l in enumerate(good) if '"autoparallel_parallel_graph"' in l)
    write("damaged_truncated.log", "\n".join(good[:graph_line + 12]) + "\n")  # the copy stopped mid-payload
    d = list(good)
    d[sol_line] = d[sol_line][:-3]  # envelope JSON cut short
    write("damaged_envelope.log", "\n".join(d))


if __name__ == "__main__":
    main()
