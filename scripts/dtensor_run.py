#!/usr/bin/env python3
"""DTensor itself executes every sample plan: the losses `shardscope run` is compared with (issue 26).

    python3 scripts/dtensor_run.py -o OUT.json [PLAN.plan.json ...] [--timeout SECONDS]

Run inside the sid root (scripts/dev_root.sh sid --run ...; PyTorch 2.14.1, CPU only); scripts/dtensor_run.sh is
the entry point that writes tests/dtensor/run_2.14.json only when it is whole. Without PLAN arguments it runs every
samples/*.plan.json, plus "falcon_index_put_2d+fix" (seed 1 with the all_to_all `shardscope fix` inserts).

For each plan, mirroring runner/run_data.cpp and docs/runner.md:
- Sizes: seed 1 (falcon_index_put_2d) runs at --scale 4, as the runner tests run it; scale_plan() is a port of
  runner/plan_scale.cpp (sizes mapped by value; merged/split view dims take the product of their scaled parts).
- Data: every placeholder's whole tensor is placeholderData's recipe: seed s = seed*1000003 + n*1009 (+ (batch+1)*7919
  unless a param/buffer), torch.Generator().manual_seed(s), randn in float64 (/sqrt(last dim) for params) cast to
  float32; integers randint(0, integerBound) (a port of integerBound); bools randint(0, 2).
  Every floating dtype computes in float32 (the runner's default --dtype f32; dtype arguments too).
- Reference: the whole graph on whole tensors (plain torch); compared with `shardscope run --json`'s reference.
- Sharded: world size = mesh size gloo processes (fork, TCPStore on 127.0.0.1), init_device_mesh("cpu", shape). Each
  placeholder is DTensor.from_local(the piece the runner gives this rank, mesh, placements of its spec, shape=global,
  stride=contiguous). An AutoSP-tagged input is sliced along its tag's dim (bare key: dim 1) into sp_size pieces
  whatever its spec says, as the runner does; to DTensor it is said as what it is: Shard(tag dim) on the 1-D mesh
  (variant "tag"). Where that differs from the spec, the plan is also run believing the spec (variant "spec":
  the same piece declared with the spec's placements and the global shape, which DTensor does not check).
  Factories (no tensor input) become DTensors of their output spec (the runner's local shape of the spec).
  Every op runs as torch.ops.<ns>.<op>.<overload> on DTensors, in graph order; the plan's redistributes are
  .redistribute(mesh, to) on their edges; everything else DTensor decides itself (its implicit redistributes are
  recorded). prims.convert_element_type runs as aten._to_copy (as in the runner); scaled_dot_product_attention
  runs under the MATH backend (DTensor 2.14 has no strategy for the CPU flash kernel; the note says so).
- Per batch: each rank's loss = the loss node's .to_local(); combined = docs/runner.md's rule on the plan's loss
  spec (Partial(sum) mesh dims summed, every other mesh dim averaged); the reference; DTensor's own full_tensor()
  of the loss; the largest relative error of the other replicated outputs (a joint graph's gradients).
Forward only: gradients in the plans are the graph's own backward nodes, which run as ops like any other.
Exit 0 when OUT was written (a plan DTensor fails on is an answer: its "error"), 2 on bad arguments, 3 without torch.
"""
import argparse
import json
import math
import os
import socket
import sys
import tempfile
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FORMAT = "shardscope-dtensor-run/1"
SCALES = {"falcon_index_put_2d": 4}  # as tests/runner runs seed 1 (docs/runner.md, "--scale N")
FALCON_FIX = {"node": "index_put", "input": 2, "from": "RS(1)", "to": "RS(0)"}  # what `shardscope fix` inserts
FLOAT_DTYPES = ("f32", "f16", "bf16", "f64")
INT_DTYPES = {"i64": "int64", "i32": "int32", "i16": "int16", "i8": "int8", "u8": "uint8", "b8": "bool"}

# ---- the plan (no torch) -------------------------------------------------------------------------------------


def parse_spec(text, ndim):
    """Mesh-centric short spec ('S(0)R', 'P(sum)S(1)', 'R') -> [('S', d) | ('R',) | ('P', op)], one per mesh dim.
    Strided shards and shard-order brackets are not needed by the samples: refused loudly."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "R":
            out.append(("R",))
            i += 1
        elif c in "SP" and i + 1 < len(text) and text[i + 1] == "(":
            j = text.index(")", i)
            body = text[i + 2:j]
            out.append(("S", int(body)) if c == "S" else ("P", body))
            i = j + 1
        else:
            raise ValueError("spec %r: unsupported at column %d" % (text, i + 1))
    if len(out) != ndim:
        raise ValueError("spec %r has %d placements for a %d-dim mesh" % (text, len(out), ndim))
    return out


class Plan:
    """The parts of a native plan the run needs, with node indices as the runner's Graph numbers them (file order)."""

    def __init__(self, doc):
        self.doc = doc
        self.name = doc.get("name", "")
        self.mesh = list(doc["mesh"]["shape"])
        run = doc.get("run", {})
        self.seed = int(run.get("seed", 0))
        self.loss = run.get("loss")
        self.batches = int(run.get("batches", 3))
        self.rtol = float(run.get("rtol", 1e-4))
        self.sp_size = int(run.get("sp_size", 0))
        self.nodes = doc["nodes"]
        self.index = {n["name"]: k for k, n in enumerate(self.nodes)}
        self.redistributes = {(r["node"], int(r["input"])): r for r in doc.get("redistributes", [])}

    def meta(self, name, i=0):
        m = self.nodes[self.index[name]].get("meta") or []
        return m[i] if i < len(m) else None

    def spec(self, name, i=0):
        s = self.nodes[self.index[name]].get("spec") or []
        return parse_spec(s[i], len(self.mesh)) if i < len(s) and s[i] is not None else None

    def call_args(self, node):
        """(positional args, [(kwarg name, value)] in call order): kwarg_order, else key order (the writer's)."""
        kwargs = node.get("kwargs") or {}
        order = node.get("kwarg_order") or sorted(kwargs)
        return node.get("args") or [], [(k, kwargs[k]) for k in order]

    def tensor_refs(self, node):
        """The node's tensor inputs in input-index order (args then kwargs, depth-first, lists included)."""
        refs = []

        def walk(a):
            if isinstance(a, dict) and "t" in a:
                refs.append(a)
            elif isinstance(a, list):
                for x in a:
                    walk(x)

        args, kwargs = self.call_args(node)
        for a in args:
            walk(a)
        for _, v in kwargs:
            walk(v)
        return refs

    def users(self, name):
        """(user node index, input index) for each tensor input reading `name`, in graph order."""
        out = []
        for u, node in enumerate(self.nodes):
            for k, ref in enumerate(self.tensor_refs(node)):
                if ref["t"] == name:
                    out.append((u, k))
        return out

    def tag_dim(self, node):
        """The dim an AutoSP tag slices (a bare key: dim 1, AutoSP's default), or None without a tag."""
        tag = node.get("tag")
        if tag is None:
            return None
        if isinstance(tag, dict) and tag.get("seq_dim") is not None:
            return int(tag["seq_dim"])
        return 1


def op_name(node):
    """'aten.index_put.default' -> 'index_put' (the runner's Node::opName)."""
    parts = node["op"].split(".")
    return parts[1] if len(parts) >= 2 else parts[0]


def integer_bound(plan, n, depth=0):
    """Port of runner/run_data.cpp integerBound: exclusive upper bound for an integer input, from its consumer."""
    name = plan.nodes[n]["name"]
    for user, inp in plan.users(name):
        u = plan.nodes[user]
        op = op_name(u)
        ins = plan.tensor_refs(u)
        args = u.get("args") or []

        def shape_of(k):
            if k >= len(ins):
                return None
            m = plan.meta(ins[k]["t"], ins[k].get("i", 0))
            return m["shape"] if m else None

        if op == "embedding" and inp == 1:
            s = shape_of(0)
            if s:
                return s[0]
        elif (op.startswith("nll_loss") or op == "cross_entropy_loss") and inp == 1:
            s = shape_of(0)
            if s:
                return s[1] if len(s) >= 2 else s[0]
        elif op in ("index", "index_put", "index_put_", "_index_put_impl_") and inp >= 1 and len(args) > 1 and \
                isinstance(args[1], list):
            seen = 0
            for pos, item in enumerate(args[1]):
                if not (isinstance(item, dict) and "t" in item):
                    continue
                seen += 1
                if seen == inp:
                    s = shape_of(0)
                    if s is not None and pos < len(s):
                        return s[pos]
        elif op in ("gather", "scatter") and inp == 1 and len(args) > 1 and isinstance(args[1], int):
            s = shape_of(0)
            if s:
                d = args[1] + len(s) if args[1] < 0 else args[1]
                if 0 <= d < len(s):
                    return s[d]
        elif depth < 4 and op in ("view", "reshape", "_unsafe_view", "clone", "_to_copy", "slice", "unsqueeze",
                                  "squeeze", "permute", "transpose", "t", "contiguous"):
            b = integer_bound(plan, user, depth + 1)
            if b > 0:
                return b
    return 2 if depth == 0 else 0


def view_groups(a, b):
    """Port of plan_scale.cpp viewGroups: dims whose products match between a view's input and output shapes."""
    groups, i, j = [], 0, 0
    while i < len(a) or j < len(b):
        gi, go, pi, po = [], [], 1, 1
        if i < len(a):
            pi *= a[i]; gi.append(a[i]); i += 1
        if j < len(b):
            po *= b[j]; go.append(b[j]); j += 1
        while pi != po:
            if pi < po and i < len(a):
                pi *= a[i]; gi.append(a[i]); i += 1
            elif j < len(b):
                po *= b[j]; go.append(b[j]); j += 1
            elif i < len(a):
                pi *= a[i]; gi.append(a[i]); i += 1
            else:
                break
        groups.append((gi, go))
    return groups


SHAPE_OPS = ("view", "reshape", "_unsafe_view", "expand", "full", "zeros", "ones", "empty", "empty_strided",
             "new_zeros", "new_ones", "new_full", "new_empty", "rand", "randn")


def scale_plan(doc, factor):
    """Port of runner/plan_scale.cpp scalePlan (the runner's --scale N) on the plan JSON; returns a new document."""
    doc = json.loads(json.dumps(doc))
    if factor == 1:
        return doc
    plan = Plan(doc)
    scaled = {}

    def f(v):
        if v in scaled:
            return scaled[v]
        return v // factor if v > 1 and v % factor == 0 else v

    def product(dims):
        p = 1
        for d in dims:
            p *= f(d)
        return p

    edges = []
    for node in plan.nodes:
        if op_name(node) not in ("view", "reshape", "_unsafe_view") or not node.get("meta") or not node["meta"][0]:
            continue
        ins = plan.tensor_refs(node)
        if not ins:
            continue
        m = plan.meta(ins[0]["t"], ins[0].get("i", 0))
        if not m:
            continue
        edges += [(node["name"], g) for g in view_groups(m["shape"], node["meta"][0]["shape"])]
    for _ in range(3):
        for _, (gi, go) in edges:
            if len(gi) > 1 and len(go) == 1:
                scaled[go[0]] = product(gi)
            elif len(gi) == 1 and len(go) > 1:
                scaled[gi[0]] = product(go)
    for name, (gi, go) in edges:
        if product(gi) != product(go):
            raise ValueError("--scale %d cannot keep node %r consistent" % (factor, name))
    for node in doc["nodes"]:
        for m in node.get("meta") or []:
            if m:
                m["shape"] = [f(d) for d in m["shape"]]
        if op_name(node) not in SHAPE_OPS or not node.get("meta") or not node["meta"][0] or node["op"] == "placeholder":
            continue
        out = node["meta"][0]["shape"]

        def fix(a):
            if isinstance(a, list) and len(a) == len(out):
                for k, x in enumerate(a):
                    if isinstance(x, int) and not isinstance(x, bool) and x != -1:
                        a[k] = out[k]

        for a in node.get("args") or []:
            fix(a)
        for k in ("size", "shape"):
            if k in (node.get("kwargs") or {}):
                fix(node["kwargs"][k])
    return doc


def chunk_sizes(n, k):
    """core/model/layout.cpp chunkSizes: torch.chunk's piece sizes (ceil, the last ones short or empty)."""
    c = -(-n // k) if k > 0 else 0
    out, left = [], n
    for _ in range(k):
        out.append(min(c, left))
        left -= out[-1]
    return out


def coord_of(rank, shape):
    coord = []
    for s in reversed(shape):
        coord.append(rank % s)
        rank //= s
    return list(reversed(coord))


def combine(losses, mesh, loss_spec):
    """docs/runner.md: Partial(sum) mesh dims are summed, every other mesh dim averaged (rank-major row order)."""
    vals = list(losses)
    shape = list(mesh)
    for d in reversed(range(len(shape))):  # fold the last mesh dim first: ranks are row-major
        size = shape[d]
        is_sum = loss_spec is not None and loss_spec[d][0] == "P" and loss_spec[d][1] == "sum"
        vals = [sum(vals[k * size:(k + 1) * size]) / (1 if is_sum else size) for k in range(len(vals) // size)]
    return vals[0]


# ---- torch -----------------------------------------------------------------------------------------------------
torch = None
DT = None  # torch.distributed.tensor names


def load_torch():
    global torch, DT
    import torch as t
    torch = t
    import torch.distributed.tensor as dt
    DT = dt


def compute_dtype(code):
    """runner computeType with --dtype f32: every floating dtype (and unknown) computes in float32."""
    if code in INT_DTYPES:
        return getattr(torch, INT_DTYPES[code])
    return torch.float32


def placeholder_data(plan, n, batch):
    """runner/run_data.cpp placeholderData: the whole tensor of placeholder node n in `batch`."""
    node = plan.nodes[n]
    m = node["meta"][0]
    param = node.get("placeholder_kind") in ("param", "buffer")
    s = (plan.seed * 1000003 + n * 1009 + (0 if param else (batch + 1) * 7919)) % (1 << 64)
    gen = torch.Generator().manual_seed(s)
    dtype = m.get("dtype", "f32")
    if dtype in FLOAT_DTYPES or dtype not in INT_DTYPES:
        t = torch.randn(m["shape"], generator=gen, dtype=torch.float64)
        if param:
            fan_in = max(m["shape"][-1], 1) if m["shape"] else 1
            t = t / math.sqrt(float(fan_in))
        return t.to(torch.float32)
    if dtype == "b8":
        return torch.randint(0, 2, m["shape"], generator=gen, dtype=torch.long).to(torch.bool)
    bound = max(integer_bound(plan, n), 1)
    return torch.randint(0, bound, m["shape"], generator=gen, dtype=torch.long).to(compute_dtype(dtype))


def resolve_op(target):
    """FX target text -> (callable, note). prims.convert_element_type runs as aten._to_copy (the runner's choice)."""
    if target == "prims.convert_element_type.default":
        return (lambda x, dtype: torch.ops.aten._to_copy.default(x, dtype=dtype)), None
    ns, name, overload = target.split(".")
    return getattr(getattr(getattr(torch.ops, ns), name), overload), None


def symbol(text):
    obj = torch
    for part in text.replace("torch.", "", 1).split("."):
        obj = getattr(obj, part)
    return obj


class Executor:
    """Runs a plan's nodes on whole tensors (mesh None) or on DTensors of this process's rank."""

    def __init__(self, plan, mesh=None, variant="tag"):
        self.plan, self.mesh, self.variant = plan, mesh, variant
        self.implicit = []      # DTensor's own redistributes: {"node", "from", "to"}
        self.placement_diffs = []  # nodes whose DTensor output placements differ from the plan's spec
        self.notes = set()
        self.current = None

    # -- placements
    def placements(self, spec):
        out = []
        for p in spec:
            if p[0] == "R":
                out.append(DT.Replicate())
            elif p[0] == "S":
                out.append(DT.Shard(p[1]))
            else:
                out.append(DT.Partial(p[1]))
        return tuple(out)

    def local_piece(self, whole, spec, zero_partial=True):
        """This rank's piece of `whole` under `spec`: DTensor's layout (core's, per the oracle); Partial(sum) mesh
        dims hold the value on coordinate 0 and zeros elsewhere (run_data.cpp localPiece)."""
        from torch.distributed.tensor._utils import compute_local_shape_and_global_offset
        pl = self.placements(spec)
        shape, offset = compute_local_shape_and_global_offset(whole.shape, self.mesh, pl)
        t = whole
        for d, (size, off) in enumerate(zip(shape, offset)):
            t = t.narrow(d, min(off, whole.shape[d]), size)
        coord = self.mesh.get_coordinate()
        if zero_partial:
            for d, p in enumerate(spec):
                if p[0] == "P" and p[1] == "sum" and coord[d] != 0:
                    return torch.zeros_like(t).contiguous()
        return t.contiguous().clone()

    def to_dtensor(self, local, placements, shape):
        stride, acc = [], 1
        for s in reversed(shape):
            stride.append(acc)
            acc *= max(1, s)
        return DT.DTensor.from_local(local, self.mesh, placements, run_check=False, shape=torch.Size(shape),
                                     stride=tuple(reversed(stride)))

    def placeholder(self, n, whole):
        if self.mesh is None:
            return whole
        plan, node = self.plan, self.plan.nodes[n]
        spec = plan.spec(node["name"]) or [("R",)] * len(plan.mesh)
        dim = plan.tag_dim(node)
        if dim is None:
            return self.to_dtensor(self.local_piece(whole, spec), self.placements(spec), list(whole.shape))
        # AutoSP: sliced along the tag's dim into sp_size pieces whatever the spec says (run_data.cpp localPiece).
        if len(plan.mesh) != 1:
            raise RuntimeError("AutoSP tags on a %d-dim mesh: not expressible here" % len(plan.mesh))
        sp = plan.sp_size if plan.sp_size > 0 else plan.mesh[0]
        if sp != plan.mesh[0]:
            raise RuntimeError("sp_size %d on a mesh of %d: not expressible here" % (sp, plan.mesh[0]))
        sizes = chunk_sizes(whole.shape[dim], sp)
        idx = self.mesh.get_coordinate()[0] % sp
        off = sum(sizes[:idx])
        piece = whole.narrow(dim, min(off, whole.shape[dim]), sizes[idx]).contiguous().clone()
        pl = (DT.Shard(dim),) if self.variant == "tag" else self.placements(spec)
        return self.to_dtensor(piece, pl, list(whole.shape))

    # -- arguments
    def value(self, values, ref, whole_tuple=False):
        v = values[ref["t"]]
        if isinstance(v, (tuple, list)) and not whole_tuple:
            return v[ref.get("i", 0)]
        return v

    def convert(self, a, values, node, counter, whole_tuple=False):
        if isinstance(a, list):
            return [self.convert(x, values, node, counter) for x in a]
        if isinstance(a, dict):
            if "t" in a:
                k = counter[0]
                counter[0] += 1
                v = self.value(values, a, whole_tuple)
                r = self.plan.redistributes.get((node["name"], k))
                if r is not None and self.mesh is not None:
                    want = parse_spec(r["from"], len(self.plan.mesh))
                    if tuple(v.placements) != self.placements(want):
                        self.notes.add("%s input %d: DTensor has %s where the redistribute starts from %s" % (
                            node["name"], k, placement_text(v.placements), r["from"]))
                    v = v.redistribute(self.mesh, self.placements(parse_spec(r["to"], len(self.plan.mesh))))
                return v
            if "dtype" in a:
                return compute_dtype(a["dtype"])
            if "device" in a:
                return torch.device("cpu")
            if "sym" in a:
                return symbol(a["sym"])
            if "float" in a:
                return float(a["float"])
            raise ValueError("argument %r" % (a,))
        return a

    def call(self, n, values):
        node = self.plan.nodes[n]
        self.current = node["name"]
        args, kwargs = self.plan.call_args(node)
        counter = [0]
        if node["op"] == "operator.getitem":
            seq = self.convert(args[0], values, node, counter, whole_tuple=True)
            return seq[args[1]]
        a = [self.convert(x, values, node, counter) for x in args]
        kw = {k: self.convert(v, values, node, counter) for k, v in kwargs}
        fn, _ = resolve_op(node["op"])
        has_dtensor = any(isinstance(x, DT.DTensor) for x in _leaves(a) + _leaves(list(kw.values())))
        if self.mesh is not None and not has_dtensor and counter[0] == 0:
            # A factory: DTensor never sees it; the runner makes the local shape of its output spec.
            whole = fn(*a, **kw)
            spec = self.plan.spec(node["name"]) or [("R",)] * len(self.plan.mesh)
            return self.to_dtensor(self.local_piece(whole, spec, zero_partial=False), self.placements(spec),
                                   list(whole.shape))
        if node["op"] == "aten.scaled_dot_product_attention.default" and self.mesh is not None:
            # DTensor has no strategy for the CPU flash kernel the default backend picks; the MATH backend is
            # ATen's own decomposition into matmul/softmax, whose causal mask is a plain tensor: DTensor's
            # implicit_replication() takes it as Replicate.
            from torch.distributed.tensor.experimental import implicit_replication
            from torch.nn.attention import SDPBackend, sdpa_kernel
            self.notes.add("scaled_dot_product_attention ran under SDPBackend.MATH with implicit_replication() (its "
                           "causal mask is a plain tensor): DTensor %s has no sharding strategy for "
                           "aten._scaled_dot_product_flash_attention_for_cpu" % torch.__version__)
            with sdpa_kernel([SDPBackend.MATH]), implicit_replication():
                return fn(*a, **kw)
        return fn(*a, **kw)

    def run(self, batch, wholes):
        values = {}
        for n, node in enumerate(self.plan.nodes):
            if node["op"] == "placeholder":
                values[node["name"]] = self.placeholder(n, wholes[n])
            elif node["op"] == "output":
                values[node["name"]] = node
            else:
                values[node["name"]] = self.call(n, values)
                if self.mesh is not None and batch == 0:
                    self.compare_placements(node, values[node["name"]])
        return values

    def compare_placements(self, node, v):
        outs = v if isinstance(v, (tuple, list)) else [v]
        for i, o in enumerate(outs):
            spec = self.plan.spec(node["name"], i) if node.get("spec") else None
            if spec is None or not isinstance(o, DT.DTensor):
                continue
            if tuple(o.placements) != self.placements(spec):
                self.placement_diffs.append({"node": node["name"], "output": i,
                                             "plan": node["spec"][i], "dtensor": placement_text(o.placements)})


def _leaves(x):
    out = []
    for v in x:
        if isinstance(v, (list, tuple)):
            out += _leaves(v)
        else:
            out.append(v)
    return out


def placement_text(pl):
    """DTensor placements -> the plan's short notation ('S(0)R', 'P(sum)')."""
    out = ""
    for p in pl:
        if type(p).__name__ == "_StridedShard":
            out += "_S(%d, %d)" % (p.dim, p.split_factor)
        elif p.is_shard():
            out += "S(%d)" % p.dim
        elif p.is_replicate():
            out += "R"
        else:
            out += "P(%s)" % getattr(p, "reduce_op", "sum")
    return out


def short_error(e):
    return ("%s: %s" % (type(e).__name__, e)).splitlines()[0][:400]


def loss_value(v):
    return float(v.to(torch.float64).item())


def replicated_outputs(plan):
    """run_data.cpp comparableOutputs: output-node inputs other than the loss, floating, whose final spec (after the
    output edge's redistribute, if any) is fully replicated: (input index, ref, target spec or None)."""
    out = []
    onode = next((n for n in plan.nodes if n["op"] == "output"), None)
    if onode is None:
        return out
    for k, ref in enumerate(plan.tensor_refs(onode)):
        if ref["t"] == plan.loss:
            continue
        m = plan.meta(ref["t"], ref.get("i", 0))
        if not m or m.get("dtype") not in FLOAT_DTYPES:
            continue
        r = plan.redistributes.get(("output", k))
        spec = parse_spec(r["to"], len(plan.mesh)) if r else plan.spec(ref["t"], ref.get("i", 0))
        if spec is not None and all(p[0] == "R" for p in spec):
            out.append((k, ref, r))
    return out


def rel_error(a, r):
    a, r = a.to(torch.float64), r.to(torch.float64)
    if a.shape != r.shape:
        return float("inf")
    ref = r.norm().item()
    diff = (a - r).norm().item()
    return diff / ref if ref > 0 else diff


# ---- one plan ----------------------------------------------------------------------------------------------------
def make_wholes(plan):
    """Per batch, node index -> whole placeholder tensor (made once in the parent, inherited by the forked ranks)."""
    return [{n: placeholder_data(plan, n, b) for n, node in enumerate(plan.nodes) if node["op"] == "placeholder"}
            for b in range(plan.batches)]


def run_reference(plan, wholes):
    ex = Executor(plan)
    losses, outputs = [], []
    for b in range(plan.batches):
        vals = ex.run(b, wholes[b])
        losses.append(loss_value(ex.value(vals, {"t": plan.loss})))
        outputs.append({k: ex.value(vals, ref).detach().clone() for k, ref, _ in replicated_outputs(plan)})
    return losses, outputs


JOB = {}  # set by the parent before forking: plan, wholes, reference outputs, variant, out dir


def rank_main(rank, world, port):
    """One gloo process: every batch of JOB's plan on this rank's DTensors; writes OUTDIR/rank<r>.json."""
    import datetime
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    plan, wholes, ref_outputs = JOB["plan"], JOB["wholes"], JOB["ref_outputs"]
    torch.set_num_threads(1)
    res = {"rank": rank, "losses": [], "full": [], "loss_placements": None, "output_errors": []}
    ex = None
    try:
        store = dist.TCPStore("127.0.0.1", port, world, rank == 0, use_libuv=False,
                              timeout=datetime.timedelta(seconds=60))
        dist.init_process_group("gloo", store=store, rank=rank, world_size=world,
                                timeout=datetime.timedelta(seconds=60))
        mesh = init_device_mesh("cpu", tuple(plan.mesh))
        ex = Executor(plan, mesh, JOB["variant"])
        import torch.distributed.tensor._dispatch as dispatch
        orig = dispatch.redistribute_local_tensor

        def spy(local, current, target, *a, **k):  # DTensor's own (implicit) redistributes, op by op
            if tuple(current.placements) != tuple(target.placements):
                ex.implicit.append({"node": ex.current, "from": placement_text(current.placements),
                                    "to": placement_text(target.placements)})
            return orig(local, current, target, *a, **k)

        dispatch.redistribute_local_tensor = spy
        for b in range(plan.batches):
            n_implicit = len(ex.implicit)
            vals = ex.run(b, wholes[b])
            loss = ex.value(vals, {"t": plan.loss})
            res["losses"].append(loss_value(loss.to_local()))
            res["full"].append(loss_value(loss.full_tensor()))
            res["loss_placements"] = placement_text(loss.placements)
            worst = None
            for k, ref, r in replicated_outputs(plan):
                v = ex.value(vals, ref)
                # The output edge's redistribute already ran in convert() only for op nodes; do it here.
                if r is not None:
                    v = v.redistribute(mesh, ex.placements(parse_spec(r["to"], len(plan.mesh))))
                e = rel_error(v.to_local(), ref_outputs[b][k])
                worst = e if worst is None else max(worst, e)
            res["output_errors"].append(worst)
            if b > 0:
                del ex.implicit[n_implicit:]  # the same every batch: keep batch 0's list
    except Exception as e:
        res["error"] = {"batch": len(res["losses"]), "rank": rank, "node": ex.current if ex else None,
                        "message": short_error(e)}
        res["traceback"] = traceback.format_exc()[-3000:]
        if os.environ.get("DTENSOR_RUN_DEBUG"):
            print(res["traceback"], file=sys.stderr)
    if ex is not None:
        res["implicit"] = ex.implicit
        res["placement_diffs"] = ex.placement_diffs
        res["notes"] = sorted(ex.notes)
    with open(os.path.join(JOB["out"], "rank%d.json" % rank), "w") as f:
        json.dump(res, f)
    try:
        import torch.distributed as dist
        if "error" not in res:
            dist.destroy_process_group()
    except Exception:
        pass
    os._exit(0)  # no atexit handlers: a failed rank must not wait on its group


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def run_sharded(plan, wholes, ref_outputs, variant, timeout):
    """Forks mesh-size ranks; returns their results (a rank that did not answer in time: an error entry)."""
    world = math.prod(plan.mesh)
    with tempfile.TemporaryDirectory(prefix="dtensor_run_") as out:
        JOB.update(plan=plan, wholes=wholes, ref_outputs=ref_outputs, variant=variant, out=out)
        port = free_port()
        pids = []
        for r in range(world):
            pid = os.fork()
            if pid == 0:
                try:
                    rank_main(r, world, port)
                finally:
                    os._exit(1)
            pids.append(pid)
        deadline = time.time() + timeout
        alive = set(pids)
        while alive and time.time() < deadline:
            for pid in list(alive):
                done, _ = os.waitpid(pid, os.WNOHANG)
                if done:
                    alive.discard(pid)
            time.sleep(0.05)
        for pid in alive:  # our own children only, by id
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        results = []
        for r in range(world):
            path = os.path.join(out, "rank%d.json" % r)
            if os.path.exists(path):
                with open(path) as f:
                    results.append(json.load(f))
            else:
                results.append({"rank": r, "losses": [], "error": {"rank": r, "node": None, "batch": None,
                                "message": "no answer within %d s (stopped waiting in a collective?)" % timeout}})
        return results


def answer(plan, reference, ref_outputs, results):
    """The fixture entry of one variant: per batch rank losses, combined, reference, DTensor's own full loss."""
    loss_spec = plan.spec(plan.loss)
    errors = [r["error"] for r in results if "error" in r]
    first = None
    if errors:  # the lowest batch, then the lowest rank whose error names a node (others stopped after it)
        named = [e for e in errors if e.get("node")] or errors
        first = min(named, key=lambda e: (e["batch"] if e["batch"] is not None else 1 << 30, e["rank"]))
        first = dict(first)
        first["ranks"] = sorted(e["rank"] for e in errors if e["message"] == first["message"])
    nb = min(len(r["losses"]) for r in results)
    batches = []
    for b in range(nb):
        losses = [r["losses"][b] for r in results]
        combined = combine(losses, plan.mesh, loss_spec)
        entry = {"batch": b, "rank_losses": losses, "combined": combined, "reference": reference[b],
                 "rel_error": abs(combined - reference[b]) / abs(reference[b]) if reference[b] else abs(combined),
                 "dtensor_full_loss": results[0]["full"][b]}
        oe = results[0]["output_errors"][b]
        if oe is not None:
            entry["output_rel_error"] = oe
        batches.append(entry)
    r0 = results[0]
    return {"batches": batches, "error": first, "loss_placements": r0.get("loss_placements"),
            "implicit_redistributes": r0.get("implicit", []), "placement_differences": r0.get("placement_diffs", []),
            "notes": r0.get("notes", [])}


def run_plan(key, path, doc, timeout):
    t0 = time.time()
    scale = SCALES.get(doc.get("name", ""), 1)
    fixes = []
    if key.endswith("+fix"):
        doc = json.loads(json.dumps(doc))
        doc.setdefault("redistributes", []).append(dict(FALCON_FIX))
        fixes.append(dict(FALCON_FIX))
    doc = scale_plan(doc, scale)
    plan = Plan(doc)
    wholes = make_wholes(plan)
    reference, ref_outputs = run_reference(plan, wholes)
    entry = {"file": os.path.relpath(path, ROOT), "scale": scale, "redistributes_added": fixes, "mesh": plan.mesh,
             "rtol": plan.rtol, "loss_spec": doc["nodes"][plan.index[plan.loss]]["spec"][0]}
    tagged = [n for n in plan.nodes if n["op"] == "placeholder" and plan.tag_dim(n) is not None]
    if tagged:
        entry["tags"] = {n["name"]: {"sliced_dim": plan.tag_dim(n), "spec": n["spec"][0]} for n in tagged}
        entry["tag_expression"] = "from_local(the piece sliced on the tag's dim, [Shard(tag dim)], shape=global)"
    entry.update(answer(plan, reference, ref_outputs, run_sharded(plan, wholes, ref_outputs, "tag", timeout)))
    spec_differs = any(plan.spec(n["name"]) != [("S", plan.tag_dim(n))] for n in tagged)
    if spec_differs:
        entry["as_spec"] = answer(plan, reference, ref_outputs,
                                  run_sharded(plan, wholes, ref_outputs, "spec", timeout))
        entry["as_spec"]["tag_expression"] = ("from_local(the same piece, the spec's placements, shape=global): "
                                              "DTensor believes the plan, as AutoSP does")
    entry["seconds"] = round(time.time() - t0, 2)
    return entry


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("plans", nargs="*")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per sharded run before its ranks are killed")
    args = ap.parse_args()
    try:
        load_torch()
        torch.set_num_threads(1)  # before any op: the parent forks the ranks, and a forked thread pool can deadlock
    except Exception as e:
        print("dtensor_run.py: no DTensor: %s" % short_error(e), file=sys.stderr)
        return 3
    paths = args.plans or sorted(
        os.path.join(ROOT, "samples", f) for f in os.listdir(os.path.join(ROOT, "samples")) if f.endswith(".plan.json"))
    jobs = []
    for p in paths:
        with open(p) as f:
            doc = json.load(f)
        if doc.get("format") != "shardscope-plan":
            print("dtensor_run.py: %s: not a native plan" % p, file=sys.stderr)
            return 2
        jobs.append((doc["name"], p, doc))
        if doc["name"] == "falcon_index_put_2d":
            jobs.append((doc["name"] + "+fix", p, doc))
    t0 = time.time()
    out = {"format": FORMAT, "torch_version": torch.__version__, "compute_dtype": "f32", "plans": {}}
    for key, p, doc in jobs:
        try:
            out["plans"][key] = run_plan(key, p, doc, args.timeout)
        except Exception as e:  # the script's own failure (not DTensor's answer): recorded, the fixture is partial
            out["plans"][key] = {"file": os.path.relpath(p, ROOT), "script_failure": short_error(e),
                                 "traceback": traceback.format_exc()[-2000:]}
        e = out["plans"][key]
        print("dtensor_run.py: %-28s %6.1fs %s" % (key, e.get("seconds", 0), (e.get("error") or {}).get("message", "")
                                                   or e.get("script_failure", "ok")), file=sys.stderr)
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1, sort_keys=True)
            f.write("\n")
    out["seconds"] = round(time.time() - t0, 1)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
