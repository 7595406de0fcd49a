"""autoparallel's own test model (autoparallel/_testing/models/llama3.py) in a small config."""
import re
import sys

import torch
from torch.distributed.fsdp import MixedPrecisionPolicy
from torch.distributed.tensor.placement_types import Replicate, Shard

from common import done, note, save_user_files, setup

VOCAB, SEQ = 2048, 64


def spec(text, ndim):
    """A placement tuple from a short mesh-centric string: "S(0)R" -> (Shard(0), Replicate()); None -> batch on
    mesh dim 0, replicated on the rest (autoparallel's examples' default)."""
    if text is None:
        return (Shard(0),) + (Replicate(),) * (ndim - 1)
    out = []
    for m in re.finditer(r"S\((\d+)\)|R", text):
        out.append(Shard(int(m.group(1))) if m.group(1) is not None else Replicate())
    assert len(out) == ndim, f"{text!r} is not a spec on a {ndim}-D mesh"
    return tuple(out)


def run(mesh_shape, dim_names, inp=None, out=None, n_layers=2, dim=256, n_heads=8, n_kv_heads=4,
        batch=None, vocab=VOCAB, extra=None):
    """inp / out: the input (tokens [batch, seq]) and output (logits [batch, seq, vocab]) constraints as
    mesh-centric strings ("S(0)S(0)", "S(0)S(2)" vocab-parallel); None: S(0) on mesh dim 0, R elsewhere.
    batch: None = 2 x mesh dim 0's size. extra: more TransformerModelArgs fields (the 8B config's)."""
    from autoparallel._testing.models.llama3 import Transformer, TransformerModelArgs
    from autoparallel.api import AutoParallel

    mesh = setup(mesh_shape, dim_names)
    args = TransformerModelArgs(dim=dim, n_layers=n_layers, n_heads=n_heads, n_kv_heads=n_kv_heads, vocab_size=vocab,
                                rope_theta=500000, max_seq_len=SEQ, **(extra or {}))
    with torch.device("meta"):
        model = Transformer(args)
    batch = batch or 2 * mesh.shape[0]

    def input_fn():
        return torch.randint(0, vocab, (batch, SEQ), device="cpu")

    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    with AutoParallel(model, input_fn, mesh, mp, repeated_subgraphs=True) as autop:
        autop.add_parameter_memory_constraint(low=None, high=None)
        autop.add_input_constraints([spec(inp, mesh.ndim)])
        autop.add_output_constraints([spec(out, mesh.ndim)])
        placement = autop.optimize_placement()
        save_user_files(autop)
        autop.apply_placement(placement)
        note(mesh=list(mesh_shape), dims=list(dim_names), batch=batch, seq=SEQ, vocab=vocab, dim=dim, n_layers=n_layers,
             input=inp or "default", output=out or "default")
    done()


