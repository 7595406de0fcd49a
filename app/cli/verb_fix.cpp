// `shardscope fix FILE -o OUT [--seq-dim KEY=DIM]... [--placement NODE=SPEC]...`
// Applies the given edits, then the fix planner's (core/plan/fix.h) with every --placement pinned (the planner
// works around it, never reverts it), and saves the result natively (a solver's plan keeps its planned transitions
// as redistributes). Exit 0 when the saved file checks without errors (as `check OUT` reads it), 1 when errors
// remain (listed, with the edge a pinned spec blocks and why), 2 on unusable input or flags.
#include <iostream>

#include "app/cli/args.h"
#include "app/cli/verbs.h"
#include "core/check/report.h"
#include "core/plan/fix.h"
#include "core/io/file.h"
#include "core/io/load/load.h"
#include "core/io/native/plan_json.h"
#include "core/model/placement_parse.h"
#include "core/run/rank_programs.h"

namespace ss::app {

namespace {

// "KEY=VALUE" -> (KEY, VALUE); nullopt when there is no '=' or either side is empty.
std::optional<std::pair<std::string, std::string>> splitAssign(const std::string& s) {
  size_t eq = s.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size()) return std::nullopt;
  return std::make_pair(s.substr(0, eq), s.substr(eq + 1));
}

int runFix(const ParsedArgs& a) {
  auto outPath = a.get("output");
  if (a.positionals.size() != 1 || !outPath) {
    std::cerr << "shardscope fix: usage: shardscope fix FILE -o OUT [--seq-dim KEY=DIM]... [--placement NODE=SPEC]...\n";
    return 2;
  }
  const std::string file = a.positionals[0];
  if (holdsRankPrograms(file)) return fixRankPrograms(file, *outPath, a);  // DeepSpeed AutoSP's per-rank graphs
  auto loaded = loadPlanFile(file);
  if (!loaded.ok()) {
    std::cerr << loaded.error().toString(file) << "\n";
    return 2;
  }
  Plan plan = std::move(loaded.value());
  plan.normalizeSpecs();
  // The command-line edits, applied as they are read.
  auto applyEdit = [&](const Command& c) {
    auto applied = applyCommand(plan, c);
    if (!applied.ok()) std::cerr << "shardscope fix: " << applied.error().toString() << "\n";
    return applied.ok();
  };

  for (const std::string& s : a.all("seq-dim")) {
    auto kv = splitAssign(s);
    char* end = nullptr;
    long dim = kv ? std::strtol(kv->second.c_str(), &end, 10) : -1;
    if (!kv || !end || *end != '\0' || dim < 0) {
      std::cerr << "shardscope fix: --seq-dim " << s << ": expected KEY=DIM with DIM a dimension >= 0\n";
      return 2;
    }
    std::vector<std::pair<int, AutoSpTag>> retag;
    for (const auto& [node, tag] : plan.tags)
      if (tag.key == kv->first) retag.push_back({node, AutoSpTag{tag.key, static_cast<int>(dim)}});
    for (const auto& [node, tag] : retag)
      if (!applyEdit(SetSeqDim{node, tag})) return 2;
    if (retag.empty()) {
      std::cerr << "shardscope fix: --seq-dim " << s << ": no input is tagged '" << kv->first << "'\n";
      return 2;
    }
  }
  FixOptions options;
  for (const std::string& s : a.all("placement")) {
    auto edit = parseNodeSpecEdit(plan, s, file);
    if (!edit) {
      std::cerr << "shardscope fix: " << edit.error().message << "\n";
      return 2;
    }
    const int node = edit->node;
    if (!applyEdit(SetOutputSpec{node, 0, edit->spec})) return 2;
    options.pinned.push_back(PinnedOutput{node, 0});
  }

  FixPlan fix = planFix(plan, options);
  for (const Command& c : fix.batch.commands) {
    auto applied = applyCommand(plan, c);
    if (!applied.ok()) {
      std::cerr << "shardscope fix: applying the fix failed: " << applied.error().toString() << "\n";
      return 2;
    }
  }
  const std::string text = writePlanString(plan);
  auto saved = writeFileAtomic(*outPath, text);
  if (!saved.ok()) {
    std::cerr << saved.error().toString(*outPath) << "\n";
    return 2;
  }
  for (const auto& step : fix.steps) std::cout << step << "\n";
  std::cout << fix.steps.size() << " edit" << (fix.steps.size() == 1 ? "" : "s") << " by the fix planner";
  if (fix.totalBytes > 0) std::cout << ", " << formatBytes(fix.totalBytes) << " per rank, " << formatTimeUs(fix.totalTimeUs);
  std::cout << "; saved " << *outPath << "\n";
  // The verdict is the saved file's, as `check OUT` reads it back.
  auto reread = loadPlanText(text, *outPath);
  if (!reread.ok()) {
    std::cerr << reread.error().toString(*outPath) << "\n";
    return 2;
  }
  const Diagnostics remaining = checkPlan(*reread);
  for (const auto& why : fix.blocked) std::cout << "cannot fix around your edit: " << why << "\n";
  if (remaining.hasErrors()) {
    std::cout << "still wrong:\n" << diagnosticsToText(*reread, remaining);
    return 1;
  }
  return 0;
}

const VerbHelp kHelp{
    "Usage: shardscope fix FILE -o OUT [--seq-dim KEY=DIM]... [--placement NODE=SPEC]...",
    "Applies the given edits (tag every AutoSP input KEY with DIM; set NODE's output spec), then inserts the\n"
    "cheapest redistributes and spec changes that make every edge consistent, and saves OUT. A --placement is\n"
    "kept: the fix works around it (redistributing NODE's inputs), and says which edge it cannot fix and why.\n"
    "A solver's plan (an autoparallel log or solution) keeps the transitions the solver planned: OUT holds them\n"
    "as redistributes.\n"
    "On DeepSpeed AutoSP's logs (rank programs), --seq-dim INPUT=DIM moves AutoSP's slice of input INPUT (L['INPUT'])\n"
    "to dim DIM in every rank's program, and OUT holds the fixed programs (shardscope run OUT runs them).",
    "Exit codes: 0 OUT checks without errors (as `check OUT` says), 1 errors remain (listed), 2 unusable input or\n"
    "flags."};

const VerbRegistrar kFix{Verb{
    "fix", "Insert the cheapest redistributes and spec changes that make a plan consistent", kHelp,
    {FlagSpec{"output", true, false, "OUT", "where to save the fixed plan (shardscope plan JSON)", "o"},
     repeatable("seq-dim", "KEY=DIM", "tag every AutoSP input tagged KEY as (KEY, DIM); repeatable"),
     repeatable("placement", "NODE=SPEC", "set NODE's output spec (any notation, e.g. RS(0)); repeatable")},
    runFix}};

}  // namespace

}  // namespace ss::app
