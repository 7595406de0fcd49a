// Dynamo's torch-level graphs read as aten ops (core/io/fx/dynamo.h), on the files DeepSpeed's real AutoSP run
// wrote (tests/data/real/autosp/, scripts/autosp_artifacts.sh): the graph the backend received
// (rank<N>.dynamo_output_graph.txt) and the graph after AutoSP's passes (graph_after_autosp.rank<N>.txt, the
// log's before_pre_grad_graph), with torch._C._nn.linear, F.embedding, Tensor methods, AutoSP's
// `x[(slice_1, slice_2)]` and its all-to-alls.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "test_data.h"

#include "core/check/check.h"
#include "core/check/report.h"
#include "core/io/formats.h"
#include "core/io/load/load.h"

using namespace ss;

namespace {

std::string real(const std::string& p) { return std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/data/real/autosp/" + p; }

std::string argText(const Plan& p, const Arg& a) {
  switch (a.kind) {
    case Arg::Kind::None: return "None";
    case Arg::Kind::Bool: return a.b ? "True" : "False";
    case Arg::Kind::Int: return std::to_string(a.i);
    case Arg::Kind::Float: return std::to_string(a.f).substr(0, 3);
    case Arg::Kind::String: return "'" + a.s + "'";
    case Arg::Kind::Tensor: return p.graph.nodes[a.t.node].name;
    case Arg::Kind::List: {
      std::string s = "[";
      for (size_t i = 0; i < a.items.size(); ++i) s += (i ? ", " : "") + argText(p, a.items[i]);
      return s + "]";
    }
    default: return "?";
  }
}

// "aten.view.default(linear, [2, s38, 4, 8])": the node as the checker and the runner see it.
std::string call(const Plan& p, const std::string& name) {
  const int i = p.graph.find(name);
  REQUIRE(i >= 0);
  const Node& n = p.graph.nodes[i];
  std::string s = n.op + "(";
  for (size_t k = 0; k < n.args.size(); ++k) s += (k ? ", " : "") + argText(p, n.args[k]);
  for (const auto& [key, v] : n.kwargs) s += ", " + key + "=" + argText(p, v);
  return s + ")";
}

Plan read(const std::string& path) {
  auto p = readFxText(test::readFile(path));
  INFO((p.ok() ? std::string() : p.error().toString()));
  REQUIRE(p.ok());
  return std::move(*p);
}

std::vector<std::string> problems(const Plan& p) {
  std::vector<std::string> out;
  for (const auto& d : checkPlan(p).items)
    if (d.severity != Severity::Info)
      out.push_back(std::string(diagKindName(d.kind)) + "@" + p.graph.nodes[d.node].name + ": " + d.message);
  return out;
}

}  // namespace

TEST_CASE("Dynamo's graph as the backend received it: torch calls and Tensor methods read as aten ops",
          "[io][dynamo][real]") {
  const Plan p = read(real("seq1/rank0.dynamo_output_graph.txt"));
  // F.embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse) -> aten's order.
  CHECK(call(p, "h") == "aten.embedding.default(L_self_modules_emb_parameters_weight_, L_input_ids_, -1, False, False)");
  CHECK(call(p, "linear") == "aten.linear.default(h, L_self_modules_q_proj_parameters_weight_, None)");
  CHECK(call(p, "view") == "aten.view.default(linear, [2, s38, 4, 8])");
  CHECK(call(p, "q") == "aten.transpose.int(view, 1, 2)");
  CHECK(call(p, "o") ==
        "aten.scaled_dot_product_attention.default(q, k, v, None, 0.0, True)");
  CHECK(call(p, "reshape_1") == "aten.reshape.default(logits, [-1, 64])");
  CHECK(call(p, "cross_entropy") == "aten.cross_entropy_loss.default(reshape_1, reshape_2, None, 1, -100, 0.0)");
  // The module's weights are parameters, named by their path; the token ids and labels are inputs.
  const Node& w = p.graph.nodes[p.graph.find("L_self_modules_q_proj_parameters_weight_")];
  CHECK(w.placeholderKind == PlaceholderKind::Param);
  CHECK(w.modulePath == "q_proj.weight");
  CHECK(p.graph.nodes[p.graph.find("L_input_ids_")].placeholderKind == PlaceholderKind::Input);
  // Every op node has its rule; the whole model checks clean, its loss the output.
  CHECK(problems(p).empty());
  const CheckCoverage c = checkCoverage(p);
  CHECK(c.opNodes == 17);
  CHECK(c.checked == 17);
}

TEST_CASE("Dynamo's graph after AutoSP's passes: the slice objects and the index read as one aten.slice",
          "[io][dynamo][real][autosp]") {
  const Plan p = read(real("seq1/graph_after_autosp.rank1.txt"));
  // `slice_1 = slice(None, None, None)`, `slice_2 = slice(mul, add, None)`: values, no nodes.
  CHECK(p.graph.find("slice_1") < 0);
  CHECK(p.graph.find("slice_2") < 0);
  CHECK(call(p, "mul") == "operator.mul(1, floordiv_1)");  // rank 1's graph: its rank baked in
  CHECK(call(p, "getitem_3") == "aten.slice.Tensor(L_input_ids_, 1, mul, add, 1)");
  CHECK(call(p, "a2a_q") == "autosp.all_to_all.default(q, 1, 2, 'q')");
  CHECK(problems(p).empty());
}

TEST_CASE("Dynamo's graphs of the real AutoSP run: sequence-first inputs as fetched are flagged at AutoSP's index",
          "[io][dynamo][real][autosp]") {
  for (const char* rank : {"0", "1"}) {
    INFO("rank " << rank);
    const Plan buggy = read(real(std::string("seq0_buggy/graph_after_autosp.rank") + rank + ".txt"));
    CHECK(problems(buggy) ==
          std::vector<std::string>{
              "seq-dim-mismatch@getitem_3: AutoSP slices dim 1 (s70) of L_input_ids_ [s72, s70], but the sequence is "
              "dim 0 (s72): a2a_q (AutoSP's all-to-all) gathers the sequence as 2*s72",
              "seq-dim-mismatch@getitem_4: AutoSP slices dim 1 (s38) of L_labels_ [s97, s38], but the sequence is dim 0 "
              "(s97), as for L_input_ids_ (the tagged inputs share their sequence dim)"});
    CHECK(problems(read(real(std::string("seq0_fixed/graph_after_autosp.rank") + rank + ".txt"))).empty());
  }
  for (const char* c : {"seq0_buggy", "seq0_fixed"}) {
    INFO(c);
    CHECK(problems(read(real(std::string(c) + "/rank0.dynamo_output_graph.txt"))).empty());
  }
}

TEST_CASE("Dynamo's graphs: what the table does not know keeps its torch name; indexing it cannot read is said",
          "[io][dynamo]") {
  const std::string text = test::readFile(real("seq1/graph_after_autosp.rank0.txt"));
  auto edited = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    REQUIRE(t.find(from) != std::string::npos);
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  // A method the table has no aten op for: its torch name, the receiver as its first argument (unchecked; the
  // runner refuses it).
  auto m = readFxText(edited("view.transpose(1, 2);  view = None", "view.float();  view = None"));
  REQUIRE(m.ok());
  CHECK(call(*m, "q") == "torch.Tensor.float(view)");
  // A call of a known function with arguments the aten op cannot say keeps the torch name too.
  auto e = readFxText(edited("l_self_modules_emb_parameters_weight_, None, None, 2.0",
                             "l_self_modules_emb_parameters_weight_, None, 1.0, 2.0"));
  REQUIRE(e.ok());
  CHECK(e->graph.nodes[e->graph.find("h")].op == "torch.nn.functional.embedding");
  // Indexing beyond one dim's slice or integer: one line naming the place.
  auto none = readFxText(edited("l_input_ids_[(slice_1, slice_2)]", "l_input_ids_[(None, slice_2)]"));
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().toString() == "21:66: indexing with None or Ellipsis (a new or skipped dim) is not read yet");
  auto two = readFxText(edited("l_input_ids_[(slice_1, slice_2)]", "l_input_ids_[(slice_2, slice_2)]"));
  REQUIRE_FALSE(two.ok());
  CHECK(two.error().toString() == "21:52: indexing dims 0 and 1 in one step is not read yet");
  // An integer on one dim is a select.
  auto sel = readFxText(edited("l_input_ids_[(slice_1, slice_2)]", "l_input_ids_[(slice_1, 0)]"));
  REQUIRE(sel.ok());
  CHECK(call(*sel, "getitem_3") == "aten.select.int(L_input_ids_, 1, 0)");
}
