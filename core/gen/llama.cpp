// LLaMA-like joint graph generator. Sections: builder (naming, specs, auto-redistribute), building blocks
// (linear, rmsnorm, rotary; forward and backward), the model.
#include "core/gen/llama.h"

#include <climits>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "core/model/placement_parse.h"

namespace ss::gen {
namespace {

// ---- builder ----

struct V {
  int node = -1;
  int out = 0;
};

TensorMeta M(std::vector<int64_t> shape, DType dt) { return TensorMeta{std::move(shape), dt, true}; }

class Builder {
 public:
  explicit Builder(DeviceMesh mesh) { plan.mesh = std::move(mesh); }
  Plan plan;
  Phase phase = Phase::Forward;
  std::string module;
  SourceLoc source;

  const ShardingSpec& spec(const std::string& s) {
    auto it = specCache_.find(s);
    if (it != specCache_.end()) return it->second;
    ParseContext ctx;
    ctx.mesh = &plan.mesh;
    auto r = parseSpec(s, ctx);
    if (!r) throw std::logic_error("llama generator: bad spec " + s + ": " + r.error().message);
    return specCache_.emplace(s, *r).first->second;
  }

  // FX naming: base, base_1, base_2...; names that shadow Python builtins start at _1.
  std::string fresh(const std::string& base) {
    static const std::unordered_set<std::string> builtins = {"sum", "pow", "slice", "max", "min", "abs", "all",
                                                             "any", "round", "input", "list", "tuple", "type"};
    int& c = counters_[base];
    std::string name;
    if (c == 0 && !builtins.count(base)) {
      name = base;
    } else {
      name = base + "_" + std::to_string(c == 0 ? 1 : c);
    }
    if (c == 0 && builtins.count(base)) c = 1;
    ++c;
    return name;
  }

  V placeholder(const std::string& name, PlaceholderKind kind, TensorMeta meta, const std::string& sp,
                const std::string& mod) {
    Node n;
    n.name = name;
    n.op = "placeholder";
    n.kind = NodeKind::Placeholder;
    n.outputs = {std::move(meta)};
    n.phase = kind == PlaceholderKind::Tangent ? Phase::Backward : Phase::Forward;
    n.placeholderKind = kind;
    n.modulePath = mod;
    return push(std::move(n), {sp}, {});
  }

  // A call node. `want` gives, per tensor input in input-index order, the spec the op consumes ("" = as
  // produced); where it differs from the producer's spec an input spec and a Redistribute are recorded.
  V call(const std::string& target, const std::string& base, std::vector<Arg> args,
         std::vector<std::pair<std::string, Arg>> kwargs, std::vector<TensorMeta> metas,
         const std::vector<std::string>& outSpecs, const std::vector<std::string>& want = {}) {
    Node n;
    n.name = fresh(base);
    n.op = target;
    n.kind = NodeKind::Call;
    n.args = std::move(args);
    n.kwargs = std::move(kwargs);
    n.outputs = std::move(metas);
    n.phase = phase;
    n.modulePath = module;
    if (phase == Phase::Forward) n.source = source;
    return push(std::move(n), outSpecs, want);
  }

  // Single-output shorthand.
  V op(const std::string& target, std::vector<Arg> args, TensorMeta meta, const std::string& outSpec,
       const std::vector<std::string>& want = {}, std::vector<std::pair<std::string, Arg>> kwargs = {}) {
    return call(target, baseOf(target), std::move(args), std::move(kwargs), {std::move(meta)}, {outSpec}, want);
  }

  V getitem(V tuple, int i) {
    const Node& src = plan.graph.nodes[tuple.node];
    TensorMeta m = src.outputs.at(i);
    std::string sp = specStrings_[tuple.node].at(i);
    // getitem's tuple argument refers to the output it selects, so its producer spec is that output's.
    return call("operator.getitem", "getitem", {Arg::tensor({tuple.node, i}), Arg::integer(i)}, {}, {m}, {sp});
  }

  const TensorMeta& meta(V v) const { return plan.graph.nodes[v.node].outputs.at(v.out); }
  const std::string& specOf(V v) const { return specStrings_[v.node].at(v.out); }

  static Arg T(V v) { return Arg::tensor({v.node, v.out}); }

 private:
  std::unordered_map<std::string, ShardingSpec> specCache_;
  std::unordered_map<std::string, int> counters_;
  std::vector<std::vector<std::string>> specStrings_;

  static std::string baseOf(const std::string& target) {
    // "aten.mm.default" -> "mm"; "aten.sum.dim_IntList" -> "sum"
    auto a = target.find('.');
    auto b = target.find('.', a + 1);
    return target.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
  }

  V push(Node n, const std::vector<std::string>& outSpecs, const std::vector<std::string>& want) {
    int idx = plan.graph.size();
    std::vector<TensorRef> refs;
    collectTensorRefs(n, refs);
    NodeSpecs ns;
    for (const auto& s : outSpecs) {
      if (s.empty()) ns.outputs.push_back(std::nullopt);
      else ns.outputs.push_back(spec(s));
    }
    ns.inputs.assign(refs.size(), std::nullopt);
    for (size_t i = 0; i < want.size() && i < refs.size(); ++i) {
      if (want[i].empty()) continue;
      const std::string& have = specStrings_[refs[i].node].at(refs[i].output);
      if (have == want[i] || have.empty()) continue;
      ns.inputs[i] = spec(want[i]);
      plan.redistributes.push_back(Redistribute{idx, static_cast<int>(i), spec(have), spec(want[i])});
    }
    plan.graph.nodes.push_back(std::move(n));
    plan.specs.push_back(std::move(ns));
    specStrings_.push_back(outSpecs);
    return V{idx, 0};
  }
};

using A = Arg;
Arg ints(std::initializer_list<int64_t> v) {
  std::vector<Arg> items;
  for (auto x : v) items.push_back(Arg::integer(x));
  return Arg::list(std::move(items));
}
Arg intsV(const std::vector<int64_t>& v) {
  std::vector<Arg> items;
  for (auto x : v) items.push_back(Arg::integer(x));
  return Arg::list(std::move(items));
}

// ---- building blocks ----

struct Sizes {
  int64_t B, S, D, H, hd, F, V, N;
};

struct Model {
  Builder& b;
  Sizes z;

  V toCopy(V x, DType dt, const std::string& sp) {
    TensorMeta m = b.meta(x);
    m.dtype = dt;
    return b.op("aten._to_copy.default", {Builder::T(x)}, m, sp, {}, {{"dtype", Arg::dtype(dt)}});
  }
  V view(V x, std::vector<int64_t> shape, const std::string& sp, const std::string& want = "") {
    TensorMeta m = b.meta(x);
    m.shape = shape;
    return b.op("aten.view.default", {Builder::T(x), intsV(shape)}, m, sp, {want});
  }
  V t(V x, const std::string& sp) {
    TensorMeta m = b.meta(x);
    std::swap(m.shape[0], m.shape[1]);
    return b.op("aten.t.default", {Builder::T(x)}, m, sp);
  }
  V mm(V x, V y, const std::string& sp, const std::string& wantX = "", const std::string& wantY = "") {
    TensorMeta m = M({b.meta(x).shape[0], b.meta(y).shape[1]}, b.meta(x).dtype);
    return b.op("aten.mm.default", {Builder::T(x), Builder::T(y)}, m, sp, {wantX, wantY});
  }
  V pointwise(const std::string& target, std::vector<Arg> args, V like, const std::string& sp,
              const std::vector<std::string>& want = {}) {
    return b.op(target, std::move(args), b.meta(like), sp, want);
  }
  V mul(V x, V y, const std::string& sp, const std::vector<std::string>& want = {}) {
    // Broadcast: the result takes the larger operand's shape.
    V like = b.meta(x).numel() >= b.meta(y).numel() ? x : y;
    return pointwise("aten.mul.Tensor", {Builder::T(x), Builder::T(y)}, like, sp, want);
  }
  V add(V x, V y, const std::string& sp, const std::vector<std::string>& want = {}) {
    V like = b.meta(x).numel() >= b.meta(y).numel() ? x : y;
    return pointwise("aten.add.Tensor", {Builder::T(x), Builder::T(y)}, like, sp, want);
  }
  V transpose12(V x, const std::string& sp) {
    TensorMeta m = b.meta(x);
    std::swap(m.shape[1], m.shape[2]);
    return b.op("aten.transpose.int", {Builder::T(x), A::integer(1), A::integer(2)}, m, sp);
  }
  V slice(V x, int64_t dim, int64_t start, int64_t end, const std::string& sp) {
    TensorMeta m = b.meta(x);
    int64_t e = std::min(end, m.shape[dim]);
    m.shape[dim] = e - start;
    return b.op("aten.slice.Tensor", {Builder::T(x), A::integer(dim), A::integer(start), A::integer(end)}, m, sp);
  }

  // Column-parallel linear: x [N, Din] S(0)R, w [Dout, Din] S(0)S(0) -> y [N, Dout] S(0)S(1).
  struct Linear {
    V x, w, wt, y;
    bool rowParallel;
  };
  Linear linearFwd(V x, V w, bool rowParallel) {
    Linear l{x, w, {}, {}, rowParallel};
    std::string wsp = rowParallel ? "S(0)S(1)" : "S(0)S(0)";
    V wc = toCopy(w, DType::BF16, wsp);
    l.wt = t(wc, rowParallel ? "S(1)S(0)" : "S(1)S(1)");
    // FSDP all-gather of the weight on mesh dim 0 happens on the mm's weight edge.
    l.y = rowParallel ? mm(x, l.wt, "S(0)P(sum)", "", "RS(0)") : mm(x, l.wt, "S(0)S(1)", "", "RS(1)");
    return l;
  }
  // Returns grad x; records the weight grad (f32, partial on dp) into `grads`.
  V linearBwd(const Linear& l, V g, std::vector<std::pair<V, V>>& grads) {
    if (l.rowParallel) {
      // g [N, Dout] S(0)R
      V wtt = t(l.wt, "S(0)S(1)");
      V gx = mm(g, wtt, "S(0)S(1)", "S(0)R", "RS(1)");
      V xt = t(l.x, "S(1)S(0)");
      V gwt = mm(xt, g, "P(sum)S(0)", "", "S(0)R");
      V gw = t(gwt, "P(sum)S(1)");
      grads.push_back({l.w, toCopy(gw, DType::F32, "P(sum)S(1)")});
      return gx;
    }
    // g [N, Dout] S(0)S(1)
    V wtt = t(l.wt, "S(0)S(0)");
    V gx = mm(g, wtt, "S(0)P(sum)", "S(0)S(1)", "RS(0)");
    V xt = t(l.x, "S(1)R");
    V gwt = mm(xt, g, "P(sum)S(1)", "", "S(0)S(1)");
    V gw = t(gwt, "P(sum)S(0)");
    grads.push_back({l.w, toCopy(gw, DType::F32, "P(sum)S(0)")});
    return gx;
  }

  struct Norm {
    V x32, rs, xr, w, out;
  };
  // RMSNorm in f32: x [B, S, D] bf16 S(0)R -> bf16 S(0)R. `want` is the spec the input must arrive in.
  Norm rmsnormFwd(V x, V w, const std::string& want = "") {
    Norm n{};
    n.w = w;
    TensorMeta m = b.meta(x);
    m.dtype = DType::F32;
    n.x32 = b.op("aten._to_copy.default", {Builder::T(x)}, m, "S(0)R", {want}, {{"dtype", A::dtype(DType::F32)}});
    V p = b.op("aten.pow.Tensor_Scalar", {Builder::T(n.x32), A::integer(2)}, m, "S(0)R");
    TensorMeta r = M({z.B, z.S, 1}, DType::F32);
    V mean = b.op("aten.mean.dim", {Builder::T(p), ints({-1}), A::boolean(true)}, r, "S(0)R");
    V eps = b.op("aten.add.Tensor", {Builder::T(mean), A::real(1e-05)}, r, "S(0)R");
    n.rs = b.op("aten.rsqrt.default", {Builder::T(eps)}, r, "S(0)R");
    n.xr = mul(n.x32, n.rs, "S(0)R");
    V y = mul(n.xr, w, "S(0)R");
    n.out = toCopy(y, DType::BF16, "S(0)R");
    return n;
  }
  V rmsnormBwd(const Norm& n, V g, const std::string& want, std::vector<std::pair<V, V>>& grads) {
    TensorMeta m = b.meta(n.x32);
    V g32 = b.op("aten._to_copy.default", {Builder::T(g)}, m, "S(0)R", {want}, {{"dtype", A::dtype(DType::F32)}});
    V gwm = mul(g32, n.xr, "S(0)R");
    V gw = b.op("aten.sum.dim_IntList", {Builder::T(gwm), ints({0, 1})}, M({z.D}, DType::F32), "P(sum)R");
    grads.push_back({n.w, gw});
    V gxr = mul(g32, n.w, "S(0)R");
    V t1 = mul(gxr, n.x32, "S(0)R");
    TensorMeta r = M({z.B, z.S, 1}, DType::F32);
    V s1 = b.op("aten.sum.dim_IntList", {Builder::T(t1), ints({2}), A::boolean(true)}, r, "S(0)R");
    V t2 = mul(gxr, n.rs, "S(0)R");
    V p = b.op("aten.pow.Tensor_Scalar", {Builder::T(n.rs), A::integer(3)}, r, "S(0)R");
    V ms = b.op("aten.mul.Scalar", {Builder::T(s1), A::real(-0.5)}, r, "S(0)R");
    V m2 = mul(ms, p, "S(0)R");
    V e = b.op("aten.expand.default", {Builder::T(m2), ints({z.B, z.S, z.D})}, m, "S(0)R");
    V d = b.op("aten.div.Scalar", {Builder::T(e), A::integer(z.D)}, m, "S(0)R");
    V p2 = b.op("aten.pow.Tensor_Scalar", {Builder::T(n.x32), A::real(1.0)}, m, "S(0)R");
    V m3 = b.op("aten.mul.Scalar", {Builder::T(p2), A::real(2.0)}, m, "S(0)R");
    V m4 = mul(d, m3, "S(0)R");
    V s = add(t2, m4, "S(0)R");
    return toCopy(s, DType::BF16, "S(0)R");
  }

  // Rotary embedding (rotate-half form) on [B, S, H, hd] S(0)S(2); cos/sin are [1, S, 1, hd] RR.
  V ropeFwd(V x, V cos, V sin) {
    const std::string sp = "S(0)S(2)";
    int64_t h = z.hd / 2;
    V m1 = mul(x, cos, sp);
    V x1 = slice(x, 3, 0, h, sp);
    V x2 = slice(x, 3, h, INT64_MAX, sp);
    V n = b.op("aten.neg.default", {Builder::T(x2)}, b.meta(x2), sp);
    V c = b.op("aten.cat.default", {A::list({Builder::T(n), Builder::T(x1)}), A::integer(-1)}, b.meta(x), sp);
    V m2 = mul(c, sin, sp);
    return add(m1, m2, sp);
  }
  V ropeBwd(V g, V cos, V sin) {
    const std::string sp = "S(0)S(2)";
    int64_t h = z.hd / 2;
    V gm1 = mul(g, cos, sp);
    V gc = mul(g, sin, sp);
    V gn = slice(gc, 3, 0, h, sp);
    V gx1 = slice(gc, 3, h, INT64_MAX, sp);
    V gx2 = b.op("aten.neg.default", {Builder::T(gn)}, b.meta(gn), sp);
    Arg full = ints({z.B, z.S, z.H, z.hd});
    V sb1 = b.op("aten.slice_backward.default",
                 {Builder::T(gx1), full, A::integer(3), A::integer(0), A::integer(h), A::integer(1)}, b.meta(g), sp);
    V sb2 = b.op("aten.slice_backward.default",
                 {Builder::T(gx2), full, A::integer(3), A::integer(h), A::integer(INT64_MAX), A::integer(1)},
                 b.meta(g), sp);
    V a = add(sb1, sb2, sp);
    return add(gm1, a, sp);
  }
};

struct LayerParams {
  V attnNorm, wq, wk, wv, wo, ffnNorm, w1, w2, w3;
};

struct LayerSaved {
  Model::Norm n1, n2;
  V x2d, q, k, v, o, lse, seed, off, o2d, a3, b3, s, ffx2d, m2d;
  Model::Linear lq, lk, lv, lo, l1, l2, l3;
};

// Points the builder's module path and forward source location at one line of llama/model.py.
void at(Builder& b, const std::string& mod, int line, const std::string& code) {
  b.module = mod;
  b.source = SourceLoc{"llama/model.py", line, "forward", code};
}

// The graph's placeholders, as addPlaceholders makes them.
struct Inputs {
  V emb;
  std::vector<LayerParams> lp;
  V normW, outW;
  int paramCount = 0;
  V tokens, labels, cosB, sinB, tangent;
};

// Adds every placeholder in FX order: params (f32, primals_1..) for `layers` layers, inputs, buffers, tangent.
Inputs addPlaceholders(Builder& b, const Sizes& z, int layers) {
  int primal = 0;
  auto param = [&](std::vector<int64_t> shape, const std::string& sp, const std::string& mod) {
    return b.placeholder("primals_" + std::to_string(++primal), PlaceholderKind::Param, M(shape, DType::F32), sp, mod);
  };
  V emb = param({z.V, z.D}, "S(0)R", "tok_embeddings");
  std::vector<LayerParams> lp(layers);
  for (int l = 0; l < layers; ++l) {
    std::string p = "layers." + std::to_string(l) + ".";
    lp[l].attnNorm = param({z.D}, "RR", p + "attention_norm");
    lp[l].wq = param({z.D, z.D}, "S(0)S(0)", p + "attention.wq");
    lp[l].wk = param({z.D, z.D}, "S(0)S(0)", p + "attention.wk");
    lp[l].wv = param({z.D, z.D}, "S(0)S(0)", p + "attention.wv");
    lp[l].wo = param({z.D, z.D}, "S(0)S(1)", p + "attention.wo");
    lp[l].ffnNorm = param({z.D}, "RR", p + "ffn_norm");
    lp[l].w1 = param({z.F, z.D}, "S(0)S(0)", p + "feed_forward.w1");
    lp[l].w2 = param({z.D, z.F}, "S(0)S(1)", p + "feed_forward.w2");
    lp[l].w3 = param({z.F, z.D}, "S(0)S(0)", p + "feed_forward.w3");
  }
  V normW = param({z.D}, "RR", "norm");
  V outW = param({z.V, z.D}, "S(0)S(0)", "output");
  int paramCount = primal;
  V tokens = b.placeholder("primals_" + std::to_string(++primal), PlaceholderKind::Input, M({z.B, z.S}, DType::I64),
                           "S(0)R", "");
  V labels = b.placeholder("primals_" + std::to_string(++primal), PlaceholderKind::Input, M({z.B, z.S}, DType::I64),
                           "S(0)R", "");
  V cosB = b.placeholder("primals_" + std::to_string(++primal), PlaceholderKind::Buffer, M({z.S, z.hd}, DType::BF16),
                         "RR", "rope");
  V sinB = b.placeholder("primals_" + std::to_string(++primal), PlaceholderKind::Buffer, M({z.S, z.hd}, DType::BF16),
                         "RR", "rope");
  V tangent = b.placeholder("tangents_1", PlaceholderKind::Tangent, M({}, DType::F32), "RR", "");
  return Inputs{emb, std::move(lp), normW, outW, paramCount, tokens, labels, cosB, sinB, tangent};
}

// One decoder layer's forward; run again at the start of its backward when recomputing (full activation
// checkpointing: the backward then reads the recomputed values, as torchtitan's `ac mode full` graphs do).
// Builds layer `l` on input `h` in the builder's current phase, fills `s`, returns the layer's output.
V layerForward(Model& md, const std::vector<LayerParams>& lp, V cos4, V sin4, int l, V h, LayerSaved& s) {
  Builder& b = md.b;
  const Sizes& z = md.z;
  std::string p = "layers." + std::to_string(l) + ".";
  at(b, p + "attention_norm", 70, "return self._norm(x.float()).type_as(x) * self.weight");
  s.n1 = md.rmsnormFwd(h, lp[l].attnNorm);
  at(b, p + "attention", 180, "bs, seqlen, _ = x.shape");
  s.x2d = md.view(s.n1.out, {z.N, z.D}, "S(0)R");
  auto proj = [&](V w, const char* name, Model::Linear& lin, int line) {
    at(b, p + "attention." + name, line, std::string("x") + name[1] + " = self." + name + "(x)");
    lin = md.linearFwd(s.x2d, w, false);
    V y3 = md.view(lin.y, {z.B, z.S, z.D}, "S(0)S(2)");
    at(b, p + "attention", line + 4, "xq = xq.view(bs, seqlen, self.n_heads, self.head_dim)");
    return md.view(y3, {z.B, z.S, z.H, z.hd}, "S(0)S(2)");
  };
  V q4 = proj(lp[l].wq, "wq", s.lq, 181);
  V k4 = proj(lp[l].wk, "wk", s.lk, 182);
  V v4 = proj(lp[l].wv, "wv", s.lv, 183);
  at(b, p + "attention", 190, "xq, xk = apply_rotary_emb(xq, xk, freqs_cis=freqs_cis)");
  V qr = md.ropeFwd(q4, cos4, sin4);
  V kr = md.ropeFwd(k4, cos4, sin4);
  at(b, p + "attention", 195, "xq = xq.transpose(1, 2)");
  s.q = md.transpose12(qr, "S(0)S(1)");
  s.k = md.transpose12(kr, "S(0)S(1)");
  s.v = md.transpose12(v4, "S(0)S(1)");
  at(b, p + "attention", 199, "output = F.scaled_dot_product_attention(xq, xk, xv, is_causal=True)");
  int64_t lseLen = (z.S + 31) / 32 * 32;
  V sd = b.call("aten._scaled_dot_product_efficient_attention.default", "_scaled_dot_product_efficient_attention",
                {Builder::T(s.q), Builder::T(s.k), Builder::T(s.v), A::none(), A::boolean(true), A::real(0.0),
                 A::boolean(true)},
                {}, {M({z.B, z.H, z.S, z.hd}, DType::BF16), M({z.B, z.H, lseLen}, DType::F32),
                     M({}, DType::I64), M({}, DType::I64)},
                {"S(0)S(1)", "S(0)S(1)", "RR", "RR"});
  s.o = b.getitem(sd, 0);
  s.lse = b.getitem(sd, 1);
  s.seed = b.getitem(sd, 2);
  s.off = b.getitem(sd, 3);
  at(b, p + "attention", 201, "output = output.transpose(1, 2).contiguous()");
  V oT = md.transpose12(s.o, "S(0)S(2)");
  V oc = b.op("aten.clone.default", {Builder::T(oT)}, b.meta(oT), "S(0)S(2)", {},
              {{"memory_format", A::symbol("torch.contiguous_format")}});
  V o3 = md.view(oc, {z.B, z.S, z.D}, "S(0)S(2)");
  s.o2d = md.view(o3, {z.N, z.D}, "S(0)S(1)");
  at(b, p + "attention.wo", 203, "return self.wo(output)");
  s.lo = md.linearFwd(s.o2d, lp[l].wo, true);
  V y3 = md.view(s.lo.y, {z.B, z.S, z.D}, "S(0)P(sum)");
  at(b, p.substr(0, p.size() - 1), 260, "h = x + self.attention(self.attention_norm(x), freqs_cis)");
  V h2 = md.add(h, y3, "S(0)R", {"", "S(0)R"});

  at(b, p + "ffn_norm", 70, "return self._norm(x.float()).type_as(x) * self.weight");
  s.n2 = md.rmsnormFwd(h2, lp[l].ffnNorm);
  at(b, p + "feed_forward", 230, "return self.w2(F.silu(self.w1(x)) * self.w3(x))");
  s.ffx2d = md.view(s.n2.out, {z.N, z.D}, "S(0)R");
  at(b, p + "feed_forward.w1", 230, "self.w1(x)");
  s.l1 = md.linearFwd(s.ffx2d, lp[l].w1, false);
  s.a3 = md.view(s.l1.y, {z.B, z.S, z.F}, "S(0)S(2)");
  at(b, p + "feed_forward", 230, "F.silu(self.w1(x))");
  s.s = b.op("aten.silu.default", {Builder::T(s.a3)}, b.meta(s.a3), "S(0)S(2)");
  at(b, p + "feed_forward.w3", 230, "self.w3(x)");
  s.l3 = md.linearFwd(s.ffx2d, lp[l].w3, false);
  s.b3 = md.view(s.l3.y, {z.B, z.S, z.F}, "S(0)S(2)");
  at(b, p + "feed_forward", 230, "F.silu(self.w1(x)) * self.w3(x)");
  V m = md.mul(s.s, s.b3, "S(0)S(2)");
  s.m2d = md.view(m, {z.N, z.F}, "S(0)S(1)");
  at(b, p + "feed_forward.w2", 230, "self.w2(...)");
  s.l2 = md.linearFwd(s.m2d, lp[l].w2, true);
  V f3 = md.view(s.l2.y, {z.B, z.S, z.D}, "S(0)P(sum)");
  at(b, p.substr(0, p.size() - 1), 261, "out = h + self.feed_forward(self.ffn_norm(h))");
  return md.add(h2, f3, "S(0)R", {"", "S(0)R"});
}

// The forward's tail (final norm, output projection, loss): what the backward reads again.
struct Head {
  Model::Norm fn;
  Model::Linear lout;
  V lsm, lbl, loss, totalWeight;
};

// Final norm, output projection and loss on the last layer's output `h`; names the plan's loss node.
Head forwardHead(Model& md, V h, V normW, V outW, V labels) {
  Builder& b = md.b;
  const Sizes& z = md.z;
  at(b, "norm", 70, "return self._norm(x.float()).type_as(x) * self.weight");
  Model::Norm fn = md.rmsnormFwd(h, normW);
  at(b, "output", 420, "output = self.output(h).float()");
  V fx2d = md.view(fn.out, {z.N, z.D}, "S(0)R");
  Model::Linear lout = md.linearFwd(fx2d, outW, false);
  V logits = md.toCopy(lout.y, DType::F32, "S(0)S(1)");
  at(b, "", 430, "loss = F.cross_entropy(pred.flatten(0, 1), labels.flatten(0, 1))");
  V lsm = b.op("aten._log_softmax.default", {Builder::T(logits), A::integer(1), A::boolean(false)}, b.meta(logits),
               "S(0)R", {"S(0)R"});
  V lbl = md.view(labels, {z.N}, "S(0)R");
  V nll = b.call("aten.nll_loss_forward.default", "nll_loss_forward",
                 {Builder::T(lsm), Builder::T(lbl), A::none(), A::integer(1), A::integer(-100)}, {},
                 {M({}, DType::F32), M({}, DType::F32)}, {"P(avg)R", "P(sum)R"});
  V loss = b.getitem(nll, 0);
  V totalWeight = b.getitem(nll, 1);
  b.plan.run.lossNode = b.plan.graph.nodes[loss.node].name;
  return Head{fn, lout, lsm, lbl, loss, totalWeight};
}

// The loss's and output projection's backward down through the final norm; returns the grad into the last layer.
V backwardHead(Model& md, const Head& hd, V tangent, std::vector<std::pair<V, V>>& grads) {
  Builder& b = md.b;
  const Sizes& z = md.z;
  const Model::Norm& fn = hd.fn;
  const Model::Linear& lout = hd.lout;
  V lsm = hd.lsm, lbl = hd.lbl, totalWeight = hd.totalWeight;
  b.module = "";
  V gl = b.op("aten.nll_loss_backward.default",
              {Builder::T(tangent), Builder::T(lsm), Builder::T(lbl), A::none(), A::integer(1), A::integer(-100),
               Builder::T(totalWeight)},
              b.meta(lsm), "S(0)R", {"", "", "", "RR"});
  V gls = b.op("aten._log_softmax_backward_data.default",
               {Builder::T(gl), Builder::T(lsm), A::integer(1), A::dtype(DType::F32)}, b.meta(lsm), "S(0)R");
  b.module = "output";
  V glb = md.toCopy(gls, DType::BF16, "S(0)R");
  V gx = md.linearBwd(lout, glb, grads);
  V gx3 = md.view(gx, {z.B, z.S, z.D}, "S(0)P(sum)");
  b.module = "norm";
  return md.rmsnormBwd(fn, gx3, "S(0)R", grads);
}

// One layer's feed-forward backward (module prefix `p`, e.g. "layers.3."): from the grad `gh` into its output to
// the grad into its residual input.
V ffnBackward(Model& md, const std::string& p, const LayerSaved& s, V gh, std::vector<std::pair<V, V>>& grads) {
  Builder& b = md.b;
  const Sizes& z = md.z;
  b.module = p + "feed_forward.w2";
  V gy = md.view(gh, {z.N, z.D}, "S(0)R");
  V gm2 = md.linearBwd(s.l2, gy, grads);
  b.module = p + "feed_forward";
  V gm = md.view(gm2, {z.B, z.S, z.F}, "S(0)S(2)");
  V gs = md.mul(gm, s.b3, "S(0)S(2)");
  V gb3 = md.mul(gm, s.s, "S(0)S(2)");
  b.module = p + "feed_forward.w3";
  V gb = md.view(gb3, {z.N, z.F}, "S(0)S(1)");
  V gxb = md.linearBwd(s.l3, gb, grads);
  b.module = p + "feed_forward";
  V ga3 = b.op("aten.silu_backward.default", {Builder::T(gs), Builder::T(s.a3)}, b.meta(s.a3), "S(0)S(2)");
  b.module = p + "feed_forward.w1";
  V ga = md.view(ga3, {z.N, z.F}, "S(0)S(1)");
  V gxa = md.linearBwd(s.l1, ga, grads);
  b.module = p + "feed_forward";
  V gff = md.add(gxa, gxb, "S(0)P(sum)");
  V gff3 = md.view(gff, {z.B, z.S, z.D}, "S(0)P(sum)");
  b.module = p + "ffn_norm";
  V gn2 = md.rmsnormBwd(s.n2, gff3, "S(0)R", grads);
  b.module = p.substr(0, p.size() - 1);
  return md.add(gh, gn2, "S(0)R");
}

// One layer's attention backward (module prefix `p`): from the grad `gh2` into the attention block's output to
// the grad into the layer's input.
V attentionBackward(Model& md, const std::string& p, const LayerSaved& s, V gh2, V cos4, V sin4,
                    std::vector<std::pair<V, V>>& grads) {
  Builder& b = md.b;
  const Sizes& z = md.z;
  b.module = p + "attention.wo";
  V gy2 = md.view(gh2, {z.N, z.D}, "S(0)R");
  V go2 = md.linearBwd(s.lo, gy2, grads);
  b.module = p + "attention";
  V go3 = md.view(go2, {z.B, z.S, z.D}, "S(0)S(2)");
  V go4 = md.view(go3, {z.B, z.S, z.H, z.hd}, "S(0)S(2)");
  V goT = md.transpose12(go4, "S(0)S(1)");
  V sb = b.call("aten._scaled_dot_product_efficient_attention_backward.default",
                "_scaled_dot_product_efficient_attention_backward",
                {Builder::T(goT), Builder::T(s.q), Builder::T(s.k), Builder::T(s.v), A::none(), Builder::T(s.o),
                 Builder::T(s.lse), Builder::T(s.seed), Builder::T(s.off), A::real(0.0),
                 A::list({A::boolean(true), A::boolean(true), A::boolean(true), A::boolean(false)}),
                 A::boolean(true)},
                {}, {b.meta(s.q), b.meta(s.k), b.meta(s.v), M({0}, DType::BF16)},
                {"S(0)S(1)", "S(0)S(1)", "S(0)S(1)", ""});
  V gq = md.transpose12(b.getitem(sb, 0), "S(0)S(2)");
  V gk = md.transpose12(b.getitem(sb, 1), "S(0)S(2)");
  V gv = md.transpose12(b.getitem(sb, 2), "S(0)S(2)");
  V gqr = md.ropeBwd(gq, cos4, sin4);
  V gkr = md.ropeBwd(gk, cos4, sin4);
  V gvc = b.op("aten.clone.default", {Builder::T(gv)}, b.meta(gv), "S(0)S(2)", {},
               {{"memory_format", A::symbol("torch.contiguous_format")}});
  auto back = [&](V g4, const Model::Linear& lin, const char* name) {
    b.module = p + "attention." + name;
    V g3 = md.view(g4, {z.B, z.S, z.D}, "S(0)S(2)");
    V g2 = md.view(g3, {z.N, z.D}, "S(0)S(1)");
    return md.linearBwd(lin, g2, grads);
  };
  V gxq = back(gqr, s.lq, "wq");
  V gxk = back(gkr, s.lk, "wk");
  V gxv = back(gvc, s.lv, "wv");
  b.module = p + "attention";
  V gsum = md.add(md.add(gxq, gxk, "S(0)P(sum)"), gxv, "S(0)P(sum)");
  V gsum3 = md.view(gsum, {z.B, z.S, z.D}, "S(0)P(sum)");
  b.module = p + "attention_norm";
  V gn1 = md.rmsnormBwd(s.n1, gsum3, "S(0)R", grads);
  b.module = p.substr(0, p.size() - 1);
  return md.add(gh2, gn1, "S(0)R");
}

// Appends the output node (loss, grad per param in primal order, None per input/buffer); where a grad's spec is
// not its param's, the node gets an input spec and a Redistribute.
void addOutput(Builder& b, V loss, int paramCount, const std::vector<std::pair<V, V>>& grads) {
  std::unordered_map<int, V> gradOf;
  for (auto& [pv, gv] : grads) gradOf[pv.node] = gv;
  Node out;
  out.name = "output";
  out.op = "output";
  out.kind = NodeKind::Output;
  out.phase = Phase::Backward;
  std::vector<Arg> items{Builder::T(loss)};
  std::vector<std::string> want{""};
  for (int n = 0; n < b.plan.graph.size() && static_cast<int>(items.size()) <= paramCount; ++n) {
    const Node& nd = b.plan.graph.nodes[n];
    if (nd.placeholderKind != PlaceholderKind::Param) continue;
    items.push_back(Builder::T(gradOf.at(n)));
    want.push_back(b.specOf(V{n, 0}));
  }
  for (int i = 0; i < 4; ++i) items.push_back(A::none());
  // Push the output node through the builder's spec logic by hand (it has no output specs).
  int idx = b.plan.graph.size();
  out.args = {A::list(std::move(items))};
  std::vector<TensorRef> refs;
  collectTensorRefs(out, refs);
  NodeSpecs ns;
  ns.inputs.assign(refs.size(), std::nullopt);
  for (size_t i = 0; i < refs.size(); ++i) {
    if (want[i].empty()) continue;
    const std::string& have = b.specOf(V{refs[i].node, refs[i].output});
    if (have == want[i]) continue;
    ns.inputs[i] = b.spec(want[i]);
    b.plan.redistributes.push_back(Redistribute{idx, static_cast<int>(i), b.spec(have), b.spec(want[i])});
  }
  b.plan.graph.nodes.push_back(std::move(out));
  b.plan.specs.push_back(std::move(ns));
}

}  // namespace

Plan makeLlamaPlan(const LlamaOptions& o) {
  if (o.layers < 0 || o.batch < 1 || o.seq < 1 || o.hidden < 1 || o.heads < 1 || o.ffnHidden < 1 || o.vocab < 1 ||
      o.dp < 1 || o.tp < 1)
    throw std::invalid_argument("llama generator: sizes must be positive");
  if (o.hidden % o.heads != 0 || (o.hidden / o.heads) % 2 != 0)
    throw std::invalid_argument("llama generator: hidden must be heads x an even head dim");
  Builder b(DeviceMesh({o.dp, o.tp}, {"dp", "tp"}));
  Sizes z{o.batch, o.seq, o.hidden, o.heads, o.hidden / o.heads, o.ffnHidden, o.vocab, o.batch * o.seq};
  Model md{b, z};
  b.plan.name = "llama-" + std::to_string(o.layers) + "l";
  b.plan.description = "LLaMA-like joint forward+backward graph, " + std::to_string(o.layers) + " layers, hidden " +
                       std::to_string(o.hidden) + ", seq " + std::to_string(o.seq) + ", batch " +
                       std::to_string(o.batch) + "; FSDP on dp, Megatron TP on tp (generated by shardscope gen)";

  // ---- placeholders: params (f32), inputs, buffers, tangent ----
  Inputs in = addPlaceholders(b, z, o.layers);

  // ---- forward ----
  b.phase = Phase::Forward;
  at(b, "tok_embeddings", 412, "h = self.tok_embeddings(tokens)");
  V embc = md.toCopy(in.emb, DType::BF16, "S(0)R");
  V h = b.op("aten.embedding.default", {Builder::T(embc), Builder::T(in.tokens)}, M({z.B, z.S, z.D}, DType::BF16),
             "S(0)R", {"RR", ""});
  at(b, "rope", 414, "freqs = self.freqs_cis[0:seqlen]");
  V cos4 = md.view(in.cosB, {1, z.S, 1, z.hd}, "RR");
  V sin4 = md.view(in.sinB, {1, z.S, 1, z.hd}, "RR");

  std::vector<LayerSaved> sv(o.layers);
  std::vector<V> layerInput(o.layers);
  for (int l = 0; l < o.layers; ++l) {
    layerInput[l] = h;
    int first = b.plan.graph.size();
    h = layerForward(md, in.lp, cos4, sin4, l, h, sv[l]);
    if (o.recompute)
      for (int n = first; n < b.plan.graph.size(); ++n) b.plan.graph.nodes[n].acRegion = std::to_string(l);
  }
  Head head = forwardHead(md, h, in.normW, in.outW, in.labels);

  // ---- backward ----
  b.phase = Phase::Backward;
  b.source = {};
  std::vector<std::pair<V, V>> grads;  // (param, grad)
  V gh = backwardHead(md, head, in.tangent, grads);

  for (int l = o.layers - 1; l >= 0; --l) {
    LayerSaved& s = sv[l];
    std::string p = "layers." + std::to_string(l) + ".";
    if (o.recompute) {
      int first = b.plan.graph.size();
      layerForward(md, in.lp, cos4, sin4, l, layerInput[l], s);  // recomputed activations replace the saved ones
      for (int n = first; n < b.plan.graph.size(); ++n) {
        b.plan.graph.nodes[n].phase = Phase::Backward;
        b.plan.graph.nodes[n].acRegion = std::to_string(l);
      }
      b.source = {};
    }
    // feed forward
    V gh2 = ffnBackward(md, p, s, gh, grads);

    // attention
    gh = attentionBackward(md, p, s, gh2, cos4, sin4, grads);
  }
  b.module = "tok_embeddings";
  V gemb = b.op("aten.embedding_dense_backward.default",
                {Builder::T(gh), Builder::T(in.tokens), A::integer(z.V), A::integer(-1), A::boolean(false)},
                M({z.V, z.D}, DType::BF16), "P(sum)R");
  grads.push_back({in.emb, md.toCopy(gemb, DType::F32, "P(sum)R")});

  // ---- output: (loss, grad per param in primal order, None per input/buffer) ----
  addOutput(b, head.loss, in.paramCount, grads);
  b.plan.graph.reindex();
  return std::move(b.plan);
}

}  // namespace ss::gen
