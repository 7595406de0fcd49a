#!/usr/bin/env python3
"""Writes one small teaching plan per collective kind (samples/teach_<kind>.plan.json): each is executable,
checks clean, and contains a redistribute of that kind where an op needs it.

- all_gather:     Shard(0) -> Replicate, before a log_softmax over the sharded dim (it needs the whole dim).
- all_reduce:     Partial(sum) -> Replicate, after a row-parallel matmul, before the non-linear relu.
- reduce_scatter: Partial(sum) -> Shard(0), after a row-parallel matmul, keeping the batch sharded.
- all_to_all:     Shard(0) -> Shard(1), turning a batch shard into a feature shard before a log_softmax over
                  the batch dim (the Ulysses move in one line).

Each description ends with "Look at: NODE input N (...)": the edge the app opens on (tests/views/test_views_teach.cpp
checks it), whose Play button steps through the collective.

Run from anywhere: python3 samples/gen/teach_collectives.py
"""
from planlib import PlanBuilder, t


def collective_plan(kind, description):
    """A teaching plan on a 1-D tp mesh of 4 ranks, written to teach_<kind>.plan.json."""
    b = PlanBuilder("teach_" + kind, description, [4], ["tp"], {"seed": 0, "loss": "loss", "batches": 3, "rtol": 1e-4})
    b.kind = kind
    return b


def loss_from_partial(p, src, shape_numel):
    """sum over everything -> Partial(sum); the loss divides it after an all_reduce."""
    p.call1("sum_1", "aten.sum.default", [t(src)], [], "P(sum)")
    p.call1("loss", "aten.div.Tensor", [t("sum_1"), shape_numel], [], "R", input_specs=["R"])
    p.redistribute("loss", 0, "P(sum)", "R")


def all_gather():
    p = collective_plan("all_gather", "all_gather on 4 ranks: the batch-sharded matmul output (Shard(0)) meets a log_softmax "
                           "over the batch dim, which needs the whole dim: all_gather makes it Replicate. "
                           "Look at: log_softmax input 0 (press Play: a ring of 3 rounds, each rank forwarding the "
                           "block it got last).")
    p.placeholder("x", [8, 16], "S(0)", "input")
    p.placeholder("w", [16, 4], "R", "param")
    p.call1("mm", "aten.mm.default", [t("x"), t("w")], [8, 4], "S(0)")
    p.call1("log_softmax", "aten._log_softmax.default", [t("mm"), 0, False], [8, 4], "R", input_specs=["R"])
    p.redistribute("log_softmax", 0, "S(0)", "R")
    p.call1("sum_1", "aten.sum.default", [t("log_softmax")], [], "R")
    p.call1("loss", "aten.div.Tensor", [t("sum_1"), 32], [], "R")
    p.write("teach_%s.plan.json" % p.kind)


def all_reduce():
    p = collective_plan("all_reduce", "all_reduce on 4 ranks: a row-parallel matmul contracts the sharded dim, so each rank "
                           "holds a partial sum (Partial(sum)); relu is not linear, so all_reduce makes it Replicate. "
                           "Look at: relu input 0 (press Play: 3 rounds of reduce-scatter, the partial sums "
                           "combining, then 3 rounds of all_gather).")
    p.placeholder("x", [8, 16], "S(1)", "input")
    p.placeholder("w", [16, 4], "S(0)", "param")
    p.call1("mm", "aten.mm.default", [t("x"), t("w")], [8, 4], "P(sum)")
    p.call1("relu", "aten.relu.default", [t("mm")], [8, 4], "R", input_specs=["R"])
    p.redistribute("relu", 0, "P(sum)", "R")
    p.call1("sum_1", "aten.sum.default", [t("relu")], [], "R")
    p.call1("loss", "aten.div.Tensor", [t("sum_1"), 32], [], "R")
    p.write("teach_%s.plan.json" % p.kind)


def reduce_scatter():
    p = collective_plan("reduce_scatter", "reduce_scatter on 4 ranks: the row-parallel matmul's Partial(sum) output is "
                               "reduced and scattered in one step (Shard(0)), so the square runs on a quarter "
                               "of the rows per rank. Look at: pow_1 input 0 (press Play: the running sums go "
                               "around the ring, 1/4, 2/4, 3/4 of the ranks' values, until each rank holds its "
                               "rows summed).")
    p.placeholder("x", [8, 16], "S(1)", "input")
    p.placeholder("w", [16, 4], "S(0)", "param")
    p.call1("mm", "aten.mm.default", [t("x"), t("w")], [8, 4], "P(sum)")
    p.call1("pow_1", "aten.pow.Tensor_Scalar", [t("mm"), 2], [8, 4], "S(0)", input_specs=["S(0)"])
    p.redistribute("pow_1", 0, "P(sum)", "S(0)")
    loss_from_partial(p, "pow_1", 32)
    p.write("teach_%s.plan.json" % p.kind)


def all_to_all():
    p = collective_plan("all_to_all", "all_to_all on 4 ranks: a batch shard (Shard(0)) becomes a feature shard (Shard(1)) so "
                           "that a log_softmax over the batch dim sees the whole dim: the move Ulysses makes "
                           "around attention. Look at: log_softmax input 0 (press Play: in one round every "
                           "rank sends each other rank the rows it will hold).")
    p.placeholder("x", [8, 16], "S(0)", "input")
    p.placeholder("w", [16, 8], "R", "param")
    p.call1("mm", "aten.mm.default", [t("x"), t("w")], [8, 8], "S(0)")
    p.call1("log_softmax", "aten._log_softmax.default", [t("mm"), 0, False], [8, 8], "S(1)", input_specs=["S(1)"])
    p.redistribute("log_softmax", 0, "S(0)", "S(1)")
    loss_from_partial(p, "log_softmax", 64)
    p.write("teach_%s.plan.json" % p.kind)


if __name__ == "__main__":
    all_gather()
    all_reduce()
    reduce_scatter()
    all_to_all()
