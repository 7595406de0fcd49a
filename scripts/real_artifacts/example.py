"""Runs one of autoparallel's own examples (/opt/ap/examples/<name>.py, the snapshot real_artifacts.sh copies into the
root) on CPU: its source as written, with these named text substitutions only (each must occur):
- the mesh and world size: `world_size = 256` -> the case's world, the mesh shape literal -> the case's mesh;
- device "cuda" -> "cpu" (fake process group, no GPU here);
- the script stops before `parallel_mod.to_empty(...)`: what follows runs the compiled module on a device.
Examples that use local_map get dsv3.py's patch_local_map_name (its docstring, 3: autoparallel a54c252 asserts
torch's older name for the local_map higher-order op).
common.py's set-up (the GPU-name stub for the cost model) is done first. Nothing of the example is copied here.
Used by the case drivers ex_<example>_<mesh>.py: run(name, world, mesh_literal_from, mesh_literal_to)."""
import os
import sys

import torch

import common  # noqa: F401 - the cost model's GPU-name stub
from common import note


def run(name, world, mesh_from, mesh_to):
    path = os.path.join("/opt/ap/examples", name + ".py")
    with open(path, encoding="utf-8") as f:
        src = f.read()
    subs = [("world_size = 256", f"world_size = {world}"), (mesh_from, mesh_to), ('"cuda"', '"cpu"')]
    for a, b in subs:
        if a not in src:
            raise SystemExit(f"example.py: {path} has no {a!r}")
        src = src.replace(a, b)
    cut = src.find("parallel_mod.to_empty(")
    if cut < 0:
        raise SystemExit(f"example.py: {path} has no parallel_mod.to_empty(")
    src = src[:cut]
    if "local_map" in src:
        from dsv3 import patch_local_map_name

        patch_local_map_name()
    torch.manual_seed(0)
    code = compile(src, path, "exec")
    scope = {"__name__": "__main__", "__file__": path}
    exec(code, scope)
    note(example=name, world=world, mesh=mesh_to, substitutions=[a for a, _ in subs])
    note(done=True, torch=torch.__version__)
    torch.distributed.destroy_process_group()
    sys.stdout.flush()
