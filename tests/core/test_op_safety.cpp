// The runner's allow-list (core/ops/op_safety.h) and check's `unsafe-op` diagnostic.
#include <catch2/catch.hpp>

#include "core/ops/op_table.h"
#include "core/check/check.h"
#include "core/ops/op_safety.h"
#include "core/rules/rules.h"
#include "plan_text.h"

using namespace ss;
using namespace ss::test;
using nlohmann::json;

TEST_CASE("the allow-list takes pure tensor ops and refuses files, storage tricks and unknown namespaces",
          "[op_safety]") {
  for (const char* op : {"aten.mm.default", "aten.add.Tensor", "aten.add_.Tensor", "aten.fill_.Scalar",
                         "aten.index_put.default", "aten._index_put_impl_.default", "aten.gelu_backward.default",
                         "aten._log_softmax_backward_data.default", "aten.empty.memory_format",
                         "aten._local_scalar_dense.default", "torch.ops.aten.view.default",
                         "prims.convert_element_type.default", "operator.getitem",
                         "_c10d_functional.all_gather_into_tensor.default", "_c10d_functional.wait_tensor.default",
                         "aten.native_layer_norm_backward.default", "aten.convolution_backward.default"})
    CHECK(isPureTensorOp(op));
  for (const char* op : {"aten.from_file.default", "aten.set_.source_Storage", "aten.set_.source_Tensor",
                         "aten.set_.default", "aten.share_memory_.default", "aten._pin_memory.default",
                         "aten.pin_memory.default", "aten.record_stream.default", "aten.save.default",
                         "aten.frobnicate.default", "mylib.add.default", "os.system", "builtins.open",
                         "aten", "", "aten..default", "aten.from_file_backward.default", "prims.from_file.default",
                         "operator.setitem", "_c10d_functional.mm.default"})
    CHECK_FALSE(isPureTensorOp(op));
}

TEST_CASE("every op core has a sharding rule for is on the allow-list", "[op_safety]") {
  // A ruled op flagged unsafe would turn a plan check understands into an error.
  for (const std::string& op : rules::ruledOps()) {
    INFO(op);
    // User Triton kernels have a sharding rule (whole tensors only) but run code on raw pointers: refused.
    if (op.starts_with("higher_order.triton_kernel_wrapper")) {
      CHECK_FALSE(isPureTensorOp(op));
      continue;
    }
    // Refused on purpose, with a reason `shardscope ops` shows: kernels the op campaign broke (core/ops/op_table.cpp).
    if (const ops::OpEntry* e = ops::findOp("aten." + op); e && e->refused) {
      CHECK_FALSE(isPureTensorOp("aten." + op));
      CHECK(e->refusedWhy.size() > 20);
      continue;
    }
    // Keys of namespaces the rule table keeps (higher_order.flex_attention, torch.sym_sum) are looked up whole.
    CHECK((isPureTensorOp(op) || isPureTensorOp("aten." + op) || isPureTensorOp("prims." + op) ||
           isPureTensorOp("operator." + op) || isPureTensorOp("_c10d_functional." + op) ||
          isPureTensorOp("autoparallel." + op)));
  }
}

TEST_CASE("check reports an op off the allow-list as unsafe-op, an error at its node", "[op_safety][check]") {
  Plan p = planOf({4}, {ph("x", {8, 4}, "S(0)"),
                        call("f", "aten.from_file.default", {"/tmp/victim.bin", true, 32}, {32}, "R"),
                        call("a", "aten.frobnicate.default", {ref("x")}, {8, 4}, "S(0)"),
                        call("c", "aten.relu.default", {ref("a")}, {8, 4}, "S(0)")},
                 json::array(), "c");
  Diagnostics d = checkPlan(p);
  REQUIRE(d.items.size() == 2);
  CHECK(d.items[0].kind == DiagKind::UnsafeOp);
  CHECK(d.items[0].severity == Severity::Error);
  CHECK(d.items[0].node == p.graph.find("f"));
  CHECK(d.items[0].message ==
        "op aten.from_file.default is not on the runner's list of pure tensor ops (it could read or write files, "
        "share storage or touch process state); the runner refuses to execute it");
  CHECK(d.items[1].kind == DiagKind::UnsafeOp);
  CHECK(d.items[1].node == p.graph.find("a"));
  CHECK(d.hasErrors());
  auto unsafe = unsafeNodes(p.graph);
  REQUIRE(unsafe.size() == 2);
  CHECK(unsafe[0].toString().rfind("node 'f' (aten.from_file.default): op aten.from_file.default is not", 0) == 0);
}

TEST_CASE("arguments nested deeper than the runner takes are unsafe-op", "[op_safety][check]") {
  json deep = json::array({json::array({json::array({1})})});  // [[[1]]]: 3 levels
  json ok = json::array({json::array({1, 2})});                // [[1, 2]]: 2 levels
  Plan p = planOf({2}, {ph("x", {8}, "R"), call("a", "aten.add.Tensor", {ref("x"), ok}, {8}, "R"),
                        call("b", "aten.add.Tensor", {ref("a"), deep}, {8}, "R")},
                 json::array(), "b");
  auto unsafe = unsafeNodes(p.graph);
  REQUIRE(unsafe.size() == 1);
  CHECK(unsafe[0].name == "b");
  CHECK(unsafe[0].reason == "an argument of aten.add.Tensor nests lists deeper than 2 levels; the runner refuses it");
  Diagnostics d = checkPlan(p);
  int unsafeDiags = 0;
  for (const auto& x : d.items) unsafeDiags += x.kind == DiagKind::UnsafeOp;
  CHECK(unsafeDiags == 1);
}
