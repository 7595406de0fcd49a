// The op table (core/ops/op_table.h): one entry per op joining its sharding rule, shape rule, runner safety and
// shape flags; nothing registered outside it.
#include <catch2/catch.hpp>

#include <algorithm>

#include "core/ops/op_safety.h"
#include "core/ops/op_shapes.h"
#include "core/ops/op_table.h"
#include "core/rules/rules.h"

using namespace ss;

TEST_CASE("op table: every rule of every family has its entry, and no flag lacks its rule", "[op_table]") {
  const auto problems = ops::opTableProblems();
  INFO((problems.empty() ? std::string() : problems.front()));
  CHECK(problems.empty());
  // Each sharding rule is reachable through the table under its own key.
  for (const std::string& key : rules::ruledOps()) {
    INFO(key);
    const ops::OpEntry* e = ops::findOpKey(key);
    REQUIRE(e);
    CHECK(e->sharding == rules::findRule(key));
  }
}

TEST_CASE("op table: one entry carries all of an op's facts", "[op_table]") {
  const ops::OpEntry* mm = ops::findOp("torch.ops.aten.mm.default");
  REQUIRE(mm);
  CHECK(mm->key == "mm");
  CHECK(mm->sharding != nullptr);
  CHECK(mm->shape != nullptr);
  CHECK(mm->runsIn == ops::kRunsAten);
  CHECK(mm->tensorOnly);
  CHECK(mm->symbolicSafe);
  CHECK_FALSE(mm->refused);

  // add is a pure op in aten and as Python's operator on sizes, under one key.
  const ops::OpEntry* add = ops::findOp("operator.add");
  REQUIRE(add);
  CHECK(add->runsIn == (ops::kRunsAten | ops::kRunsOperator | ops::kRunsUnderscoreOperator));

  // Refused although the backward derivation of embedding_bag would admit it.
  const ops::OpEntry* bag = ops::findOp("aten._embedding_bag_backward.default");
  REQUIRE(bag);
  CHECK(bag->refused);
  CHECK_FALSE(isPureTensorOp("aten._embedding_bag_backward.default"));

  // Checked, never run: user Triton kernels have a sharding rule and no runs-in flag.
  const ops::OpEntry* triton = ops::findOpKey("higher_order.triton_kernel_wrapper_functional");
  REQUIRE(triton);
  CHECK(triton->sharding != nullptr);
  CHECK(triton->runsIn == ops::kRunsNowhere);

  CHECK(ops::findOp("aten.from_file.default") == nullptr);
  CHECK(ops::findOp("mylib.frobnicate.default") == nullptr);
}

TEST_CASE("op table: sorted, one entry per key, and the lookups agree with it", "[op_table]") {
  const auto all = ops::allOps();
  REQUIRE(all.size() > 600);
  CHECK(std::is_sorted(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.key < b.key; }));
  CHECK(std::adjacent_find(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.key == b.key; }) ==
        all.end());
  int withShape = 0, withRule = 0;
  for (const ops::OpEntry& e : all) {
    INFO(std::string(e.key));
    if (e.key.find('.') == std::string_view::npos)
      CHECK(ops::hasShapeRule("aten." + std::string(e.key) + ".default") == (e.shape != nullptr));
    withShape += e.shape != nullptr;
    withRule += e.sharding != nullptr && e.inplaceOf.empty();
    // A listed in-place form without a rule of its own checks as its op does (findRule derives the same).
    if (!e.inplaceOf.empty()) CHECK(rules::findRule("aten." + std::string(e.key) + ".default") == e.sharding);
  }
  CHECK(withRule == static_cast<int>(rules::ruledOps().size()));
  CHECK(withShape > 200);
}
