"""Seed 1's model and set-up (seed1.py) for the load-back runs: same mesh, mixed precision and input constraint."""
import torch
from torch.distributed.fsdp import MixedPrecisionPolicy
from torch.distributed.tensor.placement_types import Replicate, Shard

import loadback
from seed1 import B, D, S, FalconMQA


def run(case):
    loadback.run(
        case,
        FalconMQA,
        lambda: torch.rand(B, S, D, device="cpu"),
        (2, 4),
        ("dim0", "dim1"),
        MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32),
        [(Shard(0), Replicate())],
        ("sum_1", "index_put"),
    )
