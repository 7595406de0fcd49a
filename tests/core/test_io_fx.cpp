// FX graph text: both real forms (print_readable with annotations, repro scripts with load_args), the
// argument syntax of real graphs, shape inference, round trips, and errors with line:col.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

#include "core/io/formats.h"
#include "core/io/fx/lexer.h"
#include "core/io/load/load.h"
#include "test_data.h"

using namespace ss;

namespace {
std::string readData(const std::string& name) { return test::readIoData(name); }
const Node& node(const Plan& p, const std::string& name) {
  int i = p.graph.find(name);
  REQUIRE(i >= 0);
  return p.graph.nodes[i];
}
TensorMeta meta(std::vector<int64_t> s, DType d) { return TensorMeta{std::move(s), d, true}; }
// Graph equality where NaN arguments count as equal (Arg::operator== compares doubles with ==).
void denan(Arg& a) {
  if (a.kind == Arg::Kind::Float && std::isnan(a.f)) a.f = 12345.678;
  for (auto& x : a.items) denan(x);
}
Graph denan(Graph g) {
  for (auto& n : g.nodes) {
    for (auto& a : n.args) denan(a);
    for (auto& kv : n.kwargs) denan(kv.second);
  }
  return g;
}
Error readError(const std::string& text) {
  auto r = readFxText(text);
  REQUIRE_FALSE(r.ok());
  return r.error();
}
}  // namespace

TEST_CASE("print_readable joint graph reads with metas, args, sources and phases", "[io][fx]") {
  std::string text = readData("falcon_mqa_joint.print_readable.py");
  CHECK(detectFileKind(text) == FileKind::FxText);
  FxReadReport rep;
  auto r = readFxText(text, &rep);
  REQUIRE(r.ok());
  const Plan& p = *r;
  CHECK(p.graph.size() == 27);
  CHECK(rep.annotated == 26);
  CHECK(rep.inferred == 0);
  CHECK(rep.uninferred.empty());
  CHECK(p.sourceFormat == PlanFormat::FxText);

  const Node& mm = node(p, "mm");
  CHECK(mm.op == "aten.mm.default");
  CHECK(mm.outputs == std::vector<TensorMeta>{meta({2048, 4672}, DType::BF16)});
  CHECK(mm.source == SourceLoc{"/home/user/falcon_mqa.py", 21, "forward", "h = self.proj(x).view(B, S, 73, 64)"});
  CHECK(mm.phase == Phase::Forward);
  REQUIRE(mm.args.size() == 2);
  CHECK(mm.args[0] == Arg::tensor({p.graph.find("view"), 0}));

  const Node& full = node(p, "full");
  CHECK(full.source == SourceLoc{});
  CHECK(full.phase == Phase::Backward);  // a constant takes its first user's phase (index_put)
  REQUIRE(full.kwargs.size() == 4);
  CHECK(full.kwargs[0] == std::make_pair(std::string("dtype"), Arg::dtype(DType::BF16)));
  CHECK(full.kwargs[1] == std::make_pair(std::string("layout"), Arg::symbol("torch.strided")));
  CHECK(full.kwargs[2] == std::make_pair(std::string("device"), Arg::device("cuda:0")));
  CHECK(full.kwargs[3] == std::make_pair(std::string("pin_memory"), Arg::boolean(false)));

  const Node& ip = node(p, "index_put");
  REQUIRE(ip.args.size() == 4);
  CHECK(ip.args[1] == Arg::list({Arg::none(), Arg::none(), Arg::tensor({p.graph.find("lift_fresh_copy"), 0})}));
  CHECK(ip.args[3] == Arg::boolean(true));
  CHECK(p.graph.inputs(p.graph.find("index_put")).size() == 3);
  CHECK(node(p, "slice_1").args[3] == Arg::integer(-2));

  const Node& c = node(p, "_tensor_constant0");
  CHECK(c.kind == NodeKind::Placeholder);
  CHECK(c.op == "get_attr");
  CHECK(c.placeholderKind == PlaceholderKind::Buffer);
  CHECK(c.outputs[0] == meta({1}, DType::I64));

  CHECK(node(p, "tangents_1").placeholderKind == PlaceholderKind::Tangent);
  CHECK(node(p, "primals_1").placeholderKind == PlaceholderKind::Param);
  CHECK(node(p, "sum_1").phase == Phase::Backward);
  CHECK(node(p, "convert_element_type").op == "prims.convert_element_type.default");
  CHECK(node(p, "convert_element_type").args[1] == Arg::dtype(DType::F32));
  const Node& out = p.graph.nodes.back();
  CHECK(out.kind == NodeKind::Output);
  CHECK(out.args == std::vector<Arg>{Arg::list({Arg::tensor({p.graph.find("add"), 0}),
                                                Arg::tensor({p.graph.find("convert_element_type"), 0}), Arg::none()})});
  CHECK(p.run.lossNode.empty());  // the first output is not a scalar
  CHECK(p.specs.size() == 27);
}

TEST_CASE("collective graphs: group names, getitem forms, inf/nan, kwargs, Sym annotations", "[io][fx]") {
  auto r = readFxText(readData("collectives.print_readable.py"));
  REQUIRE(r.ok());
  const Plan& p = *r;
  const Node& ag = node(p, "all_gather_into_tensor");
  CHECK(ag.op == "_c10d_functional.all_gather_into_tensor.default");
  CHECK(ag.args == std::vector<Arg>{Arg::tensor({p.graph.find("primals_1"), 0}), Arg::integer(2), Arg::string("0")});
  CHECK(ag.outputs[0] == meta({1024, 1792}, DType::F32));
  CHECK(node(p, "reduce_scatter_tensor").args[1] == Arg::string("sum"));
  CHECK(node(p, "all_reduce").args[2] == Arg::string("1"));
  CHECK(node(p, "all_to_all_single").args[1] == Arg::list({Arg::integer(2048), Arg::integer(2048)}));
  CHECK(node(p, "primals_4").outputs[0].known == false);  // "Sym(s0)"
  CHECK(node(p, "primals_3").outputs[0] == meta({4, 2048}, DType::Bool));
  // var_mean is unannotated: its outputs come from the getitems, one by `x[0]`, one by operator.getitem.
  int vm = p.graph.find("var_mean");
  CHECK(node(p, "var_mean").outputs == std::vector<TensorMeta>{meta({4096, 1}, DType::BF16), meta({4096, 1}, DType::BF16)});
  CHECK(node(p, "var_mean").kwargs[0] == std::make_pair(std::string("correction"), Arg::integer(0)));
  CHECK(node(p, "getitem").args == std::vector<Arg>{Arg::tensor({vm, 0}), Arg::integer(0)});
  CHECK(node(p, "getitem_1").op == "operator.getitem");
  CHECK(node(p, "getitem_1").args == std::vector<Arg>{Arg::tensor({vm, 1}), Arg::integer(1)});
  CHECK(node(p, "add").args[1] == Arg::real(1e-05));
  CHECK(node(p, "masked_fill").args[2] == Arg::real(-HUGE_VAL));
  CHECK(node(p, "clamp").args[1] == Arg::real(-HUGE_VAL));
  CHECK(node(p, "clamp").args[2] == Arg::real(HUGE_VAL));
  CHECK(std::isnan(node(p, "full").args[1].f));
  CHECK(node(p, "full").outputs[0] == meta({}, DType::F32));
  CHECK(node(p, "mul").args[1] == Arg::real(0.7071067811865476));
  CHECK(node(p, "clone").kwargs[0] == std::make_pair(std::string("memory_format"), Arg::symbol("torch.contiguous_format")));
  CHECK(node(p, "_to_copy").kwargs[0] == std::make_pair(std::string("dtype"), Arg::dtype(DType::BF16)));
  CHECK(node(p, "split").outputs.size() == 2);
  CHECK(node(p, "view_1").args[1] == Arg::list({Arg::integer(-1)}));
  CHECK(p.graph.nodes.back().args[0].items.size() == 6);
}

TEST_CASE("repro script: load_args gives placeholder metas, the rest is inferred, misses are named", "[io][fx]") {
  FxReadReport rep;
  auto r = readFxText(readData("llama_mlp.repro.py"), &rep);
  REQUIRE(r.ok());
  const Plan& p = *r;
  CHECK(rep.annotated == 0);
  CHECK(rep.fromLoadArgs == 5);
  CHECK(node(p, "primals_289").outputs[0] == meta({1792, 2048}, DType::BF16));
  CHECK(node(p, "tangents_1").outputs[0] == meta({}, DType::BF16));
  CHECK(node(p, "mm").outputs[0] == meta({512, 1792}, DType::BF16));
  CHECK(node(p, "convert_element_type").outputs[0] == meta({4, 128, 1792}, DType::F32));
  CHECK(node(p, "mul").outputs[0] == meta({4, 128, 1792}, DType::F32));
  CHECK(node(p, "mul_1").outputs[0] == meta({4, 128, 1792}, DType::BF16));
  CHECK(node(p, "sum_1").outputs[0] == meta({}, DType::BF16));
  CHECK(node(p, "expand").outputs[0] == meta({4, 128, 2048}, DType::BF16));
  CHECK(node(p, "mm_3").outputs[0] == meta({2048, 1792}, DType::BF16));
  CHECK(node(p, "t_4").outputs[0] == meta({1792, 2048}, DType::BF16));
  CHECK(rep.inferred == 22);
  CHECK(rep.uninferred == std::vector<std::string>{"aten._foreach_norm.Scalar: 1 node (first _foreach_norm)",
                                                   "operator.getitem: 1 node (first getitem)"});
  CHECK(p.run.lossNode == "sum_1");  // joint graph, scalar first output
  CHECK(node(p, "mm_3").phase == Phase::Backward);
  CHECK(node(p, "mm_2").phase == Phase::Forward);
  CHECK(node(p, "primals_292").placeholderKind == PlaceholderKind::Param);
}

TEST_CASE("FX text round-trips: read(write(read(x))) == read(x) for every fixture", "[io][fx]") {
  for (const char* f : {"falcon_mqa_joint.print_readable.py", "collectives.print_readable.py", "llama_mlp.repro.py"}) {
    INFO(f);
    auto a = readFxText(readData(f));
    REQUIRE(a.ok());
    std::string w = writeFxText(*a).value();
    auto b = readFxText(w);
    REQUIRE(b.ok());
    CHECK(denan(b->graph) == denan(a->graph));
    CHECK(writeFxText(*b).value() == w);
  }
}

TEST_CASE("the writer prints print_readable lines", "[io][fx]") {
  auto a = readFxText(readData("falcon_mqa_joint.print_readable.py"));
  REQUIRE(a.ok());
  std::string w = writeFxText(*a).value();
  CHECK(w.rfind("class GraphModule(torch.nn.Module):\n    def forward(self, primals_1: \"bf16[4672, 4672]\", "
                "primals_2: \"bf16[16, 128, 4672]\", tangents_1: \"bf16[16, 128, 71, 64]\"):\n", 0) == 0);
  CHECK(w.find("\n        # File: /home/user/falcon_mqa.py:21 in forward, code: h = self.proj(x).view(B, S, 73, 64)\n"
               "        view: \"bf16[2048, 4672]\" = torch.ops.aten.view.default(primals_2, [2048, 4672])\n") !=
        std::string::npos);
  CHECK(w.find("        full: \"bf16[16, 128, 73, 64]\" = torch.ops.aten.full.default([16, 128, 73, 64], 0, dtype = "
               "torch.bfloat16, layout = torch.strided, device = device(type='cuda', index=0), pin_memory = False)\n") !=
        std::string::npos);
  CHECK(w.find("        _tensor_constant0: \"i64[1]\" = self._tensor_constant0\n") != std::string::npos);
  CHECK(w.find("        return (add, convert_element_type, None)\n") != std::string::npos);
}

TEST_CASE("parse errors carry line and column", "[io][fx]") {
  const std::string head = "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[4, 4]\"):\n";
  auto e = readError(head + "        mm = torch.ops.aten.mm.default(x, q)\n        return (mm,)\n");
  CHECK(e.toString("g.py") == "g.py:3:43: unknown name 'q' (not defined above)");
  e = readError(head + "        a = torch.ops.aten.add.Tensor(x, 1e)\n        return (a,)\n");
  CHECK(e.toString() == "3:42: malformed number exponent");
  e = readError(head + "        a = torch.ops.aten.add.Tensor(x, 99999999999999999999)\n        return (a,)\n");
  CHECK(e.toString() == "3:42: integer 99999999999999999999 does not fit in 64 bits");
  e = readError(head + "        a = torch.ops.aten.add.Tensor(x, [1, 2)\n        return (a,)\n");
  CHECK(e.toString() == "3:47: expected ',' or ']' in a list");
  e = readError(head + "        a: \"f32[4, 4\" = torch.ops.aten.neg.default(x)\n        return (a,)\n");
  CHECK(e.toString() == "3:12: annotation \"f32[4, 4\" has no closing ']'");
  e = readError(head + "        a = torch.ops.aten.neg.default(x)\n        a = torch.ops.aten.neg.default(a)\n        return (a,)\n");
  CHECK(e.toString() == "4:9: 'a' is defined twice (FX node names are unique)");
  e = readError(head + "        a = torch.ops.aten.neg.default(x) + 1\n        return (a,)\n");
  CHECK(e.toString() == "3:43: unexpected '+' after the expression");
  e = readError(head + "        a = torch.ops.aten.neg.default(x,\n");
  CHECK(e.toString() == "3:39: '(' is not closed");
  e = readError(head + "        a = torch.ops.aten.neg.default(x)\n");
  CHECK(e.toString() == "2:1: forward has no return statement");
  e = readError(head + "        a = torch.ops.aten.foo.default(x, bar(1))\n        return (a,)\n");
  CHECK(e.toString() == "3:43: unsupported call 'bar(...)' in an argument");
  e = readError("import torch\nprint('hello')\n");
  CHECK(e.toString() == "1:1: no `def forward(` found: expected FX graph code (print_readable() output or a repro script)");
  e = readError("graph():\n    %x : [num_users=1] = placeholder[target=x]\n");
  CHECK(e.message.find("`graph():` dump") != std::string::npos);
  CHECK(e.line == 1);
}

TEST_CASE("Python float repr matches CPython", "[io][fx]") {
  CHECK(fx::pythonFloat(1e-05) == "1e-05");
  CHECK(fx::pythonFloat(2.0) == "2.0");
  CHECK(fx::pythonFloat(-0.5) == "-0.5");
  CHECK(fx::pythonFloat(0.0001) == "0.0001");
  CHECK(fx::pythonFloat(1.5e-07) == "1.5e-07");
  CHECK(fx::pythonFloat(0.7071067811865476) == "0.7071067811865476");
  CHECK(fx::pythonFloat(100.0) == "100.0");
  CHECK(fx::pythonFloat(1e16) == "1e+16");
  CHECK(fx::pythonFloat(123456789012345.0) == "123456789012345.0");
  CHECK(fx::pythonFloat(HUGE_VAL) == "inf");
  CHECK(fx::pythonFloat(-HUGE_VAL) == "-inf");
  CHECK(fx::pythonFloat(std::nan("")) == "nan");
  CHECK(fx::pythonString("it's") == "'it\\'s'");
}

TEST_CASE("only the outermost forward is read; nested submodule classes and CRLF files are fine", "[io][fx]") {
  std::string text =
      "class GraphModule(torch.nn.Module):\r\n"
      "    def forward(self, L_x_: \"f32[4][1]cpu\"):\r\n"
      "        l_x_ = L_x_\r\n"
      "        wrap_body_0 = self.wrap_body_0\r\n"
      "        tag_activation_checkpoint = torch.ops.higher_order.tag_activation_checkpoint(wrap_body_0, l_x_);  "
      "wrap_body_0 = l_x_ = None\r\n"
      "        getitem: \"f32[4][1]cpu\" = tag_activation_checkpoint[0];  tag_activation_checkpoint = None\r\n"
      "        return (getitem,)\r\n"
      "        \r\n"
      "    class wrap_body_0(torch.nn.Module):\r\n"
      "        def forward(self, l_x_: \"f32[4][1]cpu\"):\r\n"
      "            sin: \"f32[4][1]cpu\" = torch.sin(l_x_);  l_x_ = None\r\n"
      "            return (sin,)\r\n";
  auto r = readFxText(text);
  REQUIRE(r.ok());
  const Plan& p = *r;
  CHECK(p.graph.size() == 5);  // L_x_, wrap_body_0 (get_attr), tag_activation_checkpoint, getitem, output
  const Node& t = node(p, "tag_activation_checkpoint");
  CHECK(t.op == "higher_order.tag_activation_checkpoint");
  CHECK(t.args == std::vector<Arg>{Arg::tensor({p.graph.find("wrap_body_0"), 0}), Arg::tensor({p.graph.find("L_x_"), 0})});
  CHECK(node(p, "getitem").outputs[0] == meta({4}, DType::F32));
  CHECK(p.graph.find("sin") < 0);
}

TEST_CASE("source comments: the location after torch's Annotation, recompute and backward prefixes", "[io][fx]") {
  // The comment forms autoparallel's logs hold (tests/data/real/dsv3_2x2 and flex_attn): an annotation dict, a
  // recompute tag and the backward origin before "File:", each optional, in this order.
  const std::string text =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, x: \"f32[4, 8][8, 1]cpu\"):\n"
      "        # File: /m.py:10 in forward, code: y = x.sin()\n"
      "        sin: \"f32[4, 8][8, 1]cpu\" = torch.ops.aten.sin.default(x)\n"
      "\n"
      "        # Annotation: {'fallback_to_eager': True} File: /m.py:11 in forward, code: z = y.cos()\n"
      "        cos: \"f32[4, 8][8, 1]cpu\" = torch.ops.aten.cos.default(sin)\n"
      "\n"
      "        # recompute: MUST_SAVE File: /c.py:150 in _all_to_all, code: t = all_to_all_single(\n"
      "        neg: \"f32[4, 8][8, 1]cpu\" = torch.ops.aten.neg.default(cos)\n"
      "\n"
      "        # Annotation: {'comm_region': 'token_dispatch', 'k': {'a}': 1}} recompute: MUST_SAVE "
      "Backward of forward node: File: /c.py:153 in _all_to_all, code: res = wait_tensor(t)\n"
      "        abs_1: \"f32[4, 8][8, 1]cpu\" = torch.ops.aten.abs.default(neg)\n"
      "\n"
      "        # Backward of forward node: File: /m.py:12 in forward, code: w = z.exp()\n"
      "        exp: \"f32[4, 8][8, 1]cpu\" = torch.ops.aten.exp.default(abs_1)\n"
      "\n"
      "        # Annotation: {'comm_region': 'x'} no location here\n"
      "        relu: \"f32[4, 8][8, 1]cpu\" = torch.ops.aten.relu.default(exp)\n"
      "\n"
      "        # No stacktrace found for following nodes\n"
      "        tanh: \"f32[4, 8][8, 1]cpu\" = torch.ops.aten.tanh.default(relu)\n"
      "        return (tanh,)\n";
  auto r = readFxText(text);
  REQUIRE(r.ok());
  const Plan& p = *r;
  CHECK(node(p, "sin").source == SourceLoc{"/m.py", 10, "forward", "y = x.sin()"});
  CHECK(node(p, "cos").source == SourceLoc{"/m.py", 11, "forward", "z = y.cos()"});
  CHECK(node(p, "neg").source == SourceLoc{"/c.py", 150, "_all_to_all", "t = all_to_all_single("});
  CHECK(node(p, "abs_1").source == SourceLoc{"/c.py", 153, "_all_to_all", "res = wait_tensor(t)"});
  CHECK(node(p, "exp").source == SourceLoc{"/m.py", 12, "forward", "w = z.exp()"});
  // A comment with no location keeps the one before; "No stacktrace found" clears it.
  CHECK(node(p, "relu").source == SourceLoc{"/m.py", 12, "forward", "w = z.exp()"});
  CHECK(node(p, "tanh").source == SourceLoc{});
}
