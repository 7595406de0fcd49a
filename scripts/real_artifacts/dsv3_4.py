from dsv3 import run

run((4,), ("ep",))
