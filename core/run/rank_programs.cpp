// core/run/rank_programs.h: symbols bound into the graphs, the programs read from TORCH_TRACE
// logs, their text form for the runner child, and the refusals before anything runs. No Torch here.
#include <algorithm>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "core/applied/session.h"
#include "core/io/autoparallel/artifacts.h"
#include "core/io/load/load.h"
#include "core/io/native/plan_json.h"
#include "core/io/trace/trace_log.h"
#include "core/model/limits.h"
#include "core/ops/op_safety.h"
#include "core/run/rank_programs.h"

namespace ss {
namespace {

constexpr const char* kTextFormat = "shardscope-rank-programs";
constexpr const char* kDynamoOutputGraph = "dynamo_output_graph";     // a record kind of its own
constexpr const char* kBeforePreGradGraph = "before_pre_grad_graph";  // an artifact (Inductor's input)

bool isSymbolPlaceholder(const Node& n) {
  return n.kind == NodeKind::Placeholder && n.symbolicShape.empty() && !n.outputs.empty() && !n.outputs[0].known &&
         n.outputs[0].shape.empty();
}

bool allDigits(const std::string& s) {
  return !s.empty() && s.size() < 19 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::optional<int64_t> symbolPlaceholderValue(const Plan& plan, int node, const std::map<std::string, int64_t>& symbols) {
  if (node < 0 || node >= plan.graph.size() || !isSymbolPlaceholder(plan.graph.nodes[node])) return std::nullopt;
  auto it = symbols.find(plan.graph.nodes[node].name);
  if (it == symbols.end()) return std::nullopt;
  return it->second;
}

Result<Plan> bindSymbols(const Plan& input, const std::map<std::string, int64_t>& symbols) {
  Plan plan = input;
  for (Node& n : plan.graph.nodes) {
    if (n.kind != NodeKind::Placeholder) continue;
    if (isSymbolPlaceholder(n)) {
      if (!symbols.count(n.name))
        return Error{"placeholder '" + n.name + "' (a size symbol, or a tensor of unknown shape) has no value"};
      continue;
    }
    if (n.symbolicShape.empty()) continue;
    std::vector<int64_t> shape;
    for (const std::string& size : n.symbolicShape) {
      if (allDigits(size)) {
        shape.push_back(std::stoll(size));
        continue;
      }
      auto it = symbols.find(size);
      if (it == symbols.end())
        return Error{"placeholder '" + n.name + "' has size " + size + ", which is not a symbol with a value"};
      shape.push_back(it->second);
    }
    if (!shapeWithinLimits(shape)) return Error{"placeholder '" + n.name + "': its sizes with the symbols bound are past the limits of a tensor"};
    n.outputs.at(0).shape = shape;
    n.outputs.at(0).known = true;
    n.symbolicShape.clear();
  }
  return plan;
}

bool holdsRankPrograms(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string where = fs::is_directory(path, ec) ? path : fs::path(path).parent_path().string();
  if (!fs::is_directory(path, ec)) {
    auto text = readFileText(path);
    if (text && looksLikeRankProgramsText(*text)) return true;
    if (!text || !looksLikeTraceLog(*text)) return false;
  }
  auto logs = readTraceLogPath(where.empty() ? "." : where, [](const TraceRecord&) { return false; });
  if (!logs) return false;
  bool dynamo = false, after = false;
  for (const TraceLog& log : *logs)
    for (const TraceRecord& r : log.records) {
      dynamo = dynamo || r.kind == kDynamoOutputGraph;
      after = after || (r.kind == "artifact" && r.name == kBeforePreGradGraph);
    }
  return dynamo && after;
}

Result<RankPrograms> loadRankPrograms(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const bool folder = fs::is_directory(path, ec);
  if (!folder) {
    auto text = readFileText(path);
    if (text && looksLikeRankProgramsText(*text)) {
      auto p = readRankProgramsText(*text);
      if (!p) return Error{path + ": " + p.error().message};
      return p;
    }
  }
  std::string where = folder ? path : fs::path(path).parent_path().string();
  if (where.empty()) where = ".";
  auto keep = [](const TraceRecord& r) {
    return r.kind == kDynamoOutputGraph || (r.kind == "artifact" && r.name == kBeforePreGradGraph) ||
           (r.kind == "artifact" && r.name == kTorchVersionArtifact);
  };
  auto logs = readTraceLogPath(where, keep);
  if (!logs) return logs.error();
  RankPrograms out;
  out.name = folder ? path : where;
  // The logs that hold a graph after the backend's passes, by rank (a log without a rank is refused: its place
  // among the ranks is unknown).
  std::map<int, const TraceLog*> byRank;
  for (const TraceLog& log : *logs) {
    if (!log.artifact(kBeforePreGradGraph)) continue;
    if (log.rank < 0) return Error{log.file + ": the log names no rank (no \"rank\" in its records)"};
    if (byRank.count(log.rank)) return Error{log.file + ": a second log of rank " + std::to_string(log.rank)};
    byRank[log.rank] = &log;
  }
  if (byRank.empty()) return Error{where + ": no log holds a " + kBeforePreGradGraph + " artifact"};
  if (static_cast<int64_t>(byRank.size()) > limits::kMaxRunRanks)
    return Error{where + ": " + std::to_string(byRank.size()) + " rank logs; a local run takes at most " +
                 std::to_string(limits::kMaxRunRanks)};
  int expect = 0;
  for (const auto& [rank, log] : byRank)
    if (rank != expect++) return Error{where + ": no log of rank " + std::to_string(expect - 1) + " (ranks must be 0..N-1)"};
  // Symbols: every log's create_symbol hints; a symbol hinted differently by two ranks is refused.
  for (const auto& [rank, log] : byRank)
    for (const TraceSymbol& s : log->symbols) {
      if (!s.hint) continue;
      if (!s.source.empty()) out.symbolSources.emplace(s.symbol, s.source);
      auto [it, fresh] = out.symbols.emplace(s.symbol, *s.hint);
      if (!fresh && it->second != *s.hint)
        return Error{log->file + ": symbol " + s.symbol + " has hint " + std::to_string(*s.hint) + " here and " +
                     std::to_string(it->second) + " in another rank's log"};
    }
  auto graphOf = [](const TraceLog& log, const TraceRecord& r, const char* what) -> Result<Plan> {
    const std::string label = log.file + ":" + std::to_string(r.payloadLine);
    auto plan = loadPlanText(r.payload, label);
    if (!plan) return Error{plan.error().toString(label) + " (the " + what + ")"};
    return plan;
  };
  // The reference: the first rank's graph before the passes (every rank's is the same whole model).
  const TraceLog& first = *byRank.begin()->second;
  const TraceRecord* dynamo = nullptr;
  for (const TraceRecord& r : first.records)
    if (r.kind == kDynamoOutputGraph && r.kept) dynamo = &r;
  if (!dynamo) return Error{first.file + ": no " + std::string(kDynamoOutputGraph) + " record (the reference graph)"};
  auto ref = graphOf(first, *dynamo, kDynamoOutputGraph);
  if (!ref) return ref.error();
  out.reference = std::move(*ref);
  out.notes.push_back("reference: " + std::string(kDynamoOutputGraph) + " of " + first.file + " line " +
                      std::to_string(dynamo->line));
  for (const auto& [rank, log] : byRank) {
    const TraceRecord* after = log->artifact(kBeforePreGradGraph);
    auto plan = graphOf(*log, *after, kBeforePreGradGraph);
    if (!plan) return plan.error();
    out.ranks.push_back(std::move(*plan));
    out.notes.push_back("rank " + std::to_string(rank) + ": " + kBeforePreGradGraph + " of " + log->file + " line " +
                        std::to_string(after->line));
  }
  return out;
}

// ---- SPMD programs (autoparallel's applied graph) ----

namespace {

std::string_view opNamespace(std::string_view op) {
  if (op.starts_with("torch.ops.")) op.remove_prefix(10);
  return op.substr(0, op.find('.'));
}

std::optional<std::string> stringArg(const Node& n, size_t k) {
  if (k < n.args.size() && n.args[k].kind == Arg::Kind::String) return n.args[k].s;
  return std::nullopt;
}
std::optional<int64_t> intArg(const Node& n, size_t k) {
  if (k < n.args.size() && n.args[k].isInt()) return n.args[k].i;
  return std::nullopt;
}

}  // namespace

bool isSpmdCollectiveNode(const Node& node) {
  if (node.kind != NodeKind::Call) return false;
  const std::string_view ns = opNamespace(node.op);
  return ns == "_c10d_functional" || ns == "c10d_functional" || ns == "_dtensor";
}

Result<SpmdCollective> readSpmdCollective(const Node& node) {
  const std::string name = node.opName();
  const std::string what = node.op + " at node '" + node.name + "'";
  auto malformed = [&](const std::string& expected) { return Error{what + ": expected " + expected}; };
  SpmdCollective c;
  if (node.args.empty() || !node.args[0].isTensor()) return malformed("a tensor first argument");
  auto reduceOpOk = [](const std::string& op) {
    return op == "sum" || op == "avg" || op == "max" || op == "min" || op == "product";
  };
  if (name == "wait_tensor") {
    c.kind = SpmdCollective::Kind::Wait;
  } else if (name == "all_gather_into_tensor") {
    auto n = intArg(node, 1);
    auto g = stringArg(node, 2);
    if (!n || !g || *n < 1) return malformed("(x, group_size, group_name)");
    c.kind = SpmdCollective::Kind::AllGather;
    c.groupSize = *n;
    c.group = *g;
  } else if (name == "reduce_scatter_tensor") {
    auto op = stringArg(node, 1);
    auto n = intArg(node, 2);
    auto g = stringArg(node, 3);
    if (!op || !n || !g || *n < 1) return malformed("(x, reduce_op, group_size, group_name)");
    if (!reduceOpOk(*op)) return Error{what + ": reduce op '" + *op + "' is none of sum, avg, max, min, product"};
    c.kind = SpmdCollective::Kind::ReduceScatter;
    c.reduceOp = *op;
    c.groupSize = *n;
    c.group = *g;
  } else if (name == "all_reduce") {
    auto op = stringArg(node, 1);
    auto g = stringArg(node, 2);
    if (!op || !g) return malformed("(x, reduce_op, group_name)");
    if (!reduceOpOk(*op)) return Error{what + ": reduce op '" + *op + "' is none of sum, avg, max, min, product"};
    c.kind = SpmdCollective::Kind::AllReduce;
    c.reduceOp = *op;
    c.group = *g;
  } else if (name == "all_to_all_single") {
    auto g = stringArg(node, 3);
    if (!g || node.args.size() != 4) return malformed("(x, output_split_sizes, input_split_sizes, group_name)");
    // Split lists: absent, or literal sizes that are all equal (the runner moves equal chunks). Sizes computed in
    // the graph (a MoE's routing counts) are data-dependent: their chunks would be what the data says.
    for (int k : {1, 2}) {
      const Arg& a = node.args[k];
      if (a.kind == Arg::Kind::None) continue;
      if (!a.isList()) return malformed("split sizes as a list or None");
      std::vector<int64_t> sizes;
      for (const Arg& x : a.items) {
        if (!x.isInt())
          return Error{what + ": its split sizes are computed in the graph (data-dependent, as a MoE's routing); the "
                              "runner's all_to_all moves equal chunks only"};
        sizes.push_back(x.i);
      }
      if (!sizes.empty() && std::any_of(sizes.begin(), sizes.end(), [&](int64_t v) { return v != sizes[0]; }))
        return Error{what + ": uneven split sizes; the runner's all_to_all moves equal chunks only"};
      if (k == 1) c.splits = sizes;
    }
    c.kind = SpmdCollective::Kind::AllToAll;
    c.group = *g;
  } else if (name == "shard_dim_alltoall") {
    auto gd = intArg(node, 1);
    auto sd = intArg(node, 2);
    auto g = stringArg(node, 3);
    if (!gd || !sd || !g) return malformed("(x, gather_dim, shard_dim, group_name)");
    c.kind = SpmdCollective::Kind::ShardDimAllToAll;
    c.gatherDim = *gd;
    c.shardDim = *sd;
    c.group = *g;
  } else {
    return Error{what + ": the runner executes no such collective (it runs all_gather_into_tensor, "
                        "reduce_scatter_tensor, all_reduce, all_to_all_single, shard_dim_alltoall, wait_tensor)"};
  }
  return c;
}

int64_t spmdGroupSize(const DeviceMesh& mesh, int meshDim) {
  if (meshDim == kAllMeshDims) return mesh.size();
  return meshDim >= 0 && meshDim < mesh.ndim() ? mesh.dimSize(meshDim) : 0;
}

namespace {

// A higher-order op (torch.ops.higher_order.*: local_map_hop, flex_attention, ...) calls subgraphs that the
// printed graph holds as module attributes (get_attr nodes without a tensor value). The runner executes no
// subgraph, so such a graph is refused naming the op and its subgraphs.
std::optional<RunError> higherOrderRefusal(const Plan& plan, const std::string& which) {
  const Graph& g = plan.graph;
  for (int n = 0; n < g.size(); ++n) {
    const Node& node = g.nodes[n];
    if (node.kind != NodeKind::Call || node.op.find("higher_order.") == std::string::npos) continue;
    std::string bodies;
    for (const TensorRef& r : g.inputs(n)) {
      const Node& in = g.nodes[r.node];
      if (in.kind == NodeKind::Placeholder && in.op == "get_attr" && (in.outputs.empty() || !in.outputs[0].known))
        bodies += (bodies.empty() ? "" : ", ") + in.name;
    }
    return RunError{"unsafe-op", -1, n, node.name,
                    which + ": " + node.op + " at node '" + node.name + "' is a higher-order op that runs its body " +
                        (bodies.empty() ? std::string("subgraph") : "subgraphs (" + bodies + ")") +
                        "; the runner executes no subgraph"};
  }
  return std::nullopt;
}

}  // namespace

Result<std::map<int, int>> findRankChunks(const Plan& program, const std::vector<int>& referenceOf, const DeviceMesh& mesh,
                                          int tracedRank) {
  const Graph& g = program.graph;
  const std::vector<int64_t> coord = mesh.coordOf(std::clamp<int64_t>(tracedRank, 0, mesh.size() - 1));
  std::map<int, int> out;
  for (int n = 0; n < g.size(); ++n) {
    const Node& node = g.nodes[n];
    if (node.kind != NodeKind::Call || node.opName() != "split" || node.op.find("aten.split.") == std::string::npos) continue;
    if (n < static_cast<int>(referenceOf.size()) && referenceOf[n] >= 0) continue;  // the model's own split
    if (node.args.size() < 2 || !node.args[1].isInt() || node.args[1].i < 1 || g.inputs(n).empty()) continue;
    const TensorMeta* in = g.meta(g.inputs(n)[0]);
    if (!in || !in->known || in->shape.empty()) continue;
    int64_t dim = node.args.size() > 2 && node.args[2].isInt() ? node.args[2].i : 0;
    if (dim < 0) dim += static_cast<int64_t>(in->shape.size());
    if (dim < 0 || dim >= static_cast<int64_t>(in->shape.size())) continue;
    const int64_t chunks = (in->shape[dim] + node.args[1].i - 1) / node.args[1].i;
    std::vector<int> getitems;
    std::set<int64_t> picked;
    for (const auto& [user, input] : g.users(n)) {
      const Node& u = g.nodes[user];
      if (u.op != "operator.getitem" || u.args.size() < 2 || !u.args[1].isInt()) continue;
      getitems.push_back(user);
      picked.insert(u.args[1].i);
    }
    if (getitems.empty() || picked.size() != 1) continue;  // every chunk used: a gather's reshuffle, not a pick
    std::vector<int> dims;
    for (int d = 0; d < mesh.ndim(); ++d)
      if (mesh.dimSize(d) == chunks && mesh.dimSize(d) > 1 && coord[d] == *picked.begin()) dims.push_back(d);
    if (mesh.ndim() > 1 && mesh.size() == chunks && mesh.rankOf(coord) == *picked.begin()) dims.push_back(kAllMeshDims);
    if (dims.empty()) continue;
    if (dims.size() > 1)
      return Error{"node '" + node.name + "' takes chunk " + std::to_string(*picked.begin()) + " of " +
                   std::to_string(chunks) + " (a local chunk of the apply pass), and several mesh dims have " +
                   std::to_string(chunks) + " ranks: which rank takes which chunk is ambiguous"};
    for (int u : getitems) out[u] = dims[0];
  }
  return out;
}

bool holdsAppliedRun(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    auto text = readFileText(path);
    if (!text || !looksLikeTraceLog(*text)) return false;
  }
  auto logs = readTraceLogPath(path, [](const TraceRecord&) { return false; });
  if (!logs) return false;
  bool applied = false, plan = false;
  for (const TraceLog& log : *logs)
    for (const TraceRecord& r : log.records) {
      if (r.kind != "artifact") continue;
      applied = applied || r.name == kAppliedGraphArtifact;
      plan = plan || r.name == kJointGraphArtifact || r.name == kOptimizerLogArtifact;
    }
  return applied && plan;
}

Result<RankPrograms> loadAppliedRankPrograms(const std::string& path) {
  SessionInputs in;
  in.primary = path;
  auto session = loadSession(in);
  if (!session) return session.error();
  if (!session->hasPlan || session->applied.empty())
    return Error{path + ": no plan with an applied graph (" + kAppliedGraphArtifact + ") to re-run"};
  const AppliedGraph& a = session->applied.front();
  RankPrograms out;
  out.name = path;
  out.reference = session->plan;
  SpmdPrograms spmd;
  spmd.tracedRank = a.rank;
  spmd.referenceOf = a.planOf;
  for (const GroupMapping& g : a.groups)
    if (g.meshDim >= 0 || g.meshDim == kAllMeshDims) spmd.groupDims[g.group] = g.meshDim;
  // What the runner cannot execute at all is said first (a higher-order op), before what it would need to know.
  if (auto e = higherOrderRefusal(session->plan, "the reference (" + std::string(kJointGraphArtifact) + ")"))
    return Error{path + ": refused: " + e->message};
  auto chunks = findRankChunks(a.graph, a.planOf, session->plan.mesh, a.rank);
  if (!chunks) return Error{path + ": the applied graph's " + chunks.error().message};
  spmd.rankChunks = std::move(*chunks);
  out.ranks.push_back(a.graph);
  out.spmd = std::move(spmd);
  out.notes.push_back("reference: " + std::string(kJointGraphArtifact) + " with the plan's specs, on one device");
  out.notes.push_back("every rank: " + std::string(kAppliedGraphArtifact) + " (traced on rank " + std::to_string(a.rank) +
                      ": its local shapes), " + std::to_string(a.collectives.size()) + " collectives on " +
                      std::to_string(out.spmd->groupDims.size()) + " process groups, " +
                      std::to_string(out.spmd->rankChunks.size()) + " local chunks taken by each rank's coordinate");
  return out;
}

std::string writeRankProgramsText(const RankPrograms& p) {
  // Native plans keep no symbolic sizes: the graphs travel with their placeholders' symbols bound (a graph that
  // cannot be bound travels as it is, and the child reports why).
  auto bound = [&](const Plan& plan) {
    auto b = bindSymbols(plan, p.symbols);
    return writePlanString(b ? *b : plan);
  };
  nlohmann::json j;
  j["format"] = kTextFormat;
  j["version"] = 1;
  j["name"] = p.name;
  j["symbols"] = p.symbols;
  j["symbol_sources"] = p.symbolSources;
  j["notes"] = p.notes;
  j["reference"] = nlohmann::json::parse(bound(p.reference));
  j["ranks"] = nlohmann::json::array();
  for (const Plan& r : p.ranks) j["ranks"].push_back(nlohmann::json::parse(bound(r)));
  if (p.spmd) {
    j["spmd"] = {{"groups", p.spmd->groupDims}, {"reference_of", p.spmd->referenceOf}, {"traced_rank", p.spmd->tracedRank},
                 {"rank_chunks", p.spmd->rankChunks}};
  }
  return j.dump();
}

bool looksLikeRankProgramsText(std::string_view text) {
  const size_t head = std::min<size_t>(text.size(), 64);
  return text.substr(0, head).find(std::string("\"format\":\"") + kTextFormat + "\"") != std::string_view::npos;
}

Result<RankPrograms> readRankProgramsText(std::string_view text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text, nullptr, true, false);
  } catch (const std::exception& e) {
    return Error{std::string("rank programs: not JSON: ") + e.what()};
  }
  if (!j.is_object() || j.value("format", "") != kTextFormat || !j.contains("ranks") || !j["ranks"].is_array() ||
      !j.contains("reference"))
    return Error{std::string("rank programs: not a ") + kTextFormat + " document"};
  RankPrograms p;
  try {
    p.name = j.value("name", "");
    p.symbols = j.value("symbols", std::map<std::string, int64_t>{});
    p.symbolSources = j.value("symbol_sources", std::map<std::string, std::string>{});
    p.notes = j.value("notes", std::vector<std::string>{});
    if (j.contains("spmd")) {
      const auto& s = j.at("spmd");
      SpmdPrograms spmd;
      spmd.groupDims = s.at("groups").get<std::map<std::string, int>>();
      spmd.referenceOf = s.at("reference_of").get<std::vector<int>>();
      spmd.tracedRank = s.value("traced_rank", 0);
      spmd.rankChunks = s.value("rank_chunks", std::map<int, int>{});
      p.spmd = std::move(spmd);
    }
  } catch (const std::exception& e) {
    return Error{std::string("rank programs: ") + e.what()};
  }
  if (static_cast<int64_t>(j["ranks"].size()) > limits::kMaxRunRanks)
    return Error{"rank programs: " + std::to_string(j["ranks"].size()) + " ranks; a local run takes at most " +
                 std::to_string(limits::kMaxRunRanks)};
  auto ref = loadPlanText(j["reference"].dump(), "<reference>");
  if (!ref) return Error{ref.error().toString("<reference>")};
  p.reference = std::move(*ref);
  for (size_t r = 0; r < j["ranks"].size(); ++r) {
    const std::string label = "<rank " + std::to_string(r) + ">";
    auto plan = loadPlanText(j["ranks"][r].dump(), label);
    if (!plan) return Error{plan.error().toString(label)};
    p.ranks.push_back(std::move(*plan));
  }
  return p;
}


std::optional<RunError> rankProgramsRefusal(const RankPrograms& p) {
  if (auto e = higherOrderRefusal(p.reference, "reference")) return e;
  for (size_t r = 0; r < p.ranks.size(); ++r)
    if (auto e = higherOrderRefusal(p.ranks[r], p.spmd ? "the program" : "rank " + std::to_string(r) + "'s program"))
      return e;
  auto unsafeIn = [](const Plan& plan, const std::string& which) -> std::optional<RunError> {
    auto unsafe = unsafeNodes(plan.graph);
    if (unsafe.empty()) return std::nullopt;
    return RunError{"unsafe-op", -1, unsafe[0].node, unsafe[0].name, which + ": " + unsafe[0].reason};
  };
  if (auto e = unsafeIn(p.reference, "reference")) return e;
  for (size_t r = 0; r < p.ranks.size(); ++r)
    if (auto e = unsafeIn(p.ranks[r], "rank " + std::to_string(r) + "'s program")) {
      e->rank = static_cast<int>(r);
      return e;
    }
  if (p.ranks.empty()) return RunError{"load", -1, -1, "", "no rank programs"};
  if (p.rankCount() > limits::kMaxRunRanks)
    return RunError{"limits", -1, -1, "", std::to_string(p.rankCount()) + " ranks; a local run takes at most " +
                                              std::to_string(limits::kMaxRunRanks)};
  if (p.spmd) {
    if (p.ranks.size() != 1) return RunError{"load", -1, -1, "", "an SPMD run has one program for every rank"};
    const Plan& prog = p.ranks[0];
    if (p.spmd->referenceOf.size() != static_cast<size_t>(prog.graph.size()))
      return RunError{"load", -1, -1, "", "the program's node map does not fit its graph"};
    for (const auto& [n, d] : p.spmd->rankChunks)
      if (n < 0 || n >= prog.graph.size() || prog.graph.nodes[n].op != "operator.getitem" ||
          (d != kAllMeshDims && (d < 0 || d >= p.reference.mesh.ndim())))
        return RunError{"load", -1, -1, "", "a local chunk that is not a getitem on a mesh dim"};
    // Every collective: one the runner executes, on a group that maps to a mesh dim, with that dim's size.
    for (int n = 0; n < prog.graph.size(); ++n) {
      const Node& node = prog.graph.nodes[n];
      if (!isSpmdCollectiveNode(node)) continue;
      auto c = readSpmdCollective(node);
      if (!c) return RunError{"unsafe-op", -1, n, node.name, c.error().message};
      if (c->kind == SpmdCollective::Kind::Wait) continue;
      auto it = p.spmd->groupDims.find(c->group);
      if (it == p.spmd->groupDims.end())
        return RunError{"unsafe-op", -1, n, node.name,
                        node.op + ": process group '" + c->group + "' maps to no mesh dim (check --group NAME=MESHDIM)"};
      const int64_t size = spmdGroupSize(p.reference.mesh, it->second);
      if (size < 1 || (c->groupSize > 0 && c->groupSize != size))
        return RunError{"unsafe-op", -1, n, node.name,
                        node.op + ": group size " + std::to_string(c->groupSize) + " on group '" + c->group +
                            "', whose mesh dim has " + std::to_string(size) + " ranks"};
      if (!c->splits.empty() && static_cast<int64_t>(c->splits.size()) != size)
        return RunError{"unsafe-op", -1, n, node.name,
                        node.op + ": " + std::to_string(c->splits.size()) + " split sizes for a group of " +
                            std::to_string(size) + " ranks"};
    }
  }
  return std::nullopt;
}

}  // namespace ss
