// CommDebugMode's generate_json_dump (core/io/dtensor/program.h): a module tree
// `{"fqn", "module_type", "parameters": [[name, "(Shard(dim=0),)"]], "children", "collectives_forward": [[name, n]],
// "collectives_backward", "operations_forward": [{"name", "input_shape": ["torch.Size([32, 16])"], "input_sharding":
// ["(Shard(dim=0),)"], "device_mesh": "DeviceMesh((tp=4), 'cpu', stride=(1,))", "is_bw"}], "operations_backward"}`.
// Each DTensor op is listed twice: with its shardings, then its local call without them; the local ones make no node.
#include <nlohmann/json.hpp>

#include "core/io/dtensor/compiled.h"
#include "core/io/dtensor/program.h"
#include "core/model/placement_parse.h"
#include "core/model/plan_builder.h"

namespace ss {

namespace {

using json = nlohmann::json;

// "torch.Size([32, 16])" -> [32, 16].
std::optional<std::vector<int64_t>> parseTorchSize(std::string_view s) {
  constexpr std::string_view kHead = "torch.Size([";
  if (!s.starts_with(kHead) || !s.ends_with("])")) return std::nullopt;
  return parseSizeList(s.substr(kHead.size(), s.size() - kHead.size() - 2));
}

struct CommReader {
  PlanBuilder pb{kProgramPlanFormat};
  DTensorProgram prog;
  std::optional<DeviceMesh> mesh;
  int count = 0;

  Result<bool> module(const json& m, const std::string& ptr) {
    if (!m.is_object() || !m.contains("fqn") || !m["fqn"].is_string()) return Error::atPointer("expected a module with \"fqn\"", ptr);
    std::string fqn = m["fqn"].get<std::string>();
    if (fqn == "Global") fqn.clear();
    // Collectives: counted in the module and again in every module above it; each module keeps its own.
    ModuleComm own{fqn};
    for (const char* key : {"collectives_forward", "collectives_backward"}) {
      auto c = m.find(key);
      if (c == m.end()) continue;
      if (!c->is_array()) return Error::atPointer("expected [[collective, count], ...]", ptr + "/" + key);
      int n = 0;
      for (const json& e : *c)
        if (e.is_array() && e.size() == 2 && e[1].is_number_integer()) n += e[1].get<int>();
      (std::string(key) == "collectives_forward" ? own.forwardCount : own.backwardCount) += n;
    }
    if (auto ch = m.find("children"); ch != m.end() && ch->is_array())
      for (const json& c : *ch)
        for (const char* key : {"collectives_forward", "collectives_backward"}) {
          auto cc = c.find(key);
          if (cc == c.end() || !cc->is_array()) continue;
          int n = 0;
          for (const json& e : *cc)
            if (e.is_array() && e.size() == 2 && e[1].is_number_integer()) n += e[1].get<int>();
          (std::string(key) == "collectives_forward" ? own.forwardCount : own.backwardCount) -= n;
        }
    if (own.forwardCount > 0 || own.backwardCount > 0) prog.recordedComm.push_back(own);
    for (const char* key : {"operations_forward", "operations_backward"}) {
      auto ops = m.find(key);
      if (ops == m.end()) continue;
      if (!ops->is_array()) return Error::atPointer("expected an array of operations", ptr + "/" + key);
      for (size_t i = 0; i < ops->size(); ++i)
        if (auto ok = op((*ops)[i], fqn, ptr + "/" + key + "/" + std::to_string(i)); !ok) return ok.error();
    }
    if (auto ch = m.find("children"); ch != m.end()) {
      if (!ch->is_array()) return Error::atPointer("expected an array of modules", ptr + "/children");
      for (size_t i = 0; i < ch->size(); ++i)
        if (auto ok = module((*ch)[i], ptr + "/children/" + std::to_string(i)); !ok) return ok.error();
    }
    return true;
  }

  Result<bool> op(const json& o, const std::string& module, const std::string& ptr) {
    if (!o.is_object() || !o.contains("name") || !o["name"].is_string()) return Error::atPointer("expected an operation with \"name\"", ptr);
    const json& shapes = o.value("input_shape", json::array());
    const json& shardings = o.value("input_sharding", json::array());
    if (!shapes.is_array() || !shardings.is_array() || shapes.size() != shardings.size())
      return Error::atPointer("expected input_shape and input_sharding of one length", ptr);
    if (shardings.empty()) return true;  // the local call of the DTensor op before it
    const std::string meshText = o.value("device_mesh", "");
    auto m = parseDeviceMeshRepr(meshText);
    if (!m) return Error::atPointer("expected a DeviceMesh repr such as \"DeviceMesh((tp=4), 'cpu', stride=(1,))\"", ptr + "/device_mesh");
    if (!mesh) {
      mesh = *m;
      if (auto ok = pb.setMesh(m->shape(), m->dimNames(), Where::at(1, 1)); !ok) return ok.error();
    } else if (!(*mesh == *m)) {
      return Error::atPointer("a second mesh (" + meshText + "): one program, one mesh", ptr + "/device_mesh");
    }
    std::vector<int> inputs;
    std::vector<ShardingSpec> specs;
    for (size_t k = 0; k < shapes.size(); ++k) {
      const std::string kp = ptr + "/input_shape/" + std::to_string(k);
      if (!shapes[k].is_string()) return Error::atPointer("expected \"torch.Size([...])\"", kp);
      auto shape = parseTorchSize(shapes[k].get<std::string>());
      if (!shape) return Error::atPointer("expected \"torch.Size([...])\"", kp);
      if (!shardings[k].is_string()) return Error::atPointer("expected a placement tuple", ptr + "/input_sharding/" + std::to_string(k));
      ParseContext ctx;
      ctx.mesh = &*mesh;
      auto spec = parseSpec(shardings[k].get<std::string>(), ctx);
      if (!spec) return Error::atPointer(spec.error().message, ptr + "/input_sharding/" + std::to_string(k));
      int idx = -1;
      Node& n = pb.beginNode(&idx);
      n.name = "input_" + std::to_string(count) + "_" + std::to_string(k);
      n.op = "placeholder";
      n.kind = NodeKind::Placeholder;
      n.placeholderKind = PlaceholderKind::Input;
      TensorMeta meta;
      meta.shape = *shape;
      meta.dtype = DType::Unknown;
      n.outputs = {meta};
      auto e = pb.endNode(Where(ptr));
      if (!e) return e.error();
      pb.setOutputSpec(*e, 0, *spec);
      inputs.push_back(*e);
      specs.push_back(*spec);
    }
    int idx = -1;
    Node& n = pb.beginNode(&idx);
    const std::string name = o["name"].get<std::string>();
    std::string base = name.substr(name.find('.') + 1);
    base = base.substr(0, base.find('.'));
    n.name = base + "_" + std::to_string(count++);
    n.op = name;
    for (int in : inputs) n.args.push_back(Arg::tensor({in, 0}));
    TensorMeta out;
    out.known = false;
    n.outputs = {out};
    n.modulePath = module;
    n.phase = o.value("is_bw", false) ? Phase::Backward : Phase::Forward;
    auto e = pb.endNode(Where(ptr));
    if (!e) return e.error();
    for (size_t k = 0; k < specs.size(); ++k) pb.setInputSpec(*e, static_cast<int>(k), specs[k]);
    return true;
  }
};

}  // namespace

bool looksLikeCommDebugJson(std::string_view head) {
  return head.find("\"fqn\"") != std::string_view::npos && head.find("\"module_type\"") != std::string_view::npos &&
         head.find("\"children\"") != std::string_view::npos;
}

Result<DTensorProgram> programFromCommDebugJson(const json& j, const ProgramOptions& opts) {
  CommReader r;
  r.prog.source = ProgramSource::CommDebugJson;
  if (auto ok = r.module(j, ""); !ok) return ok.error();
  if (!r.mesh) return Error::atPointer("a CommDebugMode dump with no DTensor operation (no input_sharding anywhere)", "");
  if (opts.mesh && !(*opts.mesh == *r.mesh)) return Error::atPointer("the dump's mesh is " + r.mesh->toString() + ", not the one given", "");
  r.prog.meshFrom = "the dump's DeviceMesh";
  auto plan = r.pb.finish();
  if (!plan) return plan.error();
  r.prog.plan = std::move(*plan);
  return std::move(r.prog);
}

}  // namespace ss
