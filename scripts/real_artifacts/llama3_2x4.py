from llama3 import run

run((2, 4), ("dp", "tp"), n_layers=1)
