# float8 matmul (core/rules/scaled_mm.cpp): _scaled_mm(self[M, K], mat2[K, N], scale_a, scale_b, bias, scale_result)
# with float8_e4m3fn data, in the three scale layouts DTensor 2.14 tells apart: tensor-wise (one float32 element),
# row-wise (float32 scale_a [M, 1], scale_b [1, N]) and 1-D blockwise (MX: float8_e8m0fnu, one scale per block of
# 32 along K, swizzled and flattened: round_up(M, 128) * round_up(K / 32, 4) elements, 512 here; the meta function
# refuses 1-D float32 scales). M, K and N split evenly over every mesh; the row-wise scales' size-1 dims do not.
# bias and scale_result are passed as None (DTensor's strategy reads both positions); a bias makes DTensor raise.
F8, E8M0 = "f8e4m3fn", "f8e8m0fnu"
OPS = [
    ("aten._scaled_mm.default", [[8, 16], [16, 4], [], []], [F8, F8, None, None],
     [T(0), T(1), T(2), T(3), None, None], [[8, 4]], {"stride_2d": 151, "partials": ["sum", "avg"]}),
    ("aten._scaled_mm.default", [[8, 16], [16, 4], [8, 1], [1, 4]], [F8, F8, None, None],
     [T(0), T(1), T(2), T(3), None, None], [[8, 4]], {"stride_2d": 1009, "partials": ["sum", "avg"]}),
    ("aten._scaled_mm.default", [[8, 32], [32, 4], [512], [512]], [F8, F8, E8M0, E8M0],
     [T(0), T(1), T(2), T(3), None, None], [[8, 4]], {"stride_1d": 3, "stride_2d": 1009, "partials": ["sum", "avg"]}),
    # A bias: DTensor's strategy refuses it ("_scaled_mm on DTensors doesn't support bias").
    ("aten._scaled_mm.default", [[8, 16], [16, 4], [], [], [4]], [F8, F8, None, None, None],
     [T(0), T(1), T(2), T(3), T(4), None], [[8, 4]], {"stride_1d": 37, "stride_2d": 4001}),
]
