// DTensor programs as DTensor's own tools recorded them (tests/data/real/dtensor/, written by torch 2.14.1 through
// scripts/dtensor_programs.sh): DebugMode traces and save_logs JSON, CommDebugMode dumps, TORCH_TRACE logs of
// torch.compile on the same programs. Counts are taken from the files' own text, independently of the reader.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "applied_cases.h"

#include "core/io/dtensor/compiled.h"
#include "core/io/dtensor/program.h"
#include "core/io/load/load.h"

namespace ss {
namespace {

std::string dtensorCase(const std::string& rel) { return test::realCase("dtensor/" + rel); }

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

int countOf(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The `[implicit]` records of a DebugMode text: (op the record sits under, src, dst), in order. The op is the last
// dispatch-level line with a DTensor argument before it.
struct ImplicitRecord {
  std::string op, src, dst;
};
std::vector<ImplicitRecord> implicitRecords(const std::string& text) {
  std::vector<ImplicitRecord> out;
  std::istringstream in(text);
  std::string line, op;
  while (std::getline(in, line)) {
    if (line.find("::") != std::string::npos && line.find("| ") != std::string::npos && line.find("redistribute_input") == std::string::npos) {
      const size_t s = line.find_first_not_of(' ');
      const std::string call = line.substr(s, line.find('(') - s);
      op = call.substr(call.find("::") + 2);
      op = op.substr(0, op.find('.'));
    }
    const size_t at = line.find("redistribute_input [implicit] (");
    if (at == std::string::npos) continue;
    const std::string body = line.substr(at + 31, line.rfind(')') - at - 31);
    const size_t comma = body.find(", "), arrow = body.find(" -> ");
    out.push_back({op, body.substr(comma + 2, arrow - comma - 2), body.substr(arrow + 4)});
  }
  return out;
}

DTensorProgram load(const std::string& path) {
  auto p = loadDTensorProgram(path);
  INFO((p.ok() ? std::string() : p.error().toString()));
  REQUIRE(p.ok());
  return std::move(*p);
}

std::vector<const Diagnostic*> implicitDiagnostics(const Diagnostics& d) {
  std::vector<const Diagnostic*> out;
  for (const Diagnostic& x : d.items)
    if (x.kind == DiagKind::ImplicitRedistribute && x.node >= 0) out.push_back(&x);
  return out;
}

}  // namespace

TEST_CASE("DebugMode: each [implicit] record is one implicit-redistribute diagnostic at its op, with its placements",
          "[dtensor][real]") {
  for (const std::string file :
       {"implicit_ops/debug_mode/debug_mode.rank0.txt", "implicit_ops/debug_mode_ids.rank0.txt", "implicit_ops/debug_mode_nn_module.rank0.txt",
        "implicit_ops/debug_mode_stack_trace.rank0.txt", "implicit_ops/debug_mode_torchfunction.rank0.txt",
        "tp_mlp/debug_mode/debug_mode.rank0.txt", "tp_mlp/debug_mode_ids.rank0.txt", "tp_mlp/debug_mode_nn_module.rank0.txt",
        "tp_mlp/debug_mode_torchfunction.rank0.txt", "fsdp_tp/debug_mode/debug_mode.rank0.txt", "sp_block/debug_mode_ids.rank0.txt"}) {
    INFO(file);
    const std::string text = slurp(dtensorCase(file));
    const auto records = implicitRecords(text);
    const DTensorProgram p = load(dtensorCase(file));
    const Diagnostics d = programDiagnostics(p);
    const auto diags = implicitDiagnostics(d);
    REQUIRE(diags.size() == records.size());
    for (size_t k = 0; k < records.size(); ++k) {
      INFO(k << ": " << diags[k]->message);
      CHECK(p.plan.graph.nodes[diags[k]->node].opName() == records[k].op);
      REQUIRE(diags[k]->have);
      REQUIRE(diags[k]->want);
      CHECK(diags[k]->have->toMeshString() == records[k].src);
      CHECK(diags[k]->want->toMeshString() == records[k].dst);
      CHECK(diags[k]->input >= 0);
      // The redistribute DTensor did sits on that edge of the plan, as it ran.
      const Redistribute* r = p.plan.findRedistribute(diags[k]->node, diags[k]->input);
      REQUIRE(r != nullptr);
      CHECK(r->from == *diags[k]->have);
      CHECK(r->to == *diags[k]->want);
    }
  }
}

TEST_CASE("DebugMode: seed 1's index_put has its values moved RS(1) -> RS(0), silently, on the 2x2 mesh", "[dtensor][real]") {
  const DTensorProgram p = load(dtensorCase("implicit_ops/debug_mode"));
  CHECK(p.files.size() == 4);
  CHECK(p.plan.mesh.shape() == std::vector<int64_t>{2, 2});
  const Diagnostics d = programDiagnostics(p);
  const Diagnostic* hit = nullptr;
  for (const Diagnostic* x : implicitDiagnostics(d))
    if (p.plan.graph.nodes[x->node].opName() == "index_put") hit = x;
  REQUIRE(hit != nullptr);
  CHECK(hit->input == 2);  // self, the index tensor, values
  CHECK(hit->have->toMeshString() == "RS(1)");
  CHECK(hit->want->toMeshString() == "RS(0)");
  const Node& n = p.plan.graph.nodes[hit->node];
  CHECK(n.op == "aten.index_put.default");
  CHECK(p.plan.graph.meta(p.plan.graph.inputs(hit->node)[2])->shape == std::vector<int64_t>{4, 8, 1, 4});
  CHECK(hit->message.find("argument 4 of index_put") != std::string::npos);
  bool gathered = false;
  for (const std::string& s : hit->notes) gathered |= s == "collectives recorded: all_gather_into_tensor";
  CHECK(gathered);
}

TEST_CASE("DebugMode: explicit redistributes are planned transitions, never diagnostics", "[dtensor][real]") {
  // partial_loss's sizes fit 4 or 5 ranks from one file (16 split in chunks of 4): its folder of 4 ranks decides.
  for (const std::string file : {"tp_mlp/debug_mode/debug_mode.rank0.txt", "partial_loss/debug_mode"}) {
    INFO(file);
    const std::string text = slurp(dtensorCase(file.ends_with(".txt") ? file : file + "/debug_mode.rank0.txt"));
    const int explicitRecords = countOf(text, "redistribute_input [explicit]");
    REQUIRE(explicitRecords > 0);
    const DTensorProgram p = load(dtensorCase(file));
    int explicitPlanned = 0;
    for (const ProgramRedistribute& r : p.redistributes) {
      if (r.tag != RedistributeTag::Explicit) continue;
      ++explicitPlanned;
      CHECK(p.plan.graph.nodes[r.node].name.starts_with("redistribute"));
      REQUIRE(p.plan.findRedistribute(r.node, 0) != nullptr);
      CHECK(r.from.toMeshString() == "P(sum)");
      CHECK(r.to.toMeshString() == "R");
      CHECK(r.collectives == std::vector<std::string>{"all_reduce"});
    }
    CHECK(explicitPlanned == explicitRecords);
    for (const Diagnostic& x : programDiagnostics(p).items)
      if (x.node >= 0) CHECK(!p.plan.graph.nodes[x.node].name.starts_with("redistribute"));
  }
}

TEST_CASE("DebugMode: the TP MLP's trace is its program on mesh [4], the same from text and save_logs JSON",
          "[dtensor][real]") {
  const DTensorProgram text = load(dtensorCase("tp_mlp/debug_mode_ids.rank0.txt"));
  const DTensorProgram logs = load(dtensorCase("tp_mlp/debug_mode_logs.rank0.json"));
  CHECK(text.source == ProgramSource::DebugModeText);
  CHECK(logs.source == ProgramSource::DebugModeLogs);
  CHECK(text.plan.mesh.shape() == std::vector<int64_t>{4});
  CHECK(text.plan.graph.size() == logs.plan.graph.size());
  CHECK(text.plan.specs == logs.plan.specs);
  CHECK(text.plan.redistributes == logs.plan.redistributes);
  // The first addmm: bias S(0) [32], input R [8, 16], weight S(1) [16, 32] (ColwiseParallel's w1).
  int addmm = -1;
  for (int n = 0; n < text.plan.graph.size() && addmm < 0; ++n)
    if (text.plan.graph.nodes[n].op == "aten.addmm.default") addmm = n;
  REQUIRE(addmm >= 0);
  const auto& ins = text.plan.specs[addmm].inputs;
  REQUIRE(ins.size() == 3);
  CHECK(ins[0]->toMeshString() == "S(0)");
  CHECK(ins[1]->toMeshString() == "R");
  CHECK(ins[2]->toMeshString() == "S(1)");
  CHECK(text.plan.graph.meta(text.plan.graph.inputs(addmm)[2])->shape == std::vector<int64_t>{16, 32});
  // With ids a DTensor used twice is one value: w2's transposed weight dt$18 feeds addmm and the backward's t.
  int addmm1 = -1;
  for (int n = addmm + 1; n < text.plan.graph.size() && addmm1 < 0; ++n)
    if (text.plan.graph.nodes[n].op == "aten.addmm.default") addmm1 = n;
  REQUIRE(addmm1 >= 0);
  const int w2t = text.plan.graph.inputs(addmm1)[2].node;
  CHECK(text.plan.graph.nodes[w2t].op == "aten.t.default");  // wired to the op whose local result it is
  CHECK(text.plan.graph.users(w2t).size() >= 2);
}

TEST_CASE("DebugMode: a folder of per-rank traces opens as one run and says where the ranks differ", "[dtensor][real]") {
  const DTensorProgram same = load(dtensorCase("tp_mlp/debug_mode"));
  CHECK(same.files.size() == 4);
  CHECK(same.rankDifferences.empty());
  const DTensorProgram fsdp = load(dtensorCase("fsdp_tp/debug_mode"));
  // FSDP2 + TP's ops run on the 1-D "tp" sub-mesh (FSDP gathers on "dp" before them): DebugMode shows 1-D placements.
  CHECK(fsdp.plan.mesh.shape() == std::vector<int64_t>{2});
  // The two dp groups record different FSDP all-gathers: ranks 2 and 3 differ from rank 0, rank 1 does not.
  const std::string a = slurp(dtensorCase("fsdp_tp/debug_mode/debug_mode.rank0.txt"));
  int differing = 0;
  for (int r = 1; r < 4; ++r) differing += slurp(dtensorCase("fsdp_tp/debug_mode/debug_mode.rank" + std::to_string(r) + ".txt")) != a;
  CHECK(static_cast<int>(fsdp.rankDifferences.size()) == differing);
}

TEST_CASE("DebugMode: the per-module communication summary sums the redistributes by module and phase", "[dtensor][real]") {
  const DTensorProgram p = load(dtensorCase("tp_mlp/debug_mode_nn_module.rank0.txt"));
  const auto mods = p.moduleComm();
  int64_t bytes = 0;
  for (const ProgramRedistribute& r : p.redistributes) bytes += r.plan.totalBytes();
  int64_t summed = 0;
  bool w2 = false;
  for (const ModuleComm& m : mods) {
    summed += m.forwardBytes + m.backwardBytes;
    // RowwiseParallel's output all-reduce: 8 x 16 f32 on 4 ranks.
    if (m.module == "MLP.w2") w2 = m.forwardBytes > 0;
  }
  CHECK(summed == bytes);
  CHECK(w2);
  CHECK(programSummaryText(p).find("MLP.w2") != std::string::npos);
}

TEST_CASE("CommDebugMode: the TP MLP's dump opens on the 4-rank mesh with its ops and placements", "[dtensor][real]") {
  const DTensorProgram p = load(dtensorCase("tp_mlp/comm_debug.rank0.json"));
  CHECK(p.source == ProgramSource::CommDebugJson);
  CHECK(p.plan.mesh.shape() == std::vector<int64_t>{4});
  CHECK(p.plan.mesh.dimNames() == std::vector<std::string>{"tp"});
  const std::string text = slurp(dtensorCase("tp_mlp/comm_debug.rank0.json"));
  int ops = 0;
  for (const Node& n : p.plan.graph.nodes) ops += n.kind == NodeKind::Call;
  CHECK(ops == countOf(text, "\"device_mesh\": \"DeviceMesh("));
  bool colwise = false;
  for (int n = 0; n < p.plan.graph.size(); ++n) {
    const Node& node = p.plan.graph.nodes[n];
    if (node.op != "aten.addmm.default" || node.modulePath != "MLP.w1") continue;
    const auto& ins = p.plan.specs[n].inputs;
    colwise = ins.size() == 3 && ins[0]->toMeshString() == "S(0)" && ins[1]->toMeshString() == "R" && ins[2]->toMeshString() == "S(1)";
  }
  CHECK(colwise);
}

TEST_CASE("compiled TP MLP: the Dynamo graph is the plan on mesh [4], its AOT graphs' collectives each matched or flagged",
          "[dtensor][real]") {
  for (const std::string backend : {"trace_aot_eager", "trace_inductor"}) {
    INFO(backend);
    std::string log;
    for (const auto& e : std::filesystem::directory_iterator(dtensorCase("tp_mlp/" + backend))) log = e.path().string();
    REQUIRE(!log.empty());
    // loadPlanFile never opens it as another plan: the mesh is the program's.
    auto plain = loadPlanFile(log);
    REQUIRE(plain.ok());
    CHECK(plain->mesh.shape() == std::vector<int64_t>{4});
    AppliedSession s = test::openSession(log);
    REQUIRE(s.compiled);
    const Plan& p = s.plan;
    CHECK(p.mesh.dimNames() == std::vector<std::string>{"tp"});
    auto specOf = [&](const std::string& name) {
      const int n = p.graph.find(name);
      REQUIRE(n >= 0);
      return p.specs[n].outputs[0]->toMeshString();
    };
    CHECK(specOf("L_self_modules_w1_parameters_weight_") == "S(0)");
    CHECK(specOf("L_self_modules_w1_parameters_bias_") == "S(0)");
    CHECK(specOf("L_self_modules_w2_parameters_weight_") == "S(1)");
    CHECK(specOf("L_self_modules_w2_parameters_bias_") == "R");
    CHECK(specOf("linear_1") == "P(sum)");
    // RowwiseParallel's output redistribute P(sum) -> R is the one planned transition that moves data.
    REQUIRE(p.redistributes.size() == 1);
    CHECK(p.graph.nodes[p.redistributes[0].node].name == "outputs_1");
    const Diagnostics d = checkSession(s);
    int collectives = 0, matched = 0, flagged = 0;
    for (const auto& ag : s.compiled->applied)
      for (const auto& m : ag.matches) {
        ++collectives;
        matched += m.planNode >= 0;
      }
    for (const Diagnostic& x : d.items) flagged += x.kind == DiagKind::UnplannedCollective;
    CHECK(collectives >= 1);
    CHECK(matched + flagged == collectives);
    // The forward's all_reduce is RowwiseParallel's planned output redistribute.
    bool allReduce = false;
    for (const auto& ag : s.compiled->applied)
      for (const auto& m : ag.matches)
        if (ag.kind == "aot_forward_graph" && ag.collectives[m.collective].kind == CollectiveKind::AllReduce)
          allReduce = m.planNode >= 0 && p.graph.nodes[m.planNode].name == "outputs_1";
    CHECK(allReduce);
    // RowwiseParallel's replicated bias added to linear's Partial output: DTensor divides it first (R -> P(sum)),
    // as the eager run's DebugMode records `[implicit]`: one implicit-redistribute warning at linear_1's bias, no
    // error (asDTensorProgram).
    int errors = 0, implicitAtBias = 0;
    for (const Diagnostic& x : d.items) {
      errors += x.severity == Severity::Error;
      implicitAtBias += x.kind == DiagKind::ImplicitRedistribute && x.severity == Severity::Warning &&
                        p.graph.nodes[x.node].name == "linear_1" && x.input == 2;
    }
    CHECK(errors == 0);
    CHECK(implicitAtBias == 1);
  }
}

TEST_CASE("DTensor recordings: damaged input is refused at its place", "[dtensor]") {
  std::string text = slurp(dtensorCase("implicit_ops/debug_mode/debug_mode.rank0.txt"));
  const std::string bad = test::replacedOnce(text, "redistribute_input [implicit] (4, RS(1) -> RS(0))", "redistribute_input [implicit] (9, RS(1) -> RS(0))");
  auto rs = readDebugModeText(bad);
  REQUIRE(rs.ok());
  ProgramOptions opts;
  opts.mesh = DeviceMesh({2, 2});
  auto p = programFromDebugRecords(*rs, opts);
  REQUIRE(!p.ok());
  CHECK(p.error().line == 3);
  CHECK(p.error().message.find("argument 9") != std::string::npos);
  const std::string badSpec = test::replacedOnce(text, "RS(1) -> RS(0)", "RS(1) -> Q(0)");
  auto p2 = programFromText(badSpec, ProgramSource::DebugModeText, opts);
  REQUIRE(!p2.ok());
  CHECK(p2.error().line == 3);
}

}  // namespace ss
