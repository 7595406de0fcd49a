from seed1 import run

run(buggy=True)
