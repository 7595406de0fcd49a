# Scans, sorts and dim reductions with indices, norms, index_fill / index_reduce / _index_put_impl, bucketize,
# diagonal_scatter, flip, roll, repeat, the *_copy views, equal, _safe_softmax, frexp, zero (core/rules/tensor_ops.cpp).
# Dims of size >= 4 throughout, so no shard leaves a rank empty (DTensor drops such strategies for the ops without
# allow_uneven_sharding); single-input ops take every [2, 2] combination, the others are sampled with strides.
ALL = {"stride_2d": 1}
OPS = [
    # scans: the scanned dim is read whole; cumprod / logcumsumexp / cummax keep no Partial
    ("aten.cumprod.default", [[8, 6]], None, [T(0), 1], [[8, 6]], ALL),
    ("aten.logcumsumexp.default", [[8, 6]], None, [T(0), 0], [[8, 6]], ALL),
    ("aten.cummax.default", [[8, 6]], None, [T(0), 1], [[8, 6], [8, 6]], ALL),
    ("aten.cummin.default", [[4, 6, 8]], None, [T(0), -1], [[4, 6, 8], [4, 6, 8]], ALL),
    # dim reductions returning (values, indices): the reduced dim is read whole
    ("aten.kthvalue.default", [[8, 6]], None, [T(0), 2, 1], [[8], [8]], ALL),
    ("aten.kthvalue.default", [[4, 6, 8]], None, [T(0), 2, 0, True], [[1, 6, 8], [1, 6, 8]], ALL),
    ("aten.median.dim", [[8, 6]], None, [T(0), 0], [[6], [6]], ALL),
    ("aten.median.default", [[8, 6]], None, [T(0)], [[]], ALL),
    ("aten.nanmedian.dim", [[4, 6, 8]], None, [T(0), 1, True], [[4, 1, 8], [4, 1, 8]], ALL),
    ("aten.mode.default", [[8, 6]], None, [T(0)], [[8], [8]], ALL),
    ("aten.max.dim", [[8, 6]], None, [T(0), 1], [[8], [8]], ALL),
    # norms: p = 0 counts non-zeros (Partial(sum)); other p give DTensor's _NormPartial
    ("aten.norm.Scalar", [[8, 6]], None, [T(0)], [[]], ALL),
    ("aten.norm.Scalar", [[4, 8]], None, [T(0), 0], [[]], ALL),
    ("aten.norm.ScalarOpt_dim", [[8, 6]], None, [T(0), 2, [1]], [[8]], ALL),
    ("aten.linalg_vector_norm.default", [[8, 6]], None, [T(0), 2, [1]], [[8]], ALL),
    ("aten.linalg__powsum.default", [[8, 6]], None, [T(0), 2, [1]], [[8]], ALL),
    # index family
    ("aten.index_fill.int_Scalar", [[8, 6], [3]], [None, "i64"], [T(0), 1, T(1), 1.5], [[8, 6]], ALL),
    ("aten.index_fill.int_Tensor", [[8, 6], [3], []], [None, "i64", None], [T(0), 0, T(1), T(2)], [[8, 6]],
     {"stride_1d": 1, "stride_2d": 3}),
    ("aten.index_reduce.default", [[8, 6], [4], [4, 6]], [None, "i64", None], [T(0), 0, T(1), T(2), "amax"],
     [[8, 6]], {"stride_1d": 1, "stride_2d": 9}),
    ("aten._index_put_impl.default", [[8, 6], [4], [4, 6]], [None, "i64", None], [T(0), [T(1)], T(2)], [[8, 6]],
     {"stride_1d": 1, "stride_2d": 13}),
    ("aten.bucketize.Tensor", [[8, 6], [8]], None, [T(0), T(1)], [[8, 6]], {"stride_1d": 1, "stride_2d": 2}),
    ("aten.diagonal_scatter.default", [[4, 6, 6], [4, 6]], None, [T(0), T(1), 0, 1, 2], [[4, 6, 6]],
     {"stride_1d": 1, "stride_2d": 7}),
    # tensor ops
    ("aten.flip.default", [[8, 6]], None, [T(0), [1]], [[8, 6]], ALL),
    ("aten.flip.default", [[4, 6, 8]], None, [T(0), [0, 2]], [[4, 6, 8]], ALL),
    ("aten.roll.default", [[8, 6]], None, [T(0), [1], [0]], [[8, 6]], ALL),
    ("aten.roll.default", [[4, 8]], None, [T(0), [2]], [[4, 8]], ALL),
    ("aten.repeat.default", [[8, 6]], None, [T(0), [2, 1]], [[16, 6]], ALL),
    ("aten.repeat.default", [[4, 8]], None, [T(0), [2, 1, 3]], [[2, 4, 24]], ALL),
    ("aten.split_with_sizes_copy.default", [[8, 6]], None, [T(0), [2, 4], 1], [[8, 2], [8, 4]], ALL),
    ("aten.view_copy.default", [[8, 6]], None, [T(0), [48]], [[48]], ALL),
    ("aten.expand_copy.default", [[1, 6]], None, [T(0), [8, 6]], [[8, 6]], ALL),
    ("aten.equal.default", [[8, 6], [8, 6]], None, [T(0), T(1)], [], {"stride_1d": 1, "stride_2d": 3}),
    ("aten.is_same_size.default", [[8, 6], [6]], None, [T(0), T(1)], [], {"stride_1d": 1, "stride_2d": 3}),
    ("aten._safe_softmax.default", [[8, 6]], None, [T(0), 1], [[8, 6]], ALL),
    ("aten.nan_to_num.default", [[8, 6]], None, [T(0), 0.0], [[8, 6]], ALL),
    ("aten.frexp.Tensor", [[8, 6]], None, [T(0)], [[8, 6], [8, 6]], ALL),
    ("aten.zero.default", [[8, 6]], None, [T(0)], [[8, 6]], ALL),
    ("prims.view_of.default", [[8, 6]], None, [T(0)], [[8, 6]], ALL),
]
