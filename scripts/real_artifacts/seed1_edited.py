"""seed1_fixed's plan with the user's edit `sum_1=RS(0)` (shardscope export --placement sum_1=RS(0)), handed back:
loaded and applied by the real autoparallel (loadback.py)."""
from seed1_loadback import run

run("seed1_edited")
