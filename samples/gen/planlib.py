"""The plan builder shared by the sample generators in this folder: writes native plans (docs/plan-format.md)
node by node, with the key order the shipped samples have (so regenerating them changes no byte)."""
import json
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def t(name, i=0):
    """A tensor argument: output i of node `name`."""
    return {"t": name} if i == 0 else {"t": name, "i": i}


class PlanBuilder:
    def __init__(self, name, description, mesh, names, run):
        self.plan = {
            "format": "shardscope-plan", "version": 1, "name": name, "description": description,
            "mesh": {"shape": mesh, "dim_names": names},
            "run": run,
        }
        self.nodes = []
        self.redistributes = []

    def placeholder(self, name, shape, spec, kind, dtype="f32", tag=None):
        n = {"name": name, "op": "placeholder", "placeholder_kind": kind, "phase": "forward",
             "meta": [{"shape": shape, "dtype": dtype}], "spec": [spec]}
        if tag is not None:
            n["tag"] = tag
        self.nodes.append(n)

    def call(self, name, op, args, shapes, specs, input_specs=None, kwargs=None, module="", dtype="f32"):
        """A call node with one meta and one spec per output (`shapes`, `specs` are lists)."""
        n = {"name": name, "op": op, "phase": "forward", "args": args}
        if kwargs:
            n["kwargs"] = kwargs
        n["meta"] = [{"shape": s, "dtype": dtype} for s in shapes]
        n["spec"] = specs
        if input_specs:
            n["input_specs"] = input_specs
        if module:
            n["module"] = module
        self.nodes.append(n)

    def call1(self, name, op, args, shape, spec, **kw):
        """A single-output call node."""
        self.call(name, op, args, [shape], [spec], **kw)

    def redistribute(self, node, inp, frm, to):
        self.redistributes.append({"node": node, "input": inp, "from": frm, "to": to})

    def write(self, filename):
        self.nodes.append({"name": "output", "op": "output", "args": [[t("loss")]]})
        self.plan["nodes"] = self.nodes
        self.plan["redistributes"] = self.redistributes
        with open(os.path.join(OUT, filename), "w") as f:
            json.dump(self.plan, f, indent=1)
            f.write("\n")
