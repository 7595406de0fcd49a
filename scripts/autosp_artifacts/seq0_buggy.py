"""seq0_buggy: sequence-first inputs [seq, batch], seq_dim=0, DeepSpeed AutoSP as fetched.

prepare_autosp_inputs(seq_dim=0) marks only dim 0 dynamic; the driver also marks the batch dim (1) dynamic, else
AutoSP stops at its SymInt assert (that is seq0_static). AutoSP's passes then read shape[1] and slice dim 1:
the batch.
"""
from common import run

if __name__ == "__main__":
    run({"name": "seq0_buggy", "seq_dim": 0, "also_dynamic": [1]})
