from example import run

run("example_autoparallel", 8, "(world_size // 8, 8)", "(2, 4)")
