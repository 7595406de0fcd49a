#pragma once
// CLI verbs: each lives in its own app/cli/verb_<name>.cpp and registers itself with a static VerbRegistrar.
//
// Contract for every verb: main parses the arguments after the verb name with the verb's `flags` (app/cli/args.h;
// a parse error is one line on stderr, exit 2) and calls `run` with them; `run` returns the process exit code
// (0 ok, 1 the input has problems / mismatch, 2 unusable input or bad flags, 3 a run failed). Errors are one
// line on stderr naming the file and place. `--help` prints helpText(help, flags) and exits 0 (main).
#include <functional>
#include <string>
#include <vector>

#include "app/cli/args.h"
#include "core/run/autosp_seq_fix.h"

namespace ss::app {

struct Verb {
  std::string name;
  std::string summary;  // one line for `shardscope --help`
  VerbHelp help;        // usage, what it does, footer; the option list comes from `flags`
  std::vector<FlagSpec> flags;
  std::function<int(const ParsedArgs& args)> run;
};

std::vector<Verb>& verbRegistry();

// `fix` and `run` on DeepSpeed AutoSP's rank programs (app/cli/verb_fix_rank_programs.cpp): the --seq-dim
// INPUT=DIM requests, and `fix FILE -o OUT` when FILE holds rank programs.
Result<std::vector<SeqDimRequest>> seqDimRequests(const ParsedArgs& a);
int fixRankPrograms(const std::string& file, const std::string& outPath, const ParsedArgs& a);

struct VerbRegistrar {
  explicit VerbRegistrar(Verb v) { verbRegistry().push_back(std::move(v)); }
};

}  // namespace ss::app
