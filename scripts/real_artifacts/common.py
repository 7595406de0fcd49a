"""Shared set-up for the drivers that run the real autoparallel on CPU (fake process group) and write fixtures.

Each driver is run by scripts/real_artifacts.sh inside the Debian sid root, with PYTHONPATH at a copy of
autoparallel, TORCH_TRACE=<trace folder> and SHARDSCOPE_CASE_OUT=<folder for the files a user's own API calls
write> (save_placements()).  Nothing here imitates an artifact: every file is written by autoparallel or torch.
"""
import json
import os
import sys
import time

import torch

# autoparallel's NCCL cost model asks for the GPU's name; there is none here.
torch.cpu.get_device_name = lambda *a, **k: "NVIDIA H100 80GB HBM3"

import torch.distributed as dist  # noqa: E402
from torch.distributed.device_mesh import init_device_mesh  # noqa: E402
from torch.testing._internal.distributed.fake_pg import FakeStore  # noqa: E402

CASE_OUT = os.environ.get("SHARDSCOPE_CASE_OUT", ".")
T0 = time.perf_counter()


def setup(mesh_shape, dim_names):
    torch.manual_seed(0)
    world = 1
    for s in mesh_shape:
        world *= s
    dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=world)
    return init_device_mesh("cpu", tuple(mesh_shape), mesh_dim_names=tuple(dim_names))


def find_node(gm, name):
    for n in gm.graph.nodes:
        if n.name == name:
            return n
    raise KeyError(f"no node named {name!r} in the joint graph")


def save_user_files(autop):
    """What a user's own calls to autoparallel's API write next to the log."""
    path = os.path.join(CASE_OUT, "save_placements.json")
    autop.sharding_optimizer.save_placements(path)
    # autoparallel never writes the expanded_def form of its joint graph; torch's own API does, for a user who
    # calls it (and torch logs the parallel joint graph in that form as the `aot_joint_graph` record).
    try:
        text = autop.gm.print_readable(print_output=False, include_stride=True, include_device=True,
                                       expanded_def=True)
    except Exception as e:  # noqa: BLE001 - recorded, not fatal
        note(expanded_def_error=f"{type(e).__name__}: {e}"[:2000])
        return
    with open(os.path.join(CASE_OUT, "joint_graph_expanded_def.txt"), "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def note(**facts):
    """Facts the driver saw (printed; real_artifacts.sh keeps stdout as run.txt)."""
    facts["elapsed_s"] = round(time.perf_counter() - T0, 2)
    print("SHARDSCOPE_NOTE " + json.dumps(facts, sort_keys=True), flush=True)


def done():
    note(done=True, torch=torch.__version__)
    dist.destroy_process_group()
    sys.stdout.flush()
