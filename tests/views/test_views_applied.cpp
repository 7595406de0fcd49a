// Applied view records (views/applied_view.h) and the Costs view's plan-vs-applied collectives, from seed 1's
// TORCH_TRACE logs (tests/data/trace/), and the Document opening a log.
#include <catch2/catch.hpp>

#include "core/applied/session.h"
#include "core/model/placement_parse.h"
#include "views/applied_view.h"
#include "views/costs_view.h"
#include "views/model/document.h"

using namespace ss;
using namespace ss::views;

namespace {
std::string trace(const std::string& name) { return std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/data/trace/" + name; }
}  // namespace

TEST_CASE("a Document opens a TORCH_TRACE log with its applied graph and the applied diagnostics", "[views][applied]") {
  Document doc;
  REQUIRE(doc.open(trace("seed1_missing.log")).ok());
  REQUIRE(doc.applied().size() == 1);
  const Plan& plan = doc.plan();
  const int ip = plan.graph.find("index_put");
  int errors = 0;
  for (const Diagnostic& d : doc.diagnostics().items)
    if (d.severity == Severity::Error) {
      ++errors;
      CHECK(d.kind == DiagKind::TransitionNotApplied);
      CHECK(d.node == ip);
      CHECK(d.input == 2);
    }
  CHECK(errors == 1);
  // An edit re-judges the applied graph: taking values as they come (RS(1)) leaves the checker's index_put error
  // and turns the applied all-to-all question away (nothing planned on that edge any more).
  REQUIRE(doc.apply(SetInputSpec{ip, 2, parseSpec("RS(1)").value()}).ok());
  bool notApplied = false, incompatible = false;
  for (const Diagnostic& d : doc.diagnostics().items) {
    notApplied = notApplied || d.kind == DiagKind::TransitionNotApplied;
    incompatible = incompatible || d.kind == DiagKind::IncompatibleInputs;
  }
  CHECK_FALSE(notApplied);
  CHECK(incompatible);
}

TEST_CASE("applied rows: collectives as collectives, the missing transition before its consumer", "[views][applied]") {
  Document doc;
  REQUIRE(doc.open(trace("seed1_missing.log")).ok());
  const AppliedGraph& a = doc.applied()[0];
  const std::vector<AppliedRow> rows = buildAppliedRows(doc.plan(), a);
  REQUIRE(rows.size() == static_cast<size_t>(a.graph.graph.size()) + 1);
  int missing = -1, consumer = -1, collectives = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].kind == AppliedRow::Kind::Missing) missing = static_cast<int>(i);
    if (rows[i].kind == AppliedRow::Kind::Collective) ++collectives;
    if (rows[i].kind == AppliedRow::Kind::Node && rows[i].name == "index_put") consumer = static_cast<int>(i);
  }
  CHECK(collectives == 3);  // slice_scatter's all-to-all, mm_1's all-gather, the weight gradient's all-reduce
  REQUIRE(missing >= 0);
  CHECK(consumer == missing + 1);
  CHECK(rows[missing].op == "RS(1) -> RS(0)");
  CHECK(rows[missing].detail ==
        "the apply pass must insert all_to_all on mesh dim 1 (dim1), 48.0 KiB, 9.3 us on the edge sum_1 -> index_put (input 2)");
  const AppliedRow* ata = nullptr;
  for (const auto& r : rows)
    if (r.kind == AppliedRow::Kind::Collective && r.name == "shard_dim_alltoall") ata = &r;
  REQUIRE(ata);
  CHECK(ata->detail == "all_to_all (shard_dim_alltoall) on mesh dim 1 (dim1), group '2', 3.3 MiB per rank, 32.3 us");
  CHECK(ata->planNode == doc.plan().graph.find("slice_scatter"));
  // Linked selection: the selected edge is its Missing row; a plan node is its applied counterpart.
  Selection sel;
  sel.selectEdge(doc.plan().graph.find("index_put"), 2);
  CHECK(appliedRowFor(rows, sel) == missing);
  sel.selectNode(doc.plan().graph.find("t"));
  const int t = appliedRowFor(rows, sel);
  REQUIRE(t >= 0);
  CHECK(rows[t].name == "permute");
  CHECK(rows[t].detail == "plan: t");
}

TEST_CASE("costs: the plan's estimated collectives beside the applied graph's, per kind and mesh dim", "[views][applied]") {
  Document doc;
  REQUIRE(doc.open(trace("seed1_missing.log")).ok());
  const auto totals = compareCollectives(doc.plan(), &doc.applied()[0].collectives, &doc.applied()[0]);
  REQUIRE(totals.size() == 3);
  CHECK(totals[0].kind == CollectiveKind::AllGather);
  CHECK(totals[0].meshDim == 0);
  CHECK(totals[0].planCount == 1);
  CHECK(totals[0].appliedCount == 1);
  CHECK(totals[0].planBytes == totals[0].appliedBytes);
  // The weight gradient reduced to its parameter's RR at the output: planned there, and applied.
  CHECK(totals[1].kind == CollectiveKind::AllReduce);
  CHECK(totals[1].meshDim == 1);
  CHECK(totals[1].planCount == 1);
  CHECK(totals[1].appliedCount == 1);
  CHECK(totals[1].planBytes == totals[1].appliedBytes);
  CHECK(totals[2].kind == CollectiveKind::AllToAll);
  CHECK(totals[2].meshDim == 1);
  CHECK(totals[2].planCount == 2);    // slice_scatter's and index_put's
  CHECK(totals[2].appliedCount == 1); // index_put's never made it
  CHECK(totals[2].planBytes - totals[2].appliedBytes == 49152);
  // The verdicts are checkApplied's: index_put's all-to-all is the one step not applied; nothing is unplanned.
  CHECK(totals[0].faulty() == false);
  CHECK(totals[1].faulty() == false);
  CHECK(totals[2].missing == 1);
  CHECK(totals[2].unplanned == 0);
}

TEST_CASE("costs: the real dsv3_2x2 log's flattened-mesh collectives perform planned steps, and no row is faulty",
          "[views][applied][real]") {
  // autoparallel's apply pass gathers S(0)S(0) -> RR in one all_gather over the flattened mesh where the plan's
  // estimate has one per mesh dim: the counts differ, the verdicts (every transition found) do not.
  Document doc;
  REQUIRE(doc.open(std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/data/real/dsv3_2x2/rank0.log").ok());
  REQUIRE(doc.applied().size() == 1);
  const auto totals = compareCollectives(doc.plan(), &doc.applied()[0].collectives, &doc.applied()[0]);
  int flattened = 0;
  for (const CollectiveTotal& t : totals) {
    INFO(collectiveName(t.kind) << " on mesh dim " << t.meshDim);
    CHECK(t.missing == 0);
    CHECK(t.unplanned == 0);
    if (t.meshDim == -2) {
      ++flattened;
      CHECK(t.planCount == 0);
      CHECK(t.appliedCount > 0);
    }
  }
  CHECK(flattened == 3);
}

TEST_CASE("an applied graph alone opens with its mesh inferred and collectives listed", "[views][applied]") {
  Document doc;
  REQUIRE(doc.open(trace("seed1_applied_only.txt")).ok());
  REQUIRE(doc.appliedAlone());
  CHECK(doc.plan().mesh.shape() == std::vector<int64_t>{2, 4});
  const auto rows = buildAppliedRows(*doc.appliedAlone());
  int collectives = 0;
  for (const auto& r : rows) collectives += r.kind == AppliedRow::Kind::Collective;
  CHECK(collectives == 4);
  const auto totals = compareCollectives(doc.plan(), &doc.appliedAlone()->collectives);
  REQUIRE(totals.size() == 3);
  CHECK(totals[0].planCount == 0);
  CHECK(totals[0].appliedCount == 1);
}
