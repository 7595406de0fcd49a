"""A small attention block on torch.nn.attention.flex_attention (q/k/v/o projections, a relative-position
score_mod) on a 1-D mesh of 4, data-parallel input. The joint graph then holds the flex_attention and
flex_attention_backward higher-order ops with their score / mask subgraphs (get_attr nodes `sdpa_score0`,
`sdpa_mask0`, ...), which autoparallel plans with its own flex-attention strategy
(placement_options.get_flex_attention_placement_option; its tests are tests/test_flex_attention.py).

One run-time work-around, for this process only (said so in tests/data/real/README.md): torch 2.14.1's
flex_attention() refuses inputs that need a gradient on CPU (`_validate_device`: "FlexAttention does not support
backward on CPU"), because the CPU kernels have no backward. autoparallel only traces on fake tensors and never
runs a kernel, so the driver drops that one CPU check (the device-type check stays); the joint graph's
flex_attention / flex_attention_backward ops are what torch traces for any device."""
import torch
from torch import nn
from torch.distributed.tensor.placement_types import Shard
from torch.nn.attention.flex_attention import flex_attention

from common import done, note, save_user_files, setup

B_PER_RANK, S, D, H = 2, 64, 128, 8


def rel_bias(score, b, h, q_idx, kv_idx):
    # a score_mod that reads the indices (so its subgraph is not the identity)
    return score - (q_idx - kv_idx).abs().to(score.dtype) * 0.125


class FlexBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.wq = nn.Linear(D, D, bias=False)
        self.wk = nn.Linear(D, D, bias=False)
        self.wv = nn.Linear(D, D, bias=False)
        self.wo = nn.Linear(D, D, bias=False)

    def forward(self, x):
        b, s, _ = x.shape
        q = self.wq(x).view(b, s, H, D // H).transpose(1, 2)
        k = self.wk(x).view(b, s, H, D // H).transpose(1, 2)
        v = self.wv(x).view(b, s, H, D // H).transpose(1, 2)
        o = flex_attention(q, k, v, score_mod=rel_bias)
        return self.wo(o.transpose(1, 2).reshape(b, s, D))


def allow_cpu_backward_trace():
    """torch.nn.attention.flex_attention._validate_device without its CPU/MPS requires_grad refusal."""
    from torch.nn.attention import flex_attention as fa

    orig = fa._validate_device

    def _validate_device(query, key, value):
        if query.device.type == "cpu":
            return  # the only other check is the device type, and cpu is supported
        orig(query, key, value)

    fa._validate_device = _validate_device


def main():
    from autoparallel.api import AutoParallel

    allow_cpu_backward_trace()
    mesh = setup((4,), ("dp",))
    with torch.device("meta"):
        model = FlexBlock()
    batch = B_PER_RANK * mesh.size()

    def input_fn():
        return torch.rand(batch, S, D, device="cpu")

    with AutoParallel(model, input_fn, mesh) as autop:
        autop.add_input_constraints([(Shard(0),)])
        autop.add_output_constraints([(Shard(0),)])
        placement = autop.optimize_placement()
        save_user_files(autop)
        autop.apply_placement(placement)
        note(mesh=[4], dims=["dp"], input=[batch, S, D], heads=H)
    done()


main()
