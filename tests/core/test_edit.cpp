// Edit commands: apply, undo, redo, batches roll back on error, dirty tracking.
#include <catch2/catch.hpp>

#include "core/plan/edit.h"
#include "core/io/load/load.h"
#include "core/model/placement_parse.h"

using namespace ss;

namespace {
Plan load() {
  auto p = loadPlanFile(std::string(SHARDSCOPE_SAMPLES_DIR) + "/teach_fsdp_tp.plan.json");
  REQUIRE(p.ok());
  return std::move(*p);
}
ShardingSpec spec(const char* s) { return *parseSpec(s); }
}  // namespace

TEST_CASE("set a spec, undo and redo", "[edit]") {
  Plan p = load();
  const Plan original = p;
  EditHistory h;
  int relu = p.graph.find("relu");
  auto r = h.apply(p, SetOutputSpec{relu, 0, spec("S(0)R")});
  REQUIRE(r.ok());
  CHECK(p.specs[relu].outputs[0]->toMeshString() == "S(0)R");
  CHECK(*r == std::vector<int>{relu, p.graph.find("mm_1")});
  CHECK(h.dirty());
  CHECK(h.undoLabel() == "Set relu output 0 to S(0)R");
  REQUIRE(h.undo(p).ok());
  CHECK(p == original);
  CHECK_FALSE(h.dirty());
  REQUIRE(h.redo(p).ok());
  CHECK(p.specs[relu].outputs[0]->toMeshString() == "S(0)R");
  CHECK_FALSE(h.canRedo());
}

TEST_CASE("invalid edits leave the plan untouched", "[edit][errors]") {
  Plan p = load();
  const Plan original = p;
  EditHistory h;
  auto bad = h.apply(p, SetOutputSpec{p.graph.find("mm"), 0, spec("S(2)R")});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "S(2) on mesh dim 0 shards dim 2 of a tensor with 2 dims");
  CHECK(h.apply(p, SetSeqDim{p.graph.find("mm"), AutoSpTag{"input_id", 0}}).error().message ==
        "'mm' is not an input: only inputs carry AutoSP tags");
  CHECK(h.apply(p, SetSeqDim{0, AutoSpTag{"input_id", 5}}).error().message ==
        "seq_dim 5 is out of range for 'x' with 2 dims");
  CHECK(h.apply(p, RemoveRedistribute{p.graph.find("relu"), 0}).error().message ==
        "there is no redistribute on input 0 of 'relu'");
  CHECK(p == original);
  CHECK_FALSE(h.canUndo());
}

TEST_CASE("a batch is one undo step and rolls back on error", "[edit]") {
  Plan p = load();
  const Plan original = p;
  EditHistory h;
  int mm = p.graph.find("mm");
  Batch ok{"Fix all", {RemoveRedistribute{mm, 1}, InsertRedistribute{Redistribute{mm, 1, spec("S(0)S(1)"), spec("RS(1)")}},
                       SetSeqDim{0, AutoSpTag{"input_id", std::nullopt}}}};
  REQUIRE(h.apply(p, ok).ok());
  CHECK(p.tags.at(0).key == "input_id");
  REQUIRE(h.undo(p).ok());
  CHECK(p == original);
  Batch bad{"Broken", {SetSeqDim{0, AutoSpTag{"input_id", 1}}, RemoveRedistribute{mm, 0}}};
  auto r = h.apply(p, bad);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "step 2 of 'Broken': there is no redistribute on input 0 of 'mm'");
  CHECK(p == original);
}

TEST_CASE("inserting over an existing redistribute replaces it and undo restores it", "[edit]") {
  Plan p = load();
  EditHistory h;
  int mm = p.graph.find("mm");
  REQUIRE(h.apply(p, InsertRedistribute{Redistribute{mm, 1, spec("S(0)S(1)"), spec("RR")}}).ok());
  CHECK(p.findRedistribute(mm, 1)->to.toMeshString() == "RR");
  CHECK(p.redistributes.size() == 4);
  REQUIRE(h.undo(p).ok());
  CHECK(p.findRedistribute(mm, 1)->to.toMeshString() == "RS(1)");
}

TEST_CASE("saving marks the history clean; edits after undo past the save stay dirty", "[edit]") {
  Plan p = load();
  EditHistory h;
  REQUIRE(h.apply(p, SetSeqDim{0, AutoSpTag{"input_id", 0}}).ok());
  h.markSaved();
  CHECK_FALSE(h.dirty());
  REQUIRE(h.undo(p).ok());
  CHECK(h.dirty());
  REQUIRE(h.apply(p, SetSeqDim{0, AutoSpTag{"label_id", 0}}).ok());
  CHECK(h.dirty());
}
