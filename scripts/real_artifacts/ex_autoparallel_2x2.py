from example import run

run("example_autoparallel", 4, "(world_size // 8, 8)", "(2, 2)")
