from llama3 import run

run((2, 2, 2), ("dp", "cp", "tp"), inp="S(0)S(1)R", out="S(0)S(1)R", n_layers=1)  # 3-D: batch, sequence, tensor
