"""seq0_static: sequence-first inputs [seq, batch], seq_dim=0, static batch dim, DeepSpeed AutoSP as fetched:
the expected outcome is AutoSP's assert `expected sequence dimension to be of type SymInt but found int`."""
from common import run

if __name__ == "__main__":
    run({"name": "seq0_static", "seq_dim": 0})
