#include "app/cli/args.h"

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

std::vector<FlagSpec> sessionFlags() {
  return {{"solution"}, {"applied"}, {"rank"}, {"mesh"}, {"names"}, {"group", true, true}};
}

Result<SessionInputs> sessionInputs(const ParsedArgs& args) {
  SessionInputs in;
  if (!args.positionals.empty()) in.primary = args.positionals[0];
  in.solution = args.get("solution");
  in.applied = args.get("applied");
  if (auto r = args.get("rank")) {
    try {
      size_t used = 0;
      in.rank = std::stoi(*r, &used);
      if (used != r->size() || in.rank < 0) throw std::invalid_argument("");
    } catch (const std::exception&) {
      return Error{"--rank expects a rank number, got '" + *r + "'"};
    }
  }
  if (auto m = args.get("mesh")) {
    auto mesh = DeviceMesh::parse(*m, args.get("names").value_or(""));
    if (!mesh) return Error{"--mesh: " + mesh.error().toString()};
    in.mesh = *mesh;
  } else if (args.has("names")) {
    return Error{"--names needs --mesh"};
  }
  for (const std::string& g : args.all("group")) {
    const size_t eq = g.find('=');
    int dim = -1;
    try {
      size_t used = 0;
      if (eq == std::string::npos || eq == 0) throw std::invalid_argument("");
      dim = std::stoi(g.substr(eq + 1), &used);
      if (used != g.size() - eq - 1 || dim < 0) throw std::invalid_argument("");
    } catch (const std::exception&) {
      return Error{"--group expects NAME=MESHDIM (e.g. --group 1=0), got '" + g + "'"};
    }
    in.groups[g.substr(0, eq)] = dim;
  }
  return in;
}

}  // namespace ss::app
