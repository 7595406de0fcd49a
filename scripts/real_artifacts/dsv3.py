"""autoparallel's DeepSeek-V3 test model (autoparallel/_testing/models/dsv3.py: MLA attention, MoE with
local_map token dispatch / all_to_all, grouped experts) in a small config, set up as autoparallel's
tests/test_graph_clustering.py and examples/example_ds3_local_map.py do (dynamic=True, input/output
(Shard(0), Shard(0)), parameter memory constraint). Used by the case drivers dsv3_<mesh>.py: run(mesh_shape, names).

Two run-time work-arounds, both for this process only and both said so in tests/data/real/README.md:
1. dsv3.py imports triton at the top for one kernel (_fill_indices_kernel) that only runs on a GPU: it sits
   behind a torch.library.custom_op with a register_fake, so tracing on fake tensors never launches it. There is
   no triton here, so a stub `triton` / `triton.language` goes into sys.modules whose `jit` returns the function
   unchanged; nothing of it reaches the graph.
2. The MoE router counts tokens per expert with torch.histc on an int64 tensor. That exists on CUDA only; on CPU
   the fake tensor's meta check (`"histogram_cpu" not implemented for 'torch.int64'`) stops the trace. torch.histc
   is replaced by a function that, for an integer input, computes it in float32 and casts back to the input's
   dtype (exact for these small integer counts). The graphs therefore hold `_to_copy` (i64 -> f32), `histc` (f32),
   `_to_copy` (f32 -> i64) where a GPU run holds one `histc` on i64.
3. autoparallel a54c252's local_map strategy asserts `"call_local_map" in str(node.target)`; in torch 2.14.1 the
   higher-order op is named `local_map_hop` (torch._higher_order_ops.local_map.LocalMapHOP), so the assertion
   fails on the right node. While autoparallel's get_local_map_placement_option runs (only then), str() of that
   op answers "call_local_map"; the graphs print the op's real name (`torch.ops.higher_order.local_map_hop`).
4. With TORCH_TRACE on, optimize_placement() logs get_json(), and get_json() puts each node's fake-tensor shape in
   the JSON as is: the MoE's data-dependent sizes are SymInts (`u20 + u21`), so unpatched autoparallel a54c252
   raises `TypeError: Object of type SymInt is not JSON serializable` there (without TORCH_TRACE the payload is
   never built and the run goes on). autoparallel's export_json._extract_shape_dtype is wrapped so that a shape
   with a symbolic size is reported as None; export_sharding_json then leaves out that node's "shape" key, as it
   does for any node without a tensor value. Every other field is autoparallel's own.
"""
import sys
import types

import torch
from torch.distributed.fsdp import MixedPrecisionPolicy
from torch.distributed.tensor.placement_types import Shard

from common import done, note, save_user_files, setup

SEQ = 64


def stub_triton():
    """A `triton` with only what dsv3.py touches at import time (triton.jit, tl.constexpr)."""
    triton = types.ModuleType("triton")
    tl = types.ModuleType("triton.language")
    triton.jit = lambda fn=None, **kw: fn if fn is not None else (lambda f: f)
    triton.language = tl
    tl.constexpr = int
    sys.modules["triton"] = triton
    sys.modules["triton.language"] = tl


def patch_histc():
    """torch.histc on an integer tensor goes through float32 (CPU has no integer histc; CUDA has)."""
    orig = torch.histc

    def histc(input, bins=100, min=0, max=0):
        if not input.is_floating_point():
            return orig(input.to(torch.float32), bins=bins, min=min, max=max).to(input.dtype)
        return orig(input, bins=bins, min=min, max=max)

    torch.histc = histc


def patch_local_map_name():
    """Let autoparallel's local_map assertion accept torch 2.14.1's op name (see the module docstring, 3)."""
    from autoparallel.shardings import placement_options
    from torch._higher_order_ops.local_map import LocalMapHOP

    orig = placement_options.get_local_map_placement_option

    def get_local_map_placement_option(mesh, specs, user_args, node, local_map_kwargs):
        if not isinstance(node.target, LocalMapHOP):
            return orig(mesh, specs, user_args, node, local_map_kwargs)
        LocalMapHOP.__str__ = lambda self: "call_local_map"
        try:
            return orig(mesh, specs, user_args, node, local_map_kwargs)
        finally:
            del LocalMapHOP.__str__  # back to HigherOrderOperator.__str__ (LocalMapHOP defines none)

    placement_options.get_local_map_placement_option = get_local_map_placement_option


def patch_symbolic_shapes_in_json():
    """get_json(): no "shape" for a node whose shape has a symbolic size (see the module docstring, 4)."""
    from autoparallel import export_json

    orig = export_json._extract_shape_dtype
    dropped = []

    def _extract_shape_dtype(node):
        shape, dtype = orig(node)
        if shape is not None and not all(isinstance(s, int) for s in shape):
            dropped.append(node.name)
            return None, dtype
        return shape, dtype

    export_json._extract_shape_dtype = _extract_shape_dtype
    return dropped


def run(mesh_shape, dim_names):
    # torch probes for triton once (has_triton*, lru_cached) when dynamo / inductor load: let it see that there is
    # none before the stub goes in, or it takes the stub for a real triton (`triton.language has no attribute dtype`).
    from autoparallel.api import AutoParallel
    from torch.utils._triton import has_triton, has_triton_package

    has_triton_package(), has_triton()
    stub_triton()
    patch_histc()
    patch_local_map_name()
    dropped = patch_symbolic_shapes_in_json()
    from autoparallel._testing.models.dsv3 import DeepSeekV3Model, make_dsv3_config

    mesh = setup(mesh_shape, dim_names)
    cfg = dict(dim=128, vocab_size=512, n_layers=2, n_dense_layers=1, n_heads=4, kv_lora_rank=64,
               qk_nope_head_dim=32, qk_rope_head_dim=16, v_head_dim=32, dense_hidden_dim=256, moe_hidden_dim=64,
               num_experts=8, num_shared_experts=1, top_k=2, max_seq_len=SEQ)
    config = make_dsv3_config(**cfg)
    with torch.device("meta"):
        model = DeepSeekV3Model(config, mesh=mesh, compute_dtype=torch.bfloat16)
    # the MoE's expert-parallel axis: the mesh's last dim (the model's default name is "ep")
    for module in model.modules():
        if hasattr(module, "axis_name"):
            module.axis_name = mesh.mesh_dim_names[-1]
    batch = 2 * mesh.size()

    def input_fn():
        return torch.randint(0, config.vocab_size, (batch, SEQ), device="cpu")

    x = (Shard(0),) * mesh.ndim
    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    with AutoParallel(model, input_fn, mesh, mp_policy=mp, dynamic=True) as autop:
        autop.add_parameter_memory_constraint(low=None, high=None)
        autop.add_input_constraints([x])
        autop.add_output_constraints([x])
        placement = autop.optimize_placement()
        note(solution_nodes_without_shape=sorted(set(dropped)))
        save_user_files(autop)
        autop.apply_placement(placement)
        note(mesh=list(mesh_shape), dims=list(dim_names), batch=batch, seq=SEQ, config=cfg)
    done()
