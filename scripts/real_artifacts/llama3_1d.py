from llama3 import run

run((8,), ("dp",))
