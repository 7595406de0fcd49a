# The *_like factories (core/rules/factory.cpp's likeRule): the output takes the input's local shape, so it keeps
# the input's shards. A Partial input: DTensor 2.14 gives zeros_like / ones_like / full_like a Replicate output
# (create_like_single_dim_strategy: generated values are no pending reduction), while empty_like passes the Partial
# through (propagate_single_input_single_dim_strategy: uninitialised memory). No declared output here.
LIKE = {"stride_2d": 1, "partials": ["sum", "avg", "max", "min"]}
OPS = [
    ("aten.zeros_like.default", [[8, 6]], None, [T(0)], [[8, 6]], LIKE),
    ("aten.ones_like.default", [[8, 6]], None, [T(0)], [[8, 6]], LIKE),
    ("aten.full_like.default", [[8, 6]], None, [T(0), 2.0], [[8, 6]], LIKE),
    ("aten.empty_like.default", [[8, 6]], None, [T(0)], [[8, 6]], LIKE),
]
