// The op table's facts list and its assembly with the rule registries (see core/ops/op_table.h).
//
// Flags: where the runner may execute the op (A aten, P prims, C the collective namespaces, O operator.*,
// U _operator.*, M autoparallel, X the full name as written), R refused in aten although a derivation would allow
// it, T tensor-only shape rule, S symbolic-safe shape rule; N none of them. How an op gets a runs-in flag: its only
// effects are on its tensor arguments and results (the contract is in core/ops/op_safety.h). Deliberately without
// one (so refused), with the reason: from_file (maps a file, shared=True writes it), set_ / set_.source_Storage
// (swaps storage), share_memory_ / _share_memory (creates OS shared memory), pin_memory / _pin_memory (page-locked
// host memory), record_stream, to_mkldnn and other backend conversions, _nested_* (raw buffers), sparse
// constructors from raw indices (_sparse_coo_tensor_unsafe), quantizer internals, triton_kernel_wrapper_* (user
// kernels on raw pointers), and anything not listed. The unchecked index ops keep theirs (autoparallel's graphs hold
// them: the embedding backward is _unsafe_masked_index_put_accumulate): the runner checks their indices first
// (runner/op_contracts.h). An op must take no file name, Storage, pointer or handle to get one.
#include "core/ops/op_table.h"

#include <algorithm>
#include <deque>
#include <unordered_map>

#include "core/ops/op_shapes_detail.h"
#include "core/rules/families.h"

namespace ss::ops {
namespace {

struct OpFacts {
  const char* key;
  uint16_t flags;
};

constexpr uint16_t N = 0;
constexpr uint16_t A = kRunsAten, P = kRunsPrims, C = kRunsCollective, O = kRunsOperator,
                   U = kRunsUnderscoreOperator, M = kRunsAutoparallel, X = kRunsExact;
constexpr uint16_t R = 1 << 8, T = 1 << 9, S = 1 << 10;
constexpr uint16_t kRunsMask = 0xff;

// Grouped as the families of core/rules, then the rest of the functional ATen surface traced training graphs hold.
constexpr OpFacts kFacts[] = {
    // pointwise math
    {"abs", A | T}, {"absolute", A}, {"acos", A}, {"acosh", A}, {"add", A | O | U | T | S}, {"addcdiv", A},
    {"addcmul", A}, {"angle", A}, {"asin", A}, {"asinh", A}, {"atan", A}, {"atan2", A}, {"atanh", A},
    {"bitwise_and", A | T}, {"bitwise_left_shift", A}, {"bitwise_not", A | T}, {"bitwise_or", A | T},
    {"bitwise_right_shift", A}, {"bitwise_xor", A}, {"ceil", A}, {"clamp", A | S}, {"clamp_max", A},
    {"clamp_min", A | S}, {"clip", A}, {"conj", A}, {"conj_physical", A}, {"_conj", A | T}, {"copysign", A},
    {"cos", A}, {"cosh", A}, {"deg2rad", A}, {"digamma", A}, {"div", A | T | S}, {"divide", A}, {"elu", A},
    {"eq", A | O | T | S}, {"erf", A}, {"erfc", A}, {"erfinv", A}, {"exp", A | T | S}, {"exp2", A}, {"expm1", A},
    {"fix", A}, {"float_power", A}, {"floor", A}, {"floor_divide", A}, {"fmax", A}, {"fmin", A}, {"fmod", A},
    {"frac", A}, {"ge", A | O | T | S}, {"gelu", A | T}, {"glu", A}, {"gt", A | O | T | S}, {"hardshrink", A},
    {"hardsigmoid", A}, {"hardswish", A}, {"hardtanh", A}, {"heaviside", A}, {"hypot", A}, {"i0", A}, {"igamma", A},
    {"igammac", A}, {"isclose", A}, {"isfinite", A}, {"isinf", A}, {"isnan", A}, {"isneginf", A}, {"isposinf", A},
    {"isreal", A}, {"le", A | O | T | S}, {"leaky_relu", A}, {"lerp", A}, {"lgamma", A}, {"log", A | T}, {"log10", A},
    {"log1p", A}, {"log2", A}, {"log_sigmoid_forward", A}, {"logaddexp", A}, {"logaddexp2", A}, {"logical_and", A},
    {"logical_not", A | T}, {"logical_or", A}, {"logical_xor", A}, {"logit", A}, {"lt", A | O | T | S},
    {"masked_fill", A}, {"masked_scatter", A}, {"maximum", A | T}, {"minimum", A | T}, {"mish", A},
    {"mul", A | O | U | T | S}, {"multiply", A}, {"mvlgamma", A}, {"nan_to_num", A}, {"ne", A | O | T | S},
    {"neg", A | O | U | T | S}, {"negative", A}, {"nextafter", A}, {"polygamma", A}, {"positive", A},
    {"pow", A | O | T | S}, {"prelu", A}, {"rad2deg", A}, {"reciprocal", A | T | S}, {"relu", A | T}, {"relu6", A},
    {"remainder", A}, {"round", A}, {"rrelu", A}, {"rsqrt", A | T | S}, {"rsub", A}, {"selu", A}, {"celu", A},
    {"sgn", A}, {"sigmoid", A | T | S}, {"sign", A}, {"signbit", A}, {"silu", A | T | S}, {"sin", A}, {"sinc", A},
    {"sinh", A}, {"softplus", A}, {"softshrink", A}, {"sqrt", A | T}, {"square", A}, {"sub", A | O | U | T | S},
    {"subtract", A}, {"tan", A}, {"tanh", A | T}, {"threshold", A}, {"true_divide", A}, {"trunc", A},
    {"where", A | T | S}, {"xlogy", A}, {"_prelu_kernel", A},
    // products
    {"addbmm", A}, {"addmm", A | T}, {"addmv", A}, {"addr", A}, {"baddbmm", A | T}, {"bmm", A | T | S}, {"dot", A},
    {"einsum", A}, {"inner", A}, {"kron", A}, {"linear", A}, {"matmul", A | T}, {"mm", A | T | S}, {"mv", A},
    {"outer", A}, {"tensordot", A}, {"vdot", A}, {"_addmm_activation", A}, {"bilinear", A}, {"_trilinear", A},
    {"_grouped_mm", A | T | S}, {"_scaled_mm", A}, {"convolution", A}, {"_convolution", A}, {"conv1d", A}, {"conv2d", A}, {"conv3d", A},
    {"conv_transpose1d", A}, {"conv_transpose2d", A}, {"conv_transpose3d", A},
    // reductions and scans
    {"all", A}, {"amax", A}, {"amin", A}, {"aminmax", A}, {"any", A}, {"argmax", A}, {"argmin", A}, {"argsort", A},
    {"count_nonzero", A}, {"cummax", A}, {"cummin", A}, {"cumprod", A}, {"cumsum", A}, {"histc", A}, {"kthvalue", A},
    {"linalg_vector_norm", A}, {"logcumsumexp", A}, {"logsumexp", A}, {"max", A}, {"mean", A}, {"median", A},
    {"min", A}, {"mode", A}, {"nanmean", A}, {"nanmedian", A}, {"nansum", A}, {"norm", A}, {"prod", A}, {"sort", A},
    {"std", A}, {"std_mean", A}, {"sum", A}, {"topk", A}, {"var", A}, {"var_mean", A}, {"frobenius_norm", A},
    {"renorm", A}, {"bincount", A}, {"unique_consecutive", A}, {"_unique2", A}, {"unique_dim", A},
    {"searchsorted", A}, {"bucketize", A},
    // views and layout
    {"alias", A | T | S}, {"as_strided", A}, {"as_strided_scatter", A}, {"broadcast_tensors", A}, {"broadcast_to", A},
    {"chunk", A}, {"clone", A | T | S}, {"col2im", A}, {"contiguous", A | T | S}, {"detach", A | T | S}, {"diag", A},
    {"diag_embed", A}, {"diagonal", A}, {"diagonal_scatter", A}, {"expand", A}, {"expand_as", A}, {"flatten", A},
    {"flip", A}, {"fliplr", A}, {"flipud", A}, {"im2col", A}, {"movedim", A}, {"moveaxis", A}, {"narrow", A},
    {"narrow_copy", A}, {"numpy_T", A}, {"permute", A | S}, {"pixel_shuffle", A}, {"pixel_unshuffle", A},
    {"ravel", A}, {"repeat", A}, {"repeat_interleave", A}, {"reshape", A}, {"reshape_as", A}, {"resize", A},
    {"resize_as", A}, {"roll", A}, {"rot90", A}, {"select", A}, {"select_scatter", A}, {"slice", A},
    {"slice_scatter", A | S}, {"split", A}, {"split_with_sizes", A}, {"squeeze", A | S}, {"swapaxes", A},
    {"swapdims", A}, {"t", A | S}, {"tensor_split", A}, {"tile", A}, {"transpose", A | S}, {"tril", A}, {"triu", A},
    {"unbind", A}, {"unflatten", A}, {"unfold", A}, {"unsqueeze", A | S}, {"view", A}, {"view_as", A},
    {"view_as_complex", A | T}, {"view_as_real", A | T}, {"_reshape_alias", A}, {"_unsafe_view", A},
    {"_reshape_copy", A}, {"view_copy", A}, {"permute_copy", A}, {"expand_copy", A}, {"transpose_copy", A},
    {"t_copy", A}, {"squeeze_copy", A}, {"unsqueeze_copy", A}, {"slice_copy", A}, {"select_copy", A},
    {"split_copy", A}, {"split_with_sizes_copy", A}, {"unbind_copy", A}, {"diagonal_copy", A}, {"alias_copy", A},
    {"as_strided_copy", A}, {"detach_copy", A}, {"unfold_copy", A}, {"lift", A}, {"lift_fresh", A},
    {"lift_fresh_copy", A}, {"cat", A}, {"concat", A}, {"concatenate", A}, {"hstack", A}, {"vstack", A},
    {"dstack", A}, {"stack", A}, {"column_stack", A}, {"atleast_1d", A}, {"atleast_2d", A}, {"atleast_3d", A},
    {"pad", A}, {"constant_pad_nd", A}, {"reflection_pad1d", A}, {"reflection_pad2d", A}, {"reflection_pad3d", A},
    {"replication_pad1d", A}, {"replication_pad2d", A}, {"replication_pad3d", A}, {"_pad_circular", A},
    {"channel_shuffle", A},
    // indexing and scatter
    {"gather", A | S}, {"index", A | S}, {"index_add", A}, {"index_copy", A}, {"index_fill", A}, {"index_put", A | S},
    {"index_reduce", A}, {"index_select", A}, {"masked_select", A}, {"nonzero", A}, {"nonzero_static", A}, {"put", A},
    {"scatter", A}, {"scatter_add", A | S}, {"scatter_reduce", A}, {"take", A}, {"take_along_dim", A},
    {"_index_put_impl", A}, {"_unsafe_index", A}, {"_unsafe_index_put", A}, {"_unsafe_masked_index", A},
    {"_unsafe_masked_index_put_accumulate", A}, {"embedding", A}, {"embedding_bag", A}, {"_embedding_bag", A},
    {"embedding_renorm", A}, {"one_hot", A},
    // normalisation, softmax, losses, attention, dropout
    {"batch_norm", A}, {"native_batch_norm", A}, {"_native_batch_norm_legit", A},
    {"_native_batch_norm_legit_no_training", A}, {"_native_batch_norm_legit_functional", A}, {"group_norm", A},
    {"native_group_norm", A}, {"instance_norm", A}, {"layer_norm", A}, {"native_layer_norm", A}, {"rms_norm", A},
    {"_fused_rms_norm", A}, {"local_response_norm", A}, {"_batch_norm_impl_index", A}, {"_softmax", A},
    {"softmax", A}, {"log_softmax", A}, {"_log_softmax", A}, {"_safe_softmax", A}, {"cross_entropy_loss", A},
    {"binary_cross_entropy", A}, {"binary_cross_entropy_with_logits", A}, {"cosine_embedding_loss", A},
    {"cosine_similarity", A}, {"ctc_loss", A}, {"hinge_embedding_loss", A}, {"huber_loss", A}, {"kl_div", A},
    {"l1_loss", A}, {"margin_ranking_loss", A}, {"mse_loss", A}, {"multi_margin_loss", A},
    {"multilabel_margin_loss", A}, {"nll_loss", A}, {"nll_loss2d", A}, {"nll_loss_nd", A}, {"nll_loss_forward", A},
    {"nll_loss2d_forward", A}, {"poisson_nll_loss", A}, {"smooth_l1_loss", A}, {"soft_margin_loss", A},
    {"triplet_margin_loss", A}, {"pairwise_distance", A}, {"cdist", A}, {"_cdist_forward", A}, {"pdist", A},
    {"_pdist_forward", A}, {"scaled_dot_product_attention", A}, {"_scaled_dot_product_attention", A},
    {"_scaled_dot_product_attention_math", A}, {"_scaled_dot_product_efficient_attention", A},
    {"_scaled_dot_product_flash_attention", A}, {"_scaled_dot_product_flash_attention_for_cpu", A},
    {"_scaled_dot_product_cudnn_attention", A}, {"_efficient_attention_forward", A}, {"_flash_attention_forward", A},
    {"dropout", A}, {"native_dropout", A}, {"feature_dropout", A}, {"alpha_dropout", A}, {"feature_alpha_dropout", A},
    {"bernoulli", A}, {"_fused_dropout", A}, {"_masked_scale", A}, {"max_pool1d", A}, {"max_pool2d", A},
    {"max_pool3d", A}, {"max_pool2d_with_indices", A}, {"max_pool3d_with_indices", A}, {"avg_pool1d", A},
    {"avg_pool2d", A}, {"avg_pool3d", A}, {"adaptive_avg_pool1d", A}, {"adaptive_avg_pool2d", A},
    {"adaptive_avg_pool3d", A}, {"_adaptive_avg_pool2d", A}, {"_adaptive_avg_pool3d", A}, {"adaptive_max_pool1d", A},
    {"adaptive_max_pool2d", A}, {"adaptive_max_pool3d", A}, {"upsample_nearest1d", A}, {"upsample_nearest2d", A},
    {"upsample_nearest3d", A}, {"upsample_bilinear2d", A}, {"upsample_bicubic2d", A}, {"upsample_linear1d", A},
    {"upsample_trilinear3d", A}, {"_upsample_nearest_exact1d", A}, {"_upsample_nearest_exact2d", A},
    {"_upsample_nearest_exact3d", A}, {"_upsample_bilinear2d_aa", A}, {"grid_sampler", A}, {"grid_sampler_2d", A},
    {"grid_sampler_3d", A}, {"affine_grid_generator", A}, {"fractional_max_pool2d", R}, {"fractional_max_pool3d", R},
    {"max_pool1d_with_indices", A}, {"max_unpool2d", R}, {"max_unpool3d", R}, {"_upsample_bicubic2d_aa", A},
    {"_upsample_lanczos2d_aa", A}, {"_batch_norm_with_update", A}, {"_batch_norm_with_update_functional", A},
    // factories, conversions, random numbers (the child's own generator)
    {"arange", A}, {"empty", A | S}, {"empty_like", A | S}, {"empty_strided", A}, {"empty_permuted", A}, {"eye", A},
    {"fill", A}, {"full", A | S}, {"full_like", A}, {"linspace", A}, {"logspace", A}, {"new_empty", A | S},
    {"new_empty_strided", A}, {"new_full", A | S}, {"new_ones", A | S}, {"new_zeros", A | S}, {"ones", A | S},
    {"ones_like", A | S}, {"rand", A}, {"rand_like", A}, {"randint", A}, {"randint_like", A}, {"randn", A},
    {"randn_like", A}, {"randperm", A}, {"normal", A}, {"normal_functional", A}, {"uniform", A}, {"exponential", A}, {"geometric", A},
    {"log_normal", A}, {"cauchy", A}, {"random", A}, {"multinomial", A}, {"poisson", A}, {"scalar_tensor", A},
    {"zeros", A | S}, {"zeros_like", A | S}, {"zero", A}, {"tril_indices", A}, {"triu_indices", A},
    {"_to_copy", A | S}, {"to", A | S}, {"type_as", A}, {"copy", A | T}, {"_copy_from", A},
    {"_copy_from_and_resize", A}, {"_to_dense", A}, {"to_dense", A}, {"_local_scalar_dense", A}, {"item", A},
    {"_assert_async", A}, {"_assert_scalar", A}, {"_functional_assert_async", A}, {"_functional_assert_scalar", A},
    {"_assert_tensor_metadata", A}, {"sym_size", A}, {"sym_numel", A}, {"sym_stride", A}, {"sym_storage_offset", A},
    {"sym_constrain_range", A}, {"sym_constrain_range_for_size", A}, {"_make_dep_token", A}, {"size", A},
    {"stride", A}, {"numel", A}, {"dim", A}, {"is_contiguous", A}, {"is_same_size", A}, {"result_type", A},
    {"can_cast", A}, {"promote_types", A}, {"_shape_as_tensor", A}, {"complex", A}, {"polar", A}, {"real", A},
    {"imag", A}, {"_neg_view", A}, {"_conj_physical", A}, {"resolve_conj", A}, {"resolve_neg", A}, {"logdet", A},
    {"det", A}, {"cross", A}, {"linalg_cross", A}, {"trace", A}, {"cholesky", A}, {"linalg_cholesky_ex", A},
    {"linalg_solve", A}, {"linalg_inv_ex", A}, {"linalg_qr", A}, {"linalg_svd", A}, {"_linalg_svd", A},
    {"linalg_eigh", A}, {"_linalg_eigh", A}, {"triangular_solve", A}, {"linalg_solve_triangular", A},
    {"linalg_lu_factor_ex", A}, {"linalg_matrix_norm", A}, {"linalg_norm", A}, {"_linalg_det", A},
    {"_linalg_slogdet", A}, {"fft_fft", A}, {"fft_ifft", A}, {"fft_rfft", A}, {"fft_irfft", A}, {"_fft_r2c", A},
    {"_fft_c2r", A}, {"_fft_c2c", A},
    // optimizer steps on parameters (functional and in-place forms)
    {"_foreach_add", A}, {"_foreach_mul", A}, {"_foreach_div", A}, {"_foreach_sub", A}, {"_foreach_addcmul", A},
    {"_foreach_addcdiv", A}, {"_foreach_sqrt", A}, {"_foreach_lerp", A}, {"_foreach_neg", A}, {"_foreach_copy", A},
    {"_foreach_zero", A}, {"_foreach_norm", A}, {"_foreach_abs", A}, {"_foreach_exp", A}, {"_foreach_pow", A},
    {"_foreach_reciprocal", A}, {"_foreach_sign", A}, {"_foreach_maximum", A}, {"_foreach_minimum", A},
    {"_foreach_clamp_min", A}, {"_foreach_clamp_max", A}, {"_fused_adam", A}, {"_fused_adamw", A}, {"_fused_sgd", A},
    {"_amp_foreach_non_finite_check_and_unscale", A}, {"_amp_update_scale", A},
    // the rest of DTensor's list ops and their in-place forms (core/rules/foreach.cpp)
    {"_foreach_abs_", A}, {"_foreach_acos", A}, {"_foreach_acos_", A}, {"_foreach_asin", A}, {"_foreach_asin_", A},
    {"_foreach_atan", A}, {"_foreach_atan_", A}, {"_foreach_ceil", A}, {"_foreach_ceil_", A}, {"_foreach_cos", A},
    {"_foreach_cos_", A}, {"_foreach_cosh", A}, {"_foreach_cosh_", A}, {"_foreach_erf", A}, {"_foreach_erf_", A},
    {"_foreach_erfc", A}, {"_foreach_erfc_", A}, {"_foreach_exp_", A}, {"_foreach_expm1", A}, {"_foreach_expm1_", A},
    {"_foreach_floor", A}, {"_foreach_floor_", A}, {"_foreach_frac", A}, {"_foreach_frac_", A},
    {"_foreach_lgamma", A}, {"_foreach_lgamma_", A}, {"_foreach_log", A}, {"_foreach_log_", A}, {"_foreach_log10", A},
    {"_foreach_log10_", A}, {"_foreach_log1p", A}, {"_foreach_log1p_", A}, {"_foreach_log2", A},
    {"_foreach_log2_", A}, {"_foreach_neg_", A}, {"_foreach_reciprocal_", A}, {"_foreach_round", A},
    {"_foreach_round_", A}, {"_foreach_rsqrt", A}, {"_foreach_rsqrt_", A}, {"_foreach_sigmoid", A},
    {"_foreach_sigmoid_", A}, {"_foreach_sign_", A}, {"_foreach_sin", A}, {"_foreach_sin_", A}, {"_foreach_sinh", A},
    {"_foreach_sinh_", A}, {"_foreach_sqrt_", A}, {"_foreach_tan", A}, {"_foreach_tan_", A}, {"_foreach_tanh", A},
    {"_foreach_tanh_", A}, {"_foreach_trunc", A}, {"_foreach_trunc_", A}, {"_foreach_add_", A}, {"_foreach_sub_", A},
    {"_foreach_mul_", A}, {"_foreach_div_", A}, {"_foreach_addcdiv_", A}, {"_foreach_addcmul_", A},
    {"_foreach_clamp_max_", A}, {"_foreach_clamp_min_", A}, {"_foreach_lerp_", A}, {"_foreach_maximum_", A},
    {"_foreach_minimum_", A}, {"_foreach_pow_", A}, {"_foreach_clone", A}, {"_foreach_zero_", A},
    {"_foreach_powsum", A}, {"_foreach_max", A}, {"_foreach_mm", A}, {"_fused_adam_", A}, {"_fused_adamw_", A},
    {"_amp_foreach_non_finite_check_and_unscale_", A},
    // backward kernels whose forward name is not their prefix
    {"convolution_backward", A}, {"embedding_dense_backward", A}, {"native_batch_norm_backward", A},
    {"native_group_norm_backward", A}, {"native_layer_norm_backward", A}, {"_softmax_backward_data", A},
    {"_log_softmax_backward_data", A}, {"_scaled_dot_product_efficient_attention_backward", A},
    {"_scaled_dot_product_flash_attention_backward", A}, {"_scaled_dot_product_flash_attention_for_cpu_backward", A},
    {"_scaled_dot_product_cudnn_attention_backward", A}, {"_efficient_attention_backward", A},
    {"_flash_attention_backward", A}, {"native_dropout_backward", A}, {"threshold_backward", A},
    {"sigmoid_backward", A}, {"tanh_backward", A}, {"gelu_backward", A}, {"silu_backward", A}, {"mish_backward", A},
    {"elu_backward", A}, {"leaky_relu_backward", A}, {"hardtanh_backward", A}, {"hardsigmoid_backward", A},
    {"hardswish_backward", A}, {"softplus_backward", A}, {"log_sigmoid_backward", A}, {"nll_loss_backward", A},
    {"nll_loss2d_backward", A}, {"mse_loss_backward", A}, {"l1_loss_backward", A}, {"smooth_l1_loss_backward", A},
    {"huber_loss_backward", A}, {"binary_cross_entropy_backward", A},
    {"binary_cross_entropy_with_logits_backward", A}, {"select_backward", A}, {"slice_backward", A},
    {"diagonal_backward", A}, {"unfold_backward", A}, {"index_select_backward", A}, {"as_strided_backward", A},
    {"max_pool2d_with_indices_backward", A}, {"max_pool3d_with_indices_backward", A}, {"avg_pool2d_backward", A},
    {"avg_pool3d_backward", A}, {"_adaptive_avg_pool2d_backward", A}, {"_adaptive_avg_pool3d_backward", A},
    {"upsample_nearest2d_backward", A}, {"upsample_bilinear2d_backward", A}, {"grid_sampler_2d_backward", A},
    {"_cdist_backward", A}, {"_pdist_backward", A}, {"rrelu_with_noise_backward", A}, {"_rms_norm_backward", A},
    {"_fused_rms_norm_backward", A}, {"prelu_backward", A}, {"_prelu_kernel_backward", A}, {"logit_backward", A},
    {"glu_backward", A}, {"kl_div_backward", A}, {"trace_backward", A}, {"cumprod_backward", A},
    {"_masked_softmax_backward", A}, {"upsample_nearest1d_backward", A}, {"upsample_nearest3d_backward", A},
    {"_upsample_nearest_exact1d_backward", A}, {"_upsample_nearest_exact2d_backward", A},
    {"_upsample_nearest_exact3d_backward", A}, {"_upsample_bilinear2d_aa_backward", A},
    {"_upsample_bicubic2d_aa_backward", A}, {"_upsample_lanczos2d_aa_backward", A},
    {"upsample_bicubic2d_backward", A}, {"upsample_linear1d_backward", A}, {"upsample_trilinear3d_backward", A},
    {"grid_sampler_3d_backward", A},
    // refused although the backward derivation would allow them: their CPU kernels trust index values the plan
    // chooses (bag offsets, offset2bag, maximum_indices) and write wherever those point. The index-trusting kernels
    // that keep their flag have contracts the runner checks before dispatch (runner/op_contracts.h)
    {"_embedding_bag_backward", R}, {"_embedding_bag_dense_backward", R}, {"_embedding_bag_sparse_backward", R},
    {"embedding_bag_backward", R}, {"_embedding_bag_per_sample_weights_backward", R},
    {"embedding_sparse_backward", R}, {"_batch_norm_impl_index_backward", R},
    // other namespaces
    {"convert_element_type", P | S}, {"view_of", P}, {"iota", P}, {"fma", P | T | S}, {"device_put", P | S},
    {"dtype_cast", M}, {"higher_order.flex_attention", X}, {"higher_order.flex_attention_backward", X},
    // DeepSpeed AutoSP's Ulysses all-to-all (x, scatter_idx, gather_idx, name) over its sequence-parallel group:
    // a collective on the plan's own ranks, nothing else (core/check/autosp_graph.h reads it)
    {"autosp.all_to_all", X},
    {"getitem", O | U | T | S}, {"floordiv", O | U}, {"truediv", O | U}, {"mod", O | U}, {"torch.sym_sum", X},
    {"torch.sym_max", X}, {"torch.sym_min", X}, {"torch.sym_int", X}, {"torch.sym_float", X}, {"torch.sym_not", X},
    {"torch.sym_ite", X},
    // collectives over the plan's own process groups
    {"all_reduce", C | S}, {"all_reduce_", C}, {"all_gather_into_tensor", C}, {"all_gather_into_tensor_out", C},
    {"reduce_scatter_tensor", C}, {"all_to_all_single", C}, {"broadcast", C}, {"broadcast_", C},
    {"all_gather_into_tensor_coalesced", C}, {"reduce_scatter_tensor_coalesced", C}, {"all_reduce_coalesced", C},
    {"permute_tensor", C}, {"wait_tensor", C | T | S}, {"shard_dim_alltoall", C},
    // keys only the checker reads: in-place forms with rules of their own (the runner admits them as their
    // functional aten op's `name_`) and ops the runner never runs
    {"_index_put_impl_", N}, {"_to_dtype", N}, {"add_", N}, {"copy_", T | S}, {"detach_", N}, {"div_", N},
    {"higher_order.triton_kernel_wrapper_functional", N}, {"higher_order.triton_kernel_wrapper_mutation", N},
    {"index_put_", N}, {"masked_fill_", N}, {"mul_", N}, {"neg_", N}, {"relu_", N}, {"resize_", N}, {"scatter_", N},
    {"scatter_add_", N}, {"set_", N}, {"sub_", N}, {"zero_", N},
    // the rest of DTensor's generic pointwise ops: elementwise math on their tensors only, so pure
    {"abs_", A}, {"acos_", A}, {"acosh_", A}, {"addcdiv_", A}, {"addcmul_", A}, {"asin_", A}, {"atan2_", A},
    {"atanh_", A}, {"bitwise_and_", A}, {"bitwise_left_shift_", A}, {"bitwise_not_", A}, {"bitwise_or_", A},
    {"bitwise_right_shift_", A}, {"bitwise_xor_", A}, {"celu_", A}, {"clamp_", A}, {"clamp_max_", A},
    {"clamp_min_", A}, {"clip_", A}, {"conj_physical_", A}, {"copysign_", A}, {"cos_", A}, {"cosh_", A},
    {"digamma_", A}, {"elu_", A}, {"erfinv_", A}, {"float_power_", A}, {"fmod_", A}, {"frac_", A}, {"gcd", A},
    {"hardsigmoid_", A}, {"hardtanh_", A}, {"hypot_", A}, {"i0_", A}, {"igamma_", A}, {"igammac_", A}, {"lcm", A},
    {"ldexp", A}, {"ldexp_", A}, {"leaky_relu_", A}, {"lerp_", A}, {"lgamma_", A}, {"log10_", A}, {"log1p_", A},
    {"log2_", A}, {"log_", A}, {"logical_and_", A}, {"logical_not_", A}, {"logical_or_", A}, {"logical_xor_", A},
    {"logit_", A}, {"mvlgamma_", A}, {"nextafter_", A}, {"polygamma_", A}, {"pow_", A}, {"reciprocal_", A},
    {"remainder_", A}, {"rsqrt_", A}, {"selu_", A}, {"silu_", A}, {"sin_", A}, {"sinc_", A}, {"special_airy_ai", A},
    {"special_bessel_j0", A}, {"special_bessel_j1", A}, {"special_bessel_y0", A}, {"special_bessel_y1", A},
    {"special_chebyshev_polynomial_t", A}, {"special_chebyshev_polynomial_u", A},
    {"special_chebyshev_polynomial_v", A}, {"special_chebyshev_polynomial_w", A}, {"special_entr", A},
    {"special_hermite_polynomial_h", A}, {"special_hermite_polynomial_he", A}, {"special_i0e", A}, {"special_i1", A},
    {"special_i1e", A}, {"special_laguerre_polynomial_l", A}, {"special_legendre_polynomial_p", A},
    {"special_log_ndtr", A}, {"special_modified_bessel_i0", A}, {"special_modified_bessel_k0", A},
    {"special_modified_bessel_k1", A}, {"special_ndtri", A}, {"special_scaled_modified_bessel_k0", A},
    {"special_scaled_modified_bessel_k1", A}, {"special_shifted_chebyshev_polynomial_t", A},
    {"special_shifted_chebyshev_polynomial_u", A}, {"special_shifted_chebyshev_polynomial_v", A},
    {"special_shifted_chebyshev_polynomial_w", A}, {"special_spherical_bessel_j0", A}, {"special_xlog1py", A},
    {"special_zeta", A}, {"sqrt_", A}, {"square_", A}, {"tan_", A}, {"xlogy_", A},
    // DTensor's monotone pointwise ops not listed above (core/rules/pointwise_partial.cpp)
    {"special_erfcx", A}, {"special_modified_bessel_i1", A}, {"frexp", A},
    // tensor ops DTensor has strategies for (core/rules/tensor_ops.cpp)
    {"equal", A}, {"linalg__powsum", A}, {"__lshift__", A}, {"__rshift__", A}, {"__xor__", A}, {"__ilshift__", A},
    {"__irshift__", A}, {"__ixor__", A}, {"rrelu_with_noise", A}, {"rrelu_with_noise_functional", A},
    // prims' special functions and copy_to: pure tensor math (a LibTorch without Python's prims says at the node
    // that it has no such operator)
    {"bessel_i0e", P}, {"bessel_i1", P}, {"bessel_i1e", P}, {"bessel_j0", P}, {"bessel_j1", P}, {"erfcx", P},
    {"ndtri", P}, {"spherical_bessel_j0", P}, {"zeta", P}, {"copy_to", P},
    // linear algebra DTensor has strategies for (core/rules/linalg.cpp)
    {"cholesky_inverse", A}, {"linalg_matrix_exp", A}, {"cholesky_solve", A}, {"linalg_householder_product", A},
    {"linalg_ldl_solve", A}, {"linalg_lu_solve", A}, {"ormqr", A}, {"geqrf", A}, {"linalg_eig", A},
    {"linalg_ldl_factor_ex", A}, {"linalg_lu", A}, {"lu_unpack", A}, {"_linalg_solve_ex", A},
    {"_linalg_check_errors", A}, {"linalg_pinv", A},
};

// Why each refused (R) op is refused: the kernel trusts what a plan chooses and no op contract
// (runner/op_contracts.h) checks it. Every R entry has one (opTableProblems says which lacks it).
struct Refusal {
  const char* key;
  const char* why;
};
constexpr const char* kEmbeddingBagBackward =
    "its CPU kernel trusts bag offsets, offset2bag and maximum_indices that the plan chooses, and writes wherever "
    "they point";
constexpr const char* kFractionalMaxPool =
    "the op campaign crashed it and its backward (SIGSEGV): its CPU kernels trust random_samples' shape, the kernel "
    "and output sizes and the backward's indices, which the plan chooses; no op contract checks them";
constexpr const char* kMaxUnpool =
    "the op campaign crashed it (SIGSEGV): its CPU kernel trusts output_size's length and the indices, which the plan "
    "chooses; no op contract checks them";
constexpr Refusal kRefusals[] = {
    {"_embedding_bag_backward", kEmbeddingBagBackward},
    {"_embedding_bag_dense_backward", kEmbeddingBagBackward},
    {"_embedding_bag_sparse_backward", kEmbeddingBagBackward},
    {"embedding_bag_backward", kEmbeddingBagBackward},
    {"_embedding_bag_per_sample_weights_backward", kEmbeddingBagBackward},
    {"embedding_sparse_backward", "its kernel builds a sparse tensor from index values the plan chooses, unchecked"},
    // The op campaign (fuzz/op_campaign.cpp) crashed both and their backwards (SIGSEGV): the kernels trust
    // random_samples' shape, the kernel and output sizes and, backward, the indices. No contract checks them yet.
    {"fractional_max_pool2d", kFractionalMaxPool},
    {"fractional_max_pool3d", kFractionalMaxPool},
    {"_batch_norm_impl_index_backward",
     "the op campaign crashed it (SIGSEGV): its impl_index and reserve arguments pick a backend's backward, which "
     "trusts what the matching forward would have saved; the plan chooses both"},
    {"max_unpool2d", kMaxUnpool},
    {"max_unpool3d", kMaxUnpool},
};

struct Table {
  std::vector<OpEntry> entries;  // sorted by key
  std::unordered_map<std::string_view, size_t> index;
  std::deque<std::string> derivedKeys;  // storage of the derived in-place keys
  std::vector<OpEntry> derived;         // in-place forms `name_` of ruled entries the list lacks
  std::unordered_map<std::string_view, size_t> derivedIndex;
  std::vector<std::string> problems;
};

const Table& table() {
  static const Table t = [] {
    Table out;
    std::unordered_map<std::string_view, OpEntry> byKey;
    for (const OpFacts& f : kFacts) {
      OpEntry& e = byKey[f.key];
      if (!e.key.empty()) out.problems.push_back(std::string("op '") + f.key + "' is listed twice");
      e.key = f.key;
      e.runsIn = f.flags & kRunsMask;
      e.refused = f.flags & R;
      e.tensorOnly = f.flags & T;
      e.symbolicSafe = f.flags & S;
    }
    for (const Refusal& r : kRefusals) {
      auto it = byKey.find(r.key);
      if (it == byKey.end() || !it->second.refused)
        out.problems.push_back(std::string("a refusal reason for '") + r.key + "', which the op table does not refuse");
      else
        it->second.refusedWhy = r.why;
    }
    for (const auto& [key, e] : byKey)
      if (e.refused && e.refusedWhy.empty())
        out.problems.push_back("op '" + std::string(key) + "' is refused without a reason");
    for (const auto& [key, fn] : rules::familyRules()) {
      auto it = byKey.find(key);
      if (it == byKey.end()) out.problems.push_back("sharding rule for '" + key + "', which the op table does not list");
      else it->second.sharding = fn;
    }
    for (const auto& [key, fn] : detail::shapeRules()) {
      auto it = byKey.find(key);
      if (it == byKey.end()) out.problems.push_back("shape rule for '" + key + "', which the op table does not list");
      else it->second.shape = &fn;
    }
    for (const auto& [key, why] : rules::replicateOnlyOps()) {
      auto it = byKey.find(key);
      if (it != byKey.end()) it->second.replicateOnlyWhy = why;  // (its rule's key is checked above)
    }
    for (auto& [key, e] : byKey) {
      if ((e.tensorOnly || e.symbolicSafe) && !e.shape)
        out.problems.push_back("op '" + std::string(key) + "' has shape-rule flags but no shape rule");
      out.entries.push_back(e);
    }
    std::sort(out.entries.begin(), out.entries.end(), [](const OpEntry& a, const OpEntry& b) { return a.key < b.key; });
    for (size_t i = 0; i < out.entries.size(); ++i) out.index.emplace(out.entries[i].key, i);
    // In-place forms: DTensor derives `name_` from `name` (autogen's same-schema variants); so does the table,
    // for every ruled op whose in-place form it does not list.
    // A listed in-place form no family registers gets the same derived rule (findRule gives it to the checker).
    for (OpEntry& e : out.entries) {
      if (e.sharding) continue;
      const std::string_view base = rules::inplaceBaseOf(e.key);
      if (base.empty()) continue;
      e.sharding = rules::inplaceRule;
      e.inplaceOf = base;
    }
    for (const OpEntry& e : out.entries) {
      const std::string inplace = std::string(e.key) + "_";
      if (!e.sharding || !e.inplaceOf.empty() || byKey.count(inplace) || rules::inplaceBaseOf(inplace).empty())
        continue;
      OpEntry d = e;
      d.key = out.derivedKeys.emplace_back(std::string(e.key) + "_");
      d.sharding = rules::inplaceRule;
      d.inplaceOf = e.key;
      out.derived.push_back(d);
    }
    for (size_t i = 0; i < out.derived.size(); ++i) out.derivedIndex.emplace(out.derived[i].key, i);
    return out;
  }();
  return t;
}

}  // namespace

const OpEntry* findOp(std::string_view op) { return findOpKey(rules::ruleKeyView(op)); }

const OpEntry* findOpKey(std::string_view key) {
  const Table& t = table();
  if (auto it = t.index.find(key); it != t.index.end()) return &t.entries[it->second];
  if (auto it = t.derivedIndex.find(key); it != t.derivedIndex.end()) return &t.derived[it->second];
  return nullptr;
}

std::span<const OpEntry> allOps() { return table().entries; }

std::vector<std::string> opTableProblems() { return table().problems; }

}  // namespace ss::ops
