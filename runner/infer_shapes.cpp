// Meta-tensor shape inference with LibTorch (see runner/infer_shapes.h). Reuses the runner's executor:
// failed nodes become placeholders with their known (or dummy) values and the run restarts after them.
#include "runner/infer_shapes.h"

#include <cstdio>
#include <iostream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "core/io/formats.h"
#include "core/io/load/load.h"
#include "core/io/native/plan_json.h"
#include "runner/torch_internal.h"

namespace ss::runner {
namespace {

DType dtypeOf(at::ScalarType t) {
  switch (t) {
    case at::kFloat: return DType::F32;
    case at::kHalf: return DType::F16;
    case at::kBFloat16: return DType::BF16;
    case at::kDouble: return DType::F64;
    case at::kLong: return DType::I64;
    case at::kInt: return DType::I32;
    case at::kShort: return DType::I16;
    case at::kChar: return DType::I8;
    case at::kByte: return DType::U8;
    case at::kBool: return DType::Bool;
    case at::kComplexFloat: return DType::C64;
    default: return DType::Unknown;
  }
}

bool allKnown(const Node& n) {
  if (n.outputs.empty()) return false;
  for (const auto& m : n.outputs)
    if (!m.known) return false;
  return true;
}

// Device arguments would move meta tensors to a real device: drop them (None keeps the input's device).
void dropDevices(Arg& a) {
  if (a.kind == Arg::Kind::Device) a = Arg::none();
  for (auto& x : a.items) dropDevices(x);
}

at::Tensor metaTensor(const TensorMeta& m) {
  at::ScalarType t = m.dtype == DType::Unknown ? at::kFloat : computeType(m.dtype, at::ScalarType::Undefined);
  return at::empty(m.shape, at::TensorOptions().dtype(t).device(c10::kMeta));
}

}  // namespace

MetaInferReport inferShapesOnMeta(Plan& plan) {
  MetaInferReport rep;
  Plan work = plan;
  Graph& g = work.graph;
  for (auto& node : g.nodes) {
    for (auto& a : node.args) dropDevices(a);
    for (auto& kv : node.kwargs) dropDevices(kv.second);
  }
  g.reindex();
  const int n = g.size();
  Values values(n);
  // blocked[i]: the op whose failure keeps node i unknown (-1 = none)
  std::vector<int> blocked(n, -1);
  std::map<int, std::string> reasons;  // failing node -> reason
  auto freeze = [&](int i) {           // node i no longer runs: a placeholder with its known value, or a dummy
    g.nodes[i].kind = NodeKind::Placeholder;
    const Node& orig = plan.graph.nodes[i];
    values[i].clear();
    for (const auto& m : orig.outputs) values[i].push_back(m.known ? metaTensor(m) : metaTensor(TensorMeta{}));
    if (values[i].empty()) values[i].push_back(metaTensor(TensorMeta{}));
  };
  for (int i = 0; i < n; ++i) {
    const Node& node = g.nodes[i];
    if (node.kind == NodeKind::Placeholder) {
      if (allKnown(node)) {
        for (const auto& m : node.outputs) values[i].push_back(metaTensor(m));
      } else {
        blocked[i] = i;
        reasons[i] = "placeholder shape unknown";
        freeze(i);
      }
    } else if (node.kind == NodeKind::Call && g.inputs(i).empty()) {
      // factories run on no tensor: core sized them from their args; never allocate them here
      if (!allKnown(plan.graph.nodes[i])) {
        blocked[i] = i;
        reasons[i] = "factory op sized by args only (core has no rule)";
      }
      freeze(i);
    }
  }
  // propagate blocking from frozen unknowns, then run; each failure freezes the node and its dependents
  auto propagate = [&]() {
    for (int i = 0; i < n; ++i) {
      if (g.nodes[i].kind != NodeKind::Call || blocked[i] >= 0) continue;
      for (const auto& r : g.inputs(i))
        if (blocked[r.node] >= 0) {
          blocked[i] = blocked[r.node];
          freeze(i);
          break;
        }
    }
  };
  propagate();
  ExecEnv env;
  env.plan = &work;
  env.rank = -1;
  env.floatType = at::ScalarType::Undefined;
  for (int attempt = 0; attempt <= n; ++attempt) {
    try {
      runGraph(env, values);
      break;
    } catch (const NodeError& e) {
      int f = e.node;
      if (f < 0 || f >= n || blocked[f] >= 0) break;  // cannot make progress: stop
      blocked[f] = f;
      std::string why = e.what();
      size_t cut = why.find(". ");  // ATen's "no kernel for backend" messages run on for lines
      if (cut != std::string::npos && cut < why.size() - 2) why = why.substr(0, cut);
      reasons[f] = why;
      freeze(f);
      propagate();
    } catch (const std::exception& e) {
      reasons[-1] = conciseMessage(e);
      break;
    }
  }
  std::map<std::string, std::pair<int, std::string>> misses;  // op -> (count, "first x: reason")
  for (int i = 0; i < n; ++i) {
    Node& orig = plan.graph.nodes[i];
    if (orig.kind != NodeKind::Call || allKnown(orig)) continue;
    if (blocked[i] >= 0) {
      int cause = blocked[i];
      const Node& c = plan.graph.nodes[cause];
      auto& m = misses[c.op];
      if (m.first++ == 0) m.second = c.name + ": " + reasons[cause];
      continue;
    }
    std::vector<TensorMeta> metas;
    for (const auto& t : values[i]) {
      if (!t.defined()) {
        metas.push_back(TensorMeta{{}, DType::Unknown, false});
        continue;
      }
      metas.push_back(TensorMeta{std::vector<int64_t>(t.sizes().begin(), t.sizes().end()), dtypeOf(t.scalar_type()), true});
    }
    if (metas.size() < orig.outputs.size()) metas.resize(orig.outputs.size(), TensorMeta{{}, DType::Unknown, false});
    for (size_t k = 0; k < orig.outputs.size() && k < metas.size(); ++k)
      if (orig.outputs[k].known) metas[k] = orig.outputs[k];
    orig.outputs = std::move(metas);
    rep.changed.push_back(i);
    ++rep.inferred;
  }
  for (auto& [op, m] : misses)
    rep.unresolved.push_back(op + ": " + std::to_string(m.first) + (m.first == 1 ? " node" : " nodes") + " (first " +
                             m.second + ")");
  if (reasons.count(-1)) rep.unresolved.push_back("run stopped: " + reasons[-1]);
  plan.normalizeSpecs();
  return rep;
}

int inferShapesMain(int argc, char** argv) {
  std::string in, out;
  bool json = false;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "infer-shapes" && i == 0) continue;
    if ((a == "-o" || a == "--output") && i + 1 < argc) out = argv[++i];
    else if (a == "--json") json = true;
    else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "shardscope-runner infer-shapes: unknown flag '%s'\n", a.c_str());
      return 2;
    } else if (in.empty()) in = a;
    else {
      std::fprintf(stderr, "shardscope-runner infer-shapes: more than one FILE\n");
      return 2;
    }
  }
  if (in.empty()) {
    std::fprintf(stderr, "usage: shardscope-runner infer-shapes FILE [-o OUT.plan.json] [--json]\n");
    return 2;
  }
  auto plan = loadPlanFile(in);
  if (!plan) {
    std::fprintf(stderr, "%s\n", plan.error().toString(in).c_str());
    return 2;
  }
  MetaInferReport rep = inferShapesOnMeta(*plan);
  if (!out.empty()) {
    auto w = writeFileAtomic(out, writePlanString(*plan));
    if (!w) {
      std::fprintf(stderr, "%s\n", w.error().toString(out).c_str());
      return 2;
    }
  }
  if (json) {
    nlohmann::json nodes = nlohmann::json::object();
    for (int i : rep.changed) {
      nlohmann::json metas = nlohmann::json::array();
      for (const auto& m : plan->graph.nodes[i].outputs)
        metas.push_back(m.known ? nlohmann::json{{"shape", m.shape}, {"dtype", dtypeName(m.dtype)}} : nlohmann::json(nullptr));
      nodes[plan->graph.nodes[i].name] = metas;
    }
    std::cout << nlohmann::json{{"inferred", rep.inferred}, {"unresolved", rep.unresolved}, {"nodes", nodes}}.dump()
              << "\n";
  } else {
    std::cout << "inferred " << rep.inferred << " node(s) on meta tensors\n";
    for (const auto& u : rep.unresolved) std::cout << "unresolved: " << u << "\n";
  }
  return rep.unresolved.empty() ? 0 : 1;
}

}  // namespace ss::runner
