// The redistribute planner never ends anywhere but its target (core/redistribute/redistribute.h, core/plan/teach.h):
// random specs on random meshes of 1-3 dims, size-1 dims and Partial included, each planned and pictured step by
// step; the pictures' last layout must be the target's. A plan may be refused (DTensor refuses S -> P(max), a
// change of a Partial's op, ...), never with an "internal error". Also the three cases that once failed on 2x1x3.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>

#include "core/model/layout.h"
#include "core/model/placement_parse.h"
#include "core/plan/teach.h"
#include "core/redistribute/redistribute.h"

using namespace ss;

namespace {

bool internalError(const std::string& why) { return why.find("internal error") != std::string::npos; }

std::string stepsText(const RedistributePlan& p) {
  std::string out;
  for (const RedistributeStep& s : p.steps)
    out += (out.empty() ? "" : "; ") + std::string(collectiveName(s.kind)) + " on dim " + std::to_string(s.meshDim);
  return out;
}

TeachPlan teach(std::vector<int64_t> shape, const DeviceMesh& mesh, const char* from, const char* to) {
  auto a = parseSpec(from, ParseContext{&mesh, -1});
  auto b = parseSpec(to, ParseContext{&mesh, -1});
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  return teachRedistribute(TensorMeta{std::move(shape), DType::F32, true}, mesh, *a, *b);
}

}  // namespace

TEST_CASE("redistribute on meshes with a size-1 dim: the steps DTensor 2.14 runs, ending in the target", "[redistribute][teach]") {
  const DeviceMesh mesh({2, 1, 3});
  // DTensor 2.14.1: all_gather on dim 2, all_gather on dim 0, chunk on dim 2 (R -> P(sum) on dim 1 is a no-op).
  TeachPlan a = teach({9}, mesh, "S(0)RS(0)", "RP(sum)S(0)");
  INFO(a.whyNot);
  REQUIRE(a.possible);
  CHECK(stepsText(a.plan) == "all_gather on dim 2; all_gather on dim 0; chunk on dim 2");
  TeachPlan b = teach({9}, mesh, "RP(sum)S(0)", "RRR");
  INFO(b.whyNot);
  REQUIRE(b.possible);
  CHECK(stepsText(b.plan) == "all_gather on dim 2");
  TeachPlan c = teach({4, 6, 9}, mesh, "S(2)RR", "S(1)P(sum)R");
  INFO(c.whyNot);
  REQUIRE(c.possible);
  CHECK(stepsText(c.plan) == "all_to_all on dim 0");
  // Only a size-1 dim changes: nothing to run.
  TeachPlan d = teach({9}, DeviceMesh({1, 4}), "P(sum)S(0)", "RS(0)");
  INFO(d.whyNot);
  REQUIRE(d.possible);
  CHECK(d.steps.empty());
}

TEST_CASE("redistribute fuzz: random specs on random 1-3-D meshes, every plan ends in its target", "[redistribute][teach]") {
  std::mt19937 rng(41);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const char* partials[] = {"P(sum)", "P(avg)", "P(max)"};
  int planned = 0, refused = 0, cases = 0;
  std::string firstRefusal;
  for (int i = 0; i < 4000; ++i) {
    std::vector<int64_t> meshShape(static_cast<size_t>(1 + pick(3)));
    for (auto& s : meshShape) s = 1 + pick(4);  // 1..4: size-1 dims are common
    const DeviceMesh mesh(meshShape);
    std::vector<int64_t> shape(static_cast<size_t>(1 + pick(3)));
    for (auto& s : shape) s = 1 + pick(9);  // 1..9: uneven and empty shards
    const int rank = static_cast<int>(shape.size());
    // Partials of one reduce op per case: a spec mixing ops (other than sum with avg) is no DTensor, and the
    // steps between two specs of different ops would pass through one.
    const char* partial = partials[pick(3)];
    // One random placement per mesh dim; sometimes a shard order index ([k]) on every shard.
    auto randomSpec = [&]() {
      const bool ordered = pick(4) == 0;
      std::vector<int> perm(meshShape.size());
      for (size_t k = 0; k < perm.size(); ++k) perm[k] = static_cast<int>(k);
      std::shuffle(perm.begin(), perm.end(), rng);
      std::string text;
      for (size_t m = 0; m < meshShape.size(); ++m) {
        const int kind = pick(4);
        if (kind == 0) text += "R";
        else if (kind == 1) text += partial;
        else {
          text += "S(" + std::to_string(pick(rank)) + ")";
          if (ordered) text += "[" + std::to_string(perm[m]) + "]";
        }
      }
      return text;
    };
    const std::string from = randomSpec(), to = randomSpec();
    auto a = parseSpec(from, ParseContext{&mesh, rank});
    auto b = parseSpec(to, ParseContext{&mesh, rank});
    if (!a.ok() || !b.ok()) continue;  // an order the parser refuses (a gap in one tensor dim's indices)
    ++cases;
    const TensorMeta meta{shape, DType::F32, true};
    INFO("shape " << shapeToString(shape) << " on " << mesh.toString() << ": " << from << " -> " << to);
    const RedistributePlan plan = planRedistribute(meta, mesh, *a, *b);
    INFO(plan.whyNot);
    REQUIRE_FALSE(internalError(plan.whyNot));
    const TeachPlan tp = teachRedistribute(meta, mesh, *a, *b);
    INFO(tp.whyNot);
    REQUIRE_FALSE(internalError(tp.whyNot));
    REQUIRE(tp.possible == plan.possible);
    if (plan.possible) ++planned;
    else {
      ++refused;
      if (firstRefusal.empty()) firstRefusal = plan.whyNot;
    }
  }
  INFO(cases << " cases: " << planned << " planned, " << refused << " refused (" << firstRefusal << ")");
  CHECK(cases > 2500);
  CHECK(planned > cases / 2);
}
