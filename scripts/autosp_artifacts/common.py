"""Shared driver for running DeepSpeed's real AutoSP passes on CPU (2 gloo ranks) and writing fixtures.

Run by scripts/autosp_artifacts.sh inside the Debian sid root with PYTHONPATH at a copy of DeepSpeed (/opt/ds),
DS_ACCELERATOR=cpu, TORCH_TRACE=<trace folder> and SHARDSCOPE_CASE_OUT=<folder for the files the driver writes
with torch's own API>.  Nothing here imitates an artifact: the logs are torch's, the graph texts are torch's
print_readable() / str(graph) of the GraphModule DeepSpeed's backend received and then rewrote.

Contract of run(case): spawns 2 processes (torch.multiprocessing, gloo on 127.0.0.1), each one
  1. initialises deepspeed.comm (build_shm_op stubbed to None: the CPU accelerator would JIT-build csrc/'s shm op),
  2. builds the same tiny causal-attention model (seeded), and compiles it with DeepSpeed's own AutoSP backend
     (deepspeed.compile.init_sp.init_autosp, sequence_parallel_size 2), whose apply_autosp is wrapped only to
     print the graph before and after the passes,
  3. runs 3 batches of the full (unsharded) inputs through it, tagged by prepare_autosp_inputs(seq_dim=...),
     and computes the single-device reference loss eagerly on the same weights and data,
  4. prints `SHARDSCOPE_NOTE {json}` lines: per-rank losses, the reference, and rank 0's verdict
     (mean of per-rank losses vs reference, rtol 1e-4).
A failure inside compilation is recorded (type, message, last traceback lines) and the process exits 1.
"""
import datetime
import json
import os
import socket
import sys
import time
import traceback

import torch
import torch.nn as nn
import torch.nn.functional as F

CASE_OUT = os.environ.get("SHARDSCOPE_CASE_OUT", ".")
WORLD = 2
SP_SIZE = 2
VOCAB, DIM, HEADS, SEQ, BATCH = 64, 32, 4, 8, 2
BATCHES = 3
RTOL = 1e-4
T0 = time.perf_counter()


def note(**facts):
    """One line of facts the driver saw, for driver_output.out."""
    facts["elapsed_s"] = round(time.perf_counter() - T0, 2)
    print("SHARDSCOPE_NOTE " + json.dumps(facts, sort_keys=True), flush=True)


class TinyCausalAttention(nn.Module):
    """embedding -> q/k/v projections -> causal SDPA -> output projection -> cross-entropy.

    seq_dim says where the sequence is in input_ids / labels: 1 for [batch, seq], 0 for [seq, batch]. The model
    moves it to the [batch, heads, seq, head_dim] layout SDPA (and AutoSP's all-to-all) expects.
    """

    def __init__(self, seq_dim):
        super().__init__()
        self.seq_dim = seq_dim
        self.emb = nn.Embedding(VOCAB, DIM)
        self.q_proj = nn.Linear(DIM, DIM, bias=False)
        self.k_proj = nn.Linear(DIM, DIM, bias=False)
        self.v_proj = nn.Linear(DIM, DIM, bias=False)
        self.o_proj = nn.Linear(DIM, VOCAB, bias=False)

    def forward(self, input_ids, labels):
        h = self.emb(input_ids)  # [B, S, D] or [S, B, D]
        if self.seq_dim == 0:
            h = h.transpose(0, 1)  # -> [B, S, D]
            labels = labels.transpose(0, 1)
        b, s, _ = h.shape

        def heads(x):
            return x.view(b, s, HEADS, DIM // HEADS).transpose(1, 2)  # [B, N, S, H]

        q, k, v = heads(self.q_proj(h)), heads(self.k_proj(h)), heads(self.v_proj(h))
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        o = o.transpose(1, 2).reshape(b, s, DIM)
        logits = self.o_proj(o)
        return F.cross_entropy(logits.reshape(-1, VOCAB), labels.reshape(-1))


def batch(i, seq_dim):
    """Batch i (same on every rank): full-sequence input_ids and labels, [B, S] or [S, B]."""
    g = torch.Generator().manual_seed(1000 + i)
    ids = torch.randint(0, VOCAB, (BATCH, SEQ), generator=g)
    lbl = torch.randint(0, VOCAB, (BATCH, SEQ), generator=g)
    if seq_dim == 0:
        ids, lbl = ids.t().contiguous(), lbl.t().contiguous()
    return ids, lbl


def graph_text(gm):
    """The graph as torch prints it: print_readable (strides, devices) and str(gm.graph)."""
    readable = gm.print_readable(print_output=False, include_stride=True, include_device=True)
    return readable, str(gm.graph)


def shape_meta(node):
    v = node.meta.get("example_value")
    return v if v is not None else node.meta.get("val")


def write(name, text):
    with open(os.path.join(CASE_OUT, name), "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def apply_fix():
    """The fix of MOTIVATING_BUGS.md #2, applied at run time (monkeypatch; DeepSpeed's files are unchanged).

    - prepare_autosp_inputs tags inputs (key, seq_dim) instead of the bare key;
    - find_node_by_tag matches the key of a (key, seq_dim) tag (a bare key still matches, dimension 1);
    - pass_shard_seq_dim reads the sequence symbol from shape[seq_dim], shard_tensor_node slices dim seq_dim
      (the label is sliced along the same dim, after a bounds check).
    """
    import operator
    from deepspeed.compile import constants, fx, util
    from deepspeed.compile.passes import sp_compile
    from deepspeed.compile.custom_ops import sp_dp_registry

    def tag_of(node):
        td = node.meta.get("tensor_dict") or {}
        return td.get("tag")

    def key_and_dim(tag):
        if isinstance(tag, tuple):
            return tag[0], tag[1]
        return tag, 1

    def find_node_by_tag(gm, tag):
        for node in gm.graph.nodes:
            t = tag_of(node)
            if t is not None and key_and_dim(t)[0] == tag:
                return node
        return None

    def seq_dim_of(node):
        return key_and_dim(tag_of(node))[1]

    def prepare_autosp_inputs(input_id, label_id, position_id=None, attention_mask=None, seq_dim=1):
        for t, what in ((input_id, "input_id"), (label_id, "label_id"), (position_id, "position_id"),
                        (attention_mask, "attention_mask")):
            if t is not None and not 0 <= seq_dim < t.ndim:
                raise ValueError(f"seq_dim {seq_dim} out of bounds for {what} of shape {tuple(t.shape)}")
            if t is not None:
                torch._dynamo.decorators.mark_dynamic(t, seq_dim)
        input_id.tag = (constants.AUTOSP_INPUT_ID_KEY, seq_dim)
        label_id.tag = (constants.AUTOSP_LABEL_ID_KEY, seq_dim)
        if position_id is not None:
            position_id.tag = (constants.AUTOSP_POSITION_ID_KEY, seq_dim)
        return input_id, label_id, position_id, attention_mask

    def shard_tensor_node(gm, tensor_node):
        # as DeepSpeed's, with shape[seq_dim] and the slice placed at seq_dim
        d = seq_dim_of(tensor_node)
        val = fx.get_node_shape_meta(tensor_node)
        assert val is not None and d < val.dim(), f"{tensor_node.name}: seq_dim {d} out of bounds"
        seq_len = val.shape[d]
        assert isinstance(seq_len, torch.SymInt), f"expected a SymInt at dim {d}, found {type(seq_len)!r}"
        sym = fx.find_node_by_name(gm, str(seq_len))
        assert sym is not None, f"no symbolic placeholder for {seq_len}"
        slice_all, slice_range = util.create_symbolic_slice_indices(gm, sym)
        indices = tuple([slice_all] * d + [slice_range])
        pos = {n: i for i, n in enumerate(gm.graph.nodes)}
        anchor = slice_range if pos[slice_range] > pos[tensor_node] else tensor_node
        with gm.graph.inserting_after(anchor):
            sliced = gm.graph.call_function(operator.getitem, args=(tensor_node, indices))
        fx.replace_node_users(tensor_node, sliced, exclude=[sliced])

    orig_pass_shard_seq_dim = sp_compile.pass_shard_seq_dim

    def pass_shard_seq_dim(gm, example_inputs):
        # DeepSpeed's pass reads val.shape[1]; hand it a view of the meta whose dim 1 is the tagged seq_dim, so its
        # own consumer walk and floordiv insertion run unchanged.
        node = sp_compile.get_input_id_node(gm)
        d = seq_dim_of(node)

        class Shape:
            def __init__(self, v):
                self.shape = {1: v.shape[d]}

        real = sp_compile.get_node_shape_meta
        sp_compile.get_node_shape_meta = lambda n: Shape(real(n)) if n is node else real(n)
        try:
            orig_pass_shard_seq_dim(gm, example_inputs)
        finally:
            sp_compile.get_node_shape_meta = real

    fx.find_node_by_tag = find_node_by_tag
    sp_compile.prepare_autosp_inputs = prepare_autosp_inputs
    sp_compile.pass_shard_seq_dim = pass_shard_seq_dim
    sp_compile.shard_tensor_node = shard_tensor_node
    util.shard_tensor_node = shard_tensor_node
    del sp_dp_registry  # imported only to make sure the package is loaded before patching


def worker(rank, port, case):
    os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(WORLD), MASTER_ADDR="127.0.0.1",
                      MASTER_PORT=str(port), USE_LIBUV="0")
    seq_dim = case["seq_dim"]
    import deepspeed.comm as dist
    import deepspeed.comm.torch  # noqa: F401 - `deepspeed.comm.torch` as a name is torch itself (star import)
    ds_torch_comm = sys.modules["deepspeed.comm.torch"]

    # The CPU accelerator's TorchBackend JIT-builds csrc/'s shared-memory op; AutoSP needs only torch.distributed.
    ds_torch_comm.build_shm_op = lambda: None
    dist.init_distributed(dist_backend="gloo", auto_mpi_discovery=False, timeout=datetime.timedelta(seconds=300))

    from deepspeed.compile import init_sp
    from deepspeed.compile.passes import sp_compile
    if case.get("fixed"):
        apply_fix()

    orig_apply = init_sp.apply_autosp

    def apply_autosp_recorded(gm, real_inputs, **kw):
        # the graph DeepSpeed's backend received (Dynamo's output graph) and the same module after AutoSP's passes
        r, s = graph_text(gm)
        write(f"graph_before_autosp.rank{rank}.txt", r)
        write(f"graph_before_autosp.rank{rank}.graph.txt", s)
        # what the graph text cannot show: which placeholders carry an AutoSP tag (node.meta["tensor_dict"])
        note(rank=rank, placeholders=[[n.name, str(getattr(shape_meta(n), "shape", "-")),
                                       repr((n.meta.get("tensor_dict") or {}).get("tag"))]
                                      for n in gm.graph.nodes if n.op == "placeholder"])
        orig_apply(gm, real_inputs, **kw)  # a failure propagates (Dynamo reports it); no "after" graph then
        r, s = graph_text(gm)
        write(f"graph_after_autosp.rank{rank}.txt", r)
        write(f"graph_after_autosp.rank{rank}.graph.txt", s)

    init_sp.apply_autosp = apply_autosp_recorded

    class Cfg:  # what init_autosp reads from a DeepSpeedConfig
        _param_dict = {"sequence_parallel_size": SP_SIZE}

    backend = init_sp.init_autosp(Cfg())

    torch.manual_seed(0)
    model = TinyCausalAttention(seq_dim)
    ref_model = TinyCausalAttention(seq_dim)
    ref_model.load_state_dict(model.state_dict())
    compiled = torch.compile(model, backend=backend, dynamic=case.get("dynamic"))

    status = 0
    for i in range(BATCHES):
        ids, lbl = batch(i, seq_dim)
        with torch.no_grad():
            ref = ref_model(ids, lbl).item()
        ids, lbl, _, _ = sp_compile.prepare_autosp_inputs(ids, lbl, seq_dim=seq_dim)
        for d in case.get("also_dynamic", []):
            torch._dynamo.decorators.mark_dynamic(ids, d)
            torch._dynamo.decorators.mark_dynamic(lbl, d)
        try:
            loss = compiled(ids, lbl)
        except Exception as e:  # noqa: BLE001 - recorded: the failure is the fixture
            tb = traceback.format_exc().splitlines()
            note(rank=rank, batch=i, error=f"{type(e).__name__}: {e}"[:3000], traceback_tail=tb[-25:])
            status = 1
            break
        loss_v = loss.item()
        note(rank=rank, batch=i, loss=loss_v, reference=ref, tag=repr(getattr(ids, "tag", None)))
        losses = [None] * WORLD
        torch.distributed.all_gather_object(losses, loss_v)
        if rank == 0:
            mean = sum(losses) / WORLD
            ok = abs(mean - ref) <= RTOL * abs(ref)
            note(batch=i, per_rank_losses=losses, mean_loss=mean, reference_loss=ref,
                 rel_diff=abs(mean - ref) / abs(ref), rtol=RTOL, match=ok)
    torch.distributed.barrier() if status == 0 else None
    note(rank=rank, done=True, status=status, torch=torch.__version__)
    sys.stdout.flush()
    os._exit(status)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(case):
    import torch.multiprocessing as mp
    note(case=case, world=WORLD, sp_size=SP_SIZE, vocab=VOCAB, dim=DIM, heads=HEADS, seq_len=SEQ, batch_size=BATCH,
         batches=BATCHES)
    ctx = mp.start_processes(worker, args=(free_port(), case), nprocs=WORLD, join=False, start_method="spawn")
    rc = 0
    try:
        while not ctx.join():
            pass
    except Exception as e:  # noqa: BLE001 - a rank exited non-zero; its notes say why
        note(ranks_failed=f"{type(e).__name__}: {e}"[-3000:])
        rc = 1
    note(done=True, rc=rc)
    sys.exit(rc)
