"""LLaMA-3 8B's configuration (autoparallel's examples/example_llama3.py "8B" args: dim 4096, 32 layers, 32 heads,
8 KV heads, vocab 128256, multiple_of 1024, ffn_dim_multiplier 1.3) on a 1-D mesh of 8. Its log (~24 MB) is
kept OUT of the repository: scripts/real_artifacts.sh writes it, scripts/check_large_real.sh checks it."""
from llama3 import run

run((8,), ("dp",), n_layers=32, dim=4096, n_heads=32, n_kv_heads=8, vocab=128256,
    extra=dict(multiple_of=1024, ffn_dim_multiplier=1.3))
