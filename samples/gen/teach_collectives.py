#!/usr/bin/env python3
"""Writes one small teaching plan per collective kind (samples/teach_<kind>.plan.json): each is executable,
checks clean, and contains a redistribute of that kind where an op needs it.

- all_gather:     Shard(0) -> Replicate, before a log_softmax over the sharded dim (it needs the whole dim).
- all_reduce:     Partial(sum) -> Replicate, after a row-parallel matmul, before the non-linear relu.
- reduce_scatter: Partial(sum) -> Shard(0), after a row-parallel matmul, keeping the batch sharded.
- all_to_all:     Shard(0) -> Shard(1), turning a batch shard into a feature shard before a log_softmax over
                  the batch dim (the Ulysses move in one line).

Run from anywhere: python3 samples/gen/teach_collectives.py
"""
import json
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def t(name):
    return {"t": name}


class Plan:
    def __init__(self, kind, description):
        self.kind = kind
        self.plan = {"format": "shardscope-plan", "version": 1, "name": "teach_" + kind, "description": description,
                     "mesh": {"shape": [4], "dim_names": ["tp"]},
                     "run": {"seed": 0, "loss": "loss", "batches": 3, "rtol": 1e-4}}
        self.nodes, self.redistributes = [], []

    def placeholder(self, name, shape, spec, kind):
        self.nodes.append({"name": name, "op": "placeholder", "placeholder_kind": kind, "phase": "forward",
                           "meta": [{"shape": shape, "dtype": "f32"}], "spec": [spec]})

    def call(self, name, op, args, shape, spec, input_specs=None):
        n = {"name": name, "op": op, "phase": "forward", "args": args, "meta": [{"shape": shape, "dtype": "f32"}],
             "spec": [spec]}
        if input_specs:
            n["input_specs"] = input_specs
        self.nodes.append(n)

    def redistribute(self, node, inp, frm, to):
        self.redistributes.append({"node": node, "input": inp, "from": frm, "to": to})

    def write(self):
        self.nodes.append({"name": "output", "op": "output", "args": [[t("loss")]]})
        self.plan["nodes"], self.plan["redistributes"] = self.nodes, self.redistributes
        with open(os.path.join(OUT, "teach_%s.plan.json" % self.kind), "w") as f:
            json.dump(self.plan, f, indent=1)
            f.write("\n")


def loss_from_partial(p, src, shape_numel):
    """sum over everything -> Partial(sum); the loss divides it after an all_reduce."""
    p.call("sum_1", "aten.sum.default", [t(src)], [], "P(sum)")
    p.call("loss", "aten.div.Tensor", [t("sum_1"), shape_numel], [], "R", input_specs=["R"])
    p.redistribute("loss", 0, "P(sum)", "R")


def all_gather():
    p = Plan("all_gather", "all_gather on 4 ranks: the batch-sharded matmul output (Shard(0)) meets a log_softmax "
                           "over the batch dim, which needs the whole dim: all_gather makes it Replicate.")
    p.placeholder("x", [8, 16], "S(0)", "input")
    p.placeholder("w", [16, 4], "R", "param")
    p.call("mm", "aten.mm.default", [t("x"), t("w")], [8, 4], "S(0)")
    p.call("log_softmax", "aten._log_softmax.default", [t("mm"), 0, False], [8, 4], "R", input_specs=["R"])
    p.redistribute("log_softmax", 0, "S(0)", "R")
    p.call("sum_1", "aten.sum.default", [t("log_softmax")], [], "R")
    p.call("loss", "aten.div.Tensor", [t("sum_1"), 32], [], "R")
    p.write()


def all_reduce():
    p = Plan("all_reduce", "all_reduce on 4 ranks: a row-parallel matmul contracts the sharded dim, so each rank "
                           "holds a partial sum (Partial(sum)); relu is not linear, so all_reduce makes it Replicate.")
    p.placeholder("x", [8, 16], "S(1)", "input")
    p.placeholder("w", [16, 4], "S(0)", "param")
    p.call("mm", "aten.mm.default", [t("x"), t("w")], [8, 4], "P(sum)")
    p.call("relu", "aten.relu.default", [t("mm")], [8, 4], "R", input_specs=["R"])
    p.redistribute("relu", 0, "P(sum)", "R")
    p.call("sum_1", "aten.sum.default", [t("relu")], [], "R")
    p.call("loss", "aten.div.Tensor", [t("sum_1"), 32], [], "R")
    p.write()


def reduce_scatter():
    p = Plan("reduce_scatter", "reduce_scatter on 4 ranks: the row-parallel matmul's Partial(sum) output is "
                               "reduced and scattered in one step (Shard(0)), so the square runs on a quarter "
                               "of the rows per rank.")
    p.placeholder("x", [8, 16], "S(1)", "input")
    p.placeholder("w", [16, 4], "S(0)", "param")
    p.call("mm", "aten.mm.default", [t("x"), t("w")], [8, 4], "P(sum)")
    p.call("pow_1", "aten.pow.Tensor_Scalar", [t("mm"), 2], [8, 4], "S(0)", input_specs=["S(0)"])
    p.redistribute("pow_1", 0, "P(sum)", "S(0)")
    loss_from_partial(p, "pow_1", 32)
    p.write()


def all_to_all():
    p = Plan("all_to_all", "all_to_all on 4 ranks: a batch shard (Shard(0)) becomes a feature shard (Shard(1)) so "
                           "that a log_softmax over the batch dim sees the whole dim: the move Ulysses makes "
                           "around attention.")
    p.placeholder("x", [8, 16], "S(0)", "input")
    p.placeholder("w", [16, 8], "R", "param")
    p.call("mm", "aten.mm.default", [t("x"), t("w")], [8, 8], "S(0)")
    p.call("log_softmax", "aten._log_softmax.default", [t("mm"), 0, False], [8, 8], "S(1)", input_specs=["S(1)"])
    p.redistribute("log_softmax", 0, "S(0)", "S(1)")
    loss_from_partial(p, "log_softmax", 64)
    p.write()


if __name__ == "__main__":
    all_gather()
    all_reduce()
    reduce_scatter()
    all_to_all()
