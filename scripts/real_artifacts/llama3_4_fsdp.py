from llama3 import run

run((4,), ("dp",), n_layers=1)  # 1-D data parallel: FSDP-only plans
