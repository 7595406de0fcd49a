// autoparallel's placements file, keyed by node name:
//   {"version": 1, "mesh_shape": [2, 4], "mesh_dim_names": ["dp", "tp"] | null,
//    "placements": {"mm": {"output": "S(0)S(1)", "inputs": ["S(0)R", "RS(1)"]}, "getitem": "RS(0)", ...}}
// A value is either the object form (output spec or tuple "(RS(0), None)", plus one input spec per input from a
// node the file names; null = as produced) or a bare output string (the form autoparallel's
// save_solution/load_solution use). Applying it to a graph sets sourceFormat = AutoparallelPlacements and replaces
// the named nodes' specs; nodes the file does not name keep theirs unless the mesh's dimension count changes (then
// every spec and redistribute is dropped: they cannot be reinterpreted). Writing it gives what save_placements()
// writes for the same plan (writePlacementsJson below).
#include <map>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "core/io/formats.h"
#include "core/io/json_util.h"
#include "core/model/placement_parse.h"
#include "core/model/plan_builder.h"

namespace ss {
namespace {

using nlohmann::json;
using namespace jsonutil;

std::string specString(const std::optional<ShardingSpec>& s) { return s ? s->toMeshString() : "None"; }


}  // namespace

Result<Plan> applyPlacementsJson(const Plan& graphPlan, const json& j) {
  if (!j.is_object()) return typeError("", "a JSON object (placements file)", j);
  if (const json* v = member(j, "version")) {
    if (!v->is_number_integer() || v->get<int64_t>() != 1)
      return Error::atPointer("unsupported placements version " + v->dump() + " (expected 1)", "/version");
  }
  // The specs are now a solver's solution: the checker reads src != dst edges the way it reads an export's.
  PlanBuilder b(graphPlan, PlanFormat::AutoparallelPlacements);
  if (auto m = readMesh(member(j, "mesh_shape"), member(j, "mesh_dim_names"), Where("mesh_shape"), Where("mesh_shape"),
                        Where("mesh_dim_names"), b);
      !m)
    return m.error();
  const json* pl = member(j, "placements");
  if (!pl) return missingKey("", "placements");
  if (!pl->is_object()) return typeError("/placements", "an object keyed by node name", *pl);

  Plan& plan = b.plan();
  std::vector<TensorRef> refs;
  std::vector<size_t> fromPlaced;  // indices into refs of the inputs whose producer the file names
  for (auto it = pl->begin(); it != pl->end(); ++it) {
    std::string ptr = "/placements/" + escapePointerToken(it.key());
    const Where where = Where("placements")(it.key());
    int node = b.find(it.key());
    if (node < 0) return Error::atPointer("no node named '" + it.key() + "' in the graph", ptr);
    const Node& n = plan.graph.nodes[node];
    NodeSpecs& specs = plan.specs[node];
    const json* out = &it.value();
    const json* ins = nullptr;
    std::string outPtr = ptr;
    if (it.value().is_object()) {
      // A misspelt key would silently drop what it holds (K2 in docs/reliability.md): only these two exist.
      for (auto k = it.value().begin(); k != it.value().end(); ++k)
        if (k.key() != "output" && k.key() != "inputs")
          return Error::atPointer("unknown key (expected output, inputs)", ptr + "/" + escapePointerToken(k.key()));
      out = member(it.value(), "output");
      ins = member(it.value(), "inputs");
      outPtr = ptr + "/output";
    }
    if (out && n.kind != NodeKind::Output) {
      auto s = readPlacementTuple(*out, b, out == &it.value() ? where : where("output"));
      if (!s) return s.error();
      if ((*s)->size() != specs.outputs.size())
        return Error::atPointer(std::to_string((*s)->size()) + " output spec(s) for a node with " +
                                    std::to_string(specs.outputs.size()) + " output(s)",
                                outPtr);
      specs.outputs = **s;  // a shard dim past its tensor's rank is a finding (Plan::validate)
    }
    if (ins) {
      if (!ins->is_array()) return typeError(ptr + "/inputs", "an array with one spec (or null) per tensor input", *ins);
      refs.clear();
      collectTensorRefs(n, refs);
      // The file names the nodes the solver placed; a strategy lists input specs for inputs from these only (an
      // input from a symbolic scalar such as `sym_size_int` in `view(x, [sym_size_int, 64, -1, 48])` has none).
      fromPlaced.clear();
      for (size_t k = 0; k < refs.size(); ++k)
        if (pl->contains(plan.graph.nodes[refs[k].node].name)) fromPlaced.push_back(k);
      // save_placements() gives placeholders, get_attr nodes and factories (no tensor input, or only symbolic
      // scalars) one dummy input spec equal to their output: {"output": "RR", "inputs": ["RR"]}.
      if (fromPlaced.empty() && ins->size() == 1 && out && (*ins)[0] == *out) ins = nullptr;
    }
    if (ins) {
      const bool byPlaced = ins->size() != refs.size() && ins->size() == fromPlaced.size();
      if (ins->size() != refs.size() && !byPlaced)
        return Error::atPointer(std::to_string(ins->size()) + " input spec(s) for a node with " +
                                    std::to_string(refs.size()) + " tensor input(s)",
                                ptr + "/inputs");
      for (size_t j = 0; j < ins->size(); ++j) {
        const size_t k = byPlaced ? fromPlaced[j] : j;  // the input index the j-th spec is for
        std::string iptr = ptr + "/inputs/" + std::to_string(j);
        const json& v = (*ins)[j];
        if (v.is_null()) {
          specs.inputs[k] = std::nullopt;
          continue;
        }
        auto s = readPlacementTuple(v, b, where("inputs", static_cast<int64_t>(j)));
        if (!s) return s.error();
        if ((*s)->size() != 1) return Error::atPointer("an input takes one spec, not a tuple", iptr);
        specs.inputs[k] = (**s)[0];
      }
    }
  }
  return b.finish();
}

Result<Plan> applyPlacementsJson(const Plan& graphPlan, const json& j, bool insertTransitions) {
  auto r = applyPlacementsJson(graphPlan, j);
  if (!r || !insertTransitions) return r;
  // As a correct apply pass would: every transition the placements plan, a redistribute (Plan::plannedTransitions).
  const std::vector<Redistribute> planned = r->plannedTransitions();
  r->redistributes.insert(r->redistributes.end(), planned.begin(), planned.end());
  return r;
}

namespace {

std::string outputsString(const NodeSpecs& sp) {
  if (sp.outputs.size() == 1) return specString(sp.outputs[0]);
  std::string out = "(";
  for (size_t k = 0; k < sp.outputs.size(); ++k) out += (k ? ", " : "") + specString(sp.outputs[k]);
  return out + ")";
}

bool anySet(const std::vector<std::optional<ShardingSpec>>& v) {
  for (const auto& s : v)
    if (s) return true;
  return false;
}

}  // namespace

// The file save_placements() writes (autoparallel a54c252, serialization.py): one entry per node the solver gave
// a strategy, {"output": <its output specs>, "inputs": <its input specs>}, both as DTensor's _pretty_print_spec
// prints them. The rules, as autoparallel's sources and the real runs' own files (tests/data/real/*/) show them:
// - The nodes: every node with an output spec; in a solver's plan also each call producing a tensor whose
//   strategy places nothing: one the solver costed (its export gives every node it has a strategy for a compute
//   cost), placed "None" (a getitem of a tuple element the solver leaves unplaced, dsv3's local_map_hop). Shape
//   computations (sym_size, operator.*) and higher-order ops' subgraph get_attrs get no
//   strategy (ShardingOptimizer.build_sharding_metadata) and no entry; the output node has none either (its
//   loader would fail on an entry without "output").
// - A strategy's input specs are one per input from a node the file names (_all_input_nodes): an input from a
//   symbolic scalar (`view(x, [sym_size_int, 64, 32])`) has none. Each is the spec the op consumes that input in:
//   what the redistribute on that edge makes, else the input spec, else the producer's output spec; "None" where
//   none is known.
// - A node with no such input (placeholder, get_attr, factory: `full`) carries one input spec equal to its output
//   (autoparallel's placeholder options list the output as the input).
// A strategy autoparallel offers has the input specs the op's sharding rule needs for its output: a plan the
// checker finds clean at a node gives exactly that (docs/import-formats.md, "Back to autoparallel").
json writePlacementsJson(const Plan& plan, PlacementsStyle style) {
  json placements = json::object();
  std::vector<char> named(plan.graph.size(), 0);  // nodes written so far (the graph is in topological order)
  std::vector<TensorRef> refs;
  const bool solver = plan.isSolverSolution();
  std::map<std::pair<int, int>, const ShardingSpec*> redistributed;  // (node, input) -> what its redistribute makes
  for (const Redistribute& r : plan.redistributes) redistributed.emplace(std::pair{r.node, r.input}, &r.to);
  for (int i = 0; i < plan.graph.size() && i < static_cast<int>(plan.specs.size()); ++i) {
    const Node& n = plan.graph.nodes[i];
    if (n.kind == NodeKind::Output) continue;
    const NodeSpecs& sp = plan.specs[i];
    const bool hasOut = anySet(sp.outputs);
    if (style == PlacementsStyle::OutputOnly) {
      if (hasOut) placements[n.name] = outputsString(sp);
      continue;
    }
    refs.clear();
    collectTensorRefs(n, refs);
    json ins = json::array();
    for (size_t k = 0; k < refs.size(); ++k) {
      if (refs[k].node < 0 || refs[k].node >= i || !named[refs[k].node]) continue;
      auto r = redistributed.find({i, static_cast<int>(k)});
      const ShardingSpec* c = r != redistributed.end() ? r->second : plan.consumerSpecPtr(i, static_cast<int>(k));
      ins.push_back(c ? c->toMeshString() : std::string("None"));
    }
    if (!hasOut) {
      // A tensor the solver left unplaced ("None"); or (not a solver's plan) input specs with no output spec:
      // {"output": null, "inputs": [...]}, so those are not dropped.
      if (solver && n.kind == NodeKind::Call && n.computeCost >= 0) {
        named[i] = 1;
        placements[n.name] = {{"output", outputsString(sp)}, {"inputs", ins.empty() ? json({outputsString(sp)}) : ins}};
      } else if (anySet(sp.inputs) && !ins.empty()) {
        named[i] = 1;
        placements[n.name] = {{"output", nullptr}, {"inputs", std::move(ins)}};
      }
      continue;
    }
    named[i] = 1;
    const std::string out = outputsString(sp);
    if (ins.empty()) ins.push_back(out);
    placements[n.name] = {{"output", out}, {"inputs", std::move(ins)}};
  }
  json j;
  j["version"] = 1;
  j["mesh_shape"] = plan.mesh.shape();
  j["mesh_dim_names"] = plan.mesh.hasNames() ? json(plan.mesh.dimNames()) : json(nullptr);
  j["placements"] = std::move(placements);
  return j;
}

json writePlacementsJson(const Plan& plan) { return writePlacementsJson(plan, PlacementsStyle::WithInputs); }

}  // namespace ss
