#!/usr/bin/env python3
"""DTensor programs as users write them (TP / SP / FSDP2, eager and compiled), run on gloo with 4 CPU processes,
and what DTensor's own debugging tools write about them (issue 40). Run by scripts/dtensor_programs.sh inside the
sid root (PyTorch 2.14.1); every file under OUT/<case>/ is what torch wrote, untouched.

    python3 scripts/dtensor_programs/programs.py OUT [CASE...]

Per case (mesh (4,) "tp", or (2, 2) "dp", "tp"), each rank writes, for the flags it lists:
- debug_mode[_<flags>].rank<N>.txt: DebugMode(...).debug_string() of one forward + backward step
- debug_mode_logs.rank<N>.json: DebugMode.save_logs(logs) of the record_ids run
- comm_debug.rank<N>.json: CommDebugMode.generate_json_dump(noise_level=3)
- trace_<backend>/: TORCH_TRACE of torch.compile(backend=...) on the same step (compiled cases)
"""
import json
import os
import shutil
import socket
import sys
import tempfile
import traceback

WORLD = 4
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


# ---- the programs (each returns (module or None, step function)) -------------------------------------------


def mlp(torch):
    class MLP(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w1 = torch.nn.Linear(16, 32)
            self.w2 = torch.nn.Linear(32, 16)

        def forward(self, x):
            return self.w2(torch.relu(self.w1(x)))

    return MLP()


def tp_mlp(torch, mesh):
    """A TP MLP: w1 ColwiseParallel (weight S(0)), w2 RowwiseParallel (weight S(1)), input replicated."""
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module
    torch.manual_seed(0)
    model = parallelize_module(mlp(torch), mesh, {"w1": ColwiseParallel(), "w2": RowwiseParallel()})
    x = torch.randn(8, 16)

    def step(m):
        loss = m(x).sum()
        loss.backward()
        return loss

    return model, step


def sp_block(torch, mesh):
    """A sequence-parallel block: LayerNorm under SequenceParallel (sequence dim 1 sharded), then a TP MLP whose
    w1 gathers the sequence (input_layouts Shard(1)) and whose w2 scatters it back (output_layouts Shard(1), kept a
    DTensor for the residual add)."""
    from torch.distributed.tensor import Shard
    from torch.distributed.tensor.parallel import (ColwiseParallel, RowwiseParallel, SequenceParallel,
                                                   parallelize_module)

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = torch.nn.LayerNorm(16)
            self.mlp = mlp(torch)

        def forward(self, x):
            return x + self.mlp(self.norm(x))

    torch.manual_seed(0)
    model = parallelize_module(Block(), mesh, {
        "norm": SequenceParallel(),
        "mlp.w1": ColwiseParallel(input_layouts=Shard(1)),
        "mlp.w2": RowwiseParallel(output_layouts=Shard(1), use_local_output=False),
    })
    x = torch.randn(2, 8, 16)  # [batch, seq, hidden]; every rank passes its own sequence quarter

    def step(m):
        from torch.distributed.tensor import DTensor
        local = x.chunk(WORLD, dim=1)[torch.distributed.get_rank()]
        xd = DTensor.from_local(local, mesh, [Shard(1)])
        out = m(xd)
        loss = out.to_local().sum()
        loss.backward()
        return loss

    return model, step


def fsdp_tp(torch, mesh):
    """FSDP2 + TP on a 2x2 mesh (dp, tp): the TP MLP on "tp", then fully_shard on "dp" (weights S(0)S(0) /
    S(0)S(1)); each dp rank feeds its own batch."""
    from torch.distributed.fsdp import fully_shard
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module
    torch.manual_seed(0)
    model = parallelize_module(mlp(torch), mesh["tp"], {"w1": ColwiseParallel(), "w2": RowwiseParallel()})
    fully_shard(model, mesh=mesh["dp"])
    torch.manual_seed(1 + mesh.get_coordinate()[0])
    x = torch.randn(8, 16)

    def step(m):
        loss = m(x).sum()
        loss.backward()
        return loss

    return model, step


def implicit_ops(torch, mesh):
    """Eager ops whose inputs DTensor redistributes silently, on a 2x2 mesh: seed 1's index_put (self RS(0),
    values RS(1): values are moved to RS(0)), an mm of two row-sharded operands, and an add of differently sharded
    tensors."""
    from torch.distributed.tensor import Replicate, Shard, distribute_tensor
    torch.manual_seed(0)
    R, S = Replicate(), Shard
    self_ = distribute_tensor(torch.randn(4, 8, 2, 4), mesh, [R, S(0)])
    values = distribute_tensor(torch.randn(4, 8, 1, 4), mesh, [R, S(1)])
    idx = torch.tensor([1])
    a = distribute_tensor(torch.randn(8, 16), mesh, [S(0), R])
    b = distribute_tensor(torch.randn(16, 8), mesh, [S(0), R])
    c = distribute_tensor(torch.randn(8, 8), mesh, [R, S(1)])

    def step(_):
        out = torch.ops.aten.index_put.default(self_, [None, None, idx], values)
        y = torch.mm(a, b) + c
        return out.sum() + y.sum()

    return None, step


def partial_loss(torch, mesh):
    """A Partial reaching a loss: x S(1) @ w S(0) gives P(sum); its sum stays P(sum) until full_tensor()."""
    from torch.distributed.tensor import Shard, distribute_tensor
    torch.manual_seed(0)
    x = distribute_tensor(torch.randn(8, 16), mesh, [Shard(1)])
    w = distribute_tensor(torch.randn(16, 4, requires_grad=True), mesh, [Shard(0)])

    def step(_):
        loss = torch.mm(x, w).sum()
        full = loss.full_tensor()
        full.backward()
        return full

    return None, step


CASES = {
    "tp_mlp": ((4,), ("tp",), tp_mlp, True),
    "sp_block": ((4,), ("tp",), sp_block, True),
    "fsdp_tp": ((2, 2), ("dp", "tp"), fsdp_tp, False),
    "implicit_ops": ((2, 2), ("dp", "tp"), implicit_ops, False),
    "partial_loss": ((4,), ("tp",), partial_loss, False),
}

DEBUG_FLAGS = {
    "": {},
    "_ids": {"record_ids": True},
    "_nn_module": {"record_nn_module": True},
    "_stack_trace": {"record_stack_trace": True},
    "_torchfunction": {"record_torchfunction": True},
}


def worker(rank, case, out, port, mode):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(WORLD),
                      USE_LIBUV="0")
    import torch
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.debug import CommDebugMode
    from torch.utils._debug_mode import DebugMode
    shape, names, build, compiled = CASES[case]
    dist.init_process_group("gloo", rank=rank, world_size=WORLD)
    mesh = init_device_mesh("cpu", shape, mesh_dim_names=names)
    notes = {"rank": rank, "torch": torch.__version__, "mode": mode}
    try:
        if mode == "eager":
            for suffix, flags in DEBUG_FLAGS.items():
                model, step = build(torch, mesh)
                with DebugMode(**flags) as dm:
                    step(model)
                with open(os.path.join(out, "debug_mode%s.rank%d.txt" % (suffix, rank)), "w") as f:
                    f.write(dm.debug_string())
                if suffix == "_ids":  # save_logs: a static method taking the logs
                    DebugMode.save_logs(dm.logs, os.path.join(out, "debug_mode_logs.rank%d.json" % rank))
            model, step = build(torch, mesh)
            comm = CommDebugMode()
            with comm:
                step(model)
            comm.generate_json_dump(file_name=os.path.join(out, "comm_debug.rank%d.json" % rank), noise_level=3)
        else:
            model, step = build(torch, mesh)
            notes["loss"] = float(step(torch.compile(model, backend=mode)))
    except Exception:
        notes["error"] = traceback.format_exc()
    with open(os.path.join(out, "notes_%s.rank%d.json" % (mode, rank)), "w") as f:
        json.dump(notes, f, indent=1)
    dist.barrier()
    dist.destroy_process_group()


def run_case(case, out, mode):
    import torch.multiprocessing as mp
    os.makedirs(out, exist_ok=True)
    env = dict(os.environ)
    if mode != "eager":  # read by torch at import in each spawned process
        os.environ["TORCH_TRACE"] = os.path.join(out, "trace_" + mode)
    try:
        mp.start_processes(worker, args=(case, out, free_port(), mode), nprocs=WORLD, start_method="spawn")
    finally:
        os.environ.clear()
        os.environ.update(env)


if __name__ == "__main__":
    out = sys.argv[1]
    cases = sys.argv[2:] or list(CASES)
    backends = [b for b in os.environ.get("DTENSOR_BACKENDS", "aot_eager,inductor").split(",") if b]
    for case in cases:
        run_case(case, os.path.join(out, case), "eager")
        if CASES[case][3]:
            for backend in backends:
                run_case(case, os.path.join(out, case), backend)
