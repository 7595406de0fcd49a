// Hardening: fuzz findings in the FX and native readers (K1, K3 and #8 in docs/reliability.md), each
// replaying the exact input kept in fuzz/regressions/<target>/.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <fstream>
#include <iterator>

#include "core/io/formats.h"
#include "core/io/load/load.h"
#include "core/check/check.h"
#include "core/io/native/plan_json.h"
#include "test_data.h"

using namespace ss;

namespace {
using test::readFile;
std::string regression(const std::string& target, const std::string& name) { return test::readRegression(target, name); }
std::string data(const std::string& name) { return test::ioData(name); }
}  // namespace

TEST_CASE("FX reader: a logical line whose indent runs past its end is an error, not an exception",
          "[hardening]") {
  // K1: core/io/fx/text.cpp FxReader::read called lineText(ll).substr(ll.indent), which threw std::out_of_range
  // (indent 224 > size 36) on this input (an unterminated string annotation spanning lines).
  const std::string text = regression("fuzz_fx_text", "indent-past-line-end");
  Result<Plan> p = Error{"not run"};
  REQUIRE_NOTHROW(p = readFxText(text));
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().toString("x.py") ==
        "x.py:1:1: no `def forward(` found: expected FX graph code (print_readable() output or a repro script)");
}

TEST_CASE("native format keeps kwarg order, so input indices survive save and load", "[hardening]") {
  // core/io/native/plan_json.cpp read "kwargs" through nlohmann::json (keys sorted), so an FX-imported full(...,
  // dtype=, layout=, device=) came back as device, dtype, layout. Tensor inputs are numbered over kwargs in
  // order, so a reorder can move input indices. K3, fixed: such a node carries kwarg_order.
  auto p = loadPlanText(regression("fuzz_load_plan", "fx-kwargs-order"), "x.py");
  REQUIRE(p.ok());
  const std::string written = writePlanString(*p);
  auto again = loadPlanText(written, "y.plan.json");
  REQUIRE(again.ok());
  CHECK(writePlanString(*again) == written);
}

TEST_CASE("native format: an FX get_attr node stays a buffer placeholder after save and load", "[hardening]") {
  // Found by fuzz_load_plan: the native reader made every op other than placeholder/output a call, so get_attr
  // nodes came back as calls without args. Fixed in core/io/native/plan_json.cpp.
  auto p = loadPlanFile(data("falcon_mqa_joint.print_readable.py"));
  REQUIRE(p.ok());
  const int c = p->graph.find("_tensor_constant0");
  REQUIRE(c >= 0);
  REQUIRE(p->graph.nodes[c].kind == NodeKind::Placeholder);
  auto again = loadPlanText(writePlanString(*p), "y.plan.json");
  REQUIRE(again.ok());
  const Node& n = again->graph.nodes[again->graph.find("_tensor_constant0")];
  CHECK(n.op == "get_attr");
  CHECK(n.kind == NodeKind::Placeholder);
  CHECK(n.placeholderKind == PlaceholderKind::Buffer);
  CHECK(n.args.empty());
}

TEST_CASE("FX shape inference never infers a size no tensor can have", "[hardening]") {
  // Found by fuzz_load_plan (88 s): an expand whose annotation is unreadable ("bf16[16,8 21, 71, 64]") and whose
  // sizes say -14. Inference took the literal sizes, the native writer wrote [16, 128, 71, -14], and the native
  // reader refused its own file. A rule's result outside the readers' limits (core/model/graph.h) is now not inferred.
  auto p = loadPlanText(regression("fuzz_load_plan", "fx-expand-negative-size.py"), "x.py");
  REQUIRE(p.ok());
  const int e = p->graph.find("expand");
  REQUIRE(e >= 0);
  CHECK_FALSE(p->graph.nodes[e].outputs.at(0).known);
  const std::string written = writePlanString(*p);
  auto again = loadPlanText(written, "y.plan.json");
  REQUIRE(again.ok());
  CHECK(writePlanString(*again) == written);
  // The checker still reports the impossible expand from its arguments.
  const Diagnostics d = checkPlan(*p);
  REQUIRE(d.summary().errors == 1);
  CHECK(d.items[0].kind == DiagKind::ShapeMismatch);
  CHECK(d.items[0].message == "expand: input shape [16, 128, 1, 64] cannot expand to [16, 128, 71, -14]");
  CHECK_FALSE(shapeWithinLimits({16, -1}));
  CHECK_FALSE(shapeWithinLimits({int64_t{1} << 54}));
  CHECK_FALSE(shapeWithinLimits(std::vector<int64_t>(65, 1)));
  CHECK_FALSE(shapeWithinLimits({int64_t{1} << 40, int64_t{1} << 40}));
  CHECK(shapeWithinLimits({0, int64_t{1} << 53}));
}

TEST_CASE("FX annotations past the readers' limits are refused where they are", "[hardening]") {
  // Numeric sizes under 19 digits were taken as they are: [16, 10^17] loaded, and its native file did not.
  const std::string text = "class GraphModule(torch.nn.Module):\n"
                           "    def forward(self, x: \"f32[16, 100000000000000000]\"):\n"
                           "        relu: \"f32[16, 3]\" = torch.ops.aten.relu.default(x);  x = None\n"
                           "        return (relu,)\n";
  auto p = loadPlanText(text, "big.py");
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().toString("big.py") ==
        "big.py:2:26: annotation \"f32[16, 100000000000000000]\" is past the limits of a tensor (at most 64 dims, "
        "sizes up to 2^53, 2^62 elements)");
  std::string ok = text;
  ok.replace(ok.find("100000000000000000"), 18, "9007199254740992");  // 2^53: the largest size
  CHECK(loadPlanText(ok, "ok.py").ok());
}

TEST_CASE("repro scripts: a load_args shape past the readers' limits is refused where it is", "[hardening]") {
  std::string text = readFile(data("conv_block.repro.py"));
  const std::string from = "reader.tensor(buf0, (64, 3, 3, 3), is_leaf=True)";
  REQUIRE(text.find(from) != std::string::npos);
  text.replace(text.find(from), from.size(), "reader.tensor(buf0, (64, 100000000000000000, 3, 3), is_leaf=True)");
  auto p = loadPlanText(text, "big.repro.py");
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().toString("big.repro.py") ==
        "big.repro.py:23:24: this shape is past the limits of a tensor (sizes 0 to 2^53, at most 64 dims, 2^62 "
        "elements)");
}

TEST_CASE("FX calls: a repeated keyword and a malformed device are refused where they are", "[hardening]") {
  // Found by fuzz_load_plan and fuzz_fx_text (fast-reader session): `device = ..., device = ...` loaded with two
  // kwargs of one name, which the native format (kwargs keyed by name) cannot hold; a device type holding ':'s
  // printed back as an unreadable `device(type=..., index=:::...)`.
  auto repeated = loadPlanText(regression("fuzz_load_plan", "fx-keyword-repeated.py"), "k.py");
  REQUIRE_FALSE(repeated.ok());
  CHECK(repeated.error().toString("k.py") == "k.py:14:148: keyword argument 'device' repeated");
  auto device = loadPlanText(regression("fuzz_fx_text", "device-type-with-colons"), "d.py");
  REQUIRE_FALSE(device.ok());
  CHECK(device.error().toString("d.py").rfind("d.py:26:177: device 'cud\\x19\\x19", 0) == 0);

  const std::string head = "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[4]\"):\n"
                           "        y: \"f32[4]\" = torch.ops.aten._to_copy.default(x, device = ";
  const std::string tail = ");  x = None\n        return (y,)\n";
  auto load = [&](const std::string& dev) { return loadPlanText(head + dev + tail, "t.py"); };
  for (const char* ok : {"device(type='cuda', index=0)", "device('cuda:1')", "device(type='cpu')", "device('meta')"})
    CHECK(load(ok).ok());
  auto bad = load("device('cuda:x')");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().toString("t.py") == "t.py:3:67: device 'cuda:x' is not a device such as 'cuda:0' or 'cpu'");
  CHECK_FALSE(load("device(type='cu da', index=0)").ok());
  CHECK_FALSE(load("device(type='cuda:0', index=1)").ok());  // 'cuda:0' with an index: two indices
  // What loads prints back and reads again.
  auto p = load("device(type='cuda', index=3)");
  REQUIRE(p.ok());
  auto again = loadPlanText(writeFxText(*p).value(), "again.py");
  REQUIRE(again.ok());
  CHECK(again->graph.nodes[again->graph.find("y")].kwargs.at(0).second == Arg::device("cuda:3"));
}

// CI's fuzz_fx_text found it (readFxText refused writeFxText's output): pytree codegen was detected by the words
// `tree_flatten_spec(` anywhere in forward's text, so a comment (a `# File:` line's code) or a string holding them
// made the reader skip the signature's placeholders of the written text. Only a statement's code counts now.
TEST_CASE("FX reader: pytree codegen is a statement, not the words in a comment or a string", "[hardening][fx]") {
  for (const std::string where : {"comment", "string"}) {
    INFO(where);
    const std::string pytree =
        "class inner_f(torch.nn.Module):\n"
        "    def forward(\n        self,\n        primals,\n        tangents,\n    ):\n"
        "        primals_1: \"f32[4, 4][4, 1]cpu\"  # PlainAOTInput(idx=0)\n"
        "        primals_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)\n" +
        (where == "comment" ? std::string("        # File: /a.py:3 in forward, code: y = fx_pytree.tree_flatten_spec(x)\n"
                                          "        relu: \"f32[4, 4][4, 1]cpu\" = torch.ops.aten.relu.default(primals_1)\n")
                            : std::string("        relu: \"f32[4, 4][4, 1]cpu\" = torch.ops.aten.add.Tensor(primals_1, primals_1, "
                                          "alpha = 'tree_flatten_spec(')\n")) +
        "        return pytree.tree_unflatten([\n            relu,  # PlainAOTOutput(idx=0)\n        ], self._out_spec)\n";
    auto p = readFxText(pytree);
    REQUIRE(p.ok());
    REQUIRE(p->graph.size() == 3);
    auto text = writeFxText(*p);
    REQUIRE(text.ok());
    CHECK(text->find("def forward(self, primals_1: \"f32[4, 4]\"):") != std::string::npos);
    auto again = readFxText(*text);
    INFO(*text);
    REQUIRE(again.ok());
    CHECK(again->graph.size() == 3);
    CHECK(again->graph.nodes[0].name == "primals_1");
  }
}
