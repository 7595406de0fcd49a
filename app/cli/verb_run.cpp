// `shardscope run`: re-run a plan on local ranks (in the shardscope-runner child process) and compare the loss
// with a single-device reference. Exit 0 when every batch matches, 1 when a loss differs, 2 for bad input or a
// refused plan (an op off core's allow-list, core/ops/op_safety.h: refused here before the child starts; or over
// the memory bound), 3 when the run failed (the error printed with rank and node).
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "app/cli/args.h"
#include "app/run_client.h"
#include "app/cli/verbs.h"
#include "core/plan/edit.h"
#include "core/plan/fix.h"
#include "core/io/load/load.h"
#include "core/ops/op_safety.h"
#include "core/model/placement_parse.h"
#include "core/run/rank_programs.h"
#include "core/run/run_report.h"

namespace ss::app {
namespace {

const VerbHelp kHelp{
    "Usage: shardscope run FILE [--device cpu|cuda] [--batches N] [--rtol X] [--seq-dim KEY=DIM]...\n"
    "                           [--placement NODE=SPEC]... [--scale N] [--seed S] [--timeout SECONDS]\n"
    "                           [--budget SECONDS] [--dtype f32|f64|planned] [--no-grad] [--no-localise]\n"
    "                           [--no-dedup] [--distributed] [--require-sandbox] [--json]",
    "Runs the plan twice in a child process: a single-device reference and a sharded run on one thread per rank\n"
    "(Gloo over loopback), each rank holding only its shards and performing exactly the plan's redistributes.\n"
    "Reports per batch the per-rank losses, their combination, the reference, the relative error, the verdict\n"
    "against rtol and the gradient ratio.",
    "Only pure tensor ops run (core/ops/op_safety.cpp), and the child runs contained by the OS; a plan with any\n"
    "other op, more ranks than a local run takes, or inputs the op's shape rules reject is refused before anything\n"
    "runs.\n"
    "A plan without a loss node (autoparallel's joint graph) runs with its tangents drawn from the seed like inputs;\n"
    "its verdict compares every output (forward results and gradients), assembled from the ranks by its spec.\n"
    "On a solver's plan (an autoparallel log) --placement changes the node's strategy: its inputs follow the new\n"
    "output as `shardscope fix --placement` would save them; the solver's planned transitions run as redistributes.\n"
    "A TORCH_TRACE log (or its folder) of a backend that rewrites the graph per rank (DeepSpeed AutoSP: a\n"
    "dynamo_output_graph record and a before_pre_grad_graph artifact) runs as rank programs: the sibling rank logs\n"
    "in its folder are the other ranks, each rank runs its own graph after the passes as written (size symbols at\n"
    "the log's hints, autosp.all_to_all over the ranks), the reference is the graph before them on one device, and\n"
    "the verdict is the mean of the per-rank losses (--batches, --rtol, --seed, --timeout, --budget, --json apply).\n"
    "An autoparallel log (or its folder) with an autoparallel_parallel_graph re-runs what autoparallel built: that\n"
    "applied graph on every rank of the plan's mesh (its collectives over Gloo on the mesh dims of their process\n"
    "groups, each rank's inputs its pieces by the plan's specs), the joint graph on one device as the reference,\n"
    "every output (results and gradients) put together by the plan's output specs and compared within rtol.\n"
    "With --placement or --seq-dim the edited plan runs instead, with shardscope's own redistributes.\n"
    "Exit codes: 0 every batch matches, 1 a loss differs, 2 bad input or a refused plan, 3 the run failed."};

const std::vector<FlagSpec> kFlags{
    option("device", "cpu|cuda", "where the ranks run (default cpu; cuda needs a CUDA build)"),
    option("batches", "N", "batches to run (default: the plan's run.batches, else 3)"),
    option("rtol", "X", "relative tolerance of the verdict (default: the plan's run.rtol, else 1e-4)"),
    repeatable("seq-dim", "KEY=DIM", "set the AutoSP tag of inputs tagged KEY to (KEY, DIM); on AutoSP's rank programs,\n"
                                     "move AutoSP's slice of input KEY to dim DIM first (as fix does); repeatable"),
    repeatable("placement", "NODE=SPEC", "set NODE's output spec (any notation, e.g. RS(0)); repeatable"),
    option("scale", "N", "divide tensor sizes by N keeping the bug's ratios (docs/runner.md)"),
    option("seed", "S", "the data's seed (default: the plan's run.seed)"),
    option("timeout", "SECONDS", "the longest a collective or the rendezvous may wait (default 60)"),
    option("budget", "SECONDS", "wall-clock budget of the whole run (default 900)"),
    option("dtype", "f32|f64|planned", "the floating dtype the run computes in (default f32)"),
    toggle("no-grad", "forward only (no backward, no gradient ratio)"),
    toggle("no-localise", "do not compare every node with the reference (no first divergence)"),
    toggle("no-dedup", "every rank computes every value itself (by default ranks known to hold the same\n"
                       "values share them: the same results, computed once)"),
    toggle("distributed", "join torch.distributed's env:// rendezvous (MASTER_ADDR, MASTER_PORT, WORLD_SIZE,\n"
                          "RANK): this process runs its block of the mesh's ranks; process 0 prints the report"),
    toggle("require-sandbox", "refuse to run unless every layer of the child's sandbox is in place (its own network\n"
                              "namespace, Landlock, no capabilities, seccomp, no-new-privs; docs/runner.md \"Safety\")"),
    toggle("json", "the report as JSON events, one per line (docs/runner.md)")};

// "ETA 12 s", "ETA 3 min 5 s", "ETA unknown".
std::string formatEta(double s) {
  if (s < 0) return "ETA unknown";
  char buf[48];
  if (s < 90) std::snprintf(buf, sizeof buf, "ETA %.0f s", s);
  else std::snprintf(buf, sizeof buf, "ETA %d min %d s", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  return buf;
}

int bad(const std::string& msg) {
  std::fprintf(stderr, "shardscope run: %s\n", msg.c_str());
  return 2;
}

template <class T>
bool parseNumber(const std::string& s, T& out) {
  try {
    size_t pos = 0;
    if constexpr (std::is_floating_point_v<T>) out = static_cast<T>(std::stod(s, &pos));
    else out = static_cast<T>(std::stoll(s, &pos));
    return pos == s.size();
  } catch (...) {
    return false;
  }
}

// The flags a plan run and a rank-programs run share (--batches, --rtol, --timeout, --budget, --seed), into
// `opts`: 0, or exit 2 after the one line that says which value is wrong.
int readCommonRunFlags(const ParsedArgs& parsed, RunOptions& opts) {
  if (auto v = parsed.get("batches"); v && (!parseNumber(*v, opts.batches) || opts.batches < 1))
    return bad("--batches " + *v + ": expected a positive integer");
  if (auto v = parsed.get("rtol"); v && (!parseNumber(*v, opts.rtol) || opts.rtol < 0))
    return bad("--rtol " + *v + ": expected a non-negative number");
  if (auto v = parsed.get("timeout"); v && (!parseNumber(*v, opts.timeoutSec) || opts.timeoutSec <= 0))
    return bad("--timeout " + *v + ": expected seconds > 0");
  if (auto v = parsed.get("budget"); v && (!parseNumber(*v, opts.budgetSec) || opts.budgetSec <= 0))
    return bad("--budget " + *v + ": expected seconds > 0");
  if (auto v = parsed.get("seed")) {
    uint64_t s = 0;
    if (!parseNumber(*v, s)) return bad("--seed " + *v + ": expected an integer");
    opts.seed = s;
  }
  return 0;
}

// `shardscope run LOG` where the log holds rank programs (core/run/rank_programs.h): AutoSP's per-rank graphs,
// or autoparallel's applied graph as one SPMD program (`spmd`). Refused here as a plan is (allow-list, symbols
// without a value, collectives on unmapped groups) before the child starts.
int runRankProgramsVerb(const std::string& file, const ParsedArgs& parsed, bool spmd) {
  const std::vector<const char*> notHere =
      spmd ? std::vector<const char*>{"scale", "no-dedup", "distributed"}
           : std::vector<const char*>{"placement", "scale", "dtype", "no-localise", "no-dedup", "distributed"};
  for (const char* flag : notHere)
    if (parsed.has(flag))
      return bad(std::string("--") + flag +
                 (spmd ? " does not apply to an applied graph's re-run (it runs as autoparallel wrote it, at the traced "
                         "rank's sizes: its split sizes and views are written for them)"
                       : " does not apply to rank programs (each rank runs its own graph as written)"));
  if (auto v = parsed.get("device"); v && *v != "cpu") return bad("--device " + *v + ": rank programs run on CPU ranks");
  auto programs = spmd ? loadAppliedRankPrograms(file) : loadRankPrograms(file);
  if (!programs) {
    std::fprintf(stderr, "%s\n", programs.error().toString().c_str());
    return 2;
  }
  // --seq-dim INPUT=DIM: AutoSP's slice moved to the sequence dim first, as `fix` does (core/run/autosp_seq_fix.h).
  auto requests = seqDimRequests(parsed);
  if (!requests) return bad(requests.error().message);
  if (!requests->empty()) {
    auto steps = moveAutoSpSlices(*programs, *requests);
    if (!steps) return bad(file + ": " + steps.error().message);
  }
  if (auto refused = rankProgramsRefusal(*programs)) {
    std::fprintf(stderr, "%s: refused: %s\n", file.c_str(), refused->toString().c_str());
    return 2;
  }
  for (size_t r = 0; r <= programs->ranks.size(); ++r) {
    const Plan& g = r == 0 ? programs->reference : programs->ranks[r - 1];
    if (auto b = bindSymbols(g, programs->symbols); !b) {
      std::fprintf(stderr, "%s: refused: %s: %s\n", file.c_str(),
                   r == 0 ? "the reference" : spmd ? "the program" : ("rank " + std::to_string(r - 1) + "'s program").c_str(),
                   b.error().message.c_str());
      return 2;
    }
  }
  RunOptions opts;
  if (int rc = readCommonRunFlags(parsed, opts)) return rc;
  if (auto v = parsed.get("dtype")) {
    if (*v != "f32" && *v != "f64" && *v != "planned") return bad("--dtype " + *v + ": expected f32, f64 or planned");
    opts.computeDtype = *v;
  }
  opts.localise = !parsed.has("no-localise");
  opts.requireSandbox = parsed.has("require-sandbox");
  RunReport report = runToCompletion(*programs, opts);
  if (parsed.has("json")) std::cout << nlohmann::json(report).dump(2) << "\n";
  else std::cout << report.summary();
  std::cout.flush();
  if (report.error)
    std::fprintf(stderr, "%s: run %s: %s\n", file.c_str(), report.error->refused() ? "refused" : "failed",
                 report.error->toString().c_str());
  return report.exitCode();
}

// Which run: a log whose graphs are the programs themselves (AutoSP's rank programs) runs as those programs; any
// other file runs as a plan with shardscope's own redistributes (the plan runner), and so does a run with edits
// (--placement, --seq-dim: the edited plan), whatever the file.
int runVerb(const ParsedArgs& parsed) {
  if (parsed.positionals.size() != 1) return bad("expected one plan FILE");
  const std::string file = parsed.positionals[0];
  if (holdsRankPrograms(file)) return runRankProgramsVerb(file, parsed, false);
  // autoparallel's log re-runs what autoparallel built (its applied graph); with edits, the edited plan runs.
  if (!parsed.has("placement") && !parsed.has("seq-dim") && holdsAppliedRun(file))
    return runRankProgramsVerb(file, parsed, true);
  auto loaded = loadPlanFile(file);
  if (!loaded) {
    std::fprintf(stderr, "%s\n", loaded.error().toString(file).c_str());
    return 2;
  }
  Plan plan = std::move(*loaded);
  // Running a plan is as safe as viewing it: an op off the allow-list is refused before the child starts.
  if (auto unsafe = unsafeNodes(plan.graph); !unsafe.empty()) {
    std::fprintf(stderr, "%s: refused: %s\n", file.c_str(), unsafe[0].toString().c_str());
    if (unsafe.size() > 1)
      std::fprintf(stderr, "%s: and %zu more unsafe node%s (shardscope check lists them as unsafe-op)\n",
                   file.c_str(), unsafe.size() - 1, unsafe.size() > 2 ? "s" : "");
    return 2;
  }

  // A graph with symbolic sizes (a compile's own graph: torch.compile, AutoSP) describes no tensor to make.
  if (auto why = plan.shapelessPlaceholder()) {
    std::fprintf(stderr, "%s: refused: %s\n", file.c_str(), why->c_str());
    return 2;
  }

  RunOptions opts;
  if (auto v = parsed.get("device")) {
    if (*v != "cpu" && *v != "cuda") return bad("--device " + *v + ": expected cpu or cuda");
    opts.device = *v;
  }
  if (int rc = readCommonRunFlags(parsed, opts)) return rc;
  if (auto v = parsed.get("scale"); v && (!parseNumber(*v, opts.scale) || opts.scale < 1))
    return bad("--scale " + *v + ": expected an integer >= 1");
  if (auto v = parsed.get("dtype")) {
    if (*v != "f32" && *v != "f64" && *v != "planned") return bad("--dtype " + *v + ": expected f32, f64 or planned");
    opts.computeDtype = *v;
  }
  opts.gradients = !parsed.has("no-grad");
  opts.localise = !parsed.has("no-localise");
  opts.dedup = !parsed.has("no-dedup");
  opts.distributed = parsed.has("distributed");
  opts.requireSandbox = parsed.has("require-sandbox");
  // --distributed: every process gets the report and exits with its code; process 0 (RANK=0) prints it.
  const char* procRank = std::getenv("RANK");
  const bool printsReport = !opts.distributed || !procRank || std::string(procRank) == "0";

  // Edits, through the same commands the GUI uses (validated, one-line errors).
  for (const auto& sd : parsed.all("seq-dim")) {
    auto eq = sd.find('=');
    int dim = 0;
    if (eq == std::string::npos || !parseNumber(sd.substr(eq + 1), dim) || dim < 0)
      return bad("--seq-dim " + sd + ": expected KEY=DIM");
    std::string key = sd.substr(0, eq);
    int changed = 0;
    for (const auto& [node, tag] : std::map<int, AutoSpTag>(plan.tags)) {
      if (tag.key != key) continue;
      auto r = applyCommand(plan, SetSeqDim{node, AutoSpTag{key, dim}});
      if (!r) return bad("--seq-dim " + sd + ": " + r.error().message);
      ++changed;
    }
    if (!changed) return bad("--seq-dim " + sd + ": no input is tagged '" + key + "'");
  }
  std::vector<PinnedOutput> pinned;
  for (const auto& pl : parsed.all("placement")) {
    auto edit = parseNodeSpecEdit(plan, pl, file);
    if (!edit) return bad(edit.error().message);
    const int node = edit->node;
    auto r = applyCommand(plan, SetOutputSpec{node, 0, edit->spec});
    if (!r) return bad("--placement " + pl + ": " + r.error().message);
    pinned.push_back(PinnedOutput{node, 0});
  }
  // On a solver's plan an output is one half of the node's strategy: the edited node takes its inputs as its op needs
  // for the new output, and the solver's other transitions stay (core/plan/fix.h, the edits `fix --placement`
  // saves). A native plan runs as edited.
  if (!pinned.empty() && plan.isSolverSolution()) {
    FixOptions fo;
    fo.pinned = pinned;
    FixPlan follow = planFix(plan, fo);
    for (const std::string& why : follow.blocked) std::fprintf(stderr, "%s: cannot follow your edit: %s\n", file.c_str(), why.c_str());
    if (!follow.batch.commands.empty())
      if (auto applied = applyCommand(plan, Command{follow.batch}); !applied)
        return bad("following the edits failed: " + applied.error().message);
    for (const std::string& step : follow.steps) std::fprintf(stderr, "%s: following your edit: %s\n", file.c_str(), step.c_str());
  }

  bool json = parsed.has("json");
  // Progress on a terminal only (one rewritten line); notes are part of the report.
  const bool tty = !json && ::isatty(2);
  double eta = -1;  // the runner's latest estimate (reference and rank 0 progress carry one)
  RunReport report = runToCompletion(plan, opts, [&](const RunEvent& e) {
    if (!tty || e.kind != RunEvent::Kind::Progress) return;
    if (e.etaSec >= 0) eta = e.etaSec;
    std::string who = e.rank < 0 ? "reference" : "rank " + std::to_string(e.rank);
    std::fprintf(stderr, "\r%s batch %d: node %d/%d, %s   ", who.c_str(), e.batch, e.node, e.nodes,
                 formatEta(eta).c_str());
    std::fflush(stderr);
  });
  if (tty) std::fprintf(stderr, "\r%60s\r", "");
  if (!printsReport) {
    // the report is process 0's to print
  } else if (json) {
    std::cout << nlohmann::json(report).dump(2) << "\n";
  } else {
    std::cout << report.summary();
  }
  std::cout.flush();
  if (report.error)
    std::fprintf(stderr, "%s: run %s: %s\n", file.c_str(), report.error->refused() ? "refused" : "failed",
                 report.error->toString().c_str());
  return report.exitCode();
}

const VerbRegistrar kRegisterRun{Verb{"run", "re-run a plan on local ranks and compare with a single-device reference",
                                      kHelp, kFlags, runVerb}};

}  // namespace
}  // namespace ss::app
