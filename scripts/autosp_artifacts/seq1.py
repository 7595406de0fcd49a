"""seq1: batch-first inputs [batch, seq], seq_dim=1, DeepSpeed AutoSP as fetched (the correct case)."""
from common import run

if __name__ == "__main__":
    run({"name": "seq1", "seq_dim": 1})
