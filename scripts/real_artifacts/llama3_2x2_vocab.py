from llama3 import run

run((2, 2), ("dp", "tp"), inp="S(0)R", out="S(0)S(2)", n_layers=1)  # vocab-parallel output
