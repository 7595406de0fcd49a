from example import run

run("example_local_map", 8, "(world_size // 32, 8, 4)", "(2, 2, 2)")
