// `shardscope ops`: what the checker and the runner know about each op, from the op table (core/ops/op_table.h),
// as a user asks "is my op checked?".
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "app/cli/args.h"
#include "app/cli/verbs.h"
#include "core/ops/op_safety.h"
#include "core/ops/op_table.h"

namespace ss::app {
namespace {

const VerbHelp kHelp{
    "Usage: shardscope ops [OP...] [--json]",
    R"(Lists every op the op table knows: whether the checker has a sharding rule for it (status "rule";
"replicate-only": checked as an op that runs on whole tensors only, with the reason; "unchecked": known, no
sharding rule, a node of it is reported as unchecked-op; "unknown": not in the table), whether it has a shape
rule, and whether the runner executes it ("runs") or refuses it ("refused"). With OP arguments (any spelling:
aten.mm.default, torch.ops.aten.mm.default, mm), only those, unknown ones included; an in-place form the table
derives from its op (add_ from add) is shown as asked.)",
    "Exit codes: 0 listed (every OP asked for has a sharding rule), 1 an OP asked for has none, 2 bad flags."};

const std::vector<FlagSpec> kFlags{
    toggle("json", R"([{"op", "namespaces", "status", "reason"?, "in_place_of"?, "refused_reason"?, "shape_rule", "runner", "tensor_only",
"symbolic_safe"}])")};

// The namespaces an entry's op runs in (its runs-in bits), or where its key comes from for checked-only ops.
nlohmann::json namespacesOf(const ops::OpEntry& e) {
  nlohmann::json out = nlohmann::json::array();
  static const std::pair<uint16_t, const char*> kBits[] = {
      {ops::kRunsAten, "aten"},         {ops::kRunsPrims, "prims"},         {ops::kRunsCollective, "c10d"},
      {ops::kRunsOperator, "operator"}, {ops::kRunsUnderscoreOperator, "_operator"},
      {ops::kRunsAutoparallel, "autoparallel"}};
  for (const auto& [bit, name] : kBits)
    if (e.runsIn & bit) out.push_back(name);
  return out;
}

struct Row {
  std::string op;
  const ops::OpEntry* entry;  // nullptr: not in the table
  bool runs;                  // the runner's verdict on `op` as asked (in-place and backward forms included)
};

// "rule", "replicate-only", "unchecked" (in the table, no sharding rule) or "unknown" (not in the table).
const char* statusOf(const ops::OpEntry* e) {
  if (!e) return "unknown";
  if (!e->sharding) return "unchecked";
  return e->replicateOnlyWhy.empty() ? "rule" : "replicate-only";
}

// One row as JSON; "runner" is "runs" or "refused" (core/ops/op_safety.h).
nlohmann::json rowJson(const Row& r) {
  nlohmann::json j;
  j["op"] = r.op;
  j["status"] = statusOf(r.entry);
  if (r.entry && !r.entry->replicateOnlyWhy.empty()) j["reason"] = std::string(r.entry->replicateOnlyWhy);
  if (r.entry && !r.entry->inplaceOf.empty()) j["in_place_of"] = std::string(r.entry->inplaceOf);
  if (!r.runs && r.entry && !r.entry->refusedWhy.empty()) j["refused_reason"] = std::string(r.entry->refusedWhy);
  j["shape_rule"] = r.entry && r.entry->shape;
  j["namespaces"] = r.entry ? namespacesOf(*r.entry) : nlohmann::json::array();
  j["runner"] = r.runs ? "runs" : "refused";
  j["tensor_only"] = r.entry && r.entry->tensorOnly;
  j["symbolic_safe"] = r.entry && r.entry->symbolicSafe;
  return j;
}

int runOps(const ParsedArgs& args) {
  std::vector<Row> rows;
  bool missing = false;
  if (args.positionals.empty()) {
    for (const ops::OpEntry& e : ops::allOps())
      rows.push_back(Row{std::string(e.key), &e, e.runsIn != ops::kRunsNowhere && !e.refused});
  } else {
    for (const std::string& op : args.positionals) {
      const ops::OpEntry* e = ops::findOp(op);
      // Asked by full name, the runner's own verdict (its in-place and backward derivations); by bare key, the entry's.
      const bool runs = op.find('.') != std::string::npos ? isPureTensorOp(op) : e && e->runsIn != ops::kRunsNowhere && !e->refused;
      rows.push_back(Row{op, e, runs});
      missing |= !(e && e->sharding);
    }
  }
  if (args.has("json")) {
    nlohmann::json out = nlohmann::json::array();
    for (const Row& r : rows) out.push_back(rowJson(r));
    std::cout << out.dump(1) << "\n";
    return missing ? 1 : 0;
  }
  size_t width = 2;
  for (const Row& r : rows) width = std::max(width, r.op.size());
  int ruled = 0, replicateOnly = 0, shaped = 0, runnable = 0;
  constexpr size_t kStatusWidth = 16;  // "replicate-only" and two spaces
  std::cout << "op" << std::string(width - 2 + 2, ' ') << "status" << std::string(kStatusWidth - 6, ' ')
            << "shape  runner   namespaces\n";
  for (const Row& r : rows) {
    const nlohmann::json j = rowJson(r);
    const std::string status = j["status"], runner = j["runner"];
    ruled += status == "rule" || status == "replicate-only";
    replicateOnly += status == "replicate-only";
    shaped += j["shape_rule"].get<bool>();
    runnable += runner == "runs";
    std::cout << r.op << std::string(width - r.op.size() + 2, ' ') << status << std::string(kStatusWidth - status.size(), ' ')
              << (j["shape_rule"].get<bool>() ? "yes    " : "no     ") << runner << std::string(9 - runner.size(), ' ');
    std::string ns;
    for (const auto& n : j["namespaces"]) ns += (ns.empty() ? "" : ",") + n.get<std::string>();
    std::cout << (ns.empty() ? "-" : ns) << "\n";
    if (j.contains("reason")) std::cout << "  replicate-only: " << j["reason"].get<std::string>() << "\n";
    if (j.contains("refused_reason")) std::cout << "  refused: " << j["refused_reason"].get<std::string>() << "\n";
  }
  std::cout << rows.size() << (rows.size() == 1 ? " op: " : " ops: ") << ruled << " with a sharding rule (" << replicateOnly << " of them replicate-only), " << shaped
            << " with a shape rule, " << runnable << " the runner executes\n";
  return missing ? 1 : 0;
}

const VerbRegistrar kOps{Verb{"ops", "list the ops the checker and the runner know (\"is my op checked?\")", kHelp, kFlags, runOps}};

}  // namespace
}  // namespace ss::app
