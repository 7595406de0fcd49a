from dsv3 import run

run((2, 2, 2), ("dp", "cp", "ep"))
