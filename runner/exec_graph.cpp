// Executes a plan's graph node by node through the ATen dispatcher (boxed calls by schema name).
//
// Sections: op name resolution (incl. scaled-dot-product-attention across LibTorch versions), argument
// conversion to IValues (schema-typed, defaults filled), local shape rewriting (view/reshape/expand/factories),
// the node loop (redistributes on edges, getitem, progress, stop).
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/grad_mode.h>

#include <c10/util/Exception.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <sstream>

#include "core/model/layout.h"
#include "core/ops/op_safety.h"
#include "core/redistribute/replica.h"
#include "runner/op_contracts.h"
#include "runner/torch_internal.h"

namespace ss::runner {

std::string conciseMessage(const std::exception& e) {
  std::string msg;
  if (auto* ce = dynamic_cast<const c10::Error*>(&e)) msg = ce->what_without_backtrace();
  else msg = e.what();
  auto nl = msg.find('\n');
  if (nl != std::string::npos) msg = msg.substr(0, nl);
  return msg;
}

at::ScalarType computeType(DType planned, at::ScalarType floatType) {
  at::ScalarType t;
  switch (planned) {
    case DType::F32: t = at::kFloat; break;
    case DType::F16: t = at::kHalf; break;
    case DType::BF16: t = at::kBFloat16; break;
    case DType::F64: t = at::kDouble; break;
    case DType::I64: return at::kLong;
    case DType::I32: return at::kInt;
    case DType::I16: return at::kShort;
    case DType::I8: return at::kChar;
    case DType::U8: return at::kByte;
    case DType::Bool: return at::kBool;
    case DType::C64: return at::kComplexFloat;
    default: t = at::kFloat; break;
  }
  return floatType == at::ScalarType::Undefined ? t : floatType;
}

namespace {

// ---- op resolution ----

struct ResolvedOp {
  c10::OperatorHandle handle;
  bool sdpaPrivate = false;  // 1.13's _scaled_dot_product_attention stands in for the public op
  bool sdpaPublicForPrivate = false;  // the other way round (graph from 1.13, LibTorch 2.x)
};

c10::optional<c10::OperatorHandle> findOp(const std::string& name, const std::string& overload) {
  return c10::Dispatcher::singleton().findSchema({name, overload});
}

ResolvedOp resolveOp(const Node& node) {
  // "aten.mm.default" -> ("aten::mm", ""); "prims.convert_element_type.default" -> aten::_to_copy.
  std::string op = node.op;
  std::vector<std::string> parts;
  std::stringstream ss(op);
  for (std::string p; std::getline(ss, p, '.');) parts.push_back(p);
  if (parts.size() < 2) throw std::runtime_error("cannot execute op '" + op + "'");
  std::string ns = parts[0], name = parts[1];
  std::string overload = parts.size() > 2 ? parts[2] : "";
  if (overload == "default") overload = "";
  // prims.convert_element_type(a, dtype) and autoparallel.dtype_cast(a, dtype) bind their dtype positionally to
  // _to_copy's second argument (its dtype).
  if ((ns == "prims" && name == "convert_element_type") || (ns == "autoparallel" && name == "dtype_cast")) {
    ns = "aten"; name = "_to_copy"; overload = "";
  }
  // The unchecked index ops (a newer LibTorch's kernels trust their index values) run as their checked forms, which
  // compute the same for indices in range and fail at the node for the others.
  if (ns == "aten" && name == "_unsafe_index") { name = "index"; overload = "Tensor"; }
  if (ns == "aten" && name == "_unsafe_index_put") { name = "index_put"; overload = ""; }
  if (auto h = findOp(ns + "::" + name, overload)) {
    // Defence in depth behind the allow-list: nothing that takes a Storage runs, whatever its name.
    for (const auto& a : h->schema().arguments())
      if (a.type()->kind() == c10::TypeKind::StorageType ||
          (a.type()->kind() == c10::TypeKind::OptionalType &&
           a.type()->castRaw<c10::OptionalType>()->getElementType()->kind() == c10::TypeKind::StorageType))
        throw std::runtime_error("op " + op + " takes a Storage; the runner refuses it");
    return {*h};
  }
  if (name == "scaled_dot_product_attention")
    if (auto h = findOp("aten::_scaled_dot_product_attention", "")) return {*h, true, false};
  if (name == "_scaled_dot_product_attention")
    if (auto h = findOp("aten::scaled_dot_product_attention", "")) return {*h, false, true};
  throw std::runtime_error("this LibTorch has no operator " + ns + "::" + name +
                           (overload.empty() ? "" : "." + overload));
}

// ---- argument conversion ----

// Tensor args are first renumbered to their input index (TensorRef{-1, index}), so that each input's tensor
// after its redistribute is the one passed, even when one producer feeds several inputs.
struct ArgContext {
  const ExecEnv& env;
  const std::vector<at::Tensor>& inputs;
};

at::Tensor tensorOf(const ArgContext& c, const TensorRef& r) {
  if (r.node != -1 || r.output < 0 || r.output >= static_cast<int>(c.inputs.size()))
    throw std::runtime_error("input tensor not available");
  return c.inputs[r.output];
}

void numberInputs(Arg& a, int& next) {
  if (a.kind == Arg::Kind::Tensor) a.t = TensorRef{-1, next++};
  for (auto& it : a.items) numberInputs(it, next);
}

int64_t symbolValue(const std::string& s) {
  if (s == "torch.contiguous_format") return static_cast<int64_t>(at::MemoryFormat::Contiguous);
  if (s == "torch.preserve_format") return static_cast<int64_t>(at::MemoryFormat::Preserve);
  if (s == "torch.channels_last") return static_cast<int64_t>(at::MemoryFormat::ChannelsLast);
  if (s == "torch.strided") return static_cast<int64_t>(at::kStrided);
  if (s == "torch.sparse_coo") return static_cast<int64_t>(at::kSparse);
  throw std::runtime_error("unknown symbol argument '" + s + "'");
}

c10::IValue toIValue(const ArgContext& c, const Arg& a, const c10::TypePtr& type);

// A size computed in the graph (a symbolic graph's `s38 // 2`, a Sym placeholder) is a 0-dim integer tensor; where
// the schema takes an int it is that number. Anything else there is an error, not a guess.
int64_t sizeValue(const ArgContext& c, const TensorRef& r) {
  const at::Tensor t = tensorOf(c, r);
  if (!t.defined() || t.dim() != 0 || !at::isIntegralType(t.scalar_type(), /*includeBool=*/false))
    throw std::runtime_error("a tensor where the op takes an integer size");
  return t.item<int64_t>();
}

c10::IValue listToIValue(const ArgContext& c, const Arg& a, const c10::TypePtr& elem) {
  auto kind = elem->kind();
  if (kind == c10::TypeKind::TensorType) {
    c10::List<at::Tensor> out;
    for (const auto& it : a.items) out.push_back(tensorOf(c, it.t));
    return out;
  }
  if (kind == c10::TypeKind::OptionalType) {
    c10::List<c10::optional<at::Tensor>> out;
    for (const auto& it : a.items)
      out.push_back(it.kind == Arg::Kind::None ? c10::optional<at::Tensor>() : c10::optional<at::Tensor>(tensorOf(c, it.t)));
    return out;
  }
  if (kind == c10::TypeKind::IntType || kind == c10::TypeKind::SymIntType) {
    std::vector<int64_t> out;
    for (const auto& it : a.items)
      out.push_back(it.kind == Arg::Kind::Tensor  ? sizeValue(c, it.t)
                    : it.kind == Arg::Kind::Float ? static_cast<int64_t>(it.f)
                                                  : it.i);
    return out;
  }
  if (kind == c10::TypeKind::FloatType) {
    std::vector<double> out;
    for (const auto& it : a.items) out.push_back(it.kind == Arg::Kind::Int ? static_cast<double>(it.i) : it.f);
    return out;
  }
  if (kind == c10::TypeKind::BoolType) {
    c10::List<bool> out;
    for (const auto& it : a.items) out.push_back(it.b);
    return out;
  }
  throw std::runtime_error("unsupported list argument type " + elem->str());
}

// A Python number where ATen wants a Tensor (FX prints `div.Tensor(x, 32)`): a wrapped-number scalar tensor,
// which type promotion treats like the Python scalar.
at::Tensor wrappedNumber(const Arg& a) {
  at::Tensor t = a.kind == Arg::Kind::Float ? at::scalar_tensor(a.f, at::kDouble)
               : a.kind == Arg::Kind::Bool  ? at::scalar_tensor(a.b, at::kBool)
                                            : at::scalar_tensor(a.i, at::kLong);
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}

c10::IValue toIValue(const ArgContext& c, const Arg& a, const c10::TypePtr& type) {
  if (a.kind == Arg::Kind::None) return c10::IValue();
  c10::TypePtr t = type;
  if (t->kind() == c10::TypeKind::OptionalType) t = t->castRaw<c10::OptionalType>()->getElementType();
  if (t->kind() == c10::TypeKind::TensorType &&
      (a.kind == Arg::Kind::Int || a.kind == Arg::Kind::Float || a.kind == Arg::Kind::Bool))
    return wrappedNumber(a);
  switch (a.kind) {
    case Arg::Kind::Tensor:
      if (t->kind() == c10::TypeKind::IntType || t->kind() == c10::TypeKind::SymIntType) return sizeValue(c, a.t);
      return tensorOf(c, a.t);
    case Arg::Kind::List: {
      if (t->kind() != c10::TypeKind::ListType) throw std::runtime_error("a list where " + type->str() + " is expected");
      return listToIValue(c, a, t->castRaw<c10::ListType>()->getElementType());
    }
    case Arg::Kind::Bool: return a.b;
    case Arg::Kind::Int:
      if (t->kind() == c10::TypeKind::FloatType) return static_cast<double>(a.i);
      if (t->kind() == c10::TypeKind::BoolType) return a.i != 0;
      return a.i;
    case Arg::Kind::Float:
      if (t->kind() == c10::TypeKind::IntType || t->kind() == c10::TypeKind::SymIntType) return static_cast<int64_t>(a.f);
      return a.f;
    case Arg::Kind::String: return a.s;
    case Arg::Kind::DType: return static_cast<int64_t>(computeType(a.dt, c.env.floatType));
    case Arg::Kind::Device: return c10::IValue(c.env.device);  // the runner picks the device
    case Arg::Kind::Symbol: return symbolValue(a.s);
    case Arg::Kind::None: break;
  }
  return c10::IValue();
}

// ---- local shape rewriting ----

std::vector<int64_t> beliefShape(const ExecEnv& env, int n) {
  const Node& node = env.plan->graph.nodes[n];
  const auto& meta = node.outputs.at(0);
  if (env.rank < 0) return meta.shape;
  const auto& outSpecs = env.plan->specs.at(n).outputs;
  if (outSpecs.empty() || !outSpecs[0]) return meta.shape;
  auto local = localShape(meta.shape, env.plan->mesh, *outSpecs[0], env.rank);
  if (!local) throw std::runtime_error("output spec does not fit the shape: " + local.error().message);
  return *local;
}

int64_t prod(const std::vector<int64_t>& v, const std::vector<int>& idx) {
  int64_t p = 1;
  for (int i : idx) p *= v[i];
  return p;
}

// View/reshape target on this rank: dims the view keeps or merges follow the actual local input (as symbolic
// shapes would); dims it splits follow the plan's spec when that agrees in size, else the first dim divisible by
// the shrink factor shrinks.
std::vector<int64_t> viewTarget(const std::vector<int64_t>& globalIn, const std::vector<int64_t>& actualIn,
                                const std::vector<int64_t>& globalOut, const std::vector<int64_t>& belief) {
  if (globalIn.size() != actualIn.size()) return belief;
  std::vector<int64_t> out = belief;
  size_t i = 0, j = 0;
  while (i < globalIn.size() || j < globalOut.size()) {
    std::vector<int> I, O;
    int64_t pi = 1, po = 1;
    if (i < globalIn.size()) { pi *= globalIn[i]; I.push_back(static_cast<int>(i++)); }
    if (j < globalOut.size()) { po *= globalOut[j]; O.push_back(static_cast<int>(j++)); }
    while (pi != po) {
      if (pi < po && i < globalIn.size()) { pi *= globalIn[i]; I.push_back(static_cast<int>(i++)); }
      else if (j < globalOut.size()) { po *= globalOut[j]; O.push_back(static_cast<int>(j++)); }
      else if (i < globalIn.size()) { pi *= globalIn[i]; I.push_back(static_cast<int>(i++)); }
      else break;
    }
    if (O.empty()) continue;
    int64_t actual = prod(actualIn, I);
    if (O.size() == 1) { out[O[0]] = actual; continue; }
    if (prod(belief, O) == actual) continue;
    int64_t global = prod(globalIn, I);
    if (actual == 0 || global % actual != 0) continue;
    int64_t shrink = global / actual;
    for (int o : O) out[o] = globalOut[o];
    for (int o : O)
      if (globalOut[o] % shrink == 0) { out[o] = globalOut[o] / shrink; break; }
  }
  return out;
}

// Replaces the "size"/"shape" (and "stride") argument of shape-carrying ops with the local shape on this rank.
void rewriteShapeArgs(const ExecEnv& env, int n, const c10::FunctionSchema& schema, std::vector<c10::IValue>& stack,
                      const std::vector<at::Tensor>& tensorInputs) {
  const Node& node = env.plan->graph.nodes[n];
  std::string op = node.opName();
  if (!hasLocalShapeArgs(op)) return;  // core/redistribute/replica.h: the replica rules rely on this list
  bool view = isViewOp(op), expand = op == "expand", factory = isFactoryOp(op);
  // Backward ops that rebuild their forward input's shape (slice_backward, select_backward, ...).
  bool backwardSizes = !view && !expand && !factory;
  if (node.outputs.empty() || !node.outputs[0].known) return;
  const auto& args = schema.arguments();
  int sizeIdx = -1, strideIdx = -1;
  for (size_t k = 0; k < args.size(); ++k) {
    if ((!backwardSizes && (args[k].name() == "size" || args[k].name() == "shape")) ||
        (backwardSizes && args[k].name() == "input_sizes"))
      sizeIdx = static_cast<int>(k);
    if (args[k].name() == "stride") strideIdx = static_cast<int>(k);
  }
  if (sizeIdx < 0) return;
  std::vector<int64_t> target = beliefShape(env, n);
  if (env.rank >= 0 && !tensorInputs.empty() && (view || expand)) {
    auto actual = tensorInputs[0].sizes().vec();
    const auto& inputs = env.plan->graph.inputs(n);
    const TensorMeta* inMeta = inputs.empty() ? nullptr : env.plan->graph.meta(inputs[0]);
    if (view && inMeta && inMeta->known) {
      target = viewTarget(inMeta->shape, actual, node.outputs[0].shape, target);
    } else if (expand) {
      // Dims the input already has (not broadcast from 1) keep their actual local size.
      size_t lead = target.size() >= actual.size() ? target.size() - actual.size() : 0;
      for (size_t k = 0; k < actual.size() && lead + k < target.size(); ++k)
        if (actual[k] != 1) target[lead + k] = -1;
    }
  }
  stack[sizeIdx] = target;
  if (strideIdx >= 0) {
    std::vector<int64_t> stride(target.size(), 1);
    for (int k = static_cast<int>(target.size()) - 2; k >= 0; --k) stride[k] = stride[k + 1] * std::max<int64_t>(target[k + 1], 1);
    stack[strideIdx] = stride;
  }
}

// ---- emulated ops (GPU-only kernels in graphs traced on CUDA, run here with the math formula) ----

struct MathAttention {
  at::Tensor probs, out, logsumexp;  // logsumexp of the scaled, masked scores over the keys
};

// softmax(q k^T * scale + bias [causal]) v, keeping the probabilities for the backward.
MathAttention mathAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& bias,
                            bool causal, double scale) {
  at::Tensor scores = at::matmul(q, k.transpose(-2, -1)) * scale;
  if (bias.defined()) scores = scores + bias;
  if (causal) {
    int64_t L = q.size(-2), S = k.size(-2);
    at::Tensor mask = at::ones({L, S}, q.options().dtype(at::kBool)).triu(1);
    scores = scores.masked_fill(mask, -std::numeric_limits<double>::infinity());
  }
  MathAttention a;
  a.logsumexp = at::logsumexp(scores, -1);
  a.probs = at::softmax(scores, -1);
  a.out = at::matmul(a.probs, v);
  return a;
}

double attentionScale(const Arg* scaleArg, const at::Tensor& q) {
  if (scaleArg && scaleArg->kind == Arg::Kind::Float) return scaleArg->f;
  return 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
}

// The math attention's backward: grad q, k, v (laid out like them) and the scores' gradient.
std::array<at::Tensor, 4> attentionBackward(const MathAttention& a, const at::Tensor& go, const at::Tensor& q,
                                            const at::Tensor& k, const at::Tensor& v, double scale);

// The kernels return tensors laid out like their inputs (e.g. [B, S, H, D] memory seen as [B, H, S, D]); later
// views in the graph rely on it.
at::Tensor likeStrides(const at::Tensor& value, const at::Tensor& like) {
  return at::empty_like(like).copy_(value);
}

std::array<at::Tensor, 4> attentionBackward(const MathAttention& a, const at::Tensor& go, const at::Tensor& q,
                                            const at::Tensor& k, const at::Tensor& v, double scale) {
  at::Tensor gv = at::matmul(a.probs.transpose(-2, -1), go);
  at::Tensor gp = at::matmul(go, v.transpose(-2, -1));
  at::Tensor gs = a.probs * (gp - (gp * a.probs).sum(-1, true));
  at::Tensor gq = at::matmul(gs, k) * scale;
  at::Tensor gk = at::matmul(gs.transpose(-2, -1), q) * scale;
  return {likeStrides(gq, q), likeStrides(gk, k), likeStrides(gv, v), gs};
}

// _scaled_dot_product_efficient_attention(q, k, v, attn_bias, compute_log_sumexp, dropout_p=0, is_causal=False,
//   *, scale=None) -> (out, log_sumexp, philox_seed, philox_offset), and its backward
// (grad_out, q, k, v, attn_bias, out, logsumexp, philox_seed, philox_offset, dropout_p, grad_input_mask,
//   is_causal=False, *, scale=None) -> (grad_q, grad_k, grad_v, grad_bias). Dropout is not emulated.
std::optional<std::vector<at::Tensor>> runEmulated(const Node& node, const std::vector<Arg>& args,
                                                   const std::vector<std::pair<std::string, Arg>>& kwargs,
                                                   const ArgContext& c) {
  std::string op = node.opName();
  auto arg = [&](size_t i, const char* name) -> const Arg* {
    if (i < args.size()) return &args[i];
    for (const auto& kw : kwargs)
      if (kw.first == name) return &kw.second;
    return nullptr;
  };
  auto tensor = [&](size_t i, const char* name) {
    const Arg* a = arg(i, name);
    return a && a->isTensor() ? tensorOf(c, a->t) : at::Tensor();
  };
  auto flag = [&](size_t i, const char* name) {
    const Arg* a = arg(i, name);
    return a && a->kind == Arg::Kind::Bool && a->b;
  };
  if (op == "_scaled_dot_product_efficient_attention") {
    at::Tensor q = tensor(0, "query"), k = tensor(1, "key"), v = tensor(2, "value"), bias = tensor(3, "attn_bias");
    auto a = mathAttention(q, k, v, bias, flag(6, "is_causal"), attentionScale(arg(7, "scale"), q));
    // log_sumexp is only read by the backward, which the runner emulates from q, k, v: zeros of its shape.
    at::Tensor lse = at::zeros({q.size(0), q.size(1), q.size(2)}, q.options().dtype(at::kFloat));
    at::Tensor empty = at::zeros({}, q.options().dtype(at::kLong));
    return std::vector<at::Tensor>{likeStrides(a.out, q), lse, empty, empty};
  }
  if (op == "_scaled_dot_product_efficient_attention_backward") {
    at::Tensor go = tensor(0, "grad_out_"), q = tensor(1, "query"), k = tensor(2, "key"), v = tensor(3, "value");
    at::Tensor bias = tensor(4, "attn_bias");
    double scale = attentionScale(arg(12, "scale"), q);
    auto g = attentionBackward(mathAttention(q, k, v, bias, flag(11, "is_causal"), scale), go, q, k, v, scale);
    at::Tensor gb = bias.defined() ? g[3] : at::zeros({0}, q.options());
    return std::vector<at::Tensor>{g[0], g[1], g[2], gb};
  }
  // The masked index ops of newer decompositions (an embedding's backward, absent from older LibTorch), as torch
  // defines them: the indices clamped into range (masked-out entries may point anywhere), masked-out values 0 /
  // `fill`, then the checked index_put (accumulate) / index.
  if (op == "_unsafe_masked_index_put_accumulate" || op == "_unsafe_masked_index") {
    const bool put = op == "_unsafe_masked_index_put_accumulate";
    at::Tensor self = tensor(0, "self"), mask = tensor(1, "mask");
    const Arg* list = arg(2, "indices");
    if (!self.defined() || !mask.defined() || !list || !list->isList())
      throw std::runtime_error(op + " expects (self, mask, indices, ...)");
    c10::List<c10::optional<at::Tensor>> indices;
    for (size_t j = 0; j < list->items.size(); ++j) {
      const Arg& i = list->items[j];
      if (!i.isTensor()) {
        indices.push_back(c10::nullopt);
        continue;
      }
      if (static_cast<int64_t>(j) >= self.dim()) throw std::runtime_error(op + ": more indices than dims");
      const int64_t n = self.size(static_cast<int64_t>(j));
      indices.push_back(tensorOf(c, i.t).clamp(-n, std::max<int64_t>(n - 1, 0)));
    }
    if (put) {
      at::Tensor values = tensor(3, "values");
      if (!values.defined()) throw std::runtime_error(op + " expects its values");
      return std::vector<at::Tensor>{at::index_put(self, indices, values.masked_fill(mask.logical_not(), 0), true)};
    }
    const Arg* fill = arg(3, "fill");
    const double f = fill && fill->kind == Arg::Kind::Float ? fill->f : fill && fill->isInt() ? static_cast<double>(fill->i) : 0.0;
    return std::vector<at::Tensor>{at::index(self, indices).masked_fill(mask.logical_not(), f)};
  }
  // PyTorch 2.x's CPU flash attention (autoparallel's CPU traces; absent from older LibTorch):
  // _scaled_dot_product_flash_attention_for_cpu(q, k, v, dropout_p=0, is_causal=False, *, attn_mask=None, scale=None)
  // -> (out, logsumexp [B, H, L]), and its backward (grad_out, q, k, v, out, logsumexp, dropout_p, is_causal, *,
  // attn_mask=None, scale=None) -> (grad_q, grad_k, grad_v), both with the math formula (dropout 0 only).
  if (op == "_scaled_dot_product_flash_attention_for_cpu" || op == "_scaled_dot_product_flash_attention_for_cpu_backward") {
    const bool backward = op.size() > 9 && op.compare(op.size() - 9, 9, "_backward") == 0;
    const size_t first = backward ? 1 : 0, dropout = backward ? 6 : 3;
    if (const Arg* d = arg(dropout, "dropout_p"); d && d->kind == Arg::Kind::Float && d->f != 0.0)
      throw std::runtime_error(op + " with dropout: the runner runs no random dropout");
    at::Tensor q = tensor(first, "query"), k = tensor(first + 1, "key"), v = tensor(first + 2, "value");
    at::Tensor mask = tensor(99, "attn_mask");
    const double scale = attentionScale(arg(99, "scale"), q);
    auto a = mathAttention(q, k, v, mask, flag(dropout + 1, "is_causal"), scale);
    if (!backward) return std::vector<at::Tensor>{likeStrides(a.out, q), a.logsumexp.to(at::kFloat)};
    auto g = attentionBackward(a, tensor(0, "grad_out"), q, k, v, scale);
    return std::vector<at::Tensor>{g[0], g[1], g[2]};
  }
  return std::nullopt;
}

// ---- one node ----

// True when an aten::_to_copy call (prims.convert_element_type runs as one) would copy `self` into a tensor of
// its own dtype, device, layout and memory format: a value-level identity.
bool isSameTypeCopy(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& stack, const at::Tensor& self) {
  if (schema.name() != "aten::_to_copy" || !self.defined()) return false;
  const auto& args = schema.arguments();
  for (size_t k = 1; k < args.size() && k < stack.size(); ++k) {
    const c10::IValue& v = stack[k];
    if (v.isNone()) continue;
    const std::string& name = args[k].name();
    if (name == "dtype" && v.isInt() && v.toInt() != static_cast<int64_t>(self.scalar_type())) return false;
    if (name == "device" && v.isDevice() && v.toDevice() != self.device()) return false;
    if (name == "layout" && v.isInt() && v.toInt() != static_cast<int64_t>(at::kStrided)) return false;
    if (name == "pin_memory" && v.isBool() && v.toBool()) return false;
    if (name == "memory_format" && v.isInt()) {
      auto f = static_cast<at::MemoryFormat>(v.toInt());
      if (f != at::MemoryFormat::Preserve && !(f == at::MemoryFormat::Contiguous && self.is_contiguous())) return false;
    }
  }
  return true;
}

std::vector<at::Tensor> runCall(const ExecEnv& env, int n, const Values& values, const std::vector<at::Tensor>& inputs) {
  const Node& node = env.plan->graph.nodes[n];
  // The runner trusts no caller: every node is checked against core's allow-list right before it runs.
  if (auto why = unsafeReason(node)) throw std::runtime_error("refused: " + *why);
  if (node.op == "operator.getitem") {
    const Arg& src = node.args.at(0);
    int64_t idx = node.args.at(1).i;
    if (!src.isTensor()) throw std::runtime_error("getitem of a non-tensor");
    const auto& outs = values.at(src.t.node);
    if (idx < 0 || idx >= static_cast<int64_t>(outs.size())) throw std::runtime_error("getitem index out of range");
    return {outs[idx]};
  }
  if (env.callOverride)
    if (auto done = env.callOverride(n, inputs)) return *done;
  ArgContext pctx{env, inputs};
  std::vector<Arg> posArgs = node.args;
  std::vector<std::pair<std::string, Arg>> kwargs = node.kwargs;
  int next = 0;
  for (auto& a : posArgs) numberInputs(a, next);
  for (auto& kw : kwargs) numberInputs(kw.second, next);
  if (auto emulated = runEmulated(node, posArgs, kwargs, pctx)) return *emulated;
  ResolvedOp op = resolveOp(node);
  const auto& schema = op.handle.schema();
  const auto& sargs = schema.arguments();
  if (op.sdpaPrivate) {
    // public (q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None) -> private
    // (q, k, v, attn_mask, dropout_p, need_attn_weights, is_causal)
    std::vector<Arg> a(7, Arg::none());
    for (size_t k = 0; k < posArgs.size() && k < 5; ++k) a[k] = posArgs[k];
    if (a[4].kind == Arg::Kind::None) a[4] = Arg::real(0.0);
    a[5] = Arg::boolean(false);
    a[6] = posArgs.size() > 5 ? posArgs[5] : Arg::boolean(false);
    for (auto it = kwargs.begin(); it != kwargs.end();) {
      if (it->first == "is_causal") { a[6] = it->second; it = kwargs.erase(it); }
      else if (it->first == "dropout_p") { a[4] = it->second; it = kwargs.erase(it); }
      else if (it->first == "attn_mask") { a[3] = it->second; it = kwargs.erase(it); }
      else if (it->first == "scale") { it = kwargs.erase(it); }
      else ++it;
    }
    posArgs = a;
  } else if (op.sdpaPublicForPrivate) {
    std::vector<Arg> a(posArgs.begin(), posArgs.begin() + std::min<size_t>(posArgs.size(), 5));
    if (posArgs.size() > 6) a.push_back(posArgs[6]);
    posArgs = a;
  }
  if (posArgs.size() > sargs.size()) throw std::runtime_error("too many arguments for " + schema.name());
  std::vector<c10::IValue> stack;
  stack.reserve(sargs.size());
  for (size_t k = 0; k < sargs.size(); ++k) {
    const auto& sa = sargs[k];
    const Arg* given = k < posArgs.size() ? &posArgs[k] : nullptr;
    if (!given)
      for (const auto& kw : kwargs)
        if (kw.first == sa.name()) given = &kw.second;
    if (sa.name() == "device" && (!given || given->kind == Arg::Kind::None) && env.device.is_cuda()) {
      stack.push_back(c10::IValue(env.device));  // factories without a device would land on the CPU
    } else if (given) {
      stack.push_back(toIValue(pctx, *given, sa.type()));
    } else if (sa.default_value()) {
      stack.push_back(*sa.default_value());
    } else {
      throw std::runtime_error("missing argument '" + sa.name() + "' of " + schema.name());
    }
  }
  if (!env.asWritten) rewriteShapeArgs(env, n, schema, stack, inputs);
  // A conversion to the type a tensor already has is the tensor itself when nothing writes in place (saves a
  // whole copy per rank, e.g. seed 1's f32 -> f32 weight gradient at real size: 87 MB each).
  if (env.aliasSameTypeCopies && !inputs.empty() && isSameTypeCopy(schema, stack, inputs[0])) return {inputs[0]};
  checkOpContract(schema, stack);
  op.handle.callBoxed(&stack);
  clearUninitialised(schema, stack);
  std::vector<at::Tensor> outs;
  for (auto& v : stack) {
    if (v.isTensor()) outs.push_back(v.toTensor());
    else if (v.isTensorList()) for (const auto& t : v.toTensorList()) outs.push_back(t);
    else if (v.isTuple()) for (const auto& e : v.toTupleRef().elements()) { if (e.isTensor()) outs.push_back(e.toTensor()); }
    else outs.push_back(at::Tensor());
  }
  return outs;
}

}  // namespace

std::vector<bool> inPlaceWriters(const Plan& plan) {
  std::vector<bool> out(plan.graph.size(), false);
  for (int n = 0; n < plan.graph.size(); ++n) {
    const Node& node = plan.graph.nodes[n];
    if (node.kind != NodeKind::Call) continue;
    try {
      out[n] = writesAnArgument(resolveOp(node).handle.schema());
    } catch (const std::exception&) {
      out[n] = writesInPlace(node);  // no schema in this LibTorch (emulated ops, collectives): the name says it
    }
  }
  return out;
}

// For each node, the last node that reads it (-1: none); kept nodes never die.
std::vector<int> lastUses(const Graph& g, const std::vector<int>& keep) {
  std::vector<int> last(g.size(), -1);
  for (int n = 0; n < g.size(); ++n)
    for (const TensorRef& r : g.inputs(n))
      if (r.node >= 0 && r.node < g.size()) last[r.node] = std::max(last[r.node], n);
  for (int k : keep)
    if (k >= 0 && k < g.size()) last[k] = std::numeric_limits<int>::max();
  return last;
}

void runGraph(const ExecEnv& env, Values& values) {
  const Plan& plan = *env.plan;
  const Graph& g = plan.graph;
  values.resize(g.size());
  int total = g.size();
  std::vector<int> last;
  if (env.releaseDead) {
    std::vector<int> keep = env.keep;
    for (int n = 0; n < total; ++n)
      if (g.nodes[n].kind != NodeKind::Call) keep.push_back(n);  // placeholders (gradients) and the output
    last = lastUses(g, keep);
  }
  for (int n = 0; n < total; ++n) {
    if (env.stop && env.stop->load()) throw RunStopped("stopped");
    const Node& node = g.nodes[n];
    if (node.kind == NodeKind::Placeholder && !env.afterNode) continue;
    try {
      if (node.kind == NodeKind::Placeholder) {
        env.afterNode(n, values[n]);
        continue;
      }
      // Replica deduplication (core/redistribute/replica.h): a rank off a value's computing ranks takes it from its leader;
      // it still runs the input edges whose collectives it is a member of.
      const ReplicaPlan* rp = env.replicas;
      const bool computes = !rp || rp->computes(n, env.rank);
      // Gather inputs; apply the plan's redistributes on edges (sharded run only). A missing one stays missing.
      const auto& refs = g.inputs(n);
      std::vector<at::Tensor> inputs;
      inputs.reserve(refs.size());
      for (size_t k = 0; k < refs.size(); ++k) {
        const int ki = static_cast<int>(k);
        const Redistribute* r = env.comm ? plan.findRedistribute(n, ki) : nullptr;
        const bool shared = rp && r && rp->edgeTouched[n][k] != 0;  // an edge whose steps run on some ranks only
        if (shared && !rp->runsEdge(n, ki, env.rank)) {
          if (computes)
            inputs.push_back(env.exchange->take(env.batch, n, ki, rp->leaderOf(rp->edgeShare[n][k], env.rank),
                                                env.stop).at(0));
          continue;
        }
        if (!computes && !shared) continue;
        const auto& outs = values.at(refs[k].node);
        if (refs[k].output >= static_cast<int>(outs.size()) || !outs[refs[k].output].defined())
          throw std::runtime_error("input " + std::to_string(k) + " (" + g.nodes[refs[k].node].name + ") has no value");
        at::Tensor t = outs[refs[k].output];
        if (r) {
          const int takers = shared && rp->isLeader(rp->edgeShare[n][k], env.rank) ? rp->edgeTakers(n, ki, env.rank) : 0;
          try {
            const TensorMeta* m = g.meta(refs[k]);
            if (!m || !m->known) throw std::runtime_error("redistribute on an input of unknown shape");
            // A value nobody reads after this edge is handed over (its slot emptied), so that an all_reduce can
            // work in its memory (seed 1 at real size: an 87 MB copy per rank less).
            if (env.releaseDead && last[refs[k].node] == n && node.op != "operator.getitem" &&
                std::count(refs.begin(), refs.end(), refs[k]) == 1)
              values[refs[k].node][refs[k].output] = at::Tensor();
            t = env.comm->redistribute(std::move(t), m->shape, r->from, r->to,
                                       "node " + node.name + " input " + std::to_string(k));
          } catch (const RunStopped&) {
            throw;
          } catch (const std::exception& e) {
            if (takers > 0) env.exchange->publishError(env.batch, n, ki, env.rank, conciseMessage(e), takers);
            throw;
          }
          if (takers > 0) env.exchange->publish(env.batch, n, ki, env.rank, {t}, takers);
        }
        if (computes) inputs.push_back(t);
      }
      const int nodeTakers = rp && computes ? static_cast<int>(rp->classSize(rp->share[n]) - 1) : 0;
      if (!computes) {
        values[n] = env.exchange->take(env.batch, n, -1, rp->leaderOf(rp->share[n], env.rank), env.stop);
      } else {
        try {
          // The output node's value: its tensor inputs after their redistributes (what the graph returns).
          if (node.kind == NodeKind::Output) {
            values[n] = inputs;
          } else if (!env.recordGrad.empty() && !env.recordGrad[n]) {
            at::NoGradGuard noGrad;
            values[n] = runCall(env, n, values, inputs);
          } else {
            values[n] = runCall(env, n, values, inputs);
          }
        } catch (const RunStopped&) {
          throw;
        } catch (const std::exception& e) {
          if (nodeTakers > 0) env.exchange->publishError(env.batch, n, -1, env.rank, conciseMessage(e), nodeTakers);
          throw;
        }
        if (nodeTakers > 0) env.exchange->publish(env.batch, n, -1, env.rank, values[n], nodeTakers);
      }
      if (env.afterNode && node.kind != NodeKind::Output) env.afterNode(n, values[n]);
      if (env.releaseDead) {
        inputs.clear();
        // A value nobody reads any more is dropped now (autograd keeps what its backward needs itself).
        for (const TensorRef& r : refs)
          if (last[r.node] == n) values[r.node].clear();
        if (last[n] < 0 && node.kind == NodeKind::Call) values[n].clear();
      }
    } catch (const RunStopped&) {
      throw;
    } catch (const CollectiveError& e) {
      throw NodeError(n, e.what());
    } catch (const std::exception& e) {
      throw NodeError(n, conciseMessage(e));
    }
    if (env.progress) env.progress(n + 1, total);
  }
}

}  // namespace ss::runner
