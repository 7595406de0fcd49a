#!/usr/bin/env python3
"""DTensor as the oracle: answers tests/dtensor/cases.json with PyTorch's own DTensor code.

    python3 scripts/dtensor_oracle.py -o OUT.json [--cases tests/dtensor/cases.json] [--budget SECONDS]
    python3 scripts/dtensor_oracle.py --dry-run     # no torch needed: checks the case file and the parser

Needs PyTorch 2.x (DTensor); no GPU: every mesh lives on a fake process group (torch.distributed "fake"
backend with FakeStore, world size = mesh size), so collectives do nothing and only DTensor's planning and
bookkeeping run. Writes OUT.json in the format tests/core/test_dtensor_oracle.cpp reads
(shardscope-dtensor-oracle/1), keyed by case id:

  layouts:       {"ranks": [{"coord", "local_shape", "offset"}, ...]} per rank in row-major order, from
                 compute_local_shape_and_global_offset on a process group re-made as that rank;
  redistributes: {"steps": [{"mesh_dim", "from", "to"}], "runs": bool, "run_error"?, "cost"}: the transform
                 infos of DTensor's planner (_gen_transform_infos), whether redistribute_local_tensor executes
                 them, and DTensor's redistribute_cost (us; "inf"; null when unavailable) with the top-level
                 "devices_per_host" its MeshTopoInfo used;
  rules:         {"redistributed": bool, "outputs": [[placements] | null]}: the op run on DTensors made with
                 from_local in the given placements; "redistributed" when DTensor redistributed an input first.
An entry is {"error": "..."} when DTensor raised, {"skipped": "..."} when this PyTorch cannot ask the question
(e.g. no shard orders) or the time budget ran out. The file is rewritten after each section, so a killed run
still leaves what it found. Exit 0 when the file was written (mismatches are the C++ test's business), 2 on
unusable arguments or cases, 3 when DTensor cannot be imported.
"""
import argparse
import json
import math
import os
import re
import sys
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_CASES = os.path.join(ROOT, "tests", "dtensor", "cases.json")
CASES_FORMAT = "shardscope-dtensor-cases/1"
ORACLE_FORMAT = "shardscope-dtensor-oracle/1"
KINDS = ("layouts", "redistributes", "rules")

# ---- placement strings (no torch) ----------------------------------------------------------------------------
_PLACEMENT = re.compile(r"^(?:(Replicate)\(\)|(Shard)\(dim=(\d+)\)|(_StridedShard)\(dim=(\d+), (?:sf|split_factor)=(\d+)\)"
                        r"|(Partial)\((sum|avg|product|max|min)\))$")


def parse_placement(text):
    """'Shard(dim=0)' -> ('shard', 0); ('replicate',); ('strided', dim, sf); ('partial', op)."""
    m = _PLACEMENT.match(text)
    if not m:
        raise ValueError("not a DTensor placement string: %r" % text)
    if m.group(1):
        return ("replicate",)
    if m.group(2):
        return ("shard", int(m.group(3)))
    if m.group(4):
        return ("strided", int(m.group(5)), int(m.group(6)))
    return ("partial", m.group(8))


def check_cases(cases):
    """Raises ValueError naming the case when something cannot be asked."""
    if cases.get("format") != CASES_FORMAT:
        raise ValueError("format is %r, expected %r" % (cases.get("format"), CASES_FORMAT))
    for kind in KINDS:
        for c in cases[kind]:
            lists = []
            if kind == "layouts":
                lists = [c["placements"]]
            elif kind == "redistributes":
                lists = [c["src"]["placements"], c["dst"]["placements"]]
            else:
                lists = [i["placements"] for i in c["inputs"]]
            for pl in lists:
                if len(pl) != len(c["mesh"]):
                    raise ValueError("%s: %d placements for a %d-dim mesh" % (c["id"], len(pl), len(c["mesh"])))
                for p in pl:
                    parse_placement(p)


def placement_text(p):
    """DTensor placement object -> the case file's string (independent of the PyTorch version's repr)."""
    name = type(p).__name__
    if name == "_StridedShard":
        return "_StridedShard(dim=%d, sf=%d)" % (p.dim, p.split_factor)
    if p.is_shard():
        return "Shard(dim=%d)" % p.dim
    if p.is_replicate():
        return "Replicate()"
    if p.is_partial():
        op = getattr(p, "reduce_op", "sum")
        op = getattr(op, "name", op)  # very old versions held a c10d.ReduceOp
        return "Partial(%s)" % str(op).lower()
    return repr(p)


# ---- DTensor ---------------------------------------------------------------------------------------------------
class Dt:
    """The DTensor API of the installed PyTorch, found once (names moved between 2.x releases)."""

    def __init__(self):
        import torch
        import torch.distributed as dist
        self.torch, self.dist = torch, dist
        try:
            from torch.distributed.tensor import DTensor, Partial, Replicate, Shard
            from torch.distributed.tensor import placement_types as pt
        except ImportError:  # before 2.5
            from torch.distributed._tensor import DTensor, Replicate, Shard
            from torch.distributed._tensor import placement_types as pt
            Partial = getattr(pt, "Partial", None) or getattr(pt, "_Partial")
        self.DTensor, self.Shard, self.Replicate, self.Partial = DTensor, Shard, Replicate, Partial
        self.StridedShard = getattr(pt, "_StridedShard", None)
        from torch.distributed.device_mesh import DeviceMesh
        self.DeviceMesh = DeviceMesh
        from torch.testing._internal.distributed.fake_pg import FakeStore  # registers the "fake" backend
        self.FakeStore = FakeStore
        mod = self._first("torch.distributed.tensor._utils", "torch.distributed._tensor._utils")
        self.local_shape_and_offset = mod.compute_local_shape_and_global_offset
        # (global_shape, mesh_shape, my_coordinate, placements[, shard_order]): the same without a process group
        self.local_shape_and_offset_at = getattr(mod, "_compute_local_shape_and_global_offset", None)
        spec_mod = self._first("torch.distributed.tensor._dtensor_spec", "torch.distributed._tensor.placement_types")
        self.DTensorSpec, self.TensorMeta = spec_mod.DTensorSpec, spec_mod.TensorMeta
        self.ShardOrderEntry = getattr(spec_mod, "ShardOrderEntry", None)
        self.redist = self._first("torch.distributed.tensor._redistribute", "torch.distributed._tensor.redistribute")
        self.dispatch = self._first("torch.distributed.tensor._dispatch", "torch.distributed._tensor.dispatch")
        try:
            self.collective_utils = self._first("torch.distributed.tensor._collective_utils",
                                                "torch.distributed._tensor._collective_utils")
        except Exception:
            self.collective_utils = None
        import inspect
        self.spec_takes_order = "shard_order" in inspect.signature(self.DTensorSpec).parameters
        self.layout_takes_order = "shard_order" in inspect.signature(self.local_shape_and_offset).parameters
        self.private_layout_takes_order = self.local_shape_and_offset_at is not None and \
            "shard_order" in inspect.signature(self.local_shape_and_offset_at).parameters
        self.world = None
        self.meshes = {}

    @staticmethod
    def _first(*names):
        import importlib
        for n in names:
            try:
                return importlib.import_module(n)
            except ImportError:
                pass
        raise ImportError("none of %s" % ", ".join(names))

    def apis(self):
        return {
            "compute_local_shape_and_global_offset": self.local_shape_and_offset.__module__,
            "redistribute": self.redist.__name__,
            "shard_order_in_spec": self.spec_takes_order,
            "shard_order_in_layout": self.layout_takes_order or self.private_layout_takes_order,
            "strided_shard": self.StridedShard is not None,
        }

    def init_world(self, size, rank=0):
        if self.world == (size, rank):
            return
        if self.dist.is_initialized():
            self.dist.destroy_process_group()
        self.dist.init_process_group("fake", store=self.FakeStore(), rank=rank, world_size=size)
        self.world = (size, rank)
        self.meshes = {}

    def mesh(self, shape, rank=0):
        size = math.prod(shape)
        self.init_world(size, rank)
        key = tuple(shape)
        if key not in self.meshes:
            # DeviceMesh(arange(n).reshape(shape)): rank r at its row-major coordinate, as core numbers ranks.
            self.meshes[key] = self.DeviceMesh("cpu", self.torch.arange(size).reshape(shape))
        return self.meshes[key]

    def layout(self, shape, mesh, rank, placements, order=None):
        """(local shape, global offset) on `rank`, whose process group `mesh` was made on; with a shard order
        through whichever of the two layout functions takes one."""
        if not order:
            return self.local_shape_and_offset(shape, mesh, placements)
        if self.layout_takes_order:
            return self.local_shape_and_offset(shape, mesh, placements, shard_order=self.shard_order(order))
        if self.private_layout_takes_order:
            mesh_shape = tuple(mesh.shape)
            return self.local_shape_and_offset_at(shape, mesh_shape, coord_of(rank, mesh_shape), placements,
                                                  shard_order=self.shard_order(order))
        # 2.10+: a shard order is DTensor's own _StridedShard placements (DTensorSpec's conversion), laid out
        # left to right by the plain function.
        convert = getattr(self.DTensorSpec, "_convert_shard_order_to_StridedShard", None)
        if convert is not None and self.StridedShard is not None:
            return self.local_shape_and_offset(shape, mesh, convert(self.shard_order(order), tuple(placements), mesh))
        raise Skip("this PyTorch's compute_local_shape_and_global_offset takes no shard_order")

    def placement(self, text):
        p = parse_placement(text)
        if p[0] == "replicate":
            return self.Replicate()
        if p[0] == "shard":
            return self.Shard(p[1])
        if p[0] == "strided":
            if self.StridedShard is None:
                raise Skip("this PyTorch has no _StridedShard")
            return self.StridedShard(p[1], split_factor=p[2])
        return self.Partial(p[1])

    def placements(self, texts):
        return tuple(self.placement(t) for t in texts)

    def shard_order(self, order):
        if not order:
            return None
        if self.ShardOrderEntry is None:
            raise Skip("this PyTorch has no ShardOrderEntry (shard orders)")
        return tuple(self.ShardOrderEntry(tensor_dim=d, mesh_dims=tuple(ms)) for d, ms in order)

    def spec(self, mesh, placements, shape, dtype, order=None):
        meta = self.TensorMeta(self.torch.Size(shape), contiguous_stride(shape), dtype)
        if order:
            if not self.spec_takes_order:
                raise Skip("this PyTorch's DTensorSpec takes no shard_order")
            return self.DTensorSpec(mesh, placements, tensor_meta=meta, shard_order=self.shard_order(order))
        return self.DTensorSpec(mesh, placements, tensor_meta=meta)


class Skip(Exception):
    """The installed PyTorch cannot ask this question."""


def contiguous_stride(shape):
    stride, acc = [], 1
    for s in reversed(shape):
        stride.append(acc)
        acc *= max(1, s)
    return tuple(reversed(stride))


def coord_of(rank, shape):
    coord = []
    for s in reversed(shape):
        coord.append(rank % s)
        rank //= s
    return list(reversed(coord))


def short_error(e):
    return ("%s: %s" % (type(e).__name__, e)).splitlines()[0][:300]


# ---- the three sections ----------------------------------------------------------------------------------------
def within_budget(cases, deadline, out):
    """The cases to answer while time is left; each one after `deadline` is answered {"skipped": "time budget"}."""
    for c in cases:
        if time.time() > deadline:
            out[c["id"]] = {"skipped": "time budget"}
        else:
            yield c


def answer_layouts(dt, cases, deadline):
    out = {}
    by_mesh = {}
    for c in cases:
        by_mesh.setdefault(tuple(c["mesh"]), []).append(c)
    for mesh_shape, group in by_mesh.items():
        n = math.prod(mesh_shape)
        ranks = {c["id"]: [] for c in group}
        for r in range(n):
            if time.time() > deadline:
                break
            try:
                mesh = dt.mesh(list(mesh_shape), rank=r)
            except Exception as e:  # no process group or mesh: every case on this mesh says why
                for c in group:
                    out.setdefault(c["id"], {"error": "making the mesh: " + short_error(e)})
                break
            for c in group:
                cid = c["id"]
                if cid in out:
                    continue
                try:
                    pl = dt.placements(c["placements"])
                    shape, offset = dt.layout(c["shape"], mesh, r, pl, c.get("shard_order"))
                    ranks[cid].append({"coord": coord_of(r, mesh_shape), "local_shape": [int(x) for x in shape],
                                       "offset": [int(x) for x in offset]})
                except Skip as e:
                    out[cid] = {"skipped": str(e)}
                except Exception as e:  # DTensor's answer is that it raises
                    out[cid] = {"error": short_error(e)}
        for c in group:
            if c["id"] not in out:
                out[c["id"]] = ({"ranks": ranks[c["id"]]} if len(ranks[c["id"]]) == n
                                else {"skipped": "time budget"})
    return out


def answer_redistributes(dt, cases, deadline):
    torch = dt.torch
    out = {}
    for c in within_budget(sorted(cases, key=lambda c: math.prod(c["mesh"])), deadline, out):
        cid = c["id"]
        try:
            mesh = dt.mesh(c["mesh"])
            src = dt.spec(mesh, dt.placements(c["src"]["placements"]), c["shape"], torch.float32,
                          c["src"].get("shard_order"))
            dst = dt.spec(mesh, dt.placements(c["dst"]["placements"]), c["shape"], torch.float32,
                          c["dst"].get("shard_order"))
            infos = gen_transform_infos(dt, src, dst)
        except Skip as e:
            out[cid] = {"skipped": str(e)}
            continue
        except Exception as e:
            out[cid] = {"error": short_error(e)}
            continue
        ans = {"steps": [{"mesh_dim": int(i.mesh_dim), "from": placement_text(i.src_dst_placements[0]),
                          "to": placement_text(i.src_dst_placements[1])} for i in infos]}
        try:  # does DTensor execute that plan? (rank 0's local shard; the fake group's collectives are no-ops)
            local_shape, _ = dt.layout(c["shape"], mesh, 0, src.placements, c["src"].get("shard_order"))
            dt.redist.redistribute_local_tensor(torch.zeros(tuple(local_shape)), src, dst)
            ans["runs"] = True
        except Exception as e:
            ans["runs"] = False
            ans["run_error"] = short_error(e)
        ans["cost"] = redistribute_cost(dt, src, dst)
        out[cid] = ans
    return out


def redistribute_cost(dt, src, dst):
    """DTensor's own redistribute_cost (microseconds, its MeshTopoInfo model), "inf" where it returns infinity
    (a transition its planner must not pick implicitly, or a spec without a shard order), null where this
    PyTorch has none or it raised."""
    cu = dt.collective_utils
    if cu is None or not hasattr(cu, "redistribute_cost"):
        return None
    try:
        cost = float(cu.redistribute_cost(src, dst))
    except Exception:
        return None
    return "inf" if math.isinf(cost) else cost


def devices_per_host(dt):
    """What MeshTopoInfo.build_from_mesh takes as one host's device count for the oracle's "cpu" meshes."""
    cu = dt.collective_utils
    try:
        return int(cu._mesh_resources.num_devices_per_host("cpu"))
    except Exception:
        return None


def gen_transform_infos(dt, src, dst):
    fn = getattr(dt.redist, "_gen_transform_infos_non_cached", None) or dt.redist._gen_transform_infos
    try:
        return fn(src, dst)
    except TypeError:
        # 2.9-era signature: (src_spec, dst_spec, src_shard_order, dst_shard_order)
        return fn(src, dst, None, None)


class RedistributeSpy:
    """Notes whether DTensor's dispatch redistributed an input: OpDispatcher.redistribute_local_args runs only
    when sharding propagation says an input must change, and it calls redistribute_local_tensor per input."""

    def __init__(self, dt):
        self.dt, self.calls, self.saved = dt, 0, []

    def _wrap(self, owner, name, counts, static=False):
        orig = owner.__dict__.get(name) if isinstance(owner, type) else getattr(owner, name, None)
        if orig is None:
            return
        fn = orig.__func__ if isinstance(orig, staticmethod) else orig

        def spy(*a, **k):
            if counts(*a, **k):
                self.calls += 1
            return fn(*a, **k)

        self.saved.append((owner, name, orig))
        setattr(owner, name, staticmethod(spy) if static else spy)

    def __enter__(self):
        def moved(local, current, target, *a, **k):
            return tuple(current.placements) != tuple(target.placements) or \
                getattr(current, "shard_order", None) != getattr(target, "shard_order", None)

        od = getattr(self.dt.dispatch, "OpDispatcher", None)
        if od is not None and isinstance(od.__dict__.get("redistribute_local_args"), staticmethod):
            self._wrap(od, "redistribute_local_args", lambda *a, **k: True, static=True)
        for mod in (self.dt.dispatch, self.dt.redist):
            self._wrap(mod, "redistribute_local_tensor", moved)
        return self

    def __exit__(self, *exc):
        for owner, name, orig in reversed(self.saved):
            setattr(owner, name, orig)
        self.saved = []
        return False


def answer_rules(dt, cases, deadline):
    torch = dt.torch
    out = {}
    for c in within_budget(cases, deadline, out):
        cid = c["id"]
        try:
            mesh = dt.mesh(c["mesh"])
            ins = []
            for i in c["inputs"]:
                pl = dt.placements(i["placements"])
                local_shape, _ = dt.local_shape_and_offset(i["shape"], mesh, pl)
                dtype = torch_dtype(torch, i["dtype"])
                if i["dtype"] in INTEGER_DTYPES:
                    local = torch.zeros(tuple(local_shape), dtype=dtype)
                else:  # float8 has no randn of its own
                    local = torch.randn(tuple(local_shape), dtype=torch.float32)
                    local = local if dtype == torch.float32 else local.to(dtype)
                ins.append(dt.DTensor.from_local(local, mesh, pl, run_check=False,
                                                 shape=torch.Size(i["shape"]), stride=contiguous_stride(i["shape"])))
            op = resolve_op(torch, c["op"])
            args = [build_arg(a, ins) for a in c["args"]]
            kwargs = {k: build_arg(v, ins) for k, v in c["kwargs"].items()}
            out[cid] = propagate(dt, op, args, kwargs)
        except Skip as e:
            out[cid] = {"skipped": str(e)}
        except Exception as e:
            out[cid] = {"error": short_error(e)}
    return out


def propagate(dt, op, args, kwargs):
    """DTensor's sharding propagation for one call. First asks the propagator itself (the OutputSharding that
    OpDispatcher.dispatch acts on: needs_redistribute, output_spec); where this PyTorch's internals differ, or the
    propagator has no strategy for the op (a CompositeImplicitAutograd overload such as upsample_nearest2d.vec,
    which a DTensor call decomposes before DTensor sees it), runs the op and watches for redistributes instead."""
    try:
        disp = dt.DTensor._op_dispatcher
        info = disp.unwrap_to_op_info(op, tuple(args), kwargs)
        sharding = disp.sharding_propagator.propagate_op_sharding(info.schema)
        specs = sharding.output_spec
        specs = list(specs) if isinstance(specs, (tuple, list)) else [specs]
        return {"redistributed": inputs_move(dt, info.schema, sharding), "method": "propagate_op_sharding",
                "outputs": [[placement_text(p) for p in s.placements] if s is not None else None for s in specs]}
    except AttributeError:
        pass
    except NotImplementedError as e:
        if "sharding strategy" not in str(e):
            raise
    with RedistributeSpy(dt) as spy:
        res = op(*args, **kwargs)
    results = list(res) if isinstance(res, (tuple, list)) else [res]
    return {"redistributed": spy.calls > 0, "method": "dispatch",
            "outputs": [[placement_text(p) for p in r.placements] if isinstance(r, dt.DTensor) else None
                        for r in results]}


def tensor_specs(dt, schema):
    """The DTensorSpecs among a schema's arguments (positional, then keyword), lists flattened."""
    out = []

    def walk(a):
        if isinstance(a, dt.DTensorSpec):
            out.append(a)
        elif isinstance(a, (list, tuple)):
            for x in a:
                walk(x)
    walk(schema.args_schema)
    walk(tuple(getattr(schema, "kwargs_schema", {}).values()))
    return out


def inputs_move(dt, schema, sharding):
    """Whether DTensor redistributes a tensor input: needs_redistribute, and the redistribute schema gives some
    input other placements (or another shard order). needs_redistribute alone also covers ops whose non-tensor
    arguments only are rewritten for the local shards (a view's sizes), where no input moves."""
    if not sharding.needs_redistribute:
        return False
    target = getattr(sharding, "redistribute_schema", None)
    if target is None:
        return True
    have, want = tensor_specs(dt, schema), tensor_specs(dt, target)
    if len(have) != len(want):
        return True
    return any(tuple(a.placements) != tuple(b.placements) or
               getattr(a, "shard_order", None) != getattr(b, "shard_order", None) for a, b in zip(have, want))


# The case file's dtype names (FX print_readable's abbreviations, as core's dtypeFromName reads them).
DTYPES = {"f32": "float32", "i64": "int64", "bf16": "bfloat16", "f8e4m3fn": "float8_e4m3fn", "f8e5m2": "float8_e5m2",
          "f8e8m0fnu": "float8_e8m0fnu"}
INTEGER_DTYPES = {"i64"}


def torch_dtype(torch, name):
    if name not in DTYPES:
        raise ValueError("dtype %r is not in the oracle's DTYPES" % name)
    dtype = getattr(torch, DTYPES[name], None)
    if dtype is None:
        raise Skip("this PyTorch has no %s" % DTYPES[name])
    return dtype


def resolve_op(torch, name):
    """'aten.mm.default' -> torch.ops.aten.mm.default."""
    ns, op, overload = name.split(".")
    return getattr(getattr(getattr(torch.ops, ns), op), overload)


def build_arg(a, ins):
    if isinstance(a, dict):
        return ins[a["tensor"]]
    if isinstance(a, list):
        return [build_arg(x, ins) for x in a]
    return a


# ---- main ------------------------------------------------------------------------------------------------------
def write(path, doc):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--output", help="oracle JSON to write")
    ap.add_argument("--cases", default=DEFAULT_CASES)
    ap.add_argument("--budget", type=float, default=240, help="seconds for all sections (default 240)")
    ap.add_argument("--dry-run", action="store_true", help="check the cases and the parser only (no torch)")
    a = ap.parse_args()
    try:
        with open(a.cases) as f:
            cases = json.load(f)
        check_cases(cases)
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("dtensor_oracle: %s: %s" % (a.cases, e), file=sys.stderr)
        return 2
    counts = {k: len(cases[k]) for k in KINDS}
    if a.dry_run:
        print("dtensor_oracle: %s: %d layouts, %d redistributes, %d rules; placement strings parse" % (
            a.cases, counts["layouts"], counts["redistributes"], counts["rules"]))
        return 0
    if not a.output:
        print("dtensor_oracle: -o OUT.json is required (or --dry-run)", file=sys.stderr)
        return 2
    try:
        dt = Dt()
    except Exception as e:
        print("dtensor_oracle: cannot use DTensor here: %s" % short_error(e), file=sys.stderr)
        return 3
    start = time.time()
    deadline = start + a.budget
    doc = {"format": ORACLE_FORMAT, "source": "dtensor", "torch_version": dt.torch.__version__,
           "cases": os.path.relpath(a.cases, ROOT), "apis": dt.apis(), "seconds": {},
           "devices_per_host": devices_per_host(dt),
           "layouts": {}, "redistributes": {}, "rules": {}}
    sections = (("layouts", answer_layouts), ("redistributes", answer_redistributes), ("rules", answer_rules))
    status = 0
    for kind, fn in sections:
        t0 = time.time()
        try:
            doc[kind] = fn(dt, cases[kind], deadline)
        except Exception:  # a bug here must not lose the other sections
            traceback.print_exc()
            doc[kind + "_failure"] = traceback.format_exc().splitlines()[-1]
            status = 1
        doc["seconds"][kind] = round(time.time() - t0, 3)
        write(a.output, doc)
    if dt.dist.is_initialized():
        dt.dist.destroy_process_group()
    tally = {k: {s: sum(1 for v in doc[k].values() if s in v) for s in ("error", "skipped")} for k in KINDS}
    doc["tally"] = tally
    write(a.output, doc)
    print("dtensor_oracle: torch %s: %s in %.1f s -> %s" % (
        dt.torch.__version__, ", ".join("%s %d/%d (%d error, %d skipped)" % (
            k, len(doc[k]), counts[k], tally[k]["error"], tally[k]["skipped"]) for k in KINDS),
        time.time() - start, a.output))
    return status


if __name__ == "__main__":
    sys.exit(main())
