# Linear algebra, FFT and random ops (core/rules/linalg.cpp). Batched 3x3 matrices: the batch dim (4) splits
# over every mesh, the matrix dims (3) do not split over 4 ranks; replicate-only ops show their refusals; the
# ops linear in one argument also try Partial(avg).
OPS = [
    # batch-dim ops (DTensor's linalg_batch_dim_strategy): only dims before the trailing matrix dims split
    ("aten.linalg_cholesky_ex.default", [[4, 3, 3]], None, [T(0)], [[4, 3, 3], [4]], {"stride_2d": 1}),
    ("aten.linalg_inv_ex.default", [[4, 3, 3]], None, [T(0)], [[4, 3, 3], [4]], {"stride_2d": 1}),
    ("aten._linalg_det.default", [[2, 4, 3, 3]], None, [T(0)], [[2, 4], [2, 4, 3, 3], [2, 4, 3]], {"stride_2d": 3}),
    # cholesky_solve(B, A, upper): linear in B (Partial(sum) B, Replicate A; DTensor keeps no Partial(avg))
    ("aten.cholesky_solve.default", [[4, 3, 2], [4, 3, 3]], None, [T(0), T(1), False], [[4, 3, 2]],
     {"stride_2d": 7, "partials": ["sum", "avg"]}),
    # triangular_solve(b, A, upper) -> (solution, cloned_coefficient): no Partial
    ("aten.triangular_solve.default", [[4, 3, 2], [4, 3, 3]], None, [T(0), T(1), True], [[4, 3, 2], [4, 3, 3]],
     {"stride_2d": 5}),
    # _linalg_solve_ex(A, B, left, check_errors) -> (result, LU, pivots, info), B a batch of vectors
    ("aten._linalg_solve_ex.default", [[4, 3, 3], [4, 3]], None, [T(0), T(1)],
     [[4, 3], [4, 3, 3], [4, 3], [4]], {"stride_2d": 5, "partials": ["sum", "avg"]}),
    # linalg_householder_product(A, tau): tau has one trailing dim
    ("aten.linalg_householder_product.default", [[4, 3, 2], [4, 2]], None, [T(0), T(1)], [[4, 3, 2]],
     {"stride_2d": 5}),
    ("aten.linalg_pinv.atol_rtol_tensor", [[4, 2, 3]], None, [T(0)], [[4, 3, 2]], {"stride_2d": 1}),
    # replicate-only (DTensor's linalg_replicate_single_dim_strategy)
    ("aten.linalg_qr.default", [[6, 4]], None, [T(0)], [[6, 4], [4, 4]], {"stride_2d": 2}),
    ("aten.tril.default", [[6, 4]], None, [T(0)], [[6, 4]], {"stride_2d": 2}),
    ("aten.diagonal.default", [[6, 4]], None, [T(0)], [[4]], {"stride_2d": 2}),
    # linalg_cross(self, other, *, dim=-1): every dim but the cross dim splits
    ("aten.linalg_cross.default", [[4, 3], [4, 3]], None, [T(0), T(1)], [[4, 3]], {"stride_2d": 3}),
    # FFT: the transformed dims are whole, the others split; Partial passes through (c2c/c2r need complex inputs,
    # which the oracle does not make)
    ("aten._fft_r2c.default", [[4, 8]], None, [T(0), [1], 0, True], [[4, 5]],
     {"stride_2d": 1, "partials": ["sum", "avg", "max"]}),
    ("aten._fft_r2c.default", [[6, 8]], None, [T(0), [0], 0, True], [[4, 8]], {"stride_2d": 1}),
    # random: in-place fills follow self on every dim, never Partial; multinomial splits its batch dims
    ("aten.normal_.default", [[8, 6]], None, [T(0), 0.0, 1.0], [[8, 6]], {"stride_2d": 1}),
    ("aten.uniform_.default", [[8, 6]], None, [T(0), 0.0, 1.0], [[8, 6]], {"stride_2d": 3}),
    ("aten.multinomial.default", [[4, 6]], None, [T(0), 2, True], [[4, 2]], {"stride_2d": 1}),
    ("aten.multinomial.default", [[2, 6]], None, [T(0), 2, True], [[2, 2]], {"stride_2d": 1}),
    ("aten.randint_like.default", [[8, 6]], None, [T(0), 10], [[8, 6]], {"stride_2d": 1, "partials": ["sum", "max"]}),
]
