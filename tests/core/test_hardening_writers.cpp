// Hardening (issue 43, "readers and writers"): a writer writes exactly the plan it holds or refuses it. Plans come
// from other people's bug reports: a stack-trace comment or a name that holds a newline must never put a line into
// the exported FX text that the graph does not have.
#include <catch2/catch.hpp>

#include <string>

#include "core/io/formats.h"
#include "core/io/load/load.h"

using namespace ss;

namespace {

const char* kGraph =
    "class GraphModule(torch.nn.Module):\n"
    "    def forward(self, x: \"f32[4, 8]\", w: \"f32[8, 2]\"):\n"
    "        # File: /m.py:3 in forward, code: y = x @ w\n"
    "        mm: \"f32[4, 2]\" = torch.ops.aten.mm.default(x, w);  x = w = None\n"
    "        relu: \"f32[4, 2]\" = torch.ops.aten.relu.default(mm);  mm = None\n"
    "        return (relu,)\n";

// The graph's nodes as "name=op" lines, what an export must keep.
std::string shapeOf(const Plan& p) {
  std::string s;
  for (const auto& n : p.graph.nodes) s += n.name + "=" + n.op + "\n";
  return s;
}

}  // namespace

TEST_CASE("FX export: a stack-trace comment holding newlines stays one comment line", "[hardening][writers]") {
  auto plan = loadPlanText(kGraph, "g.py");
  REQUIRE(plan.ok());
  const int mm = plan->graph.find("mm");
  REQUIRE(mm >= 0);
  const std::string injected = "\n        evil = torch.ops.aten.from_file.default('/etc/passwd', True, 100)\n";
  plan->graph.nodes[mm].source.code = "y = x @ w" + injected;
  plan->graph.nodes[mm].source.file = "/m.py" + injected;
  plan->graph.nodes[mm].source.func = "forward\r" + injected;

  auto text = writeFxText(*plan);
  REQUIRE(text.ok());
  CHECK(text->find("\n        evil") == std::string::npos);
  CHECK(text->find("# File: /m.py\\n        evil = torch.ops.aten.from_file.default('/etc/passwd', True, 100)\\n:3 in "
                   "forward\\r\\n        evil") != std::string::npos);
  auto again = loadPlanText(*text, "again.py");
  REQUIRE(again.ok());
  CHECK(shapeOf(*again) == shapeOf(*plan));
  CHECK(again->graph.find("evil") < 0);
}

TEST_CASE("FX export: a name that is not a Python name is refused, naming the node", "[hardening][writers]") {
  auto plan = loadPlanText(kGraph, "g.py");
  REQUIRE(plan.ok());
  const int relu = plan->graph.find("relu");
  REQUIRE(relu >= 0);

  SECTION("node name") {
    plan->graph.nodes[relu].name = "relu\n        evil = 1";
    auto text = writeFxText(*plan);
    REQUIRE_FALSE(text.ok());
    CHECK(text.error().toString("p.plan.json") ==
          "p.plan.json: cannot write FX text: node 'relu\\n        evil = 1' has the node name 'relu\\n        evil = 1', "
          "which is not a Python name (FX text would read it as other code)");
  }
  SECTION("op") {
    plan->graph.nodes[relu].op = "aten.relu.default(mm)\n        evil = torch.ops.aten.from_file.default";
    auto text = writeFxText(*plan);
    REQUIRE_FALSE(text.ok());
    CHECK(text.error().message.rfind("cannot write FX text: node 'relu' has the op 'aten.relu.default(mm)\\n", 0) == 0);
  }
  SECTION("keyword") {
    plan->graph.nodes[relu].kwargs.push_back({"x)\nevil", Arg::integer(1)});
    auto text = writeFxText(*plan);
    REQUIRE_FALSE(text.ok());
    CHECK(text.error().message.find("has the keyword 'x)\\nevil'") != std::string::npos);
  }
  SECTION("symbol argument") {
    plan->graph.nodes[relu].args.push_back(Arg::symbol("torch.strided)\nevil"));
    auto text = writeFxText(*plan);
    REQUIRE_FALSE(text.ok());
    CHECK(text.error().message.find("has the symbol 'torch.strided)\\nevil'") != std::string::npos);
  }
  SECTION("names FX really writes are written") {
    plan->graph.nodes[relu].name = "L_self_modules_q_proj_parameters_weight_";
    plan->graph.nodes[relu].op = "torch._C._nn.linear";
    CHECK(writeFxText(*plan).ok());
  }
}
