from llama3 import run

run((2, 2), ("dp", "tp"), inp="S(0)S(0)", out="S(0)S(0)", n_layers=1)  # batch on both mesh dims
