// `shardscope fix LOG|LOGDIR --seq-dim INPUT=DIM -o OUT`: the fix of DeepSpeed AutoSP's seq_dim bug on its rank
// programs (core/run/autosp_seq_fix.h): every rank's slice of INPUT moves to DIM, and OUT holds the fixed programs
// in their text form, which `shardscope run OUT` runs as it runs the logs. Called by `fix` (verb_fix.cpp) when
// FILE holds rank programs.
#include <iostream>

#include "app/cli/args.h"
#include "app/cli/verbs.h"
#include "core/applied/session.h"
#include "core/io/file.h"
#include "core/plan/fix.h"
#include "core/run/autosp_seq_fix.h"
#include "core/run/rank_programs.h"

namespace ss::app {

Result<std::vector<SeqDimRequest>> seqDimRequests(const ParsedArgs& a) {
  std::vector<SeqDimRequest> out;
  for (const std::string& s : a.all("seq-dim")) {
    auto r = parseSeqDimRequest(s);
    if (!r) return r.error();
    out.push_back(*r);
  }
  return out;
}

int fixRankPrograms(const std::string& file, const std::string& outPath, const ParsedArgs& a) {
  if (a.has("placement")) {
    std::cerr << "shardscope fix: --placement does not apply to rank programs (each rank runs its own graph); "
                 "--seq-dim INPUT=DIM moves AutoSP's slice\n";
    return 2;
  }
  auto requests = seqDimRequests(a);
  if (!requests) {
    std::cerr << "shardscope fix: " << requests.error().message << "\n";
    return 2;
  }
  if (requests->empty()) {
    // No --seq-dim: the moves the app's Fix all makes at the flagged slices of the graph the log shows (its joint
    // graph, checked as `check` checks it), so the CLI and the app fix alike.
    SessionInputs in;
    in.primary = file;
    if (auto session = loadSession(in); session && session->hasPlan) {
      Plan fixed = session->plan;
      if (applyCommand(fixed, planFix(session->plan).batch)) *requests = fixed.autoSpMoves;
    }
  }
  if (requests->empty()) {
    std::cerr << "shardscope fix: " << file << " holds rank programs (DeepSpeed AutoSP) and its graph flags no slice "
                 "of the wrong dim; give --seq-dim INPUT=DIM (e.g. input_ids=0) to move AutoSP's slice\n";
    return 2;
  }
  auto programs = loadRankPrograms(file);
  if (!programs) {
    std::cerr << programs.error().toString() << "\n";
    return 2;
  }
  auto steps = moveAutoSpSlices(*programs, *requests);
  if (!steps) {
    std::cerr << "shardscope fix: " << file << ": " << steps.error().message << "\n";
    return 2;
  }
  if (auto w = writeFileAtomic(outPath, writeRankProgramsText(*programs)); !w) {
    std::cerr << w.error().toString(outPath) << "\n";
    return 2;
  }
  for (const std::string& s : *steps) std::cout << s << "\n";
  std::cout << steps->size() << " edit" << (steps->size() == 1 ? "" : "s") << " in " << programs->ranks.size()
            << " rank programs; saved " << outPath << " (run it: shardscope run " << outPath << ")\n";
  return 0;
}

}  // namespace ss::app
