#!/usr/bin/env python3
"""Every op overload the installed DTensor has a sharding strategy or rule for, as a JSON fixture.

    scripts/dev_root.sh sid --run python3 scripts/dtensor_ops.py tests/dtensor/dtensor_ops_2.14.json

Dev-time only (needs PyTorch; no GPU, no process group: the registries fill when torch.distributed.tensor is
imported). Reads DTensor's own objects, not its source: the three op registries of
DTensor._op_dispatcher.sharding_propagator (a ShardingPropagator):

  op_single_dim_strategy_funcs   single-mesh-dim strategies (register_single_dim_strategy and the in-place/out/
                                 functional/foreach variants _ops/autogen.py derives from them)  -> "single_dim_strategy"
  op_strategy_funcs              full-mesh OpStrategy generators (register_op_strategy)           -> "strategy"
  op_to_rules                    output-sharding rules (register_prop_rule)                       -> "rule"

An op in several registries gets the kind propagate_op_sharding_non_cached uses (single-dim, then strategy, then
rule) and lists all of them in "registries". Per-op flags: "replicate_only" (the strategy is
_ops._math_ops.linalg_replicate_single_dim_strategy, the one registered for _math_ops._REPLICATE_ONLY_OPS, or an
autogen variant of it), "variant_of" (the base op an autogen wrapper calls), "custom_handler" / "random" (the op is
also in OpDispatcher._custom_op_handlers / _random_ops). Ops the dispatcher handles without any strategy are in
"dispatcher_only". Not listed: ops DTensor may propagate through their decomposition at run time
(DecompShardingStrategy.has_decomp, i.e. torch._decomp.decomposition_table or CompositeImplicit): that is a fallback,
not a registry.

Names are str(OpOverload) ("aten.mm.default"); ops are sorted by name and written one per line, with no timestamps,
so two runs on one PyTorch write the same bytes. Exit 0 written, 2 bad arguments or a torch version that the
output's name (dtensor_ops_X.Y.json) does not promise, 3 DTensor cannot be imported.
"""
import argparse
import inspect
import json
import os
import re
import sys

FORMAT = "shardscope-dtensor-ops/1"
# (attribute of ShardingPropagator, kind), in the order ShardingPropagator.propagate_op_sharding_non_cached tries them
REGISTRIES = (
    ("op_single_dim_strategy_funcs", "single_dim_strategy"),
    ("op_strategy_funcs", "strategy"),
    ("op_to_rules", "rule"),
)
PROPAGATOR = "torch.distributed.tensor.DTensor._op_dispatcher.sharding_propagator"


def fn_name(fn):
    fn = getattr(fn, "func", fn)  # _SingleDimStrategyInfo holds the function in .func
    return "%s.%s" % (getattr(fn, "__module__", "?"), getattr(fn, "__qualname__", type(fn).__name__))


def closure_vars(fn):
    fn = getattr(fn, "func", fn)
    try:
        return inspect.getclosurevars(fn).nonlocals
    except (TypeError, ValueError):
        return {}


def collect():
    import torch
    from torch.distributed.tensor import DTensor
    from torch.distributed.tensor._ops import _math_ops

    dispatcher = DTensor._op_dispatcher
    prop = dispatcher.sharding_propagator
    replicate_fn = getattr(_math_ops, "linalg_replicate_single_dim_strategy", None)
    custom = getattr(dispatcher, "_custom_op_handlers", {})
    random_ops = getattr(dispatcher, "_random_ops", set())

    entries = {}
    counts = {}
    for attr, kind in REGISTRIES:
        table = getattr(prop, attr)
        counts[attr] = len(table)
        for op, fn in table.items():
            name = str(op)
            e = entries.get(name)
            if e is None:  # first registry in propagation order decides the kind
                e = entries[name] = {"op": name, "kind": kind, "registries": [], "fn": fn_name(fn)}
                nonlocals = closure_vars(fn)
                base_fn = nonlocals.get("base_fn", getattr(fn, "func", fn))
                if replicate_fn is not None and base_fn is replicate_fn:
                    e["replicate_only"] = True
                if fn_name(fn).startswith("torch.distributed.tensor._ops.autogen.") and "base_op" in nonlocals:
                    e["variant_of"] = str(nonlocals["base_op"])
            e["registries"].append(attr)
    for op in custom:
        if str(op) in entries:
            entries[str(op)]["custom_handler"] = True
    for op in random_ops:
        if str(op) in entries:
            entries[str(op)]["random"] = True
    dispatcher_only = [{"op": str(op), "kind": "custom_handler", "fn": fn_name(custom[op])}
                       for op in custom if str(op) not in entries]
    dispatcher_only += [{"op": str(op), "kind": "random"} for op in random_ops if str(op) not in entries]
    ops = [entries[k] for k in sorted(entries)]
    replicate_list = sorted(str(o) for o in getattr(_math_ops, "_REPLICATE_ONLY_OPS", []))
    doc = {
        "format": FORMAT,
        "torch_version": torch.__version__,
        "source": "%s.{%s} after import torch.distributed.tensor; flags from "
                  "torch.distributed.tensor._ops._math_ops.linalg_replicate_single_dim_strategy (_REPLICATE_ONLY_OPS), "
                  "DTensor._op_dispatcher._custom_op_handlers and DTensor._op_dispatcher._random_ops"
                  % (PROPAGATOR, ",".join(a for a, _ in REGISTRIES)),
        "count": len(ops),
        "op_names": len({o["op"].rsplit(".", 1)[0] for o in ops}),
        "registries": counts,
        "replicate_only_ops": replicate_list,
        "ops": ops,
        "dispatcher_only": sorted(dispatcher_only, key=lambda d: d["op"]),
    }
    return doc


def dump(doc):
    """JSON with one op per line (diffable, stable)."""
    def line(x):
        if isinstance(x, dict):  # "op" and "kind" first, the rest by name
            first = [k for k in ("op", "kind") if k in x]
            x = {k: x[k] for k in first + sorted(k for k in x if k not in first)}
        return json.dumps(x, separators=(", ", ": "))
    out = ["{"]
    keys = [k for k in doc if k not in ("ops", "dispatcher_only")]  # collect()'s order
    for k in keys:
        out.append("%s: %s," % (json.dumps(k), line(doc[k])))
    for k in ("dispatcher_only", "ops"):
        out.append("%s: [" % json.dumps(k))
        items = doc[k]
        for i, x in enumerate(items):
            out.append(" " + line(x) + ("," if i + 1 < len(items) else ""))
        out.append("]" + ("," if k != "ops" else ""))
    out.append("}")
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("output", help="the JSON file to write, e.g. tests/dtensor/dtensor_ops_2.14.json")
    a = ap.parse_args(argv)
    try:
        doc = collect()
    except Exception as e:  # ImportError, or a PyTorch whose DTensor lacks these registries
        print("dtensor_ops: cannot read DTensor's registries here: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        return 3
    m = re.match(r"dtensor_ops_(\d+\.\d+)\.json$", os.path.basename(a.output))
    if m and not doc["torch_version"].startswith(m.group(1) + "."):
        print("dtensor_ops: torch %s, but %s promises %s.x; not written" % (doc["torch_version"], a.output, m.group(1)),
              file=sys.stderr)
        return 2
    text = dump(doc)
    json.loads(text)  # the hand-made layout must stay JSON
    tmp = a.output + ".partial"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, a.output)
    print("dtensor_ops: %s: torch %s, %d op overloads (%d op names), %d dispatcher-only" % (
        a.output, doc["torch_version"], doc["count"], doc["op_names"], len(doc["dispatcher_only"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
