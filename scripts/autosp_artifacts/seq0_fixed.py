"""seq0_fixed: sequence-first inputs [seq, batch], seq_dim=0, with the fix applied at run time (common.apply_fix):
tags (key, seq_dim), pass_shard_seq_dim reads shape[seq_dim], shard_tensor_node slices dim seq_dim."""
from common import run

if __name__ == "__main__":
    run({"name": "seq0_fixed", "seq_dim": 0, "fixed": True})
