// The runner's allow-list of pure tensor ops (see core/ops/op_safety.h for the contract).
//
// How an op gets on the list: its only effects are on its tensor arguments and results. Deliberately absent
// (so refused), with the reason: from_file (maps a file, shared=True writes it), set_ / set_.source_Storage
// (swaps storage), share_memory_ / _share_memory (creates OS shared memory), pin_memory / _pin_memory
// (page-locked host memory), record_stream, to_mkldnn and other backend conversions, _nested_* (raw buffers),
// sparse constructors from raw indices (_sparse_coo_tensor_unsafe), quantizer internals, the embedding-bag backwards
// (kRefusedAtenOps), and anything not listed. The unchecked index ops stay (autoparallel's graphs hold them: the
// embedding backward is _unsafe_masked_index_put_accumulate): the runner checks their indices first. Adding an op: it must take no file name, Storage, pointer or handle, and have no effect outside its
// tensors.
#include "core/ops/op_safety.h"

#include <algorithm>
#include <unordered_set>

#include "core/model/graph.h"

namespace ss {
namespace {

// ATen ops (bare names, all overloads). Grouped as the families of core/rules, then the rest of the functional
// ATen surface that traced training graphs contain.
constexpr const char* kAtenOps[] = {
    // pointwise math
    "abs", "absolute", "acos", "acosh", "add", "addcdiv", "addcmul", "angle", "asin", "asinh", "atan", "atan2",
    "atanh", "bitwise_and", "bitwise_left_shift", "bitwise_not", "bitwise_or", "bitwise_right_shift",
    "bitwise_xor", "ceil", "clamp", "clamp_max", "clamp_min", "clip", "conj", "conj_physical", "_conj",
    "copysign", "cos", "cosh", "deg2rad", "digamma", "div", "divide", "elu", "eq", "erf", "erfc", "erfinv", "exp",
    "exp2", "expm1", "fix", "float_power", "floor", "floor_divide", "fmax", "fmin", "fmod", "frac", "ge", "gelu",
    "glu", "gt", "hardshrink", "hardsigmoid", "hardswish", "hardtanh", "heaviside", "hypot", "i0", "igamma",
    "igammac", "isclose", "isfinite", "isinf", "isnan", "isneginf", "isposinf", "isreal", "le", "leaky_relu",
    "lerp", "lgamma", "log", "log10", "log1p", "log2", "log_sigmoid_forward", "logaddexp", "logaddexp2",
    "logical_and", "logical_not", "logical_or", "logical_xor", "logit", "lt", "masked_fill", "masked_scatter",
    "maximum", "minimum", "mish", "mul", "multiply", "mvlgamma", "nan_to_num", "ne", "neg", "negative",
    "nextafter", "polygamma", "positive", "pow", "prelu", "rad2deg", "reciprocal", "relu", "relu6", "remainder",
    "round", "rrelu", "rsqrt", "rsub", "selu", "celu", "sgn", "sigmoid", "sign", "signbit", "silu", "sin", "sinc",
    "sinh", "softplus", "softshrink", "sqrt", "square", "sub", "subtract", "tan", "tanh", "threshold",
    "true_divide", "trunc", "where", "xlogy", "_prelu_kernel",
    // products
    "addbmm", "addmm", "addmv", "addr", "baddbmm", "bmm", "dot", "einsum", "inner", "kron", "linear", "matmul",
    "mm", "mv", "outer", "tensordot", "vdot", "_addmm_activation", "bilinear", "_trilinear", "_grouped_mm",
    "convolution", "_convolution", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
    "conv_transpose3d",
    // reductions and scans
    "all", "amax", "amin", "aminmax", "any", "argmax", "argmin", "argsort", "count_nonzero", "cummax",
    "cummin", "cumprod", "cumsum", "histc", "kthvalue", "linalg_vector_norm", "logcumsumexp", "logsumexp",
    "max", "mean", "median", "min", "mode", "nanmean", "nanmedian", "nansum", "norm", "prod", "sort", "std",
    "std_mean", "sum", "topk", "var", "var_mean", "frobenius_norm", "renorm", "bincount", "unique_consecutive",
    "_unique2", "unique_dim", "searchsorted", "bucketize",
    // views and layout
    "alias", "as_strided", "as_strided_scatter", "broadcast_tensors", "broadcast_to", "chunk", "clone",
    "col2im", "contiguous", "detach", "diag", "diag_embed", "diagonal", "diagonal_scatter", "expand",
    "expand_as", "flatten", "flip", "fliplr", "flipud", "im2col", "movedim", "moveaxis", "narrow", "narrow_copy",
    "numpy_T", "permute", "pixel_shuffle", "pixel_unshuffle", "ravel", "repeat", "repeat_interleave", "reshape",
    "reshape_as", "resize", "resize_as", "roll", "rot90", "select", "select_scatter", "slice", "slice_scatter",
    "split", "split_with_sizes", "squeeze", "swapaxes", "swapdims", "t", "tensor_split", "tile", "transpose",
    "tril", "triu", "unbind", "unflatten", "unfold", "unsqueeze", "view", "view_as", "view_as_complex",
    "view_as_real", "_reshape_alias", "_unsafe_view", "_reshape_copy", "view_copy", "permute_copy",
    "expand_copy", "transpose_copy", "t_copy", "squeeze_copy", "unsqueeze_copy", "slice_copy", "select_copy",
    "split_copy", "split_with_sizes_copy", "unbind_copy", "diagonal_copy", "alias_copy", "as_strided_copy",
    "detach_copy", "unfold_copy", "lift", "lift_fresh", "lift_fresh_copy", "cat", "concat", "concatenate",
    "hstack", "vstack", "dstack", "stack", "column_stack", "atleast_1d", "atleast_2d", "atleast_3d", "pad",
    "constant_pad_nd", "reflection_pad1d", "reflection_pad2d", "reflection_pad3d", "replication_pad1d",
    "replication_pad2d", "replication_pad3d", "_pad_circular", "channel_shuffle",
    // indexing and scatter
    "gather", "index", "index_add", "index_copy", "index_fill", "index_put", "index_reduce", "index_select",
    "masked_select", "nonzero", "nonzero_static", "put", "scatter", "scatter_add", "scatter_reduce", "take",
    "take_along_dim", "_index_put_impl", "_unsafe_index", "_unsafe_index_put", "_unsafe_masked_index",
    "_unsafe_masked_index_put_accumulate", "embedding", "embedding_bag", "_embedding_bag",
    "embedding_renorm", "one_hot",
    // normalisation, softmax, losses, attention, dropout
    "batch_norm", "native_batch_norm", "_native_batch_norm_legit", "_native_batch_norm_legit_no_training",
    "_native_batch_norm_legit_functional", "group_norm", "native_group_norm", "instance_norm", "layer_norm",
    "native_layer_norm", "rms_norm", "_fused_rms_norm", "local_response_norm", "_batch_norm_impl_index",
    "_softmax", "softmax", "log_softmax", "_log_softmax", "_safe_softmax", "cross_entropy_loss",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "cosine_embedding_loss", "cosine_similarity",
    "ctc_loss", "hinge_embedding_loss", "huber_loss", "kl_div", "l1_loss", "margin_ranking_loss", "mse_loss",
    "multi_margin_loss", "multilabel_margin_loss", "nll_loss", "nll_loss2d", "nll_loss_nd", "nll_loss_forward",
    "nll_loss2d_forward", "poisson_nll_loss", "smooth_l1_loss", "soft_margin_loss", "triplet_margin_loss",
    "pairwise_distance", "cdist", "_cdist_forward", "pdist", "_pdist_forward", "scaled_dot_product_attention",
    "_scaled_dot_product_attention", "_scaled_dot_product_attention_math", "_scaled_dot_product_efficient_attention",
    "_scaled_dot_product_flash_attention", "_scaled_dot_product_flash_attention_for_cpu",
    "_scaled_dot_product_cudnn_attention", "_efficient_attention_forward", "_flash_attention_forward",
    "dropout", "native_dropout", "feature_dropout", "alpha_dropout", "feature_alpha_dropout", "bernoulli",
    "_fused_dropout", "_masked_scale", "max_pool1d", "max_pool2d", "max_pool3d", "max_pool2d_with_indices",
    "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d",
    "adaptive_avg_pool2d", "adaptive_avg_pool3d", "_adaptive_avg_pool2d", "_adaptive_avg_pool3d",
    "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d", "upsample_nearest1d",
    "upsample_nearest2d", "upsample_nearest3d", "upsample_bilinear2d", "upsample_bicubic2d",
    "upsample_linear1d", "upsample_trilinear3d", "_upsample_nearest_exact1d", "_upsample_nearest_exact2d",
    "_upsample_nearest_exact3d", "_upsample_bilinear2d_aa", "grid_sampler", "grid_sampler_2d",
    "grid_sampler_3d", "affine_grid_generator",
    // factories, conversions, random numbers (the child's own generator)
    "arange", "empty", "empty_like", "empty_strided", "empty_permuted", "eye", "fill", "full", "full_like",
    "linspace", "logspace", "new_empty", "new_empty_strided", "new_full", "new_ones", "new_zeros", "ones",
    "ones_like", "rand", "rand_like", "randint", "randint_like", "randn", "randn_like", "randperm", "normal",
    "uniform", "exponential", "geometric", "log_normal", "cauchy", "random", "multinomial", "poisson",
    "scalar_tensor", "zeros", "zeros_like", "zero", "tril_indices", "triu_indices", "_to_copy", "to",
    "type_as", "copy", "_copy_from", "_copy_from_and_resize", "masked_fill", "_to_dense", "to_dense",
    "_local_scalar_dense", "item", "_assert_async", "_assert_scalar", "_functional_assert_async",
    "_functional_assert_scalar", "_assert_tensor_metadata", "sym_size", "sym_numel", "sym_stride",
    "sym_storage_offset", "sym_constrain_range", "sym_constrain_range_for_size", "_make_dep_token",
    "size", "stride", "numel", "dim", "is_contiguous", "is_same_size", "result_type", "can_cast",
    "promote_types", "_shape_as_tensor", "complex", "polar", "real", "imag", "_neg_view", "_conj_physical",
    "resolve_conj", "resolve_neg", "logdet", "det", "cross", "linalg_cross", "trace", "cholesky",
    "linalg_cholesky_ex", "linalg_solve", "linalg_inv_ex", "linalg_qr", "linalg_svd", "_linalg_svd",
    "linalg_eigh", "_linalg_eigh", "triangular_solve", "linalg_solve_triangular", "linalg_lu_factor_ex",
    "linalg_matrix_norm", "linalg_norm", "_linalg_det", "_linalg_slogdet", "fft_fft", "fft_ifft", "fft_rfft",
    "fft_irfft", "_fft_r2c", "_fft_c2r", "_fft_c2c",
    // optimizer steps on parameters (functional and in-place forms)
    "_foreach_add", "_foreach_mul", "_foreach_div", "_foreach_sub", "_foreach_addcmul", "_foreach_addcdiv",
    "_foreach_sqrt", "_foreach_lerp", "_foreach_neg", "_foreach_copy", "_foreach_zero", "_foreach_norm",
    "_foreach_abs", "_foreach_exp", "_foreach_pow", "_foreach_reciprocal", "_foreach_sign", "_foreach_maximum",
    "_foreach_minimum", "_foreach_clamp_min", "_foreach_clamp_max", "_foreach_addcdiv", "_fused_adam",
    "_fused_adamw", "_fused_sgd", "_amp_foreach_non_finite_check_and_unscale", "_amp_update_scale",
};

// Backward kernels whose forward name is not their prefix (X_backward of a listed X is allowed by rule).
constexpr const char* kAtenBackwardOps[] = {
    "convolution_backward", "embedding_dense_backward", "native_batch_norm_backward", "native_group_norm_backward",
    "native_layer_norm_backward", "_softmax_backward_data", "_log_softmax_backward_data",
    "_scaled_dot_product_efficient_attention_backward", "_scaled_dot_product_flash_attention_backward",
    "_scaled_dot_product_flash_attention_for_cpu_backward", "_scaled_dot_product_cudnn_attention_backward",
    "_efficient_attention_backward", "_flash_attention_backward", "native_dropout_backward",
    "threshold_backward", "sigmoid_backward", "tanh_backward", "gelu_backward", "silu_backward",
    "mish_backward", "elu_backward", "leaky_relu_backward", "hardtanh_backward", "hardsigmoid_backward",
    "hardswish_backward", "softplus_backward", "log_sigmoid_backward", "nll_loss_backward",
    "nll_loss2d_backward", "mse_loss_backward", "l1_loss_backward", "smooth_l1_loss_backward",
    "huber_loss_backward", "binary_cross_entropy_backward", "binary_cross_entropy_with_logits_backward",
    "select_backward", "slice_backward", "diagonal_backward", "unfold_backward", "index_select_backward",
    "as_strided_backward", "max_pool2d_with_indices_backward", "max_pool3d_with_indices_backward",
    "avg_pool2d_backward", "avg_pool3d_backward", "_adaptive_avg_pool2d_backward",
    "_adaptive_avg_pool3d_backward", "upsample_nearest2d_backward", "upsample_bilinear2d_backward",
    "grid_sampler_2d_backward", "_cdist_backward", "_pdist_backward", "rrelu_with_noise_backward",
    "_rms_norm_backward", "_fused_rms_norm_backward", "prelu_backward", "_prelu_kernel_backward",
    "logit_backward", "glu_backward", "kl_div_backward", "trace_backward", "cumprod_backward",
    "_masked_softmax_backward",
};

// Refused although a rule above would allow them (an in-place form or backward of a listed op): their CPU kernels
// trust index values the plan chooses (bag offsets, offset2bag, maximum_indices) and write wherever those point.
// The index-trusting kernels that stay allowed have contracts the runner checks before dispatch
// (runner/op_contracts.h: pool backwards, searchsorted's sorter, embedding backwards, norm backwards, strided views,
// the masked unchecked index ops).
constexpr const char* kRefusedAtenOps[] = {
    "_embedding_bag_backward", "_embedding_bag_dense_backward", "_embedding_bag_sparse_backward",
    "embedding_bag_backward", "_embedding_bag_per_sample_weights_backward", "embedding_sparse_backward",
};

// Other namespaces: exact names.
constexpr const char* kOtherOps[] = {
    "prims.convert_element_type", "prims.view_of", "prims.iota", "prims.fma", "prims.device_put",
    // autoparallel's mixed-precision cast (`dtype_cast(x, torch.bfloat16)`), run as aten::_to_copy.
    "autoparallel.dtype_cast",
    // Higher-order ops that compute on their tensors only (their score/mask functions are graphs of the same;
    // triton_kernel_wrapper_* runs user kernels on raw pointers and stays off the list).
    "higher_order.flex_attention", "higher_order.flex_attention_backward",
    "operator.getitem", "_operator.getitem",
    // Python arithmetic on sizes (symbolic shapes).
    "operator.add", "operator.sub", "operator.mul", "operator.floordiv", "operator.truediv", "operator.mod",
    "operator.neg", "operator.pow", "operator.eq", "operator.ne", "operator.lt", "operator.le", "operator.gt",
    "operator.ge", "_operator.add", "_operator.sub", "_operator.mul", "_operator.floordiv",
    "_operator.truediv", "_operator.mod", "_operator.neg", "torch.sym_sum", "torch.sym_max", "torch.sym_min",
    "torch.sym_int", "torch.sym_float", "torch.sym_not", "torch.sym_ite",
};

// Collectives over the plan's own process groups (named as core/rules/collective.cpp knows them).
constexpr const char* kCollectiveNamespaces[] = {"_c10d_functional", "c10d_functional", "c10d",
                                                 "_c10d_functional_autograd", "_dtensor"};
constexpr const char* kCollectiveOps[] = {
    "all_reduce", "all_reduce_", "all_gather_into_tensor", "all_gather_into_tensor_out", "reduce_scatter_tensor",
    "all_to_all_single", "broadcast", "broadcast_", "all_gather_into_tensor_coalesced",
    "reduce_scatter_tensor_coalesced", "all_reduce_coalesced", "permute_tensor", "wait_tensor",
    "shard_dim_alltoall",  // _dtensor's, in applied graphs (S(a) -> S(b))
};

const std::unordered_set<std::string>& allowed() {
  static const std::unordered_set<std::string> s = [] {
    std::unordered_set<std::string> out;
    for (const char* op : kAtenOps) out.insert(std::string("aten.") + op);
    for (const char* op : kAtenBackwardOps) out.insert(std::string("aten.") + op);
    for (const char* op : kOtherOps) out.insert(op);
    for (const char* ns : kCollectiveNamespaces)
      for (const char* op : kCollectiveOps) out.insert(std::string(ns) + "." + op);
    return out;
  }();
  return s;
}

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

int argDepth(const Arg& a) {
  if (!a.isList()) return 0;
  int deepest = 0;
  for (const Arg& x : a.items) {
    deepest = std::max(deepest, argDepth(x));
    if (deepest > kMaxRunArgDepth) break;  // enough to refuse (and bounded work on hostile input)
  }
  return deepest + 1;
}

}  // namespace

bool isPureTensorOp(std::string_view op) {
  if (op.starts_with("torch.ops.")) op.remove_prefix(10);
  const size_t dot = op.find('.');
  if (dot == std::string_view::npos) return false;
  const std::string_view ns = op.substr(0, dot);
  std::string_view name = op.substr(dot + 1);
  name = name.substr(0, name.find('.'));  // drop the overload
  if (name.empty()) return false;
  const auto& s = allowed();
  std::string key(ns);
  key += '.';
  key += name;
  if (ns == "aten")
    for (const char* refused : kRefusedAtenOps)
      if (name == refused) return false;
  if (s.count(key)) return true;
  if (ns != "aten") return false;
  // In-place forms and backwards of listed aten ops ("add_", "gelu_backward", "_softmax_backward_data").
  for (std::string_view suffix : {"_backward_data", "_backward", "_"}) {
    if (!endsWith(name, suffix)) continue;
    std::string base = "aten." + std::string(name.substr(0, name.size() - suffix.size()));
    if (s.count(base)) return true;
  }
  return false;
}

std::optional<std::string> unsafeReason(const Node& node) {
  if (node.kind != NodeKind::Call) return std::nullopt;
  if (!isPureTensorOp(node.op))
    return "op " + node.op +
           " is not on the runner's list of pure tensor ops (it could read or write files, share storage or touch "
           "process state); the runner refuses to execute it";
  auto tooDeep = [](const Arg& a) { return argDepth(a) > kMaxRunArgDepth; };
  for (const Arg& a : node.args)
    if (tooDeep(a))
      return "an argument of " + node.op + " nests lists deeper than " + std::to_string(kMaxRunArgDepth) +
             " levels; the runner refuses it";
  for (const auto& [key, a] : node.kwargs)
    if (tooDeep(a))
      return "argument '" + key + "' of " + node.op + " nests lists deeper than " +
             std::to_string(kMaxRunArgDepth) + " levels; the runner refuses it";
  return std::nullopt;
}

std::string UnsafeNode::toString() const { return "node '" + name + "' (" + op + "): " + reason; }

std::vector<UnsafeNode> unsafeNodes(const Graph& graph) {
  std::vector<UnsafeNode> out;
  for (int n = 0; n < graph.size(); ++n) {
    const Node& node = graph.nodes[n];
    if (auto why = unsafeReason(node)) out.push_back(UnsafeNode{n, node.name, node.op, *why});
  }
  return out;
}

std::vector<std::string> pureTensorOps() {
  std::vector<std::string> out(allowed().begin(), allowed().end());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ss
