# Pointwise ops DTensor lets carry Partial(max) / Partial(min) (core/rules/pointwise_partial.cpp): monotone unary
# ops, non-increasing ones, binary max/min ops, and neg (linear and order-reversing).
PARTIALS = {"partials": ["sum", "avg", "max", "min"]}
OPS = [
    ("aten.exp.default", [[8, 6]], None, [T(0)], [[8, 6]], PARTIALS),
    ("aten.relu.default", [[8, 6]], None, [T(0)], [[8, 6]], PARTIALS),
    ("aten.erfc.default", [[8, 6]], None, [T(0)], [[8, 6]], PARTIALS),
    ("aten.neg.default", [[8, 6]], None, [T(0)], [[8, 6]], PARTIALS),
    ("aten.maximum.default", [[8, 6], [8, 6]], None, [T(0), T(1)], [[8, 6]], dict(PARTIALS, stride_2d=23)),
    ("aten.logaddexp.default", [[8, 6], [8, 6]], None, [T(0), T(1)], [[8, 6]], dict(PARTIALS, stride_2d=23)),
    ("aten.clamp_min.Tensor", [[8, 6], [8, 6]], None, [T(0), T(1)], [[8, 6]], dict(PARTIALS, stride_2d=23)),
    ("aten.clamp_min.default", [[8, 6]], None, [T(0), 0.5], [[8, 6]], PARTIALS),
]
