#include "app/cli_args.h"

namespace ss::app {

std::optional<std::string> ParsedArgs::get(const std::string& f) const {
  auto it = values.find(f);
  if (it == values.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

std::vector<std::string> ParsedArgs::all(const std::string& f) const {
  auto it = values.find(f);
  return it == values.end() ? std::vector<std::string>{} : it->second;
}

Result<ParsedArgs> parseArgs(const std::vector<std::string>& args, const std::vector<FlagSpec>& flags) {
  ParsedArgs out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() < 2 || a[0] != '-' || a == "-") {
      out.positionals.push_back(a);
      continue;
    }
    if (a == "--") {
      for (size_t k = i + 1; k < args.size(); ++k) out.positionals.push_back(args[k]);
      break;
    }
    std::string name = a.substr(a[1] == '-' ? 2 : 1);
    std::optional<std::string> inlineValue;
    if (auto eq = name.find('='); eq != std::string::npos) {
      inlineValue = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    const FlagSpec* spec = nullptr;
    for (const auto& f : flags)
      if (f.name == name) spec = &f;
    if (!spec) return Error{"unknown option '" + a + "' (see --help)"};
    if (!spec->repeated && out.values.count(name)) return Error{"option '--" + name + "' is given twice"};
    if (!spec->takesValue) {
      if (inlineValue) return Error{"option '--" + name + "' takes no value"};
      out.values[name].push_back("");
      continue;
    }
    if (!inlineValue) {
      if (i + 1 >= args.size()) return Error{"option '--" + name + "' needs a value"};
      inlineValue = args[++i];
    }
    out.values[name].push_back(*inlineValue);
  }
  return out;
}

}  // namespace ss::app
