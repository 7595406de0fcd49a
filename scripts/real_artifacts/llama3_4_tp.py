from llama3 import run

run((4,), ("tp",), inp="R", out="R", n_layers=1)  # replicated input and output on a 1-D mesh: TP-only plans
