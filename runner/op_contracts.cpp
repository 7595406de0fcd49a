// Op contracts before dispatch (runner/op_contracts.h).
#include "runner/op_contracts.h"

#include <ATen/ATen.h>

#include <functional>
#include <stdexcept>
#include <unordered_map>

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
  const at::Tensor self = a.tensor("self");
  if (!self.defined()) return;
  if (self.dim() < dims) a.fail("self has fewer than " + std::to_string(dims) + " dims");
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
    return t;
  }();
  return table;
}

}  // namespace

std::vector<bool> writtenArguments(const c10::FunctionSchema& schema) {
  std::vector<bool> out;
  for (const auto& a : schema.arguments()) out.push_back(a.alias_info() && a.alias_info()->isWrite());
  return out;
}

bool writesAnArgument(const c10::FunctionSchema& schema) {
  for (bool w : writtenArguments(schema))
    if (w) return true;
  return false;
}

void checkOpContract(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& stack) {
  const auto& table = contracts();
  auto it = table.find(schema.name());
  if (it != table.end()) it->second(Args(schema, stack));
}

}  // namespace ss::runner
