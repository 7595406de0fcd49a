// Seed 2 from DeepSpeed AutoSP's own graphs (tests/data/real/autosp/, written by scripts/autosp_artifacts.sh: the
// real AutoSP backend on 2 gloo ranks, PyTorch 2.14.1). The TORCH_TRACE log of each rank opens with its
// aot_joint_graph (the aten graph after AutoSP's passes); the sliced dim is checked against the sequence that
// AutoSP's all-to-alls gather. Sequence-first inputs as fetched (seq0_buggy): both tagged inputs sliced on dim 1,
// the batch; with the fix applied at run time (seq0_fixed) and batch-first inputs (seq1): clean.
#include <catch2/catch.hpp>

#include "applied_cases.h"

#include <string>
#include <vector>

#include "core/applied/session.h"
#include "core/check/check.h"

using namespace ss;

namespace {

std::string real(const std::string& p) { return std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/data/real/autosp/" + p; }

Diagnostics checkLog(const std::string& path, Plan* planOut = nullptr) {
  AppliedSession s = test::openSession(path);
  Diagnostics d = checkSession(s);
  if (planOut) *planOut = s.plan;
  return d;
}

std::vector<std::string> errorsAndWarnings(const Plan& p, const Diagnostics& d) {
  std::vector<std::string> out;
  for (const auto& x : d.items)
    if (x.severity != Severity::Info)
      out.push_back(std::string(diagKindName(x.kind)) + "@" + (x.node >= 0 ? p.graph.nodes[x.node].name : "-") + ": " +
                    x.message);
  return out;
}

}  // namespace

TEST_CASE("AutoSP real logs: sequence-first inputs as fetched are sliced on the batch", "[real][autosp]") {
  for (const char* rank : {"rank0.log", "rank1.log"}) {
    INFO(rank);
    Plan p;
    Diagnostics d = checkLog(real(std::string("seq0_buggy/") + rank), &p);
    CHECK(p.torchVersion == "2.14.1+debian");
    CHECK(errorsAndWarnings(p, d) ==
          std::vector<std::string>{
              "seq-dim-mismatch@slice_2: AutoSP slices dim 1 (s70) of primals_4 [s72, s70], but the sequence is dim 0 "
              "(s72): all_to_all (AutoSP's all-to-all) gathers the sequence as 2*s72",
              "seq-dim-mismatch@slice_4: AutoSP slices dim 1 (s38) of primals_7 [s97, s38], but the sequence is dim 0 "
              "(s97), as for primals_4 (the tagged inputs share their sequence dim)"});
    const Diagnostic& first = d.items[0].kind == DiagKind::SeqDimMismatch ? d.items[0] : d.items.back();
    CHECK(first.severity == Severity::Error);
  }
}

TEST_CASE("AutoSP real logs: the fixed passes and batch-first inputs check clean", "[real][autosp]") {
  for (const char* c : {"seq0_fixed/rank0.log", "seq0_fixed/rank1.log", "seq1/rank0.log", "seq1/rank1.log"}) {
    INFO(c);
    Plan p;
    Diagnostics d = checkLog(real(c), &p);
    CHECK(errorsAndWarnings(p, d).empty());
    // The graph really is AutoSP's: its all-to-alls and its slices of the inputs are there.
    int a2a = 0, slices = 0;
    for (const Node& n : p.graph.nodes) {
      a2a += n.op == "autosp.all_to_all.default";
      slices += n.op == "aten.slice.Tensor";
    }
    CHECK(a2a == 8);
    CHECK(slices >= 2);
  }
}

TEST_CASE("AutoSP real graphs: the extracted aot_joint_graph reads as the log does", "[real][autosp]") {
  // The same verdict from the graph file alone (FX text) as from the log it came from.
  Plan p;
  Diagnostics fromFile = checkLog(real("seq0_buggy/rank0.aot_joint_graph.txt"), &p);
  Plan q;
  Diagnostics fromLog = checkLog(real("seq0_buggy/rank0.log"), &q);
  CHECK(errorsAndWarnings(p, fromFile) == errorsAndWarnings(q, fromLog));
  Plan f;
  CHECK(errorsAndWarnings(f, checkLog(real("seq0_fixed/rank0.aot_joint_graph.txt"), &f)).empty());
}
