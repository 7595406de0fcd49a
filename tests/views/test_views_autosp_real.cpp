// DeepSpeed AutoSP's real graph in the app (tests/data/real/autosp/seq0_buggy/rank0.log: sequence-first inputs,
// AutoSP as fetched slices dim 1, the batch): the SP mesh of 2 ranks and the sliced input drawn at the log's
// symbol hints ([8, 2] sliced on dim 1 into [8, 1] per rank), the Inspector's lines, and a headless frame.
#include <catch2/catch.hpp>

#include <string>

#include "core/model/layout.h"
#include "tests/views/harness.h"
#include "views/mesh_view.h"
#include "views/model/document.h"
#include "views/model/focus.h"
#include "views/model/mesh_layout.h"

using namespace ss;
using namespace ss::views;

namespace {

std::string buggyLog() { return std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/data/real/autosp/seq0_buggy/rank0.log"; }

std::string cellText(const MeshCell& c) {
  std::string s = "r" + std::to_string(c.rank) + " " + shapeToString(c.shard.localShape) + " at " +
                  shapeToString(c.shard.offset) + " group " + std::to_string(c.group) + " mini";
  for (const Rect& m : c.mini)
    s += " {" + std::to_string(m.x0).substr(0, 3) + "," + std::to_string(m.y0).substr(0, 3) + "," +
         std::to_string(m.x1).substr(0, 3) + "," + std::to_string(m.y1).substr(0, 3) + "}";
  return s;
}

}  // namespace

TEST_CASE("AutoSP real log: the slice's input drawn on the SP mesh at the symbol hints", "[views][mesh][autosp][real]") {
  Document doc;
  REQUIRE(doc.open(buggyLog()).ok());
  const Plan& plan = doc.plan();
  CHECK(plan.mesh.toString() == "2 (sp)");
  const int slice = plan.graph.find("slice_2");
  REQUIRE(slice >= 0);
  Selection sel;
  sel.selectNode(slice);
  const auto f = focusCandidates(plan, sel);
  REQUIRE(f.size() == 3);
  CHECK(f[0].label == "primals_4 as AutoSP slices it (dim 1, slice_2)");
  CHECK(f[1].label == "primals_4 sliced on its sequence dim 0 (the fix)");
  CHECK(f[2].label == "primals_4 output, the full input on every rank");
  for (const FocusTensor& t : f) {
    CHECK(t.meta.shape == std::vector<int64_t>{8, 2});
    CHECK(t.meta.dtype == DType::I64);
    CHECK(t.note == "sizes: hints of s72=8, s70=2 (the log's create_symbol records); the graph is compiled for any "
                    "size [s72, s70]; this graph is rank 0's");
  }
  CHECK(f[0].spec->toMeshString() == "S(1)");
  CHECK(f[1].spec->toMeshString() == "S(0)");
  CHECK(f[2].spec->toMeshString() == "R");

  MeshGridOptions o;
  o.width = 800;
  o.height = 300;
  auto cells = [&](const FocusTensor& t) {
    const MeshGridLayout g = layoutMeshGrid(plan.mesh, t.meta, *t.spec, o);
    REQUIRE(g.error.empty());
    std::vector<std::string> out;
    for (const MeshCell& c : g.cells) out.push_back(cellText(c));
    return out;
  };
  // AutoSP's slice: the batch dim 1 halved, rank 0 column 0, rank 1 column 1.
  CHECK(cells(f[0]) == std::vector<std::string>{"r0 [8, 1] at [0, 0] group 0 mini {0.0,0.0,0.5,1.0}",
                                                "r1 [8, 1] at [0, 1] group 1 mini {0.5,0.0,1.0,1.0}"});
  // The sequence dim 0 halved instead: rows.
  CHECK(cells(f[1]) == std::vector<std::string>{"r0 [4, 2] at [0, 0] group 0 mini {0.0,0.0,1.0,0.5}",
                                                "r1 [4, 2] at [4, 0] group 1 mini {0.0,0.5,1.0,1.0}"});
  // The full input: replicas.
  CHECK(cells(f[2]) == std::vector<std::string>{"r0 [8, 2] at [0, 0] group 0 mini {0.0,0.0,1.0,1.0}",
                                                "r1 [8, 2] at [0, 0] group 0 mini {0.0,0.0,1.0,1.0}"});

  // The Inspector's lines for the slice, the mismatch in error colour.
  const auto lines = autoSpSliceLines(plan, slice);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0].text == "primals_4 [s72, s70]: sliced by AutoSP on dim 1 (symbol s70, hint 2) in slice_2");
  CHECK(lines[1].text == "symbol s70 is L['input_ids'].size()[1] (the log's create_symbol record)");
  CHECK(lines[2].text == "2 parts on mesh sp, this graph is rank 0's: [0, 1) of dim 1 of [8, 2] at the hints");
  CHECK(lines[3].text == "the sequence is dim 0 (s72): AutoSP slices dim 1 instead");
  CHECK_FALSE(lines[2].error);
  CHECK(lines[3].error);
  // The placeholder lists the same tensors, the full input first.
  sel.selectNode(plan.graph.find("primals_4"));
  const auto g = focusCandidates(plan, sel);
  REQUIRE(g.size() == 3);
  CHECK(g[0].label == "primals_4 output, the full input on every rank");
  CHECK(autoSpSliceLines(plan, plan.graph.find("primals_4")).size() == 4);
  // A node AutoSP did not slice keeps its own (rank-local, spec-less) output.
  sel.selectNode(plan.graph.find("embedding"));
  const auto e = focusCandidates(plan, sel);
  REQUIRE(e.size() == 1);
  CHECK_FALSE(e[0].spec.has_value());
  CHECK(autoSpSliceLines(plan, plan.graph.find("embedding")).empty());
}

TEST_CASE("AutoSP real log: the mesh view draws both ranks of the slice, headless", "[views][mesh][autosp][real]") {
  Document doc;
  REQUIRE(doc.open(buggyLog()).ok());
  test::ImGuiHarness h(1200, 700);
  Selection sel;
  sel.selectNode(doc.plan().graph.find("slice_2"));
  MeshViewState state;
  CommandQueue cmds;
  h.frame([&] { drawMeshView(doc.plan(), doc.diagnostics(), state, sel, cmds); });
  h.frame([&] { drawMeshView(doc.plan(), doc.diagnostics(), state, sel, cmds); });
  CHECK(state.cellsDrawn == 2);
  CHECK(cmds.empty());
}

TEST_CASE("AutoSP's graph file alone: the SP mesh and the slice's spec, its sizes symbolic, no layout drawn",
          "[views][mesh][autosp][real]") {
  // graph_after_autosp.rank0.txt (Dynamo's graph after AutoSP's passes, torch-level calls) holds no hints.
  Document doc;
  REQUIRE(doc.open(std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/data/real/autosp/seq0_buggy/graph_after_autosp.rank0.txt").ok());
  CHECK(doc.plan().mesh.toString() == "2 (sp)");
  test::ImGuiHarness h(1200, 700);
  Selection sel;
  sel.selectNode(doc.plan().graph.find("getitem_3"));
  MeshViewState state;
  CommandQueue cmds;
  h.frame([&] { drawMeshView(doc.plan(), doc.diagnostics(), state, sel, cmds); });
  h.frame([&] { drawMeshView(doc.plan(), doc.diagnostics(), state, sel, cmds); });
  CHECK(state.cellsDrawn == 0);
  CHECK(state.unsized == "[s72, s70]");  // the input AutoSP slices, as printed
  int errors = 0;
  for (const auto& d : doc.diagnostics().items) errors += d.severity == Severity::Error;
  CHECK(errors == 2);
}
