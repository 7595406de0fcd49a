#!/usr/bin/env python3
"""Writes the small teaching plans in samples/: 1-D data parallel, 1-D tensor-parallel MLP whose Partial output
meets an all_reduce, and 2-D FSDP x TP. Each is executable (complete aten args, a loss node) and checks clean.

Each description ends with "Look at: NODE input N (...)": the edge the app opens on (tests/views/test_views_teach.cpp
checks it), whose Play button steps through its redistribute.

Run from anywhere: python3 samples/gen/teaching.py
"""
from planlib import PlanBuilder, t

RUN = {"seed": 0, "loss": "loss", "batches": 3, "rtol": 1e-4}


def data_parallel():
    b = PlanBuilder("teach_data_parallel",
                    "1-D data parallel on 4 ranks: the batch is sharded, the weight replicated. The squared-error "
                    "sum over the sharded batch is Partial(sum); an all_reduce makes the loss whole. Look at: loss "
                    "input 0 (press Play: the scalar's all_reduce; 3 of the 4 chunks are padding only).",
                    [4], ["dp"], RUN)
    b.placeholder("x", [8, 16], "S(0)", "input")
    b.placeholder("w", [16, 4], "R", "param")
    b.placeholder("target", [8, 4], "S(0)", "input")
    b.call1("mm", "aten.mm.default", [t("x"), t("w")], [8, 4], "S(0)", module="linear")
    b.call1("sub", "aten.sub.Tensor", [t("mm"), t("target")], [8, 4], "S(0)")
    b.call1("pow_1", "aten.pow.Tensor_Scalar", [t("sub"), 2], [8, 4], "S(0)")
    b.call1("sum_1", "aten.sum.default", [t("pow_1")], [], "P(sum)")
    b.call1("loss", "aten.div.Tensor", [t("sum_1"), 32], [], "R", input_specs=["R"])
    b.redistribute("loss", 0, "P(sum)", "R")
    b.write("teach_data_parallel.plan.json")


def tensor_parallel_mlp():
    b = PlanBuilder("teach_tp_mlp",
                    "1-D tensor-parallel MLP on 4 ranks (Megatron style): w1 is column-parallel (Shard(1)), w2 "
                    "row-parallel (Shard(0)). The second matmul contracts a sharded dim, so its output is "
                    "Partial(sum); an all_reduce turns it into Replicate before the non-linear pow. Look at: pow_1 "
                    "input 0 (press Play: the ring all_reduce of the partial sums).",
                    [4], ["tp"], RUN)
    b.placeholder("x", [8, 16], "R", "input")
    b.placeholder("w1", [16, 32], "S(1)", "param")
    b.placeholder("w2", [32, 16], "S(0)", "param")
    b.call1("mm", "aten.mm.default", [t("x"), t("w1")], [8, 32], "S(1)", module="mlp.fc1")
    b.call1("relu", "aten.relu.default", [t("mm")], [8, 32], "S(1)", module="mlp.act")
    b.call1("mm_1", "aten.mm.default", [t("relu"), t("w2")], [8, 16], "P(sum)", module="mlp.fc2")
    b.call1("pow_1", "aten.pow.Tensor_Scalar", [t("mm_1"), 2], [8, 16], "R", input_specs=["R"])
    b.redistribute("pow_1", 0, "P(sum)", "R")
    b.call1("loss", "aten.mean.default", [t("pow_1")], [], "R")
    b.write("teach_tp_mlp.plan.json")


def fsdp_tp():
    b = PlanBuilder("teach_fsdp_tp",
                    "2-D FSDP x TP on a 2x2 mesh (dp, tp). Parameters are stored sharded on dp too and all-gathered "
                    "on dp before use; activations are batch-sharded on dp; the row-parallel matmul's Partial(sum) "
                    "on tp meets an all_reduce, and the loss's Partial(sum) on dp another. Look at: pow_1 input 0 "
                    "(press Play: the ring all_reduce on tp of the row-parallel matmul's partial sums, in both dp "
                    "groups at once; mm input 1 shows FSDP's all_gather of w1 on dp).",
                    [2, 2], ["dp", "tp"], RUN)
    b.placeholder("x", [8, 16], "S(0)R", "input")
    b.placeholder("w1", [16, 32], "S(0)S(1)", "param")
    b.placeholder("w2", [32, 16], "S(1)S(0)", "param")
    b.call1("mm", "aten.mm.default", [t("x"), t("w1")], [8, 32], "S(0)S(1)", input_specs=["S(0)R", "RS(1)"],
           module="mlp.fc1")
    b.redistribute("mm", 1, "S(0)S(1)", "RS(1)")
    b.call1("relu", "aten.relu.default", [t("mm")], [8, 32], "S(0)S(1)", module="mlp.act")
    b.call1("mm_1", "aten.mm.default", [t("relu"), t("w2")], [8, 16], "S(0)P(sum)", input_specs=["S(0)S(1)", "RS(0)"],
           module="mlp.fc2")
    b.redistribute("mm_1", 1, "S(1)S(0)", "RS(0)")
    b.call1("pow_1", "aten.pow.Tensor_Scalar", [t("mm_1"), 2], [8, 16], "S(0)R", input_specs=["S(0)R"])
    b.redistribute("pow_1", 0, "S(0)P(sum)", "S(0)R")
    b.call1("sum_1", "aten.sum.default", [t("pow_1")], [], "P(sum)R")
    b.call1("loss", "aten.div.Tensor", [t("sum_1"), 128], [], "RR", input_specs=["RR"])
    b.redistribute("loss", 0, "P(sum)R", "RR")
    b.write("teach_fsdp_tp.plan.json")


if __name__ == "__main__":
    data_parallel()
    tensor_parallel_mlp()
    fsdp_tp()
