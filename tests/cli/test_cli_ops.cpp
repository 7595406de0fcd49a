// `shardscope ops` as a process: "is my op checked?", exact rows, the table's totals, exit codes.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "cli_run.h"

#include "core/ops/op_table.h"

using ss::test::runCli;

TEST_CASE("ops: the ops asked for, each with its checker, shape and runner status", "[cli][ops]") {
  auto r = runCli("ops aten.mm.default aten.gelu_backward.default aten.from_file.default operator.getitem "
                  "aten._embedding_bag_backward.default");
  CHECK(r.code == 1);  // from_file and the embedding-bag backward have no sharding rule
  CHECK(r.out ==
        "op                                    status          shape  runner   namespaces\n"
        "aten.mm.default                       rule            yes    runs     aten\n"
        "aten.gelu_backward.default            rule            yes    runs     aten\n"
        "aten.from_file.default                unknown         no     refused  -\n"
        "operator.getitem                      rule            yes    runs     operator,_operator\n"
        "aten._embedding_bag_backward.default  unchecked       no     refused  -\n"
        "  refused: its CPU kernel trusts bag offsets, offset2bag and maximum_indices that the plan chooses, and "
        "writes wherever they point\n"
        "5 ops: 3 with a sharding rule (0 of them replicate-only), 3 with a shape rule, 3 the runner executes\n");
  // A refused op says why (--json: "refused_reason"); every refused entry of the table has a reason.
  auto why = runCli("ops _embedding_bag_backward --json");
  CHECK(nlohmann::json::parse(why.out)[0]["refused_reason"] ==
        "its CPU kernel trusts bag offsets, offset2bag and maximum_indices that the plan chooses, and writes wherever "
        "they point");
  for (const auto& e : ss::ops::allOps()) CHECK((!e.refused || !e.refusedWhy.empty()));
  auto ok = runCli("ops torch.ops.aten.index_put.default");
  CHECK(ok.code == 0);
}

TEST_CASE("ops --json: one object per op", "[cli][ops]") {
  auto r = runCli("ops mm --json");
  CHECK(r.code == 0);
  CHECK(nlohmann::json::parse(r.out) == nlohmann::json::parse(R"([{"op": "mm", "status": "rule", "shape_rule": true,
      "namespaces": ["aten"], "runner": "runs", "tensor_only": true, "symbolic_safe": true}])"));
}

TEST_CASE("ops: the whole table, its totals the op table's own", "[cli][ops]") {
  auto r = runCli("ops --json");
  CHECK(r.code == 0);
  const auto all = nlohmann::json::parse(r.out);
  REQUIRE(all.size() == ss::ops::allOps().size());
  int ruled = 0, shaped = 0, replicateOnly = 0;
  for (const auto& e : ss::ops::allOps()) {
    ruled += e.sharding != nullptr;
    replicateOnly += !e.replicateOnlyWhy.empty();
    shaped += e.shape != nullptr;
  }
  int jr = 0, js = 0;
  for (const auto& j : all) {
    jr += j["status"] == "rule" || j["status"] == "replicate-only";
    js += j["shape_rule"].get<bool>();
  }
  CHECK(jr == ruled);
  CHECK(js == shaped);
  auto text = runCli("ops");
  CHECK(text.out.find("\n" + std::to_string(all.size()) + " ops: " + std::to_string(ruled) + " with a sharding rule (" +
                      std::to_string(replicateOnly) + " of them replicate-only), " + std::to_string(shaped) + " with a shape rule, ") != std::string::npos);
  // An in-place form the table derives from its op is found, and says whose it is.
  auto inplace = runCli("ops aten.atan2_.default aten.exp_.default --json");
  CHECK(inplace.code == 0);
  const auto ij = nlohmann::json::parse(inplace.out);
  REQUIRE(ij.size() == 2);
  CHECK(!ij[0].contains("in_place_of"));  // atan2_ is listed in the table itself
  CHECK(ij[1]["status"] == "rule");
  CHECK(ij[1]["in_place_of"] == "exp");
  auto bad = runCli("ops --bogus");
  CHECK(bad.code == 2);
  CHECK(bad.out == "shardscope ops: unknown option '--bogus' (see --help)\n");
}
