// The flag parser every verb shares (app/cli/args.cpp, CLI11 underneath), seen as a user sees it: exact
// messages for each mistake, both spellings of a value, the short alias, `--`, and help made from the flags.
#include <catch2/catch.hpp>

#include "cli_run.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {
ss::test::CliRun run(const std::string& args) { return ss::test::runCli(args); }
std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
const std::string kLayout = "layout --shape 4,4 --mesh 2 --placements 'S(0)'";
}  // namespace

TEST_CASE("flag mistakes are one line naming the flag, exit 2", "[cli]") {
  auto unknown = run(kLayout + " --bogus 1");
  CHECK(unknown.code == 2);
  CHECK(unknown.out == "shardscope layout: unknown option '--bogus' (see --help)\n");
  auto twice = run(kLayout + " --shape 2,2");
  CHECK(twice.code == 2);
  CHECK(twice.out == "shardscope layout: option '--shape' is given twice\n");
  auto noValue = run("layout --mesh 2 --placements R --shape");
  CHECK(noValue.code == 2);
  CHECK(noValue.out == "shardscope layout: option '--shape' needs a value\n");
  auto switchValue = run(kLayout + " --json=3");
  CHECK(switchValue.code == 2);
  CHECK(switchValue.out == "shardscope layout: option '--json' takes no value\n");
  auto shortNoValue = run("gen -o");
  CHECK(shortNoValue.code == 2);
  CHECK(shortNoValue.out == "shardscope gen: option '--output' needs a value\n");
}

TEST_CASE("a value flag takes one value per occurrence, in either spelling", "[cli]") {
  auto spaced = run(kLayout + " --json");
  auto inlined = run("layout --shape=4,4 --mesh=2 --placements='S(0)' --json");
  CHECK(spaced.code == 0);
  CHECK(inlined.out == spaced.out);
  // Never greedy: the word after a value is a positional again (here one too many for `check`).
  auto extra = run("check --placements p.json a.json b.json");
  CHECK(extra.code == 2);
  CHECK(extra.out == "shardscope check: expected one FILE (see shardscope check --help)\n");
  // After `--` every word is a positional, flags included.
  auto dashed = run("check -- --json");
  CHECK(dashed.code == 2);
  CHECK(dashed.out.find("--json") != std::string::npos);
  CHECK(dashed.out.find("option") == std::string::npos);
}

TEST_CASE("-o is --output: both spellings write, both together are given twice", "[cli]") {
  const auto dirPath = std::filesystem::temp_directory_path() / ("shardscope_cli_flags_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dirPath);
  const std::string dir = dirPath.string();
  auto shortForm = run("gen --layers 1 -o " + dir + "/a.json");
  auto longForm = run("gen --layers 1 --output=" + dir + "/b.json");
  CHECK(shortForm.code == 0);
  CHECK(longForm.code == 0);
  CHECK(readText(dir + "/a.json") == readText(dir + "/b.json"));
  auto both = run("gen --layers 1 -o " + dir + "/c.json --output " + dir + "/d.json");
  CHECK(both.code == 2);
  CHECK(both.out == "shardscope gen: option '--output' is given twice\n");
  CHECK(readText(dir + "/a.json").size() > 1000);
  std::filesystem::remove_all(dirPath);
}

TEST_CASE("a verb's help lists every flag it parses, with its value and what it does", "[cli]") {
  auto h = run("fix --help");
  CHECK(h.code == 0);
  CHECK(h.out.rfind("Usage: shardscope fix FILE -o OUT", 0) == 0);
  CHECK(h.out.find("\nOptions:\n") != std::string::npos);
  CHECK(h.out.find("  -o,--output OUT         where to save the fixed plan (shardscope plan JSON)\n") != std::string::npos);
  CHECK(h.out.find("  --seq-dim KEY=DIM       tag every AutoSP input tagged KEY as (KEY, DIM); repeatable\n") !=
        std::string::npos);
  CHECK(h.out.find("\nExit codes: 0 OUT checks without errors") != std::string::npos);
  // A multi-line flag help keeps its column.
  auto c = run("check --help");
  CHECK(c.out.find("  --json                  {\"diagnostics\"") != std::string::npos);
  CHECK(c.out.find("\n                          \"coverage\": {\"op_nodes\"") != std::string::npos);
  // Every verb answers --help with its usage first.
  for (const char* verb : {"check", "diff", "export", "fix", "gen", "layout", "ops", "render", "run", "teach"}) {
    auto v = run(std::string(verb) + " --help");
    CHECK(v.code == 0);
    CHECK(v.out.rfind(std::string("Usage: shardscope ") + verb, 0) == 0);
  }
}
