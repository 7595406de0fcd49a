// shardscope: one executable for the CLI verbs and the GUI.
//
// `shardscope VERB ...` runs a verb (app/verb_*.cpp); `shardscope FILE` or no arguments opens the GUI when
// it is built in. Exit codes: 0 ok, 1 problems found / losses differ, 2 unusable input or bad flags, 3 run failed.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "app/cli/manual.h"
#include "app/cli/verbs.h"
#include "core/model/result.h"


namespace ss::app {
std::vector<Verb>& verbRegistry() {
  static std::vector<Verb> verbs;
  return verbs;
}
}  // namespace ss::app

namespace {

const ss::app::Verb* findVerb(const std::string& name) {
  for (const auto& v : ss::app::verbRegistry())
    if (v.name == name) return &v;
  return nullptr;
}

// Runs `v` on `rest` (the arguments after the verb's name): --help anywhere prints its help; the arguments are
// parsed with the verb's flags, a parse error being one line and exit 2.
int runVerb(const ss::app::Verb& v, const std::vector<std::string>& rest) {
  for (const auto& a : rest)
    if (a == "--help" || a == "-h") {
      std::cout << ss::app::helpText(v.help, v.flags);
      return 0;
    }
  try {
    auto parsed = ss::app::parseArgs(rest, v.flags);
    if (!parsed) {
      std::cerr << ss::Error::oneLine("shardscope " + v.name + ": " + parsed.error().message) << "\n";
      return 2;
    }
    return v.run(*parsed);
  } catch (const std::exception& e) {
    // Every reader turns what it cannot understand into a located error; what still escapes is named with the
    // input file it came from (the first argument that names an existing path), so the user knows which file.
    std::string file;
    for (const auto& a : rest) {
      std::error_code ec;
      if (!a.empty() && a[0] != '-' && std::filesystem::exists(a, ec)) {
        file = a + ": ";
        break;
      }
    }
    std::cerr << ss::Error::oneLine("shardscope " + v.name + ": " + file + "internal error: " + e.what()) << "\n";
    return 2;
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h" || args[0] == "help")) {
    if (args[0] == "help" && args.size() > 1) {
      args = {args[1], "--help"};
    } else {
      std::cout << ss::app::usageText();
      return 0;
    }
  }
  // --version, and the two texts the build installs (cmake/install.cmake), all made from the verb table.
  if (!args.empty() && (args[0] == "--version" || args[0] == "--man-page" || args[0] == "--bash-completion")) {
    std::cout << (args[0] == "--version"    ? ss::app::versionText()
                  : args[0] == "--man-page" ? ss::app::manPage()
                                            : ss::app::bashCompletion());
    return 0;
  }
  if (!args.empty()) {
    if (const ss::app::Verb* v = findVerb(args[0])) return runVerb(*v, std::vector<std::string>(args.begin() + 1, args.end()));
    if (args[0].rfind("-", 0) == 0) {
      std::cerr << ss::Error::oneLine("shardscope: unknown option '" + args[0] + "' (see shardscope --help)") << "\n";
      return 2;
    }
  }
#ifdef SHARDSCOPE_WITH_GUI
  // `shardscope FILE` opens the GUI; a word that is neither a verb nor a file is a typo, not a window to open.
  if (!args.empty() && !std::filesystem::exists(args[0])) {
    std::cerr << "shardscope: '" << args[0] << "' is neither a verb nor a file (see shardscope --help)\n";
    return 2;
  }
  return runVerb(*findVerb("gui"), args);
#else
  if (args.empty()) {
    std::cout << ss::app::usageText();
    return 0;
  }
  std::cerr << ss::Error::oneLine("shardscope: unknown verb '" + args[0] + "' (this build has no GUI; see shardscope --help)") << "\n";
  return 2;
#endif
}
