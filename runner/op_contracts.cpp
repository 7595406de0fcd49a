// Op contracts before dispatch (runner/op_contracts.h).
#include "runner/op_contracts.h"

#include <ATen/ATen.h>
#include <ATen/MemoryOverlap.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "core/ops/hidden_writes.h"

namespace ss::runner {
namespace {

// The arguments of one call, by schema name.
class Args {
 public:
  Args(const c10::FunctionSchema& s, const std::vector<c10::IValue>& stack) : schema_(s), stack_(stack) {}
  const c10::IValue* get(const char* name) const {
    const auto& args = schema_.arguments();
    for (size_t k = 0; k < args.size() && k < stack_.size(); ++k)
      if (args[k].name() == name) return &stack_[k];
    return nullptr;
  }
  at::Tensor tensor(const char* name) const {
    const c10::IValue* v = get(name);
    return v && v->isTensor() ? v->toTensor() : at::Tensor();
  }
  int64_t integer(const char* name, int64_t otherwise) const {
    const c10::IValue* v = get(name);
    return v && v->isInt() ? v->toInt() : otherwise;
  }
  std::vector<int64_t> ints(const char* name) const {
    const c10::IValue* v = get(name);
    return v && v->isIntList() ? v->toIntVector() : std::vector<int64_t>{};
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(schema_.name() + ": " + what + " (the runner checks this before the kernel, which would "
                                                           "read or write outside its tensors)");
  }
  // Every value of integer tensor `name` in [lo, hi).
  void indicesWithin(const char* name, int64_t lo, int64_t hi, const std::string& range) const {
    const at::Tensor t = tensor(name);
    if (!t.defined() || t.numel() == 0) return;
    if (at::isFloatingType(t.scalar_type()) || at::isComplexType(t.scalar_type()) || t.scalar_type() == at::kBool)
      fail(std::string(name) + " must hold integers");
    const int64_t mn = t.min().item<int64_t>(), mx = t.max().item<int64_t>();
    if (mn < lo || mx >= hi)
      fail(std::string(name) + " holds " + std::to_string(mn < lo ? mn : mx) + ", outside " + range + " [" +
           std::to_string(lo) + ", " + std::to_string(hi) + ")");
  }
  void numelIs(const char* name, int64_t want, const std::string& why) const {
    const at::Tensor t = tensor(name);
    if (t.defined() && t.numel() != want)
      fail(std::string(name) + " has " + std::to_string(t.numel()) + " elements, " + why + " needs " +
           std::to_string(want));
  }
  void sameSizes(const char* a, const char* b) const {
    const at::Tensor x = tensor(a), y = tensor(b);
    if (x.defined() && y.defined() && x.sizes() != y.sizes())
      fail(std::string(a) + " is " + c10::str(x.sizes()) + " but " + b + " is " + c10::str(y.sizes()));
  }

 private:
  const c10::FunctionSchema& schema_;
  const std::vector<c10::IValue>& stack_;
};

int64_t trailingNumel(const at::Tensor& t, int dims) {
  int64_t n = 1;
  for (int d = std::max<int64_t>(0, t.dim() - dims); d < t.dim(); ++d) n *= t.size(d);
  return n;
}

// Indices from a max pool address a flattened plane of the input's last `dims` dims.
void poolIndices(const Args& a, int dims) {
  const at::Tensor self = a.tensor("self"), grad = a.tensor("grad_output");
  if (!self.defined()) return;
  if (self.dim() < dims) a.fail("self has fewer than " + std::to_string(dims) + " dims");
  if (grad.defined() && (grad.dim() != self.dim() ||
                         grad.sizes().slice(0, grad.dim() - dims) != self.sizes().slice(0, self.dim() - dims)))
    a.fail("grad_output is " + c10::str(grad.sizes()) + ", which does not pool self " + c10::str(self.sizes()));
  a.sameSizes("indices", "grad_output");
  a.indicesWithin("indices", 0, trailingNumel(self, dims), "the input's pooled plane");
}

// A strided view of `self`'s storage: every element it reaches must be inside that storage.
void viewInsideStorage(const Args& a, const char* sizeArg, const char* strideArg, const char* offsetArg) {
  const at::Tensor self = a.tensor("self");
  if (!self.defined()) return;
  const std::vector<int64_t> size = a.ints(sizeArg), stride = a.ints(strideArg);
  if (size.size() != stride.size()) a.fail("size and stride differ in length");
  const int64_t offset = offsetArg ? a.integer(offsetArg, self.storage_offset()) : self.storage_offset();
  if (offset < 0) a.fail("a negative storage offset");
  int64_t last = offset;  // the highest element index reached
  bool empty = false;
  for (size_t d = 0; d < size.size(); ++d) {
    if (size[d] < 0 || stride[d] < 0) a.fail("a negative size or stride");
    if (size[d] == 0) empty = true;
    int64_t reach = 0;
    if (size[d] > 0 && (__builtin_mul_overflow(size[d] - 1, stride[d], &reach) || __builtin_add_overflow(last, reach, &last)))
      a.fail("sizes and strides overflow");
  }
  if (empty) return;
  const int64_t itemsize = static_cast<int64_t>(self.element_size());
  const int64_t storageElems = itemsize > 0 ? static_cast<int64_t>(self.storage().nbytes()) / itemsize : 0;
  if (last >= storageElems)
    a.fail("the view reaches element " + std::to_string(last) + " of a storage of " + std::to_string(storageElems));
}


// The int of a schema argument that may be None (`int? output_size`): nullopt when absent or None.
std::optional<int64_t> optionalInt(const Args& a, const char* name) {
  const c10::IValue* v = a.get(name);
  if (!v || !v->isInt()) return std::nullopt;
  return v->toInt();
}

// Every value of integer tensor `name` as int64 (a plan's tensors are small where these contracts read them).
std::vector<int64_t> integerValues(const Args& a, const at::Tensor& t, const char* name) {
  if (!at::isIntegralType(t.scalar_type(), /*includeBool=*/false)) a.fail(std::string(name) + " must hold integers");
  const at::Tensor c = t.to(at::kLong).contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

// repeat_interleave with output_size: the kernel writes output_size elements by the repeats without checking either
// (a negative repeat or a short output_size writes past the result).
void repeatInterleave(const Args& a) {
  const std::optional<int64_t> outputSize = optionalInt(a, "output_size");
  if (!outputSize) return;
  const at::Tensor self = a.tensor("self");
  const std::optional<int64_t> dim = optionalInt(a, "dim");
  int64_t along = 0;  // how many elements each repeat applies to when repeats is one number
  if (self.defined()) {
    if (dim) {
      if (self.dim() == 0 || *dim < -self.dim() || *dim >= self.dim()) a.fail("dim is outside self's dims");
      along = self.size(*dim < 0 ? *dim + self.dim() : *dim);
    } else {
      along = self.numel();
    }
  }
  std::vector<int64_t> repeats;
  const c10::IValue* r = a.get("repeats");
  if (r && r->isInt()) repeats = {r->toInt()};
  else if (r && r->isTensor()) repeats = integerValues(a, r->toTensor(), "repeats");
  int64_t total = 0;
  for (int64_t v : repeats)
    if (v < 0) a.fail("repeats holds " + std::to_string(v) + "; a repeat cannot be negative");
  if (self.defined() && repeats.size() == 1) {
    if (__builtin_mul_overflow(repeats[0], along, &total)) a.fail("repeats times the repeated size overflows");
  } else {
    for (int64_t v : repeats)
      if (__builtin_add_overflow(total, v, &total)) a.fail("the repeats' sum overflows");
  }
  if (*outputSize != total)
    a.fail("output_size is " + std::to_string(*outputSize) + " but the repeats give " + std::to_string(total));
}

// Batch norm's per-channel tensors: the kernels read C values from each (C = input's dim 1).
void perChannelStats(const Args& a) {
  const at::Tensor input = a.tensor("input");
  if (!input.defined()) return;
  if (input.dim() < 2) a.fail("input has fewer than 2 dims");
  const int64_t c = input.size(1);
  for (const char* name : {"weight", "bias", "running_mean", "running_var"}) a.numelIs(name, c, "one per channel");
  // Without training the kernel normalises by the running stats, both of them; in training it updates both or none.
  const bool mean = a.tensor("running_mean").defined(), var = a.tensor("running_var").defined();
  const c10::IValue* training = a.get("training");
  const bool train = training && training->isBool() && training->toBool();
  if (mean != var || (!train && !mean && training && training->isBool()))
    a.fail("running_mean and running_var must both be given (and are needed without training)");
}

// _embedding_bag and embedding_bag: the kernels trust that offsets start at 0, never decrease and stay within
// indices, that every index addresses a row of weight, and that per_sample_weights has one weight per index.
void embeddingBag(const Args& a) {
  const at::Tensor weight = a.tensor("weight"), indices = a.tensor("indices"), offsets = a.tensor("offsets");
  if (!weight.defined() || !indices.defined() || !offsets.defined()) return;
  if (weight.dim() != 2) a.fail("weight must be 2-D");
  if (indices.dim() != 1 || offsets.dim() != 1) a.fail("indices and offsets must be 1-D");
  a.indicesWithin("indices", 0, weight.size(0), "weight's rows");
  const std::vector<int64_t> off = integerValues(a, offsets, "offsets");
  const int64_t n = indices.numel();
  if (!off.empty() && off[0] != 0) a.fail("offsets[0] is " + std::to_string(off[0]) + ", not 0");
  for (size_t k = 0; k < off.size(); ++k) {
    if (off[k] < 0 || off[k] > n)
      a.fail("offsets holds " + std::to_string(off[k]) + ", outside indices [0, " + std::to_string(n) + "]");
    if (k > 0 && off[k] < off[k - 1]) a.fail("offsets decrease at " + std::to_string(k));
  }
  const c10::IValue* last = a.get("include_last_offset");
  if (last && last->isBool() && last->toBool() && off.empty()) a.fail("include_last_offset needs at least one offset");
  a.numelIs("per_sample_weights", n, "one per index");
}

// linalg_ldl_solve: LAPACK's sytrs follows the pivots as row numbers without a check. Each pivot is a row in
// [1, n], or a 2x2 block: two equal negative pivots -p with p in [1, n].
void ldlPivots(const Args& a) {
  const at::Tensor ld = a.tensor("LD"), pivots = a.tensor("pivots"), b = a.tensor("B");
  if (!ld.defined() || !pivots.defined()) return;
  if (ld.dim() < 2 || ld.size(-1) != ld.size(-2)) a.fail("LD must be a batch of square matrices");
  if (pivots.sizes() != ld.sizes().slice(0, ld.dim() - 1))
    a.fail("pivots is " + c10::str(pivots.sizes()) + ", not LD's batch and rows " + c10::str(ld.sizes().slice(0, ld.dim() - 1)));
  if (b.defined() && (b.dim() < 2 || b.size(-2) != ld.size(-1))) a.fail("B's rows are not LD's");
  const int64_t n = ld.size(-1);
  const std::vector<int64_t> p = integerValues(a, pivots, "pivots");
  for (size_t start = 0; start < p.size(); start += static_cast<size_t>(n)) {
    for (int64_t k = 0; k < n; ++k) {
      const int64_t v = p[start + static_cast<size_t>(k)];
      if (v > 0 && v <= n) continue;
      if (v < 0 && v >= -n && k + 1 < n && p[start + static_cast<size_t>(k) + 1] == v) { ++k; continue; }
      a.fail("pivots holds " + std::to_string(v) + " at " + std::to_string(k) + ": not a row in [1, " +
             std::to_string(n) + "] nor a 2x2 block of two equal negative rows");
    }
  }
}

// ctc_loss: the kernel reads log_probs at each target class and walks each sequence by its lengths.
void ctcLoss(const Args& a) {
  const at::Tensor logProbs = a.tensor("log_probs"), targets = a.tensor("targets");
  if (!logProbs.defined() || !targets.defined()) return;
  if (logProbs.dim() != 3 && logProbs.dim() != 2) a.fail("log_probs must be (T, N, C) or (T, C)");
  const bool batched = logProbs.dim() == 3;
  const int64_t t = logProbs.size(0), n = batched ? logProbs.size(1) : 1, c = logProbs.size(-1);
  auto lengths = [&](const char* name) {
    const c10::IValue* v = a.get(name);
    if (v && v->isTensor()) return integerValues(a, v->toTensor(), name);
    if (v && v->isIntList()) return v->toIntVector();
    return std::vector<int64_t>{};
  };
  const std::vector<int64_t> inLen = lengths("input_lengths"), tgLen = lengths("target_lengths");
  if (static_cast<int64_t>(inLen.size()) != n || static_cast<int64_t>(tgLen.size()) != n)
    a.fail("input_lengths and target_lengths need one length per sequence (" + std::to_string(n) + ")");
  const int64_t blank = a.integer("blank", 0);
  if (blank < 0 || blank >= c) a.fail("blank is " + std::to_string(blank) + ", outside the classes [0, " + std::to_string(c) + ")");
  const std::vector<int64_t> tg = integerValues(a, targets, "targets");
  const bool padded = batched ? targets.dim() == 2 : false;
  if (batched && padded && targets.size(0) != n) a.fail("targets' rows are not the sequences");
  if (targets.dim() > (batched ? 2 : 1)) a.fail("targets has too many dims");
  int64_t used = 0;
  for (int64_t b = 0; b < n; ++b) {
    if (inLen[b] < 0 || inLen[b] > t)
      a.fail("input_lengths holds " + std::to_string(inLen[b]) + ", outside [0, " + std::to_string(t) + "]");
    const int64_t row = padded ? targets.size(1) : static_cast<int64_t>(tg.size()) - used;
    if (tgLen[b] < 0 || tgLen[b] > row)
      a.fail("target_lengths holds " + std::to_string(tgLen[b]) + ", more than targets has (" + std::to_string(row) + ")");
    const int64_t first = padded ? b * targets.size(1) : used;
    for (int64_t k = 0; k < tgLen[b]; ++k) {
      const int64_t v = tg[static_cast<size_t>(first + k)];
      if (v < 0 || v >= c) a.fail("targets holds " + std::to_string(v) + ", outside the classes [0, " + std::to_string(c) + ")");
    }
    if (!padded) used += tgLen[b];
  }
}

// _fft_c2r: pocketfft reads last_dim_size / 2 + 1 values along the last transformed dim.
void fftDims(const Args& a, bool c2r) {
  const at::Tensor self = a.tensor("self");
  if (!self.defined()) return;
  const std::vector<int64_t> dims = a.ints("dim");
  std::vector<bool> seen(static_cast<size_t>(self.dim()), false);
  for (int64_t d : dims) {
    if (d < -self.dim() || d >= self.dim() || self.dim() == 0) a.fail("dim holds " + std::to_string(d) + ", outside self's dims");
    const int64_t w = d < 0 ? d + self.dim() : d;
    if (seen[static_cast<size_t>(w)]) a.fail("dim names a dim twice");
    seen[static_cast<size_t>(w)] = true;
  }
  if (!(c2r ? at::isComplexType(self.scalar_type()) : true))
    a.fail("self must be complex");
  const int64_t norm = a.integer("normalization", 0);
  if (norm < 0 || norm > 2) a.fail("normalization is " + std::to_string(norm) + ", not 0, 1 or 2");
  if (!c2r || dims.empty()) return;
  const int64_t last = a.integer("last_dim_size", 0);
  const int64_t d = dims.back() < 0 ? dims.back() + self.dim() : dims.back();
  if (last < 1 || last / 2 + 1 > self.size(d))
    a.fail("last_dim_size " + std::to_string(last) + " needs " + std::to_string(last / 2 + 1) +
           " values along dim " + std::to_string(d) + ", which has " + std::to_string(self.size(d)));
}

// _cdist_backward(grad, x1, x2, p, cdist): grad and cdist are the forward's [..., r1, r2] result for x1 [..., r1, m]
// and x2 [..., r2, m]; the kernel walks them by x1's and x2's sizes.
void cdistBackward(const Args& a) {
  const at::Tensor x1 = a.tensor("x1"), x2 = a.tensor("x2");
  if (!x1.defined() || !x2.defined()) return;
  if (x1.dim() < 2 || x1.dim() != x2.dim()) a.fail("x1 and x2 must have the same number of dims, at least 2");
  if (x1.size(-1) != x2.size(-1)) a.fail("x1 and x2 differ in their last dim");
  if (x1.sizes().slice(0, x1.dim() - 2) != x2.sizes().slice(0, x2.dim() - 2)) a.fail("x1 and x2 differ in batch dims");
  std::vector<int64_t> result = x1.sizes().slice(0, x1.dim() - 1).vec();
  result.push_back(x2.size(-2));
  for (const char* name : {"grad", "cdist"}) {
    const at::Tensor t = a.tensor(name);
    if (t.defined() && t.sizes() != c10::IntArrayRef(result))
      a.fail(std::string(name) + " is " + c10::str(t.sizes()) + ", not the distances' " + c10::str(c10::IntArrayRef(result)));
  }
}

// _pdist_backward(grad, self, p, pdist): grad and pdist hold n (n - 1) / 2 distances of self's n rows.
void pdistBackward(const Args& a) {
  const at::Tensor self = a.tensor("self");
  if (!self.defined()) return;
  if (self.dim() != 2) a.fail("self must be 2-D");
  const int64_t n = self.size(0);
  for (const char* name : {"grad", "pdist"}) {
    const at::Tensor t = a.tensor(name);
    if (t.defined() && (t.dim() != 1 || t.numel() != n * (n - 1) / 2))
      a.fail(std::string(name) + " is " + c10::str(t.sizes()) + ", not the " + std::to_string(n * (n - 1) / 2) +
             " distances of self's rows");
  }
}

// grid_sampler_2d/3d_backward: grad_output is read as the forward's [N, C, (D,) H, W] result for input
// [N, C, ...] and grid [N, (D,) H, W, dims]; the modes select kernels by switch.
void gridSamplerBackward(const Args& a, int dims) {
  const at::Tensor input = a.tensor("input"), grid = a.tensor("grid"), grad = a.tensor("grad_output");
  if (!input.defined() || !grid.defined() || !grad.defined()) return;
  if (input.dim() != dims + 2 || grid.dim() != dims + 2 || grid.size(-1) != dims)
    a.fail("input and grid do not describe a " + std::to_string(dims) + "-D grid sample");
  if (grid.size(0) != input.size(0)) a.fail("grid and input differ in batch");
  std::vector<int64_t> out = {input.size(0), input.size(1)};
  for (int d = 1; d <= dims; ++d) out.push_back(grid.size(d));
  if (grad.sizes() != c10::IntArrayRef(out))
    a.fail("grad_output is " + c10::str(grad.sizes()) + ", not the forward's " + c10::str(c10::IntArrayRef(out)));
  const int64_t interpolation = a.integer("interpolation_mode", 0), padding = a.integer("padding_mode", 0);
  if (interpolation < 0 || interpolation > (dims == 2 ? 2 : 1)) a.fail("interpolation_mode is out of range");
  if (padding < 0 || padding > 2) a.fail("padding_mode is out of range");
}

// _masked_softmax_backward(grad_output, output, mask, dim): the kernel walks all three by grad_output's sizes.
void maskedSoftmaxBackward(const Args& a) {
  a.sameSizes("output", "grad_output");
  a.sameSizes("mask", "grad_output");
}

using Contract = std::function<void(const Args&)>;

const std::unordered_map<std::string, Contract>& contracts() {
  static const std::unordered_map<std::string, Contract> table = [] {
    std::unordered_map<std::string, Contract> t;
    t["aten::max_pool2d_with_indices_backward"] = [](const Args& a) { poolIndices(a, 2); };
    t["aten::max_pool3d_with_indices_backward"] = [](const Args& a) { poolIndices(a, 3); };
    t["aten::adaptive_max_pool2d_backward"] = [](const Args& a) { poolIndices(a, 2); };
    t["aten::adaptive_max_pool3d_backward"] = [](const Args& a) { poolIndices(a, 3); };
    t["aten::searchsorted"] = [](const Args& a) {
      const at::Tensor seq = a.tensor("sorted_sequence");
      if (!seq.defined() || !a.tensor("sorter").defined()) return;
      a.sameSizes("sorter", "sorted_sequence");
      a.indicesWithin("sorter", 0, seq.dim() > 0 ? seq.size(-1) : 1, "the sorted dim");
    };
    const Contract embeddingBackward = [](const Args& a) {
      a.indicesWithin("indices", 0, a.integer("num_weights", 0), "num_weights");
    };
    t["aten::embedding_dense_backward"] = embeddingBackward;
    t["aten::embedding_backward"] = embeddingBackward;
    t["aten::native_layer_norm_backward"] = [](const Args& a) {
      const at::Tensor input = a.tensor("input");
      const std::vector<int64_t> normalized = a.ints("normalized_shape");
      if (!input.defined()) return;
      const int64_t axis = input.dim() - static_cast<int64_t>(normalized.size());
      if (axis < 0) a.fail("normalized_shape has more dims than input");
      for (size_t k = 0; k < normalized.size(); ++k)
        if (input.size(axis + static_cast<int64_t>(k)) != normalized[k])
          a.fail("input " + c10::str(input.sizes()) + " does not end in normalized_shape " + c10::str(normalized));
      const int64_t n = trailingNumel(input, static_cast<int>(normalized.size()));
      const int64_t m = n > 0 ? input.numel() / n : 0;
      a.sameSizes("grad_out", "input");
      a.numelIs("mean", m, "one per normalised row");
      a.numelIs("rstd", m, "one per normalised row");
      a.numelIs("weight", n, "one per normalised element");
      a.numelIs("bias", n, "one per normalised element");
    };
    t["aten::native_batch_norm_backward"] = [](const Args& a) {
      const at::Tensor input = a.tensor("input");
      if (!input.defined()) return;
      if (input.dim() < 2) a.fail("input has fewer than 2 dims");
      const int64_t c = input.size(1);
      a.sameSizes("grad_out", "input");
      for (const char* name : {"weight", "running_mean", "running_var", "save_mean", "save_invstd"})
        a.numelIs(name, c, "one per channel");
    };
    t["aten::native_group_norm_backward"] = [](const Args& a) {
      const at::Tensor input = a.tensor("input");
      if (!input.defined()) return;
      const int64_t n = a.integer("N", -1), c = a.integer("C", -1), hxw = a.integer("HxW", -1),
                    group = a.integer("group", -1);
      if (n < 0 || c < 0 || hxw < 0 || group <= 0 || c % group != 0) a.fail("N, C, HxW and group do not describe groups");
      int64_t whole = 0;
      if (__builtin_mul_overflow(n, c, &whole) || __builtin_mul_overflow(whole, hxw, &whole) || whole != input.numel())
        a.fail("N * C * HxW is not the input's " + std::to_string(input.numel()) + " elements");
      a.sameSizes("grad_out", "input");
      a.numelIs("mean", n * group, "one per sample and group");
      a.numelIs("rstd", n * group, "one per sample and group");
      a.numelIs("weight", c, "one per channel");
    };
    t["aten::_index_put_impl_"] = [](const Args& a) {
      const c10::IValue* unsafe = a.get("unsafe");
      if (unsafe && unsafe->isBool() && unsafe->toBool()) a.fail("unsafe=True skips the index bounds check");
    };
    t["aten::_index_put_impl"] = t["aten::_index_put_impl_"];
    // _unsafe_masked_index(self, mask, indices, fill) and _unsafe_masked_index_put_accumulate(self, mask, indices,
    // values): where mask holds, each index must address its dim of self (the kernels skip the bounds check).
    const Contract maskedIndices = [](const Args& a) {
      const at::Tensor self = a.tensor("self"), mask = a.tensor("mask");
      const c10::IValue* list = a.get("indices");
      if (!self.defined() || !mask.defined() || !list || !list->isList()) return;
      const auto items = list->toListRef();
      if (static_cast<int64_t>(items.size()) > self.dim()) a.fail("more indices than self has dims");
      for (size_t d = 0; d < items.size(); ++d) {
        if (!items[d].isTensor()) continue;
        const at::Tensor idx = items[d].toTensor();
        if (!at::isIntegralType(idx.scalar_type(), /*includeBool=*/false)) a.fail("indices must hold integers");
        const int64_t size = self.size(static_cast<int64_t>(d));
        const at::Tensor outside = at::logical_and(at::logical_or(idx.lt(-size), idx.ge(size)), mask);
        if (outside.any().item<bool>())
          a.fail("an index of dim " + std::to_string(d) + " where mask holds is outside [-" + std::to_string(size) +
                 ", " + std::to_string(size) + ")");
      }
    };
    t["aten::_unsafe_masked_index"] = maskedIndices;
    t["aten::_unsafe_masked_index_put_accumulate"] = maskedIndices;
    t["aten::_reshape_alias"] = [](const Args& a) { viewInsideStorage(a, "size", "stride", nullptr); };
    t["aten::as_strided"] = [](const Args& a) { viewInsideStorage(a, "size", "stride", "storage_offset"); };
    t["aten::as_strided_copy"] = t["aten::as_strided"];
    t["aten::as_strided_"] = t["aten::as_strided"];
    t["aten::as_strided_scatter"] = [](const Args& a) {
      viewInsideStorage(a, "size", "stride", "storage_offset");
      const at::Tensor src = a.tensor("src");
      if (src.defined() && src.sizes() != c10::IntArrayRef(a.ints("size")))
        a.fail("src is " + c10::str(src.sizes()) + ", not the view's size");
    };
    for (const char* op : {"aten::repeat_interleave"}) t[op] = repeatInterleave;
    for (const char* op : {"aten::native_batch_norm", "aten::batch_norm", "aten::_batch_norm_impl_index"})
      t[op] = perChannelStats;
    for (const char* op : {"aten::_embedding_bag", "aten::embedding_bag", "aten::_embedding_bag_forward_only"})
      t[op] = embeddingBag;
    // rrelu_with_noise(self, noise, ..., training): in training the kernel writes one noise value per element of
    // self through noise's data pointer.
    for (const char* op : {"aten::rrelu_with_noise", "aten::rrelu_with_noise_"})
      t[op] = [](const Args& a) {
        const at::Tensor self = a.tensor("self"), noise = a.tensor("noise");
        if (!self.defined() || !noise.defined()) return;
        a.sameSizes("noise", "self");
        if (!noise.is_contiguous()) a.fail("noise must be contiguous");
      };
    // resize_ and friends: growing past the storage would hand the grown part over as uninitialised memory.
    for (const char* op : {"aten::resize_", "aten::resize", "aten::resize_as_", "aten::resize_as"})
      t[op] = [](const Args& a) {
        const at::Tensor self = a.tensor("self");
        if (!self.defined()) return;
        std::vector<int64_t> size = a.ints("size");
        if (const at::Tensor like = a.tensor("the_template"); like.defined()) size = like.sizes().vec();
        int64_t numel = 1;
        for (int64_t d : size)
          if (d < 0 || __builtin_mul_overflow(numel, d, &numel)) a.fail("size holds a negative or overflowing size");
        int64_t needed = 0;
        if (numel > 0 && (__builtin_add_overflow(numel, self.storage_offset(), &needed) ||
                          __builtin_mul_overflow(needed, static_cast<int64_t>(self.element_size()), &needed) ||
                          needed > static_cast<int64_t>(self.storage().nbytes())))
          a.fail("the new size needs more than self's storage holds; the runner does not allocate the grown part "
                 "(it would be uninitialised memory)");
      };
    // _log_softmax_backward_data checks nothing about output (its kernel walks it by grad_output's sizes and
    // dtype); _softmax_backward_data checks the sizes only.
    for (const char* op : {"aten::_log_softmax_backward_data", "aten::_softmax_backward_data"})
      t[op] = [](const Args& a) {
        a.sameSizes("output", "grad_output");
        const at::Tensor out = a.tensor("output"), grad = a.tensor("grad_output");
        if (out.defined() && grad.defined() && out.scalar_type() != grad.scalar_type())
          a.fail("output is " + std::string(c10::toString(out.scalar_type())) + " but grad_output is " +
                 c10::toString(grad.scalar_type()));
      };
    // The adaptive average pool backwards walk grad_output by self's leading (batch, channel) dims.
    const auto adaptiveBackward = [](int dims) {
      return [dims](const Args& a) {
        const at::Tensor self = a.tensor("self"), grad = a.tensor("grad_output");
        if (!self.defined() || !grad.defined()) return;
        if (self.dim() < dims || grad.dim() != self.dim() ||
            grad.sizes().slice(0, grad.dim() - dims) != self.sizes().slice(0, self.dim() - dims))
          a.fail("grad_output is " + c10::str(grad.sizes()) + ", which does not pool self " + c10::str(self.sizes()));
      };
    };
    t["aten::_adaptive_avg_pool2d_backward"] = adaptiveBackward(2);
    t["aten::_adaptive_avg_pool3d_backward"] = adaptiveBackward(3);
    t["aten::adaptive_avg_pool3d_backward"] = adaptiveBackward(3);
    // binary_cross_entropy(_backward): the CPU kernels walk target and weight by self's elements.
    for (const char* op : {"aten::binary_cross_entropy", "aten::binary_cross_entropy_backward"})
      t[op] = [](const Args& a) {
        const at::Tensor self = a.tensor("self");
        if (!self.defined()) return;
        a.sameSizes("target", "self");
        a.numelIs("weight", self.numel(), "one per element of self");
        const at::Tensor grad = a.tensor("grad_output");
        if (grad.defined() && grad.numel() != 1 && grad.sizes() != self.sizes())
          a.fail("grad_output is " + c10::str(grad.sizes()) + ", neither one value nor self's " + c10::str(self.sizes()));
      };
    // _local_scalar_dense (item) reads the first element without looking at how many there are.
    t["aten::_local_scalar_dense"] = [](const Args& a) { a.numelIs("self", 1, "a scalar"); };
    // reflection / replication padding: the kernels read 2 x dims pads, and the backwards walk grad_output as self
    // padded by them.
    for (int dims = 1; dims <= 3; ++dims)
      for (const char* kind : {"reflection", "replication"})
        for (const char* suffix : {"", "_backward"}) {
          const std::string op = std::string("aten::") + kind + "_pad" + std::to_string(dims) + "d" + suffix;
          t[op] = [dims](const Args& a) {
            const std::vector<int64_t> pad = a.ints("padding");
            if (static_cast<int>(pad.size()) != 2 * dims)
              a.fail("padding has " + std::to_string(pad.size()) + " values, not " + std::to_string(2 * dims));
            const at::Tensor self = a.tensor("self"), grad = a.tensor("grad_output");
            if (!self.defined() || !grad.defined()) return;
            if (self.dim() < dims || grad.dim() != self.dim()) a.fail("grad_output does not pad self");
            for (int d = 0; d < self.dim(); ++d) {
              int64_t want = self.size(d);
              const int fromEnd = static_cast<int>(self.dim()) - 1 - d;  // pads come last dim first
              if (fromEnd < dims && (__builtin_add_overflow(want, pad[2 * fromEnd], &want) ||
                                     __builtin_add_overflow(want, pad[2 * fromEnd + 1], &want)))
                a.fail("padding overflows");
              if (grad.size(d) != want)
                a.fail("grad_output is " + c10::str(grad.sizes()) + ", not self " + c10::str(self.sizes()) +
                       " padded by " + c10::str(c10::IntArrayRef(pad)));
            }
          };
        }
    // linalg_matrix_exp picks its Pade degree from the norm: with NaN or infinity none is picked and the result
    // depended on memory outside the input (the op campaign's two runs differed).
    t["aten::linalg_matrix_exp"] = [](const Args& a) {
      const at::Tensor self = a.tensor("self");
      if (self.defined() && self.numel() > 0 && (self.is_floating_point() || self.is_complex()) &&
          !at::isfinite(self).all().item<bool>())
        a.fail("self holds NaN or infinity");
    };
    t["aten::linalg_ldl_solve"] = ldlPivots;
    t["aten::ctc_loss"] = ctcLoss;
    t["aten::_fft_c2r"] = [](const Args& a) { fftDims(a, true); };
    t["aten::_fft_r2c"] = [](const Args& a) { fftDims(a, false); };
    t["aten::_fft_c2c"] = [](const Args& a) { fftDims(a, false); };
    t["aten::_cdist_backward"] = cdistBackward;
    t["aten::_pdist_backward"] = pdistBackward;
    t["aten::grid_sampler_2d_backward"] = [](const Args& a) { gridSamplerBackward(a, 2); };
    t["aten::grid_sampler_3d_backward"] = [](const Args& a) { gridSamplerBackward(a, 3); };
    t["aten::_masked_softmax_backward"] = maskedSoftmaxBackward;
    return t;
  }();
  return table;
}

}  // namespace

std::vector<bool> writtenArguments(const c10::FunctionSchema& schema) {
  std::vector<bool> out;
  for (const auto& a : schema.arguments()) out.push_back(a.alias_info() && a.alias_info()->isWrite());
  if (const ops::HiddenWrite* hidden = ops::hiddenWriteOf(schema.name()))
    for (int k : hidden->arguments)
      if (k >= 0 && k < static_cast<int>(out.size())) out[k] = true;
  return out;
}

bool writesAnArgument(const c10::FunctionSchema& schema) {
  for (bool w : writtenArguments(schema))
    if (w) return true;
  return false;
}

void clearUninitialised(const c10::FunctionSchema& schema, std::vector<c10::IValue>& stack) {
  static const std::unordered_set<std::string> kUninitialised = {
      "aten::empty", "aten::empty_like", "aten::new_empty", "aten::empty_strided", "aten::new_empty_strided"};
  if (!kUninitialised.count(schema.name())) return;
  for (c10::IValue& v : stack)
    if (v.isTensor() && v.toTensor().defined()) v.toTensor().zero_();
}

namespace {
std::atomic<bool> g_contractsOff{false};
}  // namespace

void disableOpContractsForBaseline() { g_contractsOff = true; }

namespace {

// Every op that writes an argument: the written tensor has no element that another element shares (an expanded or
// overlapping view), and an out= argument (keyword-only, written) shares no storage with the op's other tensors (a
// kernel resizes out while it still reads its inputs: `_fft_r2c.out(x, ..., out=x)` read freed memory).
void writtenArgumentsApart(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& stack) {
  const auto& args = schema.arguments();
  const std::vector<bool> written = writtenArguments(schema);
  auto storages = [](const c10::IValue& v, std::vector<const void*>& out) {
    if (v.isTensor() && v.toTensor().defined() && v.toTensor().has_storage())
      out.push_back(v.toTensor().storage().unsafeGetStorageImpl());
    if (v.isList())
      for (const c10::IValue& item : v.toListRef())
        if (item.isTensor() && item.toTensor().defined() && item.toTensor().has_storage())
          out.push_back(item.toTensor().storage().unsafeGetStorageImpl());
  };
  for (size_t k = 0; k < args.size() && k < stack.size(); ++k) {
    // Enum arguments travel as integers (a plan may write `dtype = -7`): each must name one of its enum's values,
    // which kernels use as table indices; pinned memory is refused (core/ops/op_table.cpp).
    c10::TypePtr real = args[k].real_type();
    if (real->kind() == c10::TypeKind::OptionalType) real = real->castRaw<c10::OptionalType>()->getElementType();
    if (stack[k].isInt()) {
      const int64_t v = stack[k].toInt();
      int64_t count = -1;
      if (real->kind() == c10::TypeKind::ScalarTypeType) count = static_cast<int64_t>(at::ScalarType::NumOptions);
      if (real->kind() == c10::TypeKind::LayoutType) count = static_cast<int64_t>(at::Layout::NumOptions);
      if (real->kind() == c10::TypeKind::MemoryFormatType) count = static_cast<int64_t>(at::MemoryFormat::NumOptions);
      if (count >= 0 && (v < 0 || v >= count))
        throw std::runtime_error(schema.name() + ": " + args[k].name() + " is " + std::to_string(v) +
                                 ", not one of its values; the runner refuses it");
    }
    // A loss's reduction (none 0, mean 1, sum 2) selects code by switch and sizes its gradient by it.
    if (args[k].name() == "reduction" && stack[k].isInt() && (stack[k].toInt() < 0 || stack[k].toInt() > 2))
      throw std::runtime_error(schema.name() + ": reduction is " + std::to_string(stack[k].toInt()) +
                               ", not 0 (none), 1 (mean) or 2 (sum); the runner refuses it");
    if (args[k].name() == "pin_memory" && stack[k].isBool() && stack[k].toBool())
      throw std::runtime_error(schema.name() + ": pin_memory=True asks for page-locked memory; the runner refuses it");
    if (!written[k] || !stack[k].isTensor() || !stack[k].toTensor().defined()) continue;
    const at::Tensor w = stack[k].toTensor();
    if (at::has_internal_overlap(w) == at::MemOverlap::Yes)
      throw std::runtime_error(schema.name() + ": " + args[k].name() + " is written but its elements overlap (an "
                               "expanded view); the runner refuses the write");
    if (!args[k].kwarg_only() || !w.has_storage()) continue;
    std::vector<const void*> others;
    for (size_t j = 0; j < args.size() && j < stack.size(); ++j)
      if (j != k) storages(stack[j], others);
    if (std::find(others.begin(), others.end(), w.storage().unsafeGetStorageImpl()) != others.end())
      throw std::runtime_error(schema.name() + ": " + args[k].name() + " shares its memory with another argument; "
                               "the runner refuses an out= that aliases the op's inputs (the kernel may resize it "
                               "while it reads them)");
  }
}

}  // namespace

// The upsample kernels step through the input by 1 / scale when a scale is given (scales_d, scales_h, scales_w, or
// scales for 1-D): a scale smaller than output / input walks past the input's end.
static void upsampleScales(const Args& a) {
  std::vector<double> scales;
  bool any = false;
  for (const char* name : {"scales_d", "scales_h", "scales_w", "scales"}) {
    const c10::IValue* v = a.get(name);
    if (!v) continue;
    scales.push_back(v->isDouble() ? v->toDouble() : 0.0);
    any = any || v->isDouble();
  }
  if (!any) return;
  const std::vector<int64_t> out = a.ints("output_size");
  if (out.size() != scales.size()) return;  // the vec overloads compute their scales from the sizes themselves
  std::vector<int64_t> in = a.ints("input_size");
  if (in.empty()) {
    const at::Tensor self = a.tensor("self").defined() ? a.tensor("self") : a.tensor("input");
    if (!self.defined()) return;
    in = self.sizes().vec();
  }
  if (in.size() < scales.size()) a.fail("the input has fewer dims than the scales");
  for (size_t k = 0; k < scales.size(); ++k) {
    const double scale = scales[k];
    if (scale == 0.0) continue;  // not given: the kernel uses output / input itself
    const int64_t i = in[in.size() - scales.size() + k], o = out[k];
    if (!(scale > 0.0) || scale * static_cast<double>(i) < static_cast<double>(o))
      a.fail("a scale of " + std::to_string(scale) + " maps output size " + std::to_string(o) +
             " past the input's " + std::to_string(i));
  }
}

void checkOpContract(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& stack) {
  if (g_contractsOff) return;
  writtenArgumentsApart(schema, stack);
  if (schema.name().rfind("aten::upsample_", 0) == 0 || schema.name().rfind("aten::_upsample_", 0) == 0)
    upsampleScales(Args(schema, stack));
  const auto& table = contracts();
  auto it = table.find(schema.name());
  if (it != table.end()) it->second(Args(schema, stack));
}

}  // namespace ss::runner
