# upsample_*.vec (output_size or scale_factors; core/rules/conv.cpp's upsampleRule under the op's key): DTensor
# 2.14 registers only the .default overloads; .vec is CompositeImplicitAutograd, so a DTensor call of it reaches
# DTensor as the .default it decomposes into.
UP = {"stride_2d": 3, "partials": ["sum", "avg", "max"]}
OPS = [
    ("aten.upsample_nearest2d.vec", [[4, 2, 6, 6]], None, [T(0), [12, 12], None], [[4, 2, 12, 12]], UP),
    ("aten.upsample_nearest2d.vec", [[4, 2, 6, 8]], None, [T(0), None, [2.0, 2.0]], [[4, 2, 12, 16]], UP),
    ("aten.upsample_bilinear2d.vec", [[4, 2, 6, 6]], None, [T(0), [12, 12], False, None], [[4, 2, 12, 12]], UP),
]
