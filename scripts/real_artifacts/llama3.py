"""autoparallel's own test model (autoparallel/_testing/models/llama3.py) in a small config."""
import sys

import torch
from torch.distributed.fsdp import MixedPrecisionPolicy
from torch.distributed.tensor.placement_types import Replicate, Shard

from common import done, note, save_user_files, setup

VOCAB, SEQ = 2048, 64


def run(mesh_shape, dim_names):
    from autoparallel._testing.models.llama3 import Transformer, TransformerModelArgs
    from autoparallel.api import AutoParallel

    mesh = setup(mesh_shape, dim_names)
    args = TransformerModelArgs(dim=256, n_layers=2, n_heads=8, n_kv_heads=4, vocab_size=VOCAB,
                                rope_theta=500000, max_seq_len=SEQ)
    with torch.device("meta"):
        model = Transformer(args)
    batch = 2 * mesh.shape[0]

    def input_fn():
        return torch.randint(0, VOCAB, (batch, SEQ), device="cpu")

    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    with AutoParallel(model, input_fn, mesh, mp, repeated_subgraphs=True) as autop:
        autop.add_parameter_memory_constraint(low=None, high=None)
        x = (Shard(0),) + (Replicate(),) * (mesh.ndim - 1)
        autop.add_input_constraints([x])
        autop.add_output_constraints([x])
        placement = autop.optimize_placement()
        save_user_files(autop)
        autop.apply_placement(placement)
        note(mesh=list(mesh_shape), dims=list(dim_names), batch=batch, seq=SEQ, vocab=VOCAB, dim=256, n_layers=2)
    done()


