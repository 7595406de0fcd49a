// Hardening: `shardscope check` run as a process on broken files of every format. Unusable input
// exits 2 with exactly one line naming the file and the place; a described 10^12-element tensor is checked.
#include <catch2/catch.hpp>

#include "cli_run.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

using nlohmann::json;
namespace fs = std::filesystem;

namespace {
using Run = ss::test::CliRun;
Run run(const std::string& args) { return ss::test::runCli(args); }

fs::path scratch() {
  fs::path d = fs::temp_directory_path() / ("shardscope_hardening_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}
std::string write(const std::string& name, const std::string& text) {
  fs::path p = scratch() / name;
  std::ofstream(p, std::ios::binary) << text;
  return p.string();
}
json readJson(const std::string& path) {
  std::ifstream f(path);
  return json::parse(f);
}
std::string data(const std::string& name) { return std::string(SHARDSCOPE_TESTDATA_DIR) + "/io/" + name; }
std::string sample(const std::string& name) { return std::string(SHARDSCOPE_SAMPLES_DIR) + "/" + name; }

// Exit 2, one line, and that line (with the scratch folder replaced by "DIR").
std::string refused(const std::string& args) {
  Run r = run(args);
  INFO(args << " -> " << r.out);
  CHECK(r.code == 2);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1);
  std::string out = r.out;
  const std::string dir = scratch().string();
  for (size_t at; (at = out.find(dir)) != std::string::npos;) out.replace(at, dir.size(), "DIR");
  return out;
}
}  // namespace

TEST_CASE("check: truncated, empty and missing files", "[hardening][cli]") {
  auto f = write("trunc.plan.json", R"({"format": "shardscope-plan", "version": 1, "mesh": {"shape": [2, 4])");
  CHECK(refused("check " + f) ==
        "DIR/trunc.plan.json:1:69: invalid JSON: syntax error while parsing object - unexpected end of input; "
        "expected '}'\n");
  CHECK(refused("check " + write("empty.plan.json", "")) ==
        "DIR/empty.plan.json:1:1: the file is empty (expected a plan: JSON or FX graph text)\n");
  CHECK(refused("check " + scratch().string() + "/missing.plan.json") ==
        "DIR/missing.plan.json: cannot open: No such file or directory\n");
  CHECK(refused("check " + write("binary.plan.json", std::string("\x00\xff\xfe\n", 4))) ==
        "DIR/binary.plan.json:1:1: not a plan file: expected a JSON object (shardscope plan, autoparallel export), FX graph text (print_readable, a repro script) or a TORCH_TRACE log\n");
}

TEST_CASE("check: native plans with a huge mesh or an unknown placement", "[hardening][cli]") {
  json j = readJson(sample("teach_data_parallel.plan.json"));
  j["mesh"] = {{"shape", {1048576, 2}}, {"dim_names", {"a", "b"}}};
  CHECK(refused("check " + write("huge.plan.json", j.dump())) ==
        "DIR/huge.plan.json: /mesh: the mesh has more than 1048576 ranks\n");
  j = readJson(sample("teach_data_parallel.plan.json"));
  j["nodes"][0]["spec"][0] = "Q(0)";
  CHECK(refused("check " + write("unknown.plan.json", j.dump())) ==
        "DIR/unknown.plan.json: /nodes/0/spec/0: \"Q(0)\": unknown placement 'Q' (expected S(d), R, P(op), _S(d, sf) "
        "or their long forms) (column 1)\n");
  j = readJson(sample("teach_data_parallel.plan.json"));
  j["format"] = "x\nforged line";  // a newline inside an echoed value is escaped: still one line
  CHECK(refused("check " + write("newline.plan.json", j.dump())) ==
        "DIR/newline.plan.json: /format: not a shardscope plan (format is 'x\\nforged line')\n");
}

TEST_CASE("check: a 10^12-element input is checked from its shape alone", "[hardening][cli]") {
  json j = readJson(sample("teach_data_parallel.plan.json"));
  j["nodes"][0]["meta"][0]["shape"] = {1000000, 1000000};
  Run r = run("check " + write("big.plan.json", j.dump()));
  CHECK(r.code == 1);  // the declared downstream shapes no longer match: reported, not allocated
  CHECK(r.out.find("mm: [1000000, 1000000] @ [16, 4]: the contracted dims differ (1000000 and 16)") != std::string::npos);
}

TEST_CASE("check: autoparallel JSON and placements files with wrong types or names", "[hardening][cli]") {
  json ap = readJson(data("falcon_mqa_joint.autoparallel.json"));
  ap["mesh"]["shape"] = "2x4";
  CHECK(refused("check " + write("ap.json", ap.dump())) == "DIR/ap.json: /mesh/shape: expected an array of mesh dim sizes, got string\n");
  json pl = readJson(data("falcon_mqa_joint.placements.json"));
  pl["placements"]["nope"] = "RR";
  CHECK(refused("check " + data("falcon_mqa_joint.print_readable.py") + " --placements " + write("pl.json", pl.dump())) ==
        "DIR/pl.json: /placements/nope: no node named 'nope' in the graph\n");
  pl = readJson(data("falcon_mqa_joint.placements.json"));
  pl["placements"]["mm"] = {{"output", "Z"}, {"inputs", json::array()}};
  CHECK(refused("check " + data("falcon_mqa_joint.print_readable.py") + " --placements " + write("pl2.json", pl.dump())) ==
        "DIR/pl2.json: /placements/mm/output: \"Z\": unknown placement 'Z' (expected S(d), R, P(op), _S(d, sf) or "
        "their long forms) (column 1)\n");
}

TEST_CASE("check: FX text cut in the middle of a call", "[hardening][cli]") {
  auto f = write("cut.py", "def forward(self, x: \"f32[4]\"):\n    y = torch.ops.aten.mul.Tensor(x, \n");
  CHECK(refused("check " + f) == "DIR/cut.py:2:34: '(' is not closed\n");
}

// `fix -o OUT` among planted names: OUT.tmp is the input itself (nothing may consume it), OUT.bak a symlink to a
// file the save must not write, OUT private (0600). The fixed plan lands in OUT with its mode, the previous OUT in
// OUT.bak as a file of its own, and every other file is byte-identical.
TEST_CASE("fix -o follows no planted symlink, keeps its input and the file's mode", "[hardening][cli][safety]") {
  const fs::path dir = scratch() / "fix_out";
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto read = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const fs::path out = dir / "out.plan.json", input = dir / "out.plan.json.tmp", victim = dir / "victim";
  fs::copy_file(sample("falcon_index_put_2d.plan.json"), input);
  const std::string inputBytes = read(input);
  std::ofstream(out) << "previous";
  fs::permissions(out, fs::perms::owner_read | fs::perms::owner_write);
  std::ofstream(victim) << "victim";
  fs::create_symlink(victim, out.string() + ".bak");

  Run r = run("fix '" + input.string() + "' -o '" + out.string() + "'");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(read(input) == inputBytes);
  CHECK(read(victim) == "victim");
  CHECK(read(out.string() + ".bak") == "previous");
  CHECK_FALSE(fs::is_symlink(out.string() + ".bak"));
  CHECK((fs::status(out).permissions() & fs::perms::all) == (fs::perms::owner_read | fs::perms::owner_write));
  Run checked = run("check '" + out.string() + "'");
  CHECK(checked.code == 0);  // the fixed plan
  fs::remove_all(dir);
}
