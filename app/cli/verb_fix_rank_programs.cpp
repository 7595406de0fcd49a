// `shardscope fix LOG|LOGDIR --seq-dim INPUT=DIM -o OUT`: the fix of DeepSpeed AutoSP's seq_dim bug on its rank
// programs (core/run/autosp_seq_fix.h): every rank's slice of INPUT moves to DIM, and OUT holds the fixed programs
// in their text form, which `shardscope run OUT` runs as it runs the logs. Called by `fix` (verb_fix.cpp) when
// FILE holds rank programs.
#include <iostream>

#include "app/cli/args.h"
#include "app/cli/verbs.h"
#include "core/io/file.h"
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
    std::cerr << "shardscope fix: " << file << " holds rank programs (DeepSpeed AutoSP); give --seq-dim INPUT=DIM "
                 "(e.g. input_ids=0) to move AutoSP's slice to the sequence dim\n";
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
