"""Handing a plan back to the real autoparallel: a run that reads a placements file with
`sharding_optimizer.load_placements()` instead of solving, and applies it with `apply_placement()`, the workflow
of autoparallel's docs/save_load.md ("Later run: load placements instead of re-solving").

The file is the one shardscope wrote (`shardscope export LOG --placements`, see scripts/real_artifacts_loadback.sh),
read from $SHARDSCOPE_LOADBACK_IN/<case>.placements.json and kept beside the log as shardscope_placements.json.
Such a run's TORCH_TRACE log has autoparallel's joint graph and parallel graph but no optimizer log and no
solution: load_placements() does not solve.
"""
import os
import shutil

import torch

from common import CASE_OUT, done, find_node, note, setup


def run(case, model_fn, input_fn, mesh_shape, dim_names, mp, input_constraints, watch):
    from autoparallel.api import AutoParallel

    src = os.path.join(os.environ["SHARDSCOPE_LOADBACK_IN"], case + ".placements.json")
    shutil.copy(src, os.path.join(CASE_OUT, "shardscope_placements.json"))
    mesh = setup(mesh_shape, dim_names)
    with torch.device("meta"):
        model = model_fn()
    with AutoParallel(model, input_fn, mesh, mp) as autop:
        autop.add_input_constraints(input_constraints)
        try:
            placement = autop.sharding_optimizer.load_placements(src)
        except Exception as e:  # recorded: the file was refused
            note(load_placements="raised", error=f"{type(e).__name__}: {e}"[:4000])
            raise
        note(load_placements="ok", nodes=len(placement))
        by_name = {n.name: s for n, s in placement.items()}
        for name in watch:
            s = by_name[find_node(autop.gm, name).name]
            note(node=name, output=str(s.output_specs), inputs=[str(x) for x in s.input_specs])
        try:
            autop.apply_placement(placement)
            note(apply_placement="ok")
        except Exception as e:
            note(apply_placement="raised", error=f"{type(e).__name__}: {e}"[:4000])
            raise
    done()
