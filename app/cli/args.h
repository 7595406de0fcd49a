#pragma once
// The command line of every verb, declared once: its flags (name, value, help) drive both the parser and the
// help text. Parsing and the help's layout are CLI11's (args.cpp is the one translation unit that includes it);
// the verbs see only these small value types.
//
// Parsing contract: `--name value`, `--name=value`, `-o value`, repeated flags where a flag allows it, `--` ends
// the flags, everything else is a positional. An unknown flag, a missing value or a flag given twice that may
// be given once is an Error naming the flag (exit 2 in main).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/applied/session.h"
#include "core/model/result.h"

namespace ss::app {

struct FlagSpec {
  std::string name;        // the long name without dashes ("shape"); a one-letter name is a short flag ("-o")
  bool takesValue = true;  // false: a switch ("--json")
  bool repeated = false;   // may be given more than once (each occurrence one value)
  std::string value;       // the value's name in the help ("FILE"); empty for a switch
  std::string help;        // what the flag does; may span lines
  std::string alias;       // a one-letter spelling of the same flag ("o" for --output); stored under `name`
};

// The three ways to declare a flag.
FlagSpec option(std::string name, std::string value, std::string help);      // --name VALUE, at most once
FlagSpec repeatable(std::string name, std::string value, std::string help);  // --name VALUE, any number of times
FlagSpec toggle(std::string name, std::string help);                         // --name, no value

struct ParsedArgs {
  std::vector<std::string> positionals;
  std::map<std::string, std::vector<std::string>> values;  // flag -> values (one per occurrence; "" for switches)
  bool has(const std::string& f) const { return values.count(f) > 0; }
  std::optional<std::string> get(const std::string& f) const;
  std::vector<std::string> all(const std::string& f) const;
};

Result<ParsedArgs> parseArgs(const std::vector<std::string>& args, const std::vector<FlagSpec>& flags);

// A verb's help: `usage` (the "Usage: shardscope VERB ..." lines), `about` (what it does), the option list
// made from `flags`, then `footer` (output forms, exit codes).
struct VerbHelp {
  std::string usage;
  std::string about;
  std::string footer;
};
std::string helpText(const VerbHelp& help, const std::vector<FlagSpec>& flags);

// The flags naming autoparallel's artifacts and how to read them, shared by check, gui and render:
// --solution, --applied, --rank, --mesh, --names, --group NAME=MESHDIM (repeatable).
std::vector<FlagSpec> sessionFlags();
// `base` followed by `more`: a verb's own flags after shared ones.
std::vector<FlagSpec> withFlags(std::vector<FlagSpec> base, const std::vector<FlagSpec>& more);
// Those flags as SessionInputs (primary: the first positional, when there is one). Errors name the flag.
Result<SessionInputs> sessionInputs(const ParsedArgs& args);

// `--placement NODE=SPEC` against `plan` (fix, run and export take it): the node and SPEC parsed on the plan's mesh
// for the node's output rank, or one line saying what is wrong ("expected NODE=SPEC with NODE a node of FILE",
// the spec parser's message with its column).
struct NodeSpecEdit {
  int node = -1;
  ShardingSpec spec;
};
Result<NodeSpecEdit> parseNodeSpecEdit(const Plan& plan, const std::string& edit, const std::string& file);

}  // namespace ss::app
