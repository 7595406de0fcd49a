// `--scale N` keeps the verdict (runner/plan_scale.h): over every shipped sample and scales 1-8, a scale the
// runner accepts gives the verdict of scale 1; one that would change what the plan means is refused in one line
// naming the node and dim. Seed 1 (falcon_index_put_2d) runs for minutes at scale 1, so its verdicts are taken
// from its scale-4 runs in the seeds tests; here its accepted and refused scales are checked without running.
#include <catch2/catch.hpp>

#include <string>

#include "core/applied/session.h"
#include "core/run/run_report.h"
#include "runner/plan_scale.h"
#include "runner/runner.h"
#include "runner_test_util.h"

using namespace ss;

namespace {

RunVerdict verdictAt(const Plan& plan, int scale) {
  RunOptions o;
  o.batches = 1;
  o.scale = scale;
  o.localise = false;
  o.gradients = false;
  const RunReport r = runner::runPlan(plan, o);
  INFO("scale " << scale << ": " << (r.error ? r.error->toString() : std::string("no error")));
  return r.verdict();
}

const char* verdictName(RunVerdict v) {
  switch (v) {
    case RunVerdict::Match: return "match";
    case RunVerdict::Mismatch: return "mismatch";
    case RunVerdict::Refused: return "refused";
    case RunVerdict::Failed: return "failed";
  }
  return "?";
}

}  // namespace

TEST_CASE("run --scale 1-8 on every small sample: accepted scales keep scale 1's verdict, the others are refused", "[runner][scale]") {
  const char* samples[] = {"autosp_seq_first.plan.json", "autosp_seq_first_fixed.plan.json",
                           "autosp_batch_first.plan.json"};
  std::vector<std::string> names(std::begin(samples), std::end(samples));
  for (const char* t : test::kTeachingSamples) names.emplace_back(t);
  int accepted = 0, refused = 0, ran = 0;
  for (const std::string& name : names) {
    const Plan plan = test::loadOrFail(test::samplePath(name));
    const RunVerdict base = verdictAt(plan, 1);
    for (int scale = 2; scale <= 8; ++scale) {
      INFO(name << " at --scale " << scale << " (scale 1: " << verdictName(base) << ")");
      Result<Plan> scaled = runner::scalePlan(plan, scale);
      if (!scaled) {
        ++refused;
        const std::string why = scaled.error().message;
        INFO(why);
        CHECK(why.find('\n') == std::string::npos);
        CHECK(why.rfind("--scale " + std::to_string(scale) + " would change the plan: dim ", 0) == 0);
        // The runner refuses it the same way (stage "scale", exit 2), before running anything.
        RunOptions o;
        o.scale = scale;
        const RunReport r = runner::runPlan(plan, o);
        REQUIRE(r.error);
        CHECK(r.error->stage == "scale");
        CHECK(r.error->message == why);
        CHECK(r.exitCode() == 2);
        continue;
      }
      ++accepted;
      if (scaled->graph == plan.graph) continue;  // nothing divisible by this scale: the same plan
      ++ran;
      CHECK(verdictName(verdictAt(plan, scale)) == std::string(verdictName(base)));
    }
  }
  INFO(accepted << " accepted (" << ran << " changed the sizes and ran), " << refused << " refused");
  CHECK(ran >= 8);
  CHECK(refused >= 5);
}

TEST_CASE("run --scale refuses what would change the plan: AutoSP's sequence split and a dim that would become 1", "[runner][scale]") {
  // The case: at scale 4 the view merging heads x head_dim (4 x 4 -> 16) makes every 16 a 1, so the
  // sequence (16, sharded over 2 ranks) would no longer split evenly: a false divergence at logits_flat once.
  const Plan fixed = test::loadOrFail(test::samplePath("autosp_seq_first_fixed.plan.json"));
  Result<Plan> four = runner::scalePlan(fixed, 4);
  REQUIRE_FALSE(four.ok());
  CHECK(four.error().message.rfind("--scale 4 would change the plan: dim ", 0) == 0);
  CHECK(four.error().message.find("16 -> 1") != std::string::npos);
  // Seed 1: scale 4 keeps every sharded dim's split (the seeds tests run it); 2 as well.
  const Plan falcon = test::loadOrFail(test::falconPath());
  CHECK(runner::scalePlan(falcon, 4).ok());
  CHECK(runner::scalePlan(falcon, 2).ok());
}

TEST_CASE("run --scale 2-8 on the real logs: accepted scales keep scale 1's verdict, the others are refused in one line", "[runner][scale]") {
  // autoparallel's joint graphs name no loss node, so every run of them is refused before it starts, at any
  // accepted scale; the scales are still judged (a refusal names its dim). The AutoSP logs run as rank programs
  // (tests/runner/test_runner_rank_programs.cpp), which --scale does not apply to: not here.
  const std::string real = std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/data/real/";
  int accepted = 0, refused = 0;
  for (const char* dir : {"seed1_buggy", "seed1_fixed", "llama3_1d", "llama3_2d", "conv", "flex_attn", "dsv3_2x2"}) {
    SessionInputs in;
    in.primary = real + dir;
    Result<AppliedSession> s = loadSession(in);
    INFO(dir << ": " << (s ? std::string("loaded") : s.error().toString()));
    REQUIRE(s.ok());
    Plan plan = s->plan;
    plan.normalizeSpecs();
    const RunVerdict base = verdictAt(plan, 1);
    for (int scale = 2; scale <= 8; ++scale) {
      INFO("--scale " << scale);
      Result<Plan> scaled = runner::scalePlan(plan, scale);
      if (!scaled) {
        ++refused;
        CHECK(scaled.error().message.find('\n') == std::string::npos);
        CHECK(scaled.error().message.rfind("--scale " + std::to_string(scale) + " would change the plan: dim ", 0) == 0);
        continue;
      }
      ++accepted;
      CHECK(verdictName(verdictAt(plan, scale)) == std::string(verdictName(base)));
    }
  }
  INFO(accepted << " accepted, " << refused << " refused");
  CHECK(accepted + refused == 7 * 7);
}
