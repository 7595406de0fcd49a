#include "app/cli/args.h"
#include "core/model/placement_parse.h"

#include <CLI/CLI.hpp>

#include <deque>
#include <sstream>

namespace ss::app {

FlagSpec option(std::string name, std::string value, std::string help) {
  return FlagSpec{std::move(name), true, false, std::move(value), std::move(help), ""};
}
FlagSpec repeatable(std::string name, std::string value, std::string help) {
  return FlagSpec{std::move(name), true, true, std::move(value), std::move(help), ""};
}
FlagSpec toggle(std::string name, std::string help) {
  return FlagSpec{std::move(name), false, false, "", std::move(help), ""};
}

std::vector<FlagSpec> withFlags(std::vector<FlagSpec> base, const std::vector<FlagSpec>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

std::optional<std::string> ParsedArgs::get(const std::string& f) const {
  auto it = values.find(f);
  if (it == values.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

std::vector<std::string> ParsedArgs::all(const std::string& f) const {
  auto it = values.find(f);
  return it == values.end() ? std::vector<std::string>{} : it->second;
}

namespace {

// "--shape" or "-o,--output": CLI11's spelling of a flag's names.
std::string cliNames(const FlagSpec& f) {
  auto one = [](const std::string& n) { return (n.size() == 1 ? "-" : "--") + n; };
  return f.alias.empty() ? one(f.name) : one(f.alias) + "," + one(f.name);
}

// One CLI11 app holding `flags`, writing into `values` (one slot per flag) and `positionals`. Value flags take
// exactly one value per occurrence (never greedy: `--seq-dim a=1 FILE` leaves FILE a positional); switches count.
struct CliApp {
  CLI::App app;
  std::deque<std::vector<std::string>> values;  // deque: the options keep pointers into it
  std::deque<int> counts;
  std::vector<std::string> positionals;

  explicit CliApp(const std::vector<FlagSpec>& flags) {
    app.set_help_flag();  // main answers --help for every verb
    app.allow_extras();   // an unknown flag is reported by parseArgs, in the house wording
    app.add_option("args", positionals);
    for (const FlagSpec& f : flags) {
      if (f.takesValue) {
        CLI::Option* o = app.add_option(cliNames(f), values.emplace_back(), f.help);
        o->type_name(f.value.empty() ? "VALUE" : f.value)->expected(1)->allow_extra_args(false);
        o->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
      } else {
        app.add_flag(cliNames(f), counts.emplace_back(), f.help);
      }
    }
  }
};

// The help's layout: the verb's usage and about text, CLI11's option list, the footer.
class VerbFormatter : public CLI::Formatter {
 public:
  explicit VerbFormatter(const VerbHelp& help) : help_(help) { column_width(26); }
  std::string make_help(const CLI::App* app, std::string, CLI::AppFormatMode mode) const override {
    std::ostringstream out;
    auto block = [&](const std::string& s) {
      if (s.empty()) return;
      out << s;
      if (s.back() != '\n') out << '\n';
    };
    block(help_.usage);
    if (!help_.about.empty()) out << '\n';
    block(help_.about);
    out << make_groups(app, mode);
    if (!help_.footer.empty()) out << '\n';
    block(help_.footer);
    return out.str();
  }

 private:
  VerbHelp help_;
};

// The flag `arg` names ("--json=1" -> --json), or null when it names none of `flags`.
const FlagSpec* flagNamed(const std::string& arg, const std::vector<FlagSpec>& flags) {
  if (arg.size() < 2 || arg[0] != '-') return nullptr;
  const bool isLong = arg[1] == '-';
  std::string name = arg.substr(isLong ? 2 : 1);
  name = name.substr(0, name.find('='));
  for (const FlagSpec& f : flags) {
    const std::string& spelled = isLong || f.name.size() == 1 ? f.name : f.alias;
    if (spelled == name) return &f;
  }
  return nullptr;
}

// The two mistakes CLI11 words in its own terms, said in the house's: a value given to a switch (CLI11 would
// read "--json=3" as three switches) and a value flag at the very end.
std::optional<Error> wordedMistake(const std::vector<std::string>& args, const std::vector<FlagSpec>& flags) {
  for (size_t i = 0; i < args.size() && args[i] != "--"; ++i) {
    const FlagSpec* f = flagNamed(args[i], flags);
    if (!f) continue;
    const bool inlineValue = args[i].find('=') != std::string::npos;
    if (!f->takesValue && inlineValue) return Error{"option '--" + f->name + "' takes no value"};
    if (f->takesValue && !inlineValue && i + 1 == args.size()) return Error{"option '--" + f->name + "' needs a value"};
  }
  return std::nullopt;
}

}  // namespace

Result<ParsedArgs> parseArgs(const std::vector<std::string>& args, const std::vector<FlagSpec>& flags) {
  if (auto mistake = wordedMistake(args, flags)) return *mistake;
  CliApp cli(flags);
  try {
    cli.app.parse(std::vector<std::string>(args.rbegin(), args.rend()));  // CLI11 takes the arguments reversed
  } catch (const CLI::ParseError& e) {
    return Error{e.what()};
  }
  for (const std::string& extra : cli.app.remaining())
    if (extra != "--") return Error{"unknown option '" + extra + "' (see --help)"};
  ParsedArgs out;
  out.positionals = std::move(cli.positionals);
  size_t value = 0, count = 0;
  for (const FlagSpec& f : flags) {
    std::vector<std::string> got =
        f.takesValue ? std::move(cli.values[value++]) : std::vector<std::string>(static_cast<size_t>(cli.counts[count++]));
    if (got.size() > 1 && !f.repeated) return Error{"option '--" + f.name + "' is given twice"};
    if (!got.empty()) out.values[f.name] = std::move(got);
  }
  return out;
}

std::string helpText(const VerbHelp& help, const std::vector<FlagSpec>& flags) {
  CliApp cli(flags);
  cli.app.formatter(std::make_shared<VerbFormatter>(help));
  return cli.app.help();
}

std::vector<FlagSpec> sessionFlags() {
  return {option("solution", "FILE", "autoparallel's solution JSON for the joint graph in FILE (matched by node name)"),
          option("applied", "FILE", "the applied graph (print_readable of the parallel graph) to check against the plan"),
          option("rank", "N", "the rank that traced --applied (default 0)"),
          repeatable("group", "NAME=DIM", "the mesh dim of a process group (when group sizes are ambiguous); repeatable"),
          option("mesh", "2x4", "the mesh of an optimizer log or an applied graph alone (default: from the collectives)"),
          option("names", "dp,tp", "mesh dim names with --mesh")};
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

Result<NodeSpecEdit> parseNodeSpecEdit(const Plan& plan, const std::string& edit, const std::string& file) {
  const size_t eq = edit.rfind('=');
  const int node = eq == std::string::npos ? -1 : plan.graph.find(edit.substr(0, eq));
  if (node < 0) return Error{"--placement " + edit + ": expected NODE=SPEC with NODE a node of " + file};
  ParseContext pc;
  pc.mesh = &plan.mesh;
  const auto& outs = plan.graph.nodes[static_cast<size_t>(node)].outputs;
  pc.tensorRank = !outs.empty() && outs[0].known ? outs[0].rank() : -1;
  auto spec = parseSpec(edit.substr(eq + 1), pc);
  if (!spec) return Error{"--placement " + edit + ": " + spec.error().toString()};
  return NodeSpecEdit{node, *spec};
}

}  // namespace ss::app
