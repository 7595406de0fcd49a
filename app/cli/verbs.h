#pragma once
// CLI verbs: each lives in its own app/verb_<name>.cpp and registers itself with a static VerbRegistrar.
//
// Contract for every verb: `run(args)` gets the arguments after the verb name; returns the process exit code
// (0 ok, 1 the input has problems / mismatch, 2 unusable input or bad flags, 3 a run failed). Errors are one
// line on stderr naming the file and place. `--help` prints `help` and exits 0 (handled by main).
#include <functional>
#include <string>
#include <vector>

namespace ss::app {

struct Verb {
  std::string name;
  std::string summary;  // one line for `shardscope --help`
  std::string help;     // full usage for `shardscope VERB --help`
  std::function<int(const std::vector<std::string>& args)> run;
};

std::vector<Verb>& verbRegistry();

struct VerbRegistrar {
  explicit VerbRegistrar(Verb v) { verbRegistry().push_back(std::move(v)); }
};

}  // namespace ss::app
