# Convolution, pooling, upsampling, batch/group/RMS norm and grid sampling (core/rules/conv.cpp).
# Small NCHW shapes: batch 4 splits over every mesh, channels 2 do not split over 4 ranks (DTensor then
# redistributes for the ops without allow_uneven_sharding). Ops with many inputs are sampled with strides; the
# single-input pools and upsampling also try Partial(avg) and Partial(max).
OPS = [
    # convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    ("aten.convolution.default", [[4, 2, 6, 6], [4, 2, 3, 3]], None,
     [T(0), T(1), None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1], [[4, 4, 4, 4]], {"stride_2d": 29}),
    ("aten.convolution.default", [[4, 2, 6, 6], [4, 2, 3, 3], [4]], None,
     [T(0), T(1), T(2), [1, 1], [0, 0], [1, 1], False, [0, 0], 1], [[4, 4, 4, 4]],
     {"stride_1d": 4, "stride_2d": 301}),
    # stride == kernel width on the last dim, no padding: DTensor also shards the last (width) dim.
    ("aten.convolution.default", [[4, 2, 6, 12], [4, 2, 3, 3]], None,
     [T(0), T(1), None, [1, 3], [0, 0], [1, 1], False, [0, 0], 1], [[4, 4, 4, 4]], {"stride_2d": 29}),
    # convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
    #                      output_padding, groups, output_mask) -> (grad_input, grad_weight, grad_bias)
    ("aten.convolution_backward.default", [[4, 4, 4, 4], [4, 2, 6, 6], [4, 2, 3, 3]], None,
     [T(0), T(1), T(2), [4], [1, 1], [0, 0], [1, 1], False, [0, 0], 1, [True, True, True]],
     [[4, 2, 6, 6], [4, 2, 3, 3], [4]], {"stride_1d": 6, "stride_2d": 901}),
    ("aten.convolution_backward.default", [[4, 4, 4, 4], [4, 2, 6, 12], [4, 2, 3, 3]], None,
     [T(0), T(1), T(2), None, [1, 3], [0, 0], [1, 1], False, [0, 0], 1, [True, True, False]],
     [[4, 2, 6, 12], [4, 2, 3, 3], None], {"stride_1d": 6, "stride_2d": 797}),
    # pooling
    ("aten.max_pool2d_with_indices.default", [[4, 2, 6, 6]], None, [T(0), [2, 2], [2, 2], [0, 0], [1, 1], False],
     [[4, 2, 3, 3], [4, 2, 3, 3]], {"stride_2d": 1, "partials": ["sum", "avg", "max"]}),
    ("aten.avg_pool2d.default", [[4, 2, 6, 6]], None, [T(0), [2, 2], [2, 2], [0, 0], False, True, None],
     [[4, 2, 3, 3]], {"stride_2d": 1, "partials": ["sum", "avg", "max"]}),
    ("aten._adaptive_avg_pool2d.default", [[4, 2, 6, 6]], None, [T(0), [3, 3]], [[4, 2, 3, 3]], {"stride_2d": 3}),
    # max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices)
    ("aten.max_pool2d_with_indices_backward.default", [[4, 2, 3, 3], [4, 2, 6, 6], [4, 2, 3, 3]], [None, None, "i64"],
     [T(0), T(1), [2, 2], [2, 2], [0, 0], [1, 1], False, T(2)], [[4, 2, 6, 6]], {"stride_1d": 4, "stride_2d": 613}),
    ("aten._adaptive_avg_pool2d_backward.default", [[4, 2, 3, 3], [4, 2, 6, 6]], None, [T(0), T(1)],
     [[4, 2, 6, 6]], {"stride_2d": 59}),
    ("aten.max_unpool2d.default", [[4, 2, 3, 3], [4, 2, 3, 3]], [None, "i64"], [T(0), T(1), [6, 6]],
     [[4, 2, 6, 6]], {"stride_2d": 29}),
    # upsampling
    ("aten.upsample_nearest2d.default", [[4, 2, 6, 6]], None, [T(0), [12, 12]], [[4, 2, 12, 12]], {"stride_2d": 1, "partials": ["sum", "avg", "max"]}),
    ("aten.upsample_bilinear2d_backward.default", [[4, 2, 12, 12]], None,
     [T(0), [12, 12], [4, 2, 6, 6], False], [[4, 2, 6, 6]], {"stride_2d": 3}),
    # batch norm: native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)
    ("aten.native_batch_norm.default", [[4, 4, 3, 3], [4], [4]], None,
     [T(0), T(1), T(2), None, None, True, 0.1, 1e-5], [[4, 4, 3, 3], [4], [4]], {"stride_2d": 73}),
    ("aten.native_batch_norm.default", [[4, 4, 3, 3], [4], [4], [4], [4]], None,
     [T(0), T(1), T(2), T(3), T(4), True, 0.1, 1e-5], [[4, 4, 3, 3], [4], [4]], {"stride_1d": 14, "stride_2d": 8001}),
    # native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean, save_invstd,
    #                            train, eps, output_mask)
    ("aten.native_batch_norm_backward.default", [[4, 4, 3, 3], [4, 4, 3, 3], [4], [4], [4]], None,
     [T(0), T(1), T(2), None, None, T(3), T(4), True, 1e-5, [True, True, True]], [[4, 4, 3, 3], [4], [4]],
     {"stride_1d": 17, "stride_2d": 16001}),
    # group norm: native_group_norm(input, weight, bias, N, C, HxW, group, eps)
    ("aten.native_group_norm.default", [[4, 4, 3, 3], [4], [4]], None,
     [T(0), T(1), T(2), 4, 4, 9, 2, 1e-5], [[4, 4, 3, 3], [4, 2], [4, 2]], {"stride_2d": 73}),
    # RMS norm: _fused_rms_norm(input, normalized_shape, weight, eps) -> (out, rrms)
    ("aten._fused_rms_norm.default", [[4, 6, 8], [8]], None, [T(0), [8], T(1), 1e-5], [[4, 6, 8], [4, 6, 1]],
     {"stride_2d": 3}),
    # _fused_rms_norm_backward(grad_out, input, normalized_shape, rstd, weight, output_mask) -> (d_input, d_weight)
    ("aten._fused_rms_norm_backward.default", [[4, 6, 8], [4, 6, 8], [4, 6, 1], [8]], None,
     [T(0), T(1), [8], T(2), T(3), [True, True]], [[4, 6, 8], [8]], {"stride_1d": 31, "stride_2d": 2801}),
    # grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners)
    ("aten.grid_sampler_2d.default", [[4, 2, 6, 6], [4, 3, 3, 2]], None, [T(0), T(1), 0, 0, False],
     [[4, 2, 3, 3]], {"stride_2d": 59}),
]
