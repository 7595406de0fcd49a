"""autoparallel's DeepSeek-V3 test model (autoparallel/_testing/models/dsv3.py: MLA attention, MoE with
local_map token dispatch / all_to_all, grouped experts) in a small config on a 2x4 mesh ("dp", "ep"), set up as
autoparallel's tests/test_graph_clustering.py and examples/example_ds3_local_map.py do (dynamic=True).

dsv3.py imports triton at the top for one kernel (_fill_indices_kernel) that only runs on a GPU: it is wrapped in
a torch.library.custom_op with a register_fake, so tracing on fake tensors never launches it. There is no triton
here, so this driver puts a stub `triton` / `triton.language` in sys.modules (for this process only) whose `jit`
returns the function unchanged; nothing of it reaches the graph.
"""
import sys
import types

import torch
from torch.distributed.fsdp import MixedPrecisionPolicy
from torch.distributed.tensor.placement_types import Shard

from common import done, note, save_user_files, setup


def stub_triton():
    triton = types.ModuleType("triton")
    tl = types.ModuleType("triton.language")
    triton.jit = lambda fn=None, **kw: fn if fn is not None else (lambda f: f)
    triton.language = tl
    tl.constexpr = int
    sys.modules["triton"] = triton
    sys.modules["triton.language"] = tl


def main():
    # torch probes for triton once (has_triton*, lru_cached) when dynamo / inductor load: let it see that there is
    # none before the stub goes in, or it takes the stub for a real triton (`triton.language has no attribute dtype`).
    from autoparallel.api import AutoParallel
    from torch.utils._triton import has_triton, has_triton_package

    has_triton_package(), has_triton()
    stub_triton()
    from autoparallel._testing.models.dsv3 import DeepSeekV3Model, make_dsv3_config

    mesh = setup((2, 4), ("dp", "ep"))
    seq = 64
    config = make_dsv3_config(dim=128, vocab_size=512, n_layers=2, n_dense_layers=1, n_heads=4,
                              kv_lora_rank=64, qk_nope_head_dim=32, qk_rope_head_dim=16, v_head_dim=32,
                              dense_hidden_dim=256, moe_hidden_dim=64, num_experts=8, num_shared_experts=1,
                              top_k=2, max_seq_len=seq)
    with torch.device("meta"):
        model = DeepSeekV3Model(config, mesh=mesh, compute_dtype=torch.bfloat16)
    for module in model.modules():
        if hasattr(module, "axis_name"):
            module.axis_name = mesh.mesh_dim_names[1]
    batch = 2 * mesh.size()

    def input_fn():
        return torch.randint(0, config.vocab_size, (batch, seq), device="cpu")

    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    with AutoParallel(model, input_fn, mesh, mp_policy=mp, dynamic=True) as autop:
        autop.add_parameter_memory_constraint(low=None, high=None)
        autop.add_input_constraints([(Shard(0), Shard(0))])
        autop.add_output_constraints([(Shard(0), Shard(0))])
        placement = autop.optimize_placement()
        save_user_files(autop)
        autop.apply_placement(placement)
        note(mesh=[2, 4], dims=["dp", "ep"], batch=batch, seq=seq)
    done()


main()
