// Rank programs (runner/rank_programs.h): N graphs, one per rank, each run as written against a reference run
// alone; AutoSP's all-to-all as a real collective. First on small hand-written aten graphs of AutoSP's shape (a
// causal attention LM whose rank programs slice their inputs with the rank baked into the bounds), then on
// DeepSpeed AutoSP's real graphs (tests/data/real/autosp/), the seed's own test: 2 ranks, mean of the per-rank
// losses vs the single-device run, rtol 1e-4, 3 batches.
#include <catch2/catch.hpp>

#include <filesystem>

#include <nlohmann/json.hpp>
#include <string>

#include "core/io/load/load.h"
#include "runner/rank_programs.h"
#include "runner_test_util.h"

using namespace ss;
using namespace ss::test;

namespace {

const char* kParams =
    "self, w_emb: \"f32[16, 8]\", s8: \"Sym(s8)\", ids: \"i64[2, s8]\", w_o: \"f32[8, 16]\", labels: \"i64[2, s8]\"";

// The whole model: embedding, 2 heads of 4, causal attention, an output projection, cross-entropy (mean).
std::string referenceText() {
  return std::string("class GraphModule(torch.nn.Module):\n    def forward(") + kParams + "):\n" +
         "        emb: \"f32[2, s8, 8]\" = torch.ops.aten.embedding.default(w_emb, ids)\n"
         "        view: \"f32[2, s8, 2, 4]\" = torch.ops.aten.view.default(emb, [2, s8, 2, 4])\n"
         "        q: \"f32[2, 2, s8, 4]\" = torch.ops.aten.permute.default(view, [0, 2, 1, 3])\n"
         "        att: \"f32[2, 2, s8, 4]\" = torch.ops.aten.scaled_dot_product_attention.default(q, q, q, None, 0.0, True)\n"
         "        back: \"f32[2, s8, 2, 4]\" = torch.ops.aten.permute.default(att, [0, 2, 1, 3])\n"
         "        flat: \"f32[2, s8, 8]\" = torch.ops.aten.reshape.default(back, [2, s8, 8])\n"
         "        logits: \"f32[2, s8, 16]\" = torch.ops.aten.matmul.default(flat, w_o)\n"
         "        mul: \"Sym(2*s8)\" = 2 * s8\n"
         "        l2: \"f32[2*s8, 16]\" = torch.ops.aten.reshape.default(logits, [mul, 16])\n"
         "        lab: \"i64[2*s8]\" = torch.ops.aten.reshape.default(labels, [-1])\n"
         "        loss: \"f32[]\" = torch.ops.aten.cross_entropy_loss.default(l2, lab)\n"
         "        return (loss,)\n";
}

// Rank `rank`'s program as AutoSP writes it: its part of the sequence (dim 1) sliced with `rank` baked in, the
// Ulysses all-to-alls around attention. `seqDim` 0 slices the batch instead (AutoSP's bug with sequence-first
// inputs, here on batch-first ones: attention then runs over the two batch rows' tokens as one sequence).
// `stop` replaces the slice's end (a hostile program), `scatter` / `gather` the first all-to-all's dims.
std::string rankText(int rank, int seqDim = 1, const std::string& stop = "", int scatter = 1, int gather = 2) {
  const std::string r = std::to_string(rank);
  const std::string part = seqDim == 1 ? "floordiv" : "bdiv";
  const std::string batch = seqDim == 1 ? "2" : "1", seq = seqDim == 1 ? "floordiv" : "s8";
  std::string t = std::string("class GraphModule(torch.nn.Module):\n    def forward(") + kParams + "):\n";
  t += seqDim == 1 ? "        floordiv: \"Sym((s8//2))\" = s8 // 2\n" : "        bdiv: \"Sym(1)\" = s8 // s8\n";
  t += "        mul_r: \"Sym(0)\" = " + r + " * " + part + "\n";
  t += "        add_r: \"Sym(0)\" = " + (stop.empty() ? "mul_r + " + part : stop) + "\n";
  const std::string d = std::to_string(seqDim == 1 ? 1 : 0);
  t += "        ids_r = torch.ops.aten.slice.Tensor(ids, " + d + ", mul_r, add_r)\n";
  t += "        labels_r = torch.ops.aten.slice.Tensor(labels, " + d + ", mul_r, add_r)\n";
  t += "        emb = torch.ops.aten.embedding.default(w_emb, ids_r)\n";
  t += "        view = torch.ops.aten.view.default(emb, [" + batch + ", " + seq + ", 2, 4])\n";
  t += "        q = torch.ops.aten.permute.default(view, [0, 2, 1, 3])\n";
  t += "        a2a_q = torch.ops.autosp.all_to_all.default(q, " + std::to_string(scatter) + ", " + std::to_string(gather) + ", 'q')\n";
  t += "        att = torch.ops.aten.scaled_dot_product_attention.default(a2a_q, a2a_q, a2a_q, None, 0.0, True)\n";
  t += "        a2a_o = torch.ops.autosp.all_to_all.default(att, 2, 1, 'o')\n";
  t += "        back = torch.ops.aten.permute.default(a2a_o, [0, 2, 1, 3])\n";
  t += "        flat = torch.ops.aten.reshape.default(back, [" + batch + ", " + seq + ", 8])\n";
  t += "        logits = torch.ops.aten.matmul.default(flat, w_o)\n";
  t += "        mul2 = " + batch + " * " + seq + "\n";
  t += "        l2 = torch.ops.aten.reshape.default(logits, [mul2, 16])\n";
  t += "        lab = torch.ops.aten.reshape.default(labels_r, [-1])\n";
  t += "        loss = torch.ops.aten.cross_entropy_loss.default(l2, lab)\n";
  t += "        return (loss,)\n";
  return t;
}

Plan parse(const std::string& text, const std::string& name) {
  auto p = loadPlanText(text, name);
  if (!p) FAIL(p.error().toString(name));
  return *p;
}

RankPrograms programs(const std::vector<std::string>& rankTexts, int64_t seq = 8) {
  RankPrograms p;
  p.name = "hand-written";
  p.reference = parse(referenceText(), "reference");
  for (size_t r = 0; r < rankTexts.size(); ++r) p.ranks.push_back(parse(rankTexts[r], "rank" + std::to_string(r)));
  p.symbols = {{"s8", seq}};
  return p;
}

RunReport run(const RankPrograms& p) {
  RunOptions o;
  o.batches = 3;
  return runner::runRankPrograms(p, o);
}

}  // namespace

TEST_CASE("rank programs: AutoSP-shaped programs slicing the sequence match the whole model within 1e-4",
          "[runner][rank-programs]") {
  RunReport r = run(programs({rankText(0), rankText(1)}));
  INFO(r.summary());
  REQUIRE_FALSE(r.error);
  CHECK(r.ranks == 2);
  CHECK(r.rtol == 1e-4);
  REQUIRE(r.batches.size() == 3);
  for (const auto& b : r.batches) {
    REQUIRE(b.rankLosses.size() == 2);
    CHECK(b.rankLosses[0] != b.rankLosses[1]);  // each rank's loss is its own half's mean
    CHECK(b.combined == Approx((b.rankLosses[0] + b.rankLosses[1]) / 2).epsilon(1e-12));
    CHECK(b.relError <= 1e-6);
    CHECK(b.match);
  }
  CHECK(r.verdict() == RunVerdict::Match);
  CHECK(r.exitCode() == 0);
}

TEST_CASE("rank programs: slicing the batch makes attention run over both rows' tokens: every batch differs",
          "[runner][rank-programs]") {
  RunReport r = run(programs({rankText(0, 0), rankText(1, 0)}));
  INFO(r.summary());
  REQUIRE_FALSE(r.error);
  REQUIRE(r.batches.size() == 3);
  for (const auto& b : r.batches) {
    CHECK_FALSE(b.match);
    CHECK(b.relError > 1e-4);
  }
  CHECK(r.exitCode() == 1);
}

TEST_CASE("rank programs: hostile programs fail at their node on every rank, never a crash", "[runner][rank-programs]") {
  SECTION("the ranks hand the all-to-all different shapes (rank 1 takes 2 tokens, a quarter)") {
    std::string quarter = rankText(1);
    quarter.replace(quarter.find("s8 // 2"), 7, "s8 // 4");
    RunReport r = run(programs({rankText(0), quarter}));
    REQUIRE(r.error);
    CHECK(r.error->stage == "sharded");
    CHECK(r.error->node == "a2a_q");
    CHECK(r.error->rank == 0);
    CHECK(contains(r.error->message, "the ranks hand different inputs: rank 0 [2, 2, 4, 4] (scatter 1, gather 2), "
                                     "rank 1 [2, 2, 2, 4] (scatter 1, gather 2)"));
    CHECK(contains(r.summary(), "also rank 1 at the same node, same error"));
    CHECK(r.exitCode() == 3);
  }
  SECTION("a scatter dim not divisible by the world size (3 tokens a rank, scattered)") {
    RunReport r = run(programs({rankText(0, 1, "", 2, 1), rankText(1, 1, "", 2, 1)}, 6));
    REQUIRE(r.error);
    CHECK(r.error->node == "a2a_q");
    CHECK(contains(r.error->message, "scatter dim 2 of [2, 2, 3, 4] is not divisible by the 2 ranks"));
    CHECK(r.exitCode() == 3);
  }
  SECTION("a dim pair DeepSpeed's kernel does not compute") {
    RunReport r = run(programs({rankText(0, 1, "", 1, 3), rankText(1, 1, "", 1, 3)}));
    REQUIRE(r.error);
    CHECK(r.error->node == "a2a_q");
    CHECK(contains(r.error->message, "autosp.all_to_all(x, 1, 3): DeepSpeed's kernel scatters dim 1 and gathers dim 2"));
  }
  SECTION("a symbol without a value") {
    RankPrograms p = programs({rankText(0), rankText(1)});
    p.symbols.clear();
    RunReport r = run(p);
    REQUIRE(r.error);
    CHECK(r.error->stage == "load");
    CHECK(contains(r.error->message, "placeholder 's8' (a size symbol, or a tensor of unknown shape) has no value"));
  }
  SECTION("size arithmetic that overflows 64 bits fails at its node (INT64_MIN // -1 used to trap with SIGFPE)") {
    for (const auto& [expr, message] : std::vector<std::pair<std::string, std::string>>{
             {"big // -1", "operator.floordiv of -9223372036854775808 and -1 overflows 64 bits"},
             {"big * 2", "operator.mul of -9223372036854775808 and 2 overflows 64 bits"},
             {"big - 1", "operator.sub of -9223372036854775808 and 1 overflows 64 bits"}}) {
      std::string bad = rankText(1);
      bad.insert(bad.find("        add_r:"), "        big: \"Sym(0)\" = -4611686018427387904 * 2\n        huge: \"Sym(0)\" = " +
                                                 expr + "\n");
      RunReport r = run(programs({rankText(0), bad}));
      INFO(expr << ": " << r.summary());
      REQUIRE(r.error);
      CHECK(r.error->rank == 1);
      CHECK(r.error->node == "huge");
      CHECK(contains(r.error->message, message));
      CHECK(r.exitCode() == 3);
    }
  }
  SECTION("an op off the allow-list in one rank's program is refused before anything runs") {
    std::string bad = rankText(1);
    bad.replace(bad.find("torch.ops.aten.embedding.default"), 32, "torch.ops.aten.from_file.default");
    RunReport r = run(programs({rankText(0), bad}));
    REQUIRE(r.error);
    CHECK(r.error->stage == "unsafe-op");
    CHECK(r.error->rank == 1);
    CHECK(r.error->node == "emb");
    CHECK(r.exitCode() == 2);
  }
}

TEST_CASE("rank programs: the text form the child reads round-trips", "[runner][rank-programs]") {
  RankPrograms p = programs({rankText(0), rankText(1)});
  const std::string text = writeRankProgramsText(p);
  CHECK(looksLikeRankProgramsText(text));
  auto back = readRankProgramsText(text);
  REQUIRE(back);
  CHECK(back->ranks.size() == 2);
  CHECK(back->symbols == p.symbols);
  RunReport a = run(p), b = run(*back);
  INFO(b.summary());
  REQUIRE_FALSE(a.error);
  REQUIRE_FALSE(b.error);
  for (size_t k = 0; k < a.batches.size(); ++k) CHECK(a.batches[k].rankLosses == b.batches[k].rankLosses);
}

namespace {

std::string autospCase(const std::string& name) {
  return std::string(SHARDSCOPE_TESTDATA_DIR) + "/real/autosp/" + name;
}

// The seed's own test on the real case: 2 ranks, 3 batches, rtol 1e-4, the mean of the per-rank losses.
RunReport runRealCase(const std::string& name) {
  const std::string log = autospCase(name) + "/rank0.log";
  REQUIRE(holdsRankPrograms(log));
  auto p = loadRankPrograms(log);
  if (!p) FAIL(p.error().toString());
  REQUIRE(p->ranks.size() == 2);
  RunOptions o;
  o.batches = 3;
  o.rtol = 1e-4;
  return runner::runRankPrograms(*p, o);
}

}  // namespace

TEST_CASE("rank programs from AutoSP's real graphs: seq1 and seq0_fixed match, seq0_buggy differs",
          "[runner][rank-programs][autosp-real]") {
  for (const char* name : {"seq1", "seq0_fixed", "seq0_buggy"}) {
    RunReport r = runRealCase(name);
    INFO(name << "\n" << r.summary());
    REQUIRE_FALSE(r.error);
    CHECK(r.ranks == 2);
    CHECK(r.rtol == 1e-4);
    REQUIRE(r.batches.size() == 3);
    const bool buggy = std::string(name) == "seq0_buggy";
    for (const auto& b : r.batches) {
      REQUIRE(b.rankLosses.size() == 2);
      CHECK(b.combined == Approx((b.rankLosses[0] + b.rankLosses[1]) / 2).epsilon(1e-12));
      CHECK(b.match == !buggy);
      if (buggy) CHECK(b.relError > 1e-4);
      else CHECK(b.relError <= 1e-4);
    }
    CHECK(r.exitCode() == (buggy ? 1 : 0));
  }
}

TEST_CASE("shardscope run on a rank log of AutoSP's real run finds its sibling ranks and runs them as rank programs",
          "[runner][rank-programs][autosp-real][cli]") {
  {
    CliResult r = runCli("run " + autospCase("seq1") + " --json");
    INFO(r.output);
    CHECK(r.exitCode == 0);
    auto j = nlohmann::json::parse(r.output.substr(r.output.find('{')));
    REQUIRE(j["batches"].size() == 3);
    for (const auto& b : j["batches"]) {
      CHECK(b["rank_losses"].size() == 2);
      CHECK(b["match"] == true);
    }
    CHECK(j["ranks"] == 2);
  }
  {
    CliResult r = runCli("run " + autospCase("seq0_buggy") + "/rank1.log");
    INFO(r.output);
    CHECK(r.exitCode == 1);
    CHECK(contains(r.output, "rank 0: before_pre_grad_graph of "));
    CHECK(contains(r.output, "seq0_buggy/rank0.log line 248"));
    CHECK(contains(r.output, "DIFFERS"));
  }
  {
    CliResult r = runCli("run " + autospCase("seq0_fixed") + "/rank0.log --scale 2");
    CHECK(r.exitCode == 2);
    CHECK(contains(r.output, "shardscope run: --scale does not apply to rank programs"));
  }
}
