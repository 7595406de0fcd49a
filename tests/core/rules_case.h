#pragma once
// Test helper for the sharding rules: one op, its inputs' shapes and specs, run through the op's rule.
//   RuleCase c({2, 4}, "aten.add.Tensor");
//   c.args({c.in({16, 128}, "S(0)R"), c.in({128}, "RR")}).out({16, 128});
//   CHECK(c.outSpec() == "S(0)R");
// Tensor inputs are numbered in the order in() is called: call it in argument order.
#include <string>
#include <vector>

#include "core/ops/op_shapes.h"
#include "core/model/placement_parse.h"
#include "core/rules/rules.h"

namespace ss::test {

struct RuleCase {
  DeviceMesh mesh;
  Node node;
  std::vector<TensorMeta> metas;
  rules::SpecList specs;
  rules::SpecList declared;
  rules::RuleResult result;
  bool complete = true;
  void argsComplete(bool c) { complete = c; }

  RuleCase(std::vector<int64_t> meshShape, std::string op) : mesh(std::move(meshShape)) {
    node.op = std::move(op);
    node.name = rules::ruleKey(node.op);
  }
  std::optional<ShardingSpec> spec(const std::string& s) const {
    if (s.empty()) return std::nullopt;
    ParseContext pc;
    pc.mesh = &mesh;
    auto r = parseSpec(s, pc);
    if (!r.ok()) throw std::runtime_error("bad spec in test: " + s);
    return r.value();
  }
  Arg in(std::vector<int64_t> shape, const std::string& s, DType dt = DType::F32) {
    TensorMeta m;
    m.shape = std::move(shape);
    m.dtype = dt;
    metas.push_back(m);
    specs.push_back(spec(s));
    return Arg::tensor({static_cast<int>(metas.size()) - 1, 0});
  }
  RuleCase& args(std::vector<Arg> a) {
    node.args = std::move(a);
    return *this;
  }
  RuleCase& kwarg(std::string k, Arg v) {
    node.kwargs.push_back({std::move(k), std::move(v)});
    return *this;
  }
  RuleCase& out(std::vector<int64_t> shape, DType dt = DType::F32) {
    TensorMeta m;
    m.shape = std::move(shape);
    m.dtype = dt;
    node.outputs.push_back(m);
    return *this;
  }
  RuleCase& declare(const std::string& s) {
    declared.push_back(spec(s));
    return *this;
  }
  const rules::RuleResult& run() {
    if (node.outputs.empty()) out({});
    rules::RuleContext ctx;
    ctx.node = &node;
    ctx.mesh = &mesh;
    for (const auto& m : metas) ctx.inMetas.push_back(&m);
    ctx.inSpecs = specs;
    ctx.declaredOut = declared;
    ctx.argsComplete = complete;
    rules::RuleFn f = rules::findRule(node.op);
    if (!f) throw std::runtime_error("no rule for " + node.op);
    result = f(ctx);
    return result;
  }
  // The output spec as text; "error", "partial-into-nonlinear" or "bad-shapes" when the rule refuses; "none" when
  // the rule cannot tell.
  std::string outSpec(int o = 0) {
    run();
    if (result.verdict == rules::Verdict::Incompatible) return "error";
    if (result.verdict == rules::Verdict::PartialIntoNonlinear) return "partial-into-nonlinear";
    if (result.verdict == rules::Verdict::BadShapes) return "bad-shapes";
    if (o >= static_cast<int>(result.outputs.size()) || !result.outputs[o]) return "none";
    return result.outputs[o]->toMeshString();
  }
  std::string want() const { return result.want ? result.want->toMeshString() : "none"; }
  // Output o's shape as the op table (core/ops/op_shapes.h) gives it for this case's inputs; nullopt when it
  // cannot tell or the inputs do not fit.
  std::optional<std::vector<int64_t>> shape(int o = 0) const {
    auto r = ops::inferOutputs(node, [this](TensorRef t) { return t.node >= 0 && t.node < static_cast<int>(metas.size()) ? &metas[t.node] : nullptr; }, complete);
    if (r.verdict != ops::ShapeVerdict::Known || o >= static_cast<int>(r.outputs.size()) || !r.outputs[o].known)
      return std::nullopt;
    return r.outputs[o].shape;
  }
};

inline Arg ints(std::vector<int64_t> v) {
  std::vector<Arg> a;
  for (auto x : v) a.push_back(Arg::integer(x));
  return Arg::list(std::move(a));
}
inline Arg I(int64_t v) { return Arg::integer(v); }
inline Arg F(double v) { return Arg::real(v); }
inline Arg B(bool v) { return Arg::boolean(v); }

}  // namespace ss::test
