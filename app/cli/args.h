#pragma once
// A tiny flag parser shared by the verbs: `--name value`, `--name=value`, repeated flags, positionals.
// Unknown flags and missing values are errors naming the flag (exit 2 in the verbs).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/applied/session.h"
#include "core/model/result.h"

namespace ss::app {

struct FlagSpec {
  std::string name;        // without dashes: "shape"
  bool takesValue = true;
  bool repeated = false;
};

struct ParsedArgs {
  std::vector<std::string> positionals;
  std::map<std::string, std::vector<std::string>> values;  // flag -> values (one per occurrence; "" for switches)
  bool has(const std::string& f) const { return values.count(f) > 0; }
  std::optional<std::string> get(const std::string& f) const;
  std::vector<std::string> all(const std::string& f) const;
};

Result<ParsedArgs> parseArgs(const std::vector<std::string>& args, const std::vector<FlagSpec>& flags);

// The flags naming autoparallel's artifacts and how to read them, shared by check, gui and render:
// --solution, --applied, --rank, --mesh, --names, --group NAME=MESHDIM (repeatable).
std::vector<FlagSpec> sessionFlags();
// Those flags as SessionInputs (primary: the first positional, when there is one). Errors name the flag.
Result<SessionInputs> sessionInputs(const ParsedArgs& args);

}  // namespace ss::app
