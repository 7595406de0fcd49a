#!/usr/bin/env python3
"""Writes samples/falcon_index_put_2d.plan.json: the first bug of README.md at its real sizes.

Falcon-7b style multi-query attention reduced to one projection, as the joint forward+backward graph that
autoparallel solves on a 2x4 mesh ("dim0", "dim1"):

    proj = Linear(4672, 4672, bias=False)        # bf16 parameter
    h = proj(x).view(16, 128, 73, 64)            # x: [16, 128, 4672], input (Shard(0), Replicate())
    q = h[..., :-2, :]                           # slice      -> [16, 128, 71, 64]
    k = h[..., [-2], :]                          # list index -> [16, 128, 1, 64]
    out = q + k.expand_as(q)
    loss = (out.float() ** 2).sum() / out.numel()

The list index's gradient is full(zeros) -> index_put(zeros, [None, None, idx], values, accumulate=True). The
placements are the solver's: index_put's self arrives as RS(0) while values arrive as RS(1), and the plan
declares index_put's values input as RS(0) but has no redistribute on that edge (the transition the solver
counted and the apply pass never inserted). Every other edge is consistent. The gradient of the weight leaves
as Partial(sum) in fp32 and is all-reduced at the output.

The index tensor is a constant made by full([1], 71, dtype=int64) (h[..., [-2], :] on 73 heads), so the plan
is executable without data files. Run from anywhere: python3 samples/gen/falcon_index_put.py
"""
import json
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "falcon_index_put_2d.plan.json")

B, S, HID, HEADS, HD = 16, 128, 4672, 73, 64
Q_HEADS = HEADS - 2
NUMEL_OUT = B * S * Q_HEADS * HD  # 9306112


def t(name, i=0):
    return {"t": name} if i == 0 else {"t": name, "i": i}


def dt(name):
    return {"dtype": name}


nodes = []
redistributes = []


def placeholder(name, shape, spec, kind, dtype):
    nodes.append({"name": name, "op": "placeholder", "placeholder_kind": kind, "phase": "forward",
                  "meta": [{"shape": shape, "dtype": dtype}], "spec": [spec]})


def call(name, op, args, shape, dtype, spec, phase, kwargs=None, input_specs=None, module="", code=""):
    n = {"name": name, "op": op, "phase": phase, "args": args, "kwargs": kwargs or {},
         "meta": [{"shape": shape, "dtype": dtype}], "spec": [spec]}
    if input_specs:
        n["input_specs"] = input_specs
    if module:
        n["module"] = module
    if code:
        n["source"] = {"file": "falcon_mqa.py", "line": 0, "func": "forward", "code": code}
    nodes.append(n)


def redistribute(node, inp, frm, to):
    redistributes.append({"node": node, "input": inp, "from": frm, "to": to})


F, BW = "forward", "backward"
SR, RR = "S(0)R", "RR"

# ---- forward ----
placeholder("x", [B, S, HID], SR, "input", "bf16")
placeholder("proj_weight", [HID, HID], RR, "param", "bf16")
call("view", "aten.view.default", [t("x"), [B * S, HID]], [B * S, HID], "bf16", SR, F, module="proj")
call("t", "aten.t.default", [t("proj_weight")], [HID, HID], "bf16", RR, F, module="proj")
call("mm", "aten.mm.default", [t("view"), t("t")], [B * S, HID], "bf16", SR, F, module="proj",
     code="h = proj(x)")
call("view_1", "aten.view.default", [t("mm"), [B, S, HID]], [B, S, HID], "bf16", SR, F, module="proj")
call("view_2", "aten.view.default", [t("view_1"), [B, S, HEADS, HD]], [B, S, HEADS, HD], "bf16", SR, F,
     code="h = proj(x).view(B, S, 73, 64)")
call("slice_1", "aten.slice.Tensor", [t("view_2"), 2, 0, -2], [B, S, Q_HEADS, HD], "bf16", SR, F,
     code="q = h[..., :-2, :]")
call("idx", "aten.full.default", [[1], HEADS - 2], [1], "i64", RR, F, kwargs={"dtype": dt("i64")},
     code="k = h[..., [-2], :]")
call("index", "aten.index.Tensor", [t("view_2"), [None, None, t("idx")]], [B, S, 1, HD], "bf16", SR, F,
     code="k = h[..., [-2], :]")
call("expand", "aten.expand.default", [t("index"), [B, S, Q_HEADS, HD]], [B, S, Q_HEADS, HD], "bf16", SR, F,
     code="k.expand_as(q)")
call("add", "aten.add.Tensor", [t("slice_1"), t("expand")], [B, S, Q_HEADS, HD], "bf16", SR, F,
     code="out = q + k.expand_as(q)")
call("convert_element_type", "prims.convert_element_type.default", [t("add"), dt("f32")],
     [B, S, Q_HEADS, HD], "f32", SR, F, code="out.float()")
call("pow_1", "aten.pow.Tensor_Scalar", [t("convert_element_type"), 2], [B, S, Q_HEADS, HD], "f32", SR, F)
call("sum_1", "aten.sum.default", [t("pow_1")], [], "f32", "P(sum)R", F)
call("loss", "aten.div.Tensor", [t("sum_1"), NUMEL_OUT], [], "f32", RR, F, input_specs=[RR],
     code="loss = (out.float() ** 2).sum() / out.numel()")
redistribute("loss", 0, "P(sum)R", RR)

# ---- backward ----
call("full", "aten.full.default", [[], 1.0], [], "f32", RR, BW, kwargs={"dtype": dt("f32")})
call("div_1", "aten.div.Tensor", [t("full"), NUMEL_OUT], [], "f32", RR, BW)
call("expand_1", "aten.expand.default", [t("div_1"), [B, S, Q_HEADS, HD]], [B, S, Q_HEADS, HD], "f32", RR, BW)
call("mul", "aten.mul.Scalar", [t("convert_element_type"), 2.0], [B, S, Q_HEADS, HD], "f32", SR, BW)
call("mul_1", "aten.mul.Tensor", [t("expand_1"), t("mul")], [B, S, Q_HEADS, HD], "f32", SR, BW,
     input_specs=[SR, None])
redistribute("mul_1", 0, RR, SR)
call("convert_element_type_1", "prims.convert_element_type.default", [t("mul_1"), dt("bf16")],
     [B, S, Q_HEADS, HD], "bf16", SR, BW)
# expand's backward: sum over the broadcast heads dim. The solver puts this branch on RS(1).
call("sum_2", "aten.sum.dim_IntList", [t("convert_element_type_1"), [2], True], [B, S, 1, HD], "bf16", "RS(1)",
     BW, input_specs=["RS(1)"])
redistribute("sum_2", 0, SR, "RS(1)")
# index's backward: zeros, then index_put(accumulate=True). The solver puts self on RS(0) and declares values
# RS(0) too, but the transition RS(1) -> RS(0) on the values edge is missing: seed 1.
call("full_1", "aten.full.default", [[B, S, HEADS, HD], 0], [B, S, HEADS, HD], "bf16", "RS(0)", BW,
     kwargs={"dtype": dt("bf16")})
call("index_put", "aten.index_put.default", [t("full_1"), [None, None, t("idx")], t("sum_2"), True],
     [B, S, HEADS, HD], "bf16", "RS(0)", BW, input_specs=[None, None, "RS(0)"])
# slice's backward: zeros, then slice_scatter.
call("full_2", "aten.full.default", [[B, S, HEADS, HD], 0], [B, S, HEADS, HD], "bf16", SR, BW,
     kwargs={"dtype": dt("bf16")})
call("slice_scatter", "aten.slice_scatter.default", [t("full_2"), t("convert_element_type_1"), 2, 0, -2],
     [B, S, HEADS, HD], "bf16", SR, BW)
call("add_1", "aten.add.Tensor", [t("slice_scatter"), t("index_put")], [B, S, HEADS, HD], "bf16", SR, BW,
     input_specs=[None, SR])
redistribute("add_1", 1, "RS(0)", SR)
call("view_3", "aten.view.default", [t("add_1"), [B, S, HID]], [B, S, HID], "bf16", SR, BW)
call("view_4", "aten.view.default", [t("view_3"), [B * S, HID]], [B * S, HID], "bf16", SR, BW)
call("t_1", "aten.t.default", [t("view_4")], [HID, B * S], "bf16", "S(1)R", BW)
call("mm_1", "aten.mm.default", [t("t_1"), t("view")], [HID, HID], "bf16", "P(sum)R", BW, module="proj")
call("convert_element_type_2", "prims.convert_element_type.default", [t("mm_1"), dt("f32")], [HID, HID], "f32",
     "P(sum)R", BW)
nodes.append({"name": "output", "op": "output", "args": [[t("loss"), t("convert_element_type_2")]],
              "input_specs": [None, RR]})
redistribute("output", 1, "P(sum)R", RR)

plan = {
    "format": "shardscope-plan", "version": 1, "name": "falcon_index_put_2d",
    "description": "Seed 1 (autoparallel, 2x4 mesh): Falcon-7b multi-query attention reduced to one projection, "
                   "joint forward+backward at real sizes (batch 16, sequence 128, hidden 4672 = 73 heads x 64). "
                   "index_put's self arrives as RS(0), its values as RS(1): the redistribute the solver planned "
                   "on the values edge is missing, and each rank's local values [16, 32, 1, 64] cannot broadcast "
                   "into its slots [4, 128, 1, 64]. `shardscope fix` inserts the all_to_all on mesh dim 1.",
    "mesh": {"shape": [2, 4], "dim_names": ["dim0", "dim1"]},
    "run": {"seed": 1, "loss": "loss", "batches": 3, "rtol": 1e-4},
    "nodes": nodes,
    "redistributes": redistributes,
}

with open(OUT, "w") as f:
    json.dump(plan, f, indent=1)
    f.write("\n")
