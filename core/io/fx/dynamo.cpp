// Dynamo's torch-level calls read as the aten ops they run. See dynamo.h.
#include "core/io/fx/dynamo.h"

#include <algorithm>
#include <functional>
#include <initializer_list>

namespace ss::fx {
namespace {

// A Python signature's parameters bound to a call's arguments, as Python binds them: positionals in order, then
// keywords by name. Unbound parameters are absent (their default applies).
class Bound {
 public:
  static std::optional<Bound> bind(std::initializer_list<std::string_view> params, const std::vector<Arg>& args,
                                   const Kwargs& kwargs) {
    Bound b;
    b.names_.assign(params.begin(), params.end());
    b.values_.resize(b.names_.size());
    if (args.size() > b.names_.size()) return std::nullopt;
    for (size_t i = 0; i < args.size(); ++i) b.values_[i] = args[i];
    for (const auto& [k, v] : kwargs) {
      auto it = std::find(b.names_.begin(), b.names_.end(), k);
      if (it == b.names_.end()) return std::nullopt;  // a keyword this signature does not have
      auto& slot = b.values_[it - b.names_.begin()];
      if (slot) return std::nullopt;  // given twice
      slot = v;
    }
    return b;
  }
  bool has(std::string_view p) const { return get(p) != nullptr; }
  // The argument, or the default when the call leaves it out.
  Arg operator()(std::string_view p, Arg fallback = Arg::none()) const {
    const Arg* a = get(p);
    return a ? *a : fallback;
  }
  // Whether the parameter is absent or None (a default that changes nothing).
  bool isNone(std::string_view p) const {
    const Arg* a = get(p);
    return !a || a->kind == Arg::Kind::None;
  }

 private:
  const Arg* get(std::string_view p) const {
    for (size_t i = 0; i < names_.size(); ++i)
      if (names_[i] == p) return values_[i] ? &*values_[i] : nullptr;
    return nullptr;
  }
  std::vector<std::string_view> names_;
  std::vector<std::optional<Arg>> values_;
};

using Translate = std::function<std::optional<AtenCall>(const std::vector<Arg>&, const Kwargs&)>;

// Sizes given as varargs (`x.view(2, s, 4)`) or as one list or tuple (`x.view([2, s, 4])`): one list.
Arg sizeList(const std::vector<Arg>& args) {
  if (args.size() == 1 && args[0].isList()) return args[0];
  return Arg::list(args);
}

std::optional<AtenCall> linear(const std::vector<Arg>& args, const Kwargs& kw) {
  auto b = Bound::bind({"input", "weight", "bias"}, args, kw);
  if (!b) return std::nullopt;
  return AtenCall{"aten.linear.default", {(*b)("input"), (*b)("weight"), (*b)("bias")}, {}};
}

// F.embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False)
// -> aten.embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False). max_norm renormalises
// the weight rows in place first (embedding_renorm_): no single aten op says that.
std::optional<AtenCall> embedding(const std::vector<Arg>& args, const Kwargs& kw) {
  auto b = Bound::bind({"input", "weight", "padding_idx", "max_norm", "norm_type", "scale_grad_by_freq", "sparse"}, args, kw);
  if (!b || !b->isNone("max_norm")) return std::nullopt;
  Arg pad = b->isNone("padding_idx") ? Arg::integer(-1) : (*b)("padding_idx");
  return AtenCall{"aten.embedding.default",
                  {(*b)("weight"), (*b)("input"), pad, (*b)("scale_grad_by_freq", Arg::boolean(false)),
                   (*b)("sparse", Arg::boolean(false))},
                  {}};
}

// F.scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
// enable_gqa=False): the aten op has the same parameters (scale and enable_gqa keyword-only).
std::optional<AtenCall> sdpa(const std::vector<Arg>& args, const Kwargs& kw) {
  auto b = Bound::bind({"query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale", "enable_gqa"}, args, kw);
  if (!b) return std::nullopt;
  AtenCall c{"aten.scaled_dot_product_attention.default",
             {(*b)("query"), (*b)("key"), (*b)("value"), (*b)("attn_mask"), (*b)("dropout_p", Arg::real(0.0)),
              (*b)("is_causal", Arg::boolean(false))},
             {}};
  if (!b->isNone("scale")) c.kwargs.emplace_back("scale", (*b)("scale"));
  if (b->has("enable_gqa")) c.kwargs.emplace_back("enable_gqa", (*b)("enable_gqa"));
  return c;
}

// F.cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction='mean',
// label_smoothing=0.0) -> aten.cross_entropy_loss(self, target, weight, reduction (0 none, 1 mean, 2 sum),
// ignore_index, label_smoothing). The legacy size_average / reduce flags are not read (they override reduction).
std::optional<AtenCall> crossEntropy(const std::vector<Arg>& args, const Kwargs& kw) {
  auto b = Bound::bind({"input", "target", "weight", "size_average", "ignore_index", "reduce", "reduction",
                        "label_smoothing"},
                       args, kw);
  if (!b || !b->isNone("size_average") || !b->isNone("reduce")) return std::nullopt;
  const Arg r = (*b)("reduction", Arg::string("mean"));
  if (r.kind != Arg::Kind::String) return std::nullopt;
  int64_t reduction = r.s == "none" ? 0 : r.s == "mean" ? 1 : r.s == "sum" ? 2 : -1;
  if (reduction < 0) return std::nullopt;
  return AtenCall{"aten.cross_entropy_loss.default",
                  {(*b)("input"), (*b)("target"), (*b)("weight"), Arg::integer(reduction),
                   (*b)("ignore_index", Arg::integer(-100)), (*b)("label_smoothing", Arg::real(0.0))},
                  {}};
}

// A function whose parameters are the aten op's, in its order; `defaults` are the trailing parameters' defaults.
Translate same(std::string op, std::initializer_list<std::string_view> params, std::vector<Arg> defaults = {}) {
  std::vector<std::string_view> ps(params);
  return [op = std::move(op), ps, defaults = std::move(defaults)](const std::vector<Arg>& args,
                                                                    const Kwargs& kw) -> std::optional<AtenCall> {
    if (args.size() > ps.size()) return std::nullopt;
    std::vector<Arg> out(args);
    for (size_t i = args.size(); i < ps.size(); ++i) {
      auto it = std::find_if(kw.begin(), kw.end(), [&](const auto& p) { return p.first == ps[i]; });
      if (it != kw.end()) out.push_back(it->second);
      else if (const size_t firstDefault = ps.size() - defaults.size(); i >= firstDefault)
        out.push_back(defaults[i - firstDefault]);
      else return std::nullopt;  // a required parameter left out
    }
    for (const auto& [k, v] : kw)
      if (std::find(ps.begin(), ps.end(), k) == ps.end()) return std::nullopt;
    return AtenCall{op, std::move(out), {}};
  };
}

// F.relu(input, inplace=False), F.silu(input, inplace=False): the aten op of one input; an in-place call is
// another op (relu_), not read.
Translate unaryNotInPlace(std::string op) {
  return [op = std::move(op)](const std::vector<Arg>& args, const Kwargs& kw) -> std::optional<AtenCall> {
    auto b = Bound::bind({"input", "inplace"}, args, kw);
    if (!b) return std::nullopt;
    const Arg inplace = (*b)("inplace", Arg::boolean(false));
    if (inplace.kind != Arg::Kind::Bool || inplace.b) return std::nullopt;
    return AtenCall{op, {(*b)("input")}, {}};
  };
}

std::optional<AtenCall> gelu(const std::vector<Arg>& args, const Kwargs& kw) {
  auto b = Bound::bind({"input", "approximate"}, args, kw);
  if (!b) return std::nullopt;
  AtenCall c{"aten.gelu.default", {(*b)("input")}, {}};
  if (b->has("approximate")) c.kwargs.emplace_back("approximate", (*b)("approximate"));
  return c;
}

// F.softmax(input, dim=None, _stacklevel=3, dtype=None) -> aten.softmax.int(self, dim, dtype=None). An implicit dim
// (None) is torch's legacy choice by rank: not read.
std::optional<AtenCall> softmax(const std::vector<Arg>& args, const Kwargs& kw) {
  auto b = Bound::bind({"input", "dim", "_stacklevel", "dtype"}, args, kw);
  if (!b || b->isNone("dim")) return std::nullopt;
  return AtenCall{"aten.softmax.int", {(*b)("input"), (*b)("dim"), (*b)("dtype")}, {}};
}

std::optional<AtenCall> layerNorm(const std::vector<Arg>& args, const Kwargs& kw) {
  auto b = Bound::bind({"input", "normalized_shape", "weight", "bias", "eps"}, args, kw);
  if (!b) return std::nullopt;
  return AtenCall{"aten.layer_norm.default",
                  {(*b)("input"), (*b)("normalized_shape"), (*b)("weight"), (*b)("bias"), (*b)("eps", Arg::real(1e-5))},
                  {}};
}

const std::vector<std::pair<std::string_view, Translate>>& functions() {
  static const std::vector<std::pair<std::string_view, Translate>> t = {
      {"torch._C._nn.linear", linear},
      {"torch.nn.functional.linear", linear},
      {"torch.nn.functional.embedding", embedding},
      {"torch._C._nn.scaled_dot_product_attention", sdpa},
      {"torch.nn.functional.scaled_dot_product_attention", sdpa},
      {"torch.nn.functional.cross_entropy", crossEntropy},
      {"torch.nn.functional.relu", unaryNotInPlace("aten.relu.default")},
      {"torch.relu", same("aten.relu.default", {"input"})},
      {"torch.nn.functional.silu", unaryNotInPlace("aten.silu.default")},
      {"torch.nn.functional.gelu", gelu},
      {"torch._C._nn.gelu", gelu},
      {"torch.nn.functional.softmax", softmax},
      {"torch.nn.functional.layer_norm", layerNorm},
      {"torch.matmul", same("aten.matmul.default", {"input", "other"})},
      {"torch.bmm", same("aten.bmm.default", {"input", "mat2"})},
      {"torch.cat", same("aten.cat.default", {"tensors", "dim"}, {Arg::integer(0)})},
      {"torch.transpose", same("aten.transpose.int", {"input", "dim0", "dim1"})},
      {"torch.tanh", same("aten.tanh.default", {"input"})},
      {"torch.exp", same("aten.exp.default", {"input"})},
      {"torch.rsqrt", same("aten.rsqrt.default", {"input"})},
  };
  return t;
}

// Tensor methods: the receiver is the aten op's `self`.
std::optional<AtenCall> method(std::string_view name, const Arg& self, const std::vector<Arg>& args, const Kwargs& kw) {
  auto with = [&](std::string op, std::vector<Arg> rest) {
    std::vector<Arg> all{self};
    all.insert(all.end(), rest.begin(), rest.end());
    return AtenCall{std::move(op), std::move(all), {}};
  };
  if (name == "view" || name == "reshape" || name == "expand" || name == "permute" || name == "repeat") {
    if (!kw.empty() || args.empty()) return std::nullopt;
    const char* op = name == "view"      ? "aten.view.default"
                     : name == "reshape" ? "aten.reshape.default"
                     : name == "expand"  ? "aten.expand.default"
                     : name == "permute" ? "aten.permute.default"
                                         : "aten.repeat.default";
    return with(op, {sizeList(args)});
  }
  if (name == "transpose") {
    auto b = Bound::bind({"dim0", "dim1"}, args, kw);
    if (!b || !b->has("dim0") || !b->has("dim1")) return std::nullopt;
    return with("aten.transpose.int", {(*b)("dim0"), (*b)("dim1")});
  }
  if (name == "unsqueeze" || name == "squeeze" || name == "size") {
    auto b = Bound::bind({"dim"}, args, kw);
    if (!b || !b->has("dim")) return std::nullopt;  // squeeze() / size() without a dim: other ops
    const char* op = name == "unsqueeze" ? "aten.unsqueeze.default" : name == "squeeze" ? "aten.squeeze.dim" : "aten.sym_size.int";
    return with(op, {(*b)("dim")});
  }
  if (name == "flatten") {
    auto b = Bound::bind({"start_dim", "end_dim"}, args, kw);
    if (!b) return std::nullopt;
    return with("aten.flatten.using_ints", {(*b)("start_dim", Arg::integer(0)), (*b)("end_dim", Arg::integer(-1))});
  }
  if (name == "contiguous") {
    if (!args.empty() || !kw.empty()) return std::nullopt;  // a memory_format other than the default
    return with("aten.contiguous.default", {});
  }
  if (name == "chunk") {
    auto b = Bound::bind({"chunks", "dim"}, args, kw);
    if (!b || !b->has("chunks")) return std::nullopt;
    return with("aten.chunk.default", {(*b)("chunks"), (*b)("dim", Arg::integer(0))});
  }
  if (name == "softmax") {
    auto b = Bound::bind({"dim", "dtype"}, args, kw);
    if (!b || !b->has("dim")) return std::nullopt;
    return with("aten.softmax.int", {(*b)("dim"), (*b)("dtype")});
  }
  return std::nullopt;
}

}  // namespace

std::optional<AtenCall> atenForTorchFunction(std::string_view callee, const std::vector<Arg>& args, const Kwargs& kwargs) {
  for (const auto& [name, translate] : functions())
    if (name == callee) return translate(args, kwargs);
  return std::nullopt;
}

std::optional<AtenCall> atenForTensorMethod(std::string_view name, const Arg& self, const std::vector<Arg>& args,
                                            const Kwargs& kwargs) {
  return method(name, self, args, kwargs);
}

std::string tensorMethodName(std::string_view m) { return "torch.Tensor." + std::string(m); }

}  // namespace ss::fx
