from llama3 import run

run((4, 2), ("dp", "cp"), inp="S(0)S(1)", out="S(0)S(1)", n_layers=1)  # sequence sharded on cp
