# List ops (core/rules/foreach.cpp): each list position is one problem over the i-th elements, as DTensor 2.14's
# foreach expansion solves it. Two-element lists of a rank-2 and a rank-1 tensor (the positions differ in rank, so a
# shard of dim 1 fits only the first); tensor inputs are numbered depth-first, so in _foreach_add.List([a, b], [c, d])
# a=0, b=1, c=2, d=3. Strides keep the products of many inputs small.
PARTIALS = {"partials": ["sum", "avg", "max", "min"]}
ADAM = {"beta1": 0.9, "beta2": 0.999, "weight_decay": 0.0, "eps": 1e-8, "amsgrad": False, "maximize": False}
OPS = [
    ("aten._foreach_add.List", [[8, 6], [6], [8, 6], [6]], None, [[T(0), T(1)], [T(2), T(3)]], [[8, 6], [6]],
     {"stride_2d": 150}),
    # In place: every element of the first list keeps its placement (DTensor raises or moves the other operand).
    ("aten._foreach_add_.List", [[8, 6], [6], [8, 6], [6]], None, [[T(0), T(1)], [T(2), T(3)]], [[8, 6], [6]],
     {"stride_1d": 2, "stride_2d": 300}),
    ("aten._foreach_mul.Scalar", [[8, 6], [6]], None, [[T(0), T(1)], 2.0], [[8, 6], [6]], {"stride_2d": 1}),
    ("aten._foreach_addcmul.Scalar", [[6], [5], [6], [5], [6], [5]], None,
     [[T(0), T(1)], [T(2), T(3)], [T(4), T(5)], 0.5], [[6], [5]], {"stride_1d": 5, "stride_2d": 4000}),
    ("aten._foreach_sqrt.default", [[8, 6], [5]], None, [[T(0), T(1)]], [[8, 6], [5]], {"stride_2d": 2}),
    # exp is non-decreasing: P(max) / P(min) pass, P(sum) / P(avg) do not.
    ("aten._foreach_exp.default", [[6], [5]], None, [[T(0), T(1)]], [[6], [5]],
     dict(PARTIALS, stride_2d=5)),
    # The 2-norm of a shard is DTensor's _NormPartial(2), which core refuses (known difference strict-norm-partial).
    ("aten._foreach_norm.Scalar", [[8, 6], [5]], None, [[T(0), T(1)], 2], [[], []], {"stride_2d": 3}),
    # The functional fused optimizers: DTensor 2.14 raises for every placement (its tensor-meta check of the five
    # returned lists), and core refuses them (no keyword arguments here: it raises before reading them).
    ("aten._fused_adam.default", [[6], [5], [6], [5], [6], [5], [6], [5], [], []], None,
     [[T(0), T(1)], [T(2), T(3)], [T(4), T(5)], [T(6), T(7)], [], [T(8), T(9)]],
     [[6], [5], [6], [5], [6], [5], [6], [5]], {"partials": [], "stride_1d": 4, "stride_2d": 1000}),
    # The in-place _fused_adam_ with its keyword arguments: one parameter's lists (param, grad, exp_avg, exp_avg_sq,
    # no max_exp_avg_sqs, a 0-d step) and the tensors every position shares, grad_scale / found_inf (.default) or
    # a tensor lr (.tensor_lr).
    ("aten._fused_adam_.default", [[6], [6], [6], [6], [], [], []], None,
     [[T(0)], [T(1)], [T(2)], [T(3)], [], [T(4)]], [],
     {"kwargs": dict(ADAM, lr=0.01, grad_scale=T(5), found_inf=T(6)), "partials": ["sum"], "stride_1d": 7,
      "stride_2d": 2003}),
    ("aten._fused_adam_.tensor_lr", [[6], [6], [6], [6], [], []], None,
     [[T(0)], [T(1)], [T(2)], [T(3)], [], [T(4)]], [],
     {"kwargs": dict(ADAM, lr=T(5)), "partials": ["sum"], "stride_1d": 7, "stride_2d": 1009}),
]
