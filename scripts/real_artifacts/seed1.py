"""Seed 1 (README.md, "The two bugs it was built for"): Falcon-7b style multi-query attention reduced to one projection, at real sizes,
on a 2x4 mesh ("dim0", "dim1"), input (Shard(0), Replicate()), bf16 params / fp32 reduce.

run(buggy=False): the fixed plan, as autoparallel HEAD applies it.
run(buggy=True):  the same plan with autoparallel issue #348's symptom INJECTED at run time: the interpreter that
applies the solution returns index_put's `values` unchanged instead of redistributing RS(1) -> RS(0).
"""
import torch
from torch import nn
from torch.distributed.fsdp import MixedPrecisionPolicy
from torch.distributed.tensor.placement_types import Replicate, Shard

from common import done, find_node, note, save_user_files, setup

B, S, D, H, HD = 16, 128, 4672, 73, 64


class FalconMQA(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(D, D, bias=False)

    def forward(self, x):
        h = self.proj(x).view(B, S, H, HD)
        q = h[..., :-2, :]
        k = h[..., [-2], :]
        return q + k.expand_as(q)


def inject_missing_redistribute():
    """Patch ApplyShardingInterpreter.redistribute_tensor: skip the redistribute on index_put's values edge."""
    from autoparallel import apply_sharding

    orig = apply_sharding.ApplyShardingInterpreter.redistribute_tensor
    skipped = []

    def redistribute_tensor(self, arg, curr_spec, tgt_spec, node):
        if (
            node.target == torch.ops.aten.index_put.default
            and curr_spec.placements == (Replicate(), Shard(1))
            and tgt_spec.placements == (Replicate(), Shard(0))
        ):
            skipped.append((node.name, tuple(arg.shape)))
            return arg
        return orig(self, arg, curr_spec, tgt_spec, node)

    apply_sharding.ApplyShardingInterpreter.redistribute_tensor = redistribute_tensor
    return skipped


def run(buggy):
    from autoparallel.api import AutoParallel

    mesh = setup((2, 4), ("dim0", "dim1"))
    with torch.device("meta"):
        model = FalconMQA()

    def input_fn():
        return torch.rand(B, S, D, device="cpu")

    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    skipped = inject_missing_redistribute() if buggy else None
    with AutoParallel(model, input_fn, mesh, mp) as autop:
        autop.add_input_constraints([(Shard(0), Replicate())])
        # Steer the CPU solve to the mixed plan of the bug report (left alone it picks a mostly replicated plan).
        autop.sharding_optimizer.add_node_constraint(find_node(autop.gm, "index_put"), (Replicate(), Shard(0)))
        autop.sharding_optimizer.add_node_constraint(find_node(autop.gm, "sum_1"), (Replicate(), Shard(1)))
        placement = autop.optimize_placement()
        save_user_files(autop)
        ip = find_node(autop.gm, "index_put")
        strat = placement[ip]
        note(index_put_inputs=[str(s) for s in strat.input_specs], index_put_output=str(strat.output_specs),
             index_put_args=[str(a) for a in ip.args])
        try:
            autop.apply_placement(placement)
            note(apply_placement="ok")
        except Exception as e:  # recorded, the log keeps what was written before
            note(apply_placement="raised", error=f"{type(e).__name__}: {e}"[:4000])
            if skipped is not None:
                note(skipped_redistribute=skipped)
            raise
        if skipped is not None:
            note(skipped_redistribute=skipped)
    done()
