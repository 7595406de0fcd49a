// autoparallel's placements file, keyed by node name:
//   {"version": 1, "mesh_shape": [2, 4], "mesh_dim_names": ["dp", "tp"] | null,
//    "placements": {"mm": {"output": "S(0)S(1)", "inputs": ["S(0)R", "RS(1)"]}, "getitem": "RS(0)", ...}}
// A value is either the object form (output spec or tuple "(RS(0), None)", plus one input spec per tensor input,
// null = as produced) or a bare output string (the form autoparallel's save_solution/load_solution use).
// Applying it to a graph sets sourceFormat = AutoparallelPlacements and replaces the named nodes' specs; nodes
// the file does not name keep theirs unless the mesh's dimension count changes (then every spec and
// redistribute is dropped: they cannot be reinterpreted).
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


// One entry per tensor input: the input spec as set, null where none is (as produced). Not the producer's spec
// in its place: re-applying must give the same specs (found by fuzz_placements_json, docs/reliability.md).
json inputSpecs(const NodeSpecs& sp, size_t inputs) {
  json ins = json::array();
  for (size_t k = 0; k < inputs; ++k)
    ins.push_back(k < sp.inputs.size() && sp.inputs[k] ? json(sp.inputs[k]->toMeshString()) : json(nullptr));
  return ins;
}

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

json writePlacementsJson(const Plan& plan, PlacementsStyle style) {
  json placements = json::object();
  std::vector<TensorRef> refs;
  for (int i = 0; i < plan.graph.size(); ++i) {
    const Node& n = plan.graph.nodes[i];
    if (i >= static_cast<int>(plan.specs.size())) continue;
    const NodeSpecs& sp = plan.specs[i];
    refs.clear();
    collectTensorRefs(n, refs);
    if (n.kind == NodeKind::Output) {
      // autoparallel does not solve the output node; its input specs (e.g. gradients reduce-scattered to the
      // parameters' specs) are written when set, as {"inputs": [...]} with no "output".
      bool anyIn = false;
      for (auto& s : sp.inputs) anyIn |= s.has_value();
      if (!anyIn || style == PlacementsStyle::OutputOnly) continue;
      placements[n.name] = {{"inputs", inputSpecs(sp, refs.size())}};
      continue;
    }
    bool any = false;
    for (auto& s : sp.outputs) any |= s.has_value();
    if (!any) {
      // No output spec but input specs: {"output": null, "inputs": [...]}, so the inputs are not dropped.
      if (style == PlacementsStyle::OutputOnly) continue;
      bool anyIn = false;
      for (auto& s : sp.inputs) anyIn |= s.has_value();
      if (!anyIn) continue;
      placements[n.name] = {{"output", nullptr}, {"inputs", inputSpecs(sp, refs.size())}};
      continue;
    }
    std::string out;
    if (sp.outputs.size() == 1) {
      out = specString(sp.outputs[0]);
    } else {
      out = "(";
      for (size_t k = 0; k < sp.outputs.size(); ++k) out += (k ? ", " : "") + specString(sp.outputs[k]);
      out += ")";
    }
    if (style == PlacementsStyle::OutputOnly) {
      placements[n.name] = out;
      continue;
    }
    placements[n.name] = {{"output", out}, {"inputs", inputSpecs(sp, refs.size())}};
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
