"""seed1_fixed's plan handed back unedited: shardscope's export of tests/data/real/seed1_fixed/rank0.log, loaded
and applied by the real autoparallel (loadback.py)."""
from seed1_loadback import run

run("seed1_loaded")
