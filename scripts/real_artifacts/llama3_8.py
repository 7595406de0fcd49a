from llama3 import run

run((8,), ("dp",), n_layers=1)
