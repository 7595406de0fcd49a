// Whole real-world FX files: the constructs autoparallel's DeepSeek-V3 repro scripts hold (Python
// preamble, Triton kernels, stub classes, lambda attributes, higher-order ops, dict literals, symbolic scalars,
// MoE ops), in a self-made fixture with hand-checked shapes; applied graphs (local shapes) checked alone.
#include <catch2/catch.hpp>

#include <sstream>

#include "core/check/check.h"
#include "core/ops/op_safety.h"
#include "core/io/formats.h"
#include "core/io/load/load.h"
#include "test_data.h"

using namespace ss;

namespace {
const Node& node(const Plan& p, const std::string& name) {
  int i = p.graph.find(name);
  INFO(name);
  REQUIRE(i >= 0);
  return p.graph.nodes[i];
}
TensorMeta meta(std::vector<int64_t> s, DType d) { return TensorMeta{std::move(s), d, true}; }
std::vector<std::string> kinds(const Diagnostics& d) {
  std::vector<std::string> out;
  for (const auto& x : d.items) out.push_back(diagKindName(x.kind));
  return out;
}
Error readError(const std::string& text) {
  auto r = readFxText(text);
  REQUIRE_FALSE(r.ok());
  return r.error();
}
}  // namespace

TEST_CASE("A whole minifier repro: preamble, stubs, lambdas, higher-order ops, dicts, symbolic scalars", "[io][fx]") {
  const std::string text = test::readIoData("moe_hop.repro.py");
  CHECK(detectFileKind(text) == FileKind::FxText);
  FxReadReport rep;
  auto r = readFxText(text, &rep);
  REQUIRE(r.ok());
  const Plan& p = *r;

  // What lies around the graph is recognised, counted, and not made into nodes.
  CHECK(rep.skippedCount(FxSkipped::Import) == 7);
  CHECK(rep.skippedCount(FxSkipped::Environment) == 1);
  CHECK(rep.skippedCount(FxSkipped::Config) == 2);
  CHECK(rep.skippedCount(FxSkipped::TritonKernel) == 1);
  CHECK(rep.skippedCount(FxSkipped::KernelSideTable) == 3);
  CHECK(rep.skippedCount(FxSkipped::StubClass) == 1);
  CHECK(rep.skippedCount(FxSkipped::ModuleAttribute) == 5);
  CHECK(rep.skippedCount(FxSkipped::OtherPython) == 5);  // isolate_fails_code_str, _version, mod, __main__, helper
  CHECK(rep.opaqueRefs == 5);
  CHECK(rep.symbolic == 7);  // u0, _local_scalar_dense, ge, sym_size_int, add, floordiv, sym_sum
  CHECK(rep.summary() ==
        "skipped: 7 import, 1 environment, 2 config, 1 triton-kernel, 3 kernel-side-table, 1 stub-class, "
        "5 module-attribute, 5 other-python; 5 opaque callable references; 7 symbolic scalars");
  CHECK(rep.fromLoadArgs == 8);
  CHECK(rep.uninferred == std::vector<std::string>{});

  // The graph: 8 placeholders, 5 get_attr references, 42 calls, the output.
  CHECK(p.graph.size() == 56);
  CHECK(node(p, "u0").kind == NodeKind::Placeholder);
  CHECK(node(p, "u0").outputs[0] == TensorMeta{{}, DType::I64, false});  // reader.symint: a SymInt input
  const Node& score = node(p, "sdpa_score0");
  CHECK(score.op == "get_attr");
  CHECK(score.modulePath == "sdpa_score0");
  CHECK_FALSE(score.outputs[0].known);

  // Infix operators on symbolic scalars are operator.* nodes; torch.sym_sum keeps its name.
  const Node& ge = node(p, "ge");
  CHECK(ge.op == "operator.ge");
  REQUIRE(ge.args.size() == 2);
  CHECK(ge.args[0] == Arg::tensor({p.graph.find("_local_scalar_dense"), 0}));
  CHECK(ge.args[1] == Arg::integer(0));
  CHECK(node(p, "add").op == "operator.add");
  CHECK(node(p, "add").args[0] == Arg::integer(0));
  CHECK(node(p, "floordiv").op == "operator.floordiv");
  CHECK(node(p, "sym_sum").op == "torch.sym_sum");
  CHECK(node(p, "_local_scalar_dense").outputs[0] == TensorMeta{{}, DType::I64, false});
  CHECK(node(p, "ge").outputs[0] == TensorMeta{{}, DType::Bool, false});

  // Higher-order ops: callables are opaque node references, options dicts are [key, value] pairs.
  const Node& flex = node(p, "flex_attention");
  CHECK(flex.op == "higher_order.flex_attention");
  CHECK(flex.args[3] == Arg::tensor({p.graph.find("sdpa_score0"), 0}));
  REQUIRE(flex.args[6].isList());
  CHECK(flex.args[6].items[0] == Arg::list({Arg::string("BACKEND"), Arg::string("AUTO")}));
  CHECK(flex.args[6].items[2] == Arg::list({Arg::string("OUTPUT_LOGSUMEXP"), Arg::boolean(true)}));
  CHECK(flex.outputs[0] == meta({1, 2, 8, 16}, DType::BF16));
  CHECK(flex.outputs[1] == meta({1, 2, 8}, DType::F32));
  CHECK(node(p, "getitem_6").outputs[0] == meta({1, 2, 8, 16}, DType::BF16));  // flex_attention_backward's dq

  // triton_kernel_wrapper_functional: keyword dicts hold tensor inputs; outputs are indexed by name.
  const Node& tk = node(p, "triton_kernel_wrapper_functional_proxy");
  CHECK(tk.op == "higher_order.triton_kernel_wrapper_functional");
  REQUIRE(tk.kwargs.size() == 6);
  CHECK(tk.kwargs[3] == std::pair<std::string, Arg>{"tma_descriptor_metadata", Arg::list({})});
  CHECK(tk.kwargs[4].second.items[0] ==
        Arg::list({Arg::string("out_ptr"), Arg::tensor({p.graph.find("cumsum"), 0})}));
  CHECK(p.graph.inputs(p.graph.find("triton_kernel_wrapper_functional_proxy")) ==
        std::vector<TensorRef>{{p.graph.find("cumsum"), 0}});
  const Node& g3 = node(p, "getitem_3");
  CHECK(g3.op == "operator.getitem");
  CHECK(g3.args[1] == Arg::string("out_ptr"));
  CHECK(g3.outputs[0] == meta({4}, DType::I32));

  // MoE and the rest, as PyTorch's meta functions shape them.
  CHECK(node(p, "topk").outputs == std::vector<TensorMeta>{meta({8, 1}, DType::BF16), meta({8, 1}, DType::I64)});
  CHECK(node(p, "histc").outputs[0] == meta({4}, DType::I64));
  CHECK(node(p, "sort").outputs[1] == meta({8}, DType::I64));
  CHECK(node(p, "cumsum").outputs[0] == meta({4}, DType::I32));
  CHECK(node(p, "index").outputs[0] == meta({8, 16}, DType::BF16));
  CHECK(node(p, "_grouped_mm").outputs[0] == meta({8, 32}, DType::BF16));
  // all_to_all_single with symbolic output splits: dim 0 is data, the rest is known.
  CHECK(node(p, "all_to_all_single").outputs[0] == TensorMeta{{-1, 16}, DType::BF16, false});
  CHECK(node(p, "full").outputs[0] == TensorMeta{{-1, 16}, DType::BF16, false});
  CHECK(node(p, "getitem_8").outputs[0] == meta({1, 2, 8}, DType::F32));
  CHECK(node(p, "view_as_complex").outputs[0] == meta({1, 2, 8, 8}, DType::C64));
  CHECK(node(p, "mul").outputs[0] == meta({1, 2, 8, 8}, DType::C64));
  CHECK(node(p, "view_as_real").outputs[0] == meta({1, 2, 8, 8, 2}, DType::F32));
  CHECK(node(p, "view_2").outputs[0] == meta({1, 2, 8, 16}, DType::F32));
  CHECK(node(p, "constant_pad_nd").outputs[0] == meta({8}, DType::I32));
  CHECK(node(p, "device_put").outputs[0] == meta({4}, DType::I64));
  CHECK(node(p, "fma").outputs[0] == meta({8, 1}, DType::BF16));

  // Every op in it has a rule: nothing unchecked, nothing wrong. Only the user Triton kernel is refused for
  // running (core/ops/op_safety.h: it works on raw pointers), an info: its body is no part of the plan.
  const Diagnostics d = checkPlan(p);
  REQUIRE(kinds(d) == std::vector<std::string>{"unsafe-op"});
  CHECK(d.items[0].node == p.graph.find("triton_kernel_wrapper_functional_proxy"));
  CHECK(d.items[0].severity == Severity::Info);
  CHECK_FALSE(d.hasErrors());
  CHECK(unsafeNodes(p.graph).size() == 1);  // `run` still refuses the plan

  // It writes back as FX text that reads again to the same graph (dicts as their pair lists).
  auto again = readFxText(writeFxText(p).value());
  REQUIRE(again.ok());
  CHECK(again->graph.size() == p.graph.size());
  for (int i = 0; i < p.graph.size(); ++i) {
    INFO(p.graph.nodes[i].name);
    CHECK(again->graph.nodes[i].op == p.graph.nodes[i].op);
    CHECK(again->graph.inputs(i) == p.graph.inputs(i));
  }
}

TEST_CASE("What the FX reader still cannot read is refused at its line:col", "[io][fx]") {
  const std::string head = "class Repro(torch.nn.Module):\n    def forward(self, x):\n";
  CHECK(readError(head + "        y = torch.ops.higher_order.flex_attention(x, {'a' 1})\n        return (y,)\n").toString() ==
        "3:59: expected ':' after a dict key but found '1'");
  CHECK(readError(head + "        y = torch.ops.aten.add.Tensor(x, {'a': 1 2})\n        return (y,)\n").toString() ==
        "3:50: expected ',' or '}' in a dict");
  CHECK(readError(head + "        y = s0 + 1\n        return (y,)\n").toString() == "3:13: unknown name 's0' (not defined above)");
  CHECK(readError(head + "        y = x >= \n        return (y,)\n").toString() ==
        "3:18: expected a name or a number in the expression");
  CHECK(readError(head + "        y = x['k' + 1]\n        return (y,)\n").toString() == "3:19: expected ']' but found '+'");
  auto neg = readFxText(head + "        y = -1 + x\n        return (y,)\n");
  REQUIRE(neg.ok());
  CHECK(neg->graph.nodes[neg->graph.find("y")].op == "operator.add");
  CHECK(neg->graph.nodes[neg->graph.find("y")].args[0] == Arg::integer(-1));
  // A file whose only forward is a stub has no graph.
  CHECK(readError("class GraphModule(torch.nn.Module):\n    def forward(self, *args, **kwargs):\n        pass\n")
            .toString() == "1:1: no `def forward(` found: expected FX graph code (print_readable() output or a repro script)");
}

TEST_CASE("The applied graph of the seed-1 trace (the trace fixture, with its all-to-all) checks clean", "[check][fx]") {
  // samples/gen/trace_log.py's autoparallel_parallel_graph: rank-local shapes, _dtensor.shard_dim_alltoall on the
  // index_put values edge, every other collective and view in place.
  auto p = loadPlanFile(std::string(SHARDSCOPE_TESTDATA_DIR) + "/trace/seed1_applied_only.txt");
  REQUIRE(p.ok());
  CHECK(p->graph.find("shard_dim_alltoall") >= 0);
  CHECK(kinds(checkPlan(*p)).empty());
}

TEST_CASE("The applied graph of the seed-1 trace without its all-to-all is the index_put error", "[check][fx]") {
  // The autoparallel_parallel_graph artifact of tests/data/trace/seed1_missing.log (samples/gen/trace_log.py): the
  // payload is the tab-indented lines after its record header.
  const std::string log = test::readFile(std::string(SHARDSCOPE_TESTDATA_DIR) + "/trace/seed1_missing.log");
  std::istringstream in(log);
  std::string line, graph;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '\t') inside = line.find("\"autoparallel_parallel_graph\"") != std::string::npos;
    else if (inside && !line.empty()) graph += line.substr(1) + "\n";
  }
  REQUIRE_FALSE(graph.empty());
  auto p = readFxText(graph);
  REQUIRE(p.ok());
  const Diagnostics d = checkPlan(*p);
  REQUIRE(kinds(d) == std::vector<std::string>{"shape-mismatch"});
  CHECK(d.items[0].node == p->graph.find("index_put"));
  CHECK(d.items[0].message ==
        "index_put: values of shape [16, 32, 1, 64] do not broadcast to the slots they fill in self, [4, 128, 1, 64]");
}

TEST_CASE("Collectives in an applied graph: the declared output is what the group size gives", "[check][fx]") {
  const std::string text = test::readIoData("seed1_applied_fixed.print_readable.py");
  auto wrong = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    const size_t at = t.find(from);
    REQUIRE(at != std::string::npos);
    t.replace(at, from.size(), to);
    auto p = readFxText(t);
    REQUIRE(p.ok());
    return checkPlan(*p);
  };
  // all_gather_into_tensor(x, 4, '1') of [32, 16, 1, 64] makes [128, 16, 1, 64], not [64, ...].
  Diagnostics ag = wrong("all_gather_into_tensor: \"bf16[128, 16, 1, 64]", "all_gather_into_tensor: \"bf16[64, 16, 1, 64]");
  REQUIRE(kinds(ag).size() >= 1);
  CHECK(ag.items[0].kind == DiagKind::ShapeMismatch);
  CHECK(ag.items[0].message ==
        "all_gather_into_tensor declares shape [64, 16, 1, 64], but all_gather_into_tensor of its inputs gives [128, 16, 1, 64]");
  // reduce_scatter_tensor(x, 'sum', 4, '1') of [4, 128, 1, 64] makes [1, 128, 1, 64].
  Diagnostics rs = wrong("reduce_scatter_tensor: \"bf16[1, 128, 1, 64]", "reduce_scatter_tensor: \"bf16[4, 128, 1, 64]");
  REQUIRE(kinds(rs).size() >= 1);
  CHECK(rs.items[0].message ==
        "reduce_scatter_tensor declares shape [4, 128, 1, 64], but reduce_scatter_tensor of its inputs gives [1, 128, 1, 64]");
  // all_reduce keeps the shape; wait_tensor is the identity.
  Diagnostics ar = wrong("wait_tensor_2: \"bf16[4, 128, 1, 64]", "wait_tensor_2: \"bf16[4, 64, 1, 64]");
  REQUIRE(kinds(ar).size() >= 1);
  CHECK(ar.items[0].message == "wait_tensor_2 declares shape [4, 64, 1, 64], but wait_tensor of its inputs gives [4, 128, 1, 64]");
  // A group size that does not divide dim 0 is an error at the input.
  Diagnostics bad = wrong("reduce_scatter_tensor.default(index_put, 'sum', 4, '1')",
                          "reduce_scatter_tensor.default(index_put, 'sum', 3, '1')");
  REQUIRE(kinds(bad).size() >= 1);
  CHECK(bad.items[0].input == 0);
  CHECK(bad.items[0].message ==
        "reduce_scatter_tensor: dim 0 of [4, 128, 1, 64] does not split into 3 equal parts (the group size)");
}
