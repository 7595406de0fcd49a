// Native plan format: exact round trips, every field, and located errors for bad input.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/io/load/load.h"
#include "core/io/native/plan_json.h"

using namespace ss;

namespace {
std::string sample(const std::string& name) { return std::string(SHARDSCOPE_SAMPLES_DIR) + "/" + name; }

Plan load(const std::string& name) {
  auto p = loadPlanFile(sample(name));
  INFO(name << ": " << (p ? std::string() : p.error().toString(name)));
  REQUIRE(p.ok());
  return std::move(*p);
}

Error loadError(const std::string& text) {
  auto p = loadPlanText(text, "bad.plan.json");
  REQUIRE_FALSE(p.ok());
  return p.error();
}

const char* kMinimal = R"({"format": "shardscope-plan", "version": 1, "mesh": {"shape": [2, 4], "dim_names": ["dim0", "dim1"]},
 "nodes": [
  {"name": "x", "op": "placeholder", "meta": [{"shape": [16, 128], "dtype": "bf16"}], "spec": ["S(0)R"]},
  {"name": "y", "op": "aten.mul.Tensor", "args": [{"t": "x"}, 2.0], "meta": [{"shape": [16, 128], "dtype": "bf16"}],
   "spec": ["S(0)R"]},
  {"name": "output", "op": "output", "args": [[{"t": "y"}]]}]})";
}  // namespace

TEST_CASE("teaching samples load with every field", "[io]") {
  Plan p = load("teach_fsdp_tp.plan.json");
  CHECK(p.name == "teach_fsdp_tp");
  CHECK(p.mesh == DeviceMesh({2, 2}, {"dp", "tp"}));
  CHECK(p.graph.size() == 10);
  int mm1 = p.graph.find("mm_1");
  REQUIRE(mm1 >= 0);
  CHECK(p.graph.nodes[mm1].opName() == "mm");
  CHECK(p.graph.nodes[mm1].modulePath == "mlp.fc2");
  CHECK(p.specs[mm1].outputs[0]->toMeshString() == "S(0)P(sum)");
  CHECK(p.specs[mm1].inputs[1]->toMeshString() == "RS(0)");
  CHECK(p.graph.nodes[mm1].outputs[0].shape == std::vector<int64_t>{8, 16});
  REQUIRE(p.redistributes.size() == 4);
  CHECK(p.redistributes[0].node == p.graph.find("mm"));
  CHECK(p.redistributes[0].input == 1);
  CHECK(p.redistributes[0].from.toMeshString() == "S(0)S(1)");
  CHECK(p.run.lossNode == "loss");
  CHECK(p.run.batches == 3);
  CHECK(p.executable());
  CHECK(p.validate().empty());
  CHECK(p.graph.users(p.graph.find("relu")) == std::vector<std::pair<int, int>>{{mm1, 0}});
}

TEST_CASE("writer and reader round-trip exactly", "[io]") {
  for (const char* name : {"teach_data_parallel.plan.json", "teach_tp_mlp.plan.json", "teach_fsdp_tp.plan.json"}) {
    Plan p = load(name);
    std::string text = writePlanString(p);
    auto q = loadPlanText(text, name);
    REQUIRE(q.ok());
    CHECK(*q == p);
    CHECK(writePlanString(*q) == text);
  }
}

TEST_CASE("round trip keeps args of every kind, tags, sources and costs", "[io]") {
  auto base = loadPlanText(kMinimal, "m");
  REQUIRE(base.ok());
  Plan p = *base;
  Node& y = p.graph.nodes[1];
  y.args.push_back(Arg::list({Arg::none(), Arg::integer(-3), Arg::real(1e-05), Arg::real(-INFINITY), Arg::boolean(true),
                              Arg::string("tp"), Arg::dtype(DType::BF16), Arg::device("cuda:0"),
                              Arg::symbol("torch.contiguous_format")}));
  y.kwargs.emplace_back("memory_format", Arg::symbol("torch.contiguous_format"));
  y.source = SourceLoc{"model.py", 42, "forward", "y = x * 2"};
  y.modulePath = "layers.0.attn";
  y.phase = Phase::Backward;
  y.computeCost = 12.5;
  y.clusterId = 3;
  p.graph.reindex();
  p.tags[0] = AutoSpTag{"input_id", 0};
  p.edgeCosts[{1, 0}] = {3.5, 1.0};
  p.summary = CostSummary{10, 2, 7, 1};
  p.run.spSize = 2;
  auto q = loadPlanText(writePlanString(p), "m");
  REQUIRE(q.ok());
  CHECK(*q == p);
  CHECK(std::isinf(q->graph.nodes[1].args[2].items[3].f));
  CHECK(q->tags.at(0).toString() == "(input_id, 0)");
}

TEST_CASE("bad plan files: one located message each", "[io][errors]") {
  // Syntax errors carry line:col.
  auto e = loadError("{\"format\": \"shardscope-plan\",\n \"mesh\": [1,\n");
  CHECK(e.line == 3);
  CHECK(e.message.rfind("invalid JSON", 0) == 0);
  CHECK(loadError("").message.find("empty") != std::string::npos);
  CHECK(loadError("hello").line == 1);
  // Semantic errors carry a JSON pointer.
  auto bad = [](std::string from, std::string to) {
    std::string t = kMinimal;
    auto pos = t.find(from);
    REQUIRE(pos != std::string::npos);
    t.replace(pos, from.size(), to);
    return loadError(t);
  };
  auto e1 = bad("\"S(0)R\"]},\n  {\"name\": \"y\"", "\"S(0)Q\"]},\n  {\"name\": \"y\"");
  CHECK(e1.pointer == "/nodes/0/spec/0");
  CHECK(e1.message == "\"S(0)Q\": unknown placement 'Q' (expected S(d), R, P(op), _S(d, sf) or their long forms) (column 5)");
  auto e2 = bad("[16, 128], \"dtype\": \"bf16\"}], \"spec\": [\"S(0)R\"]},\n  {\"name\": \"y\"",
                "[16, \"a\"], \"dtype\": \"bf16\"}], \"spec\": [\"S(0)R\"]},\n  {\"name\": \"y\"");
  CHECK(e2.pointer == "/nodes/0/meta/0/shape/1");
  CHECK(e2.message == "expected an integer size, got string");
  auto e3 = bad("{\"t\": \"x\"}", "{\"t\": \"nope\"}");
  CHECK(e3.pointer == "/nodes/1/args/0/t");
  CHECK(e3.message == "unknown tensor 'nope' (a node can only use nodes listed before it)");
  CHECK(bad("\"shape\": [2, 4]", "\"shape\": [2, 0]").message == "mesh dim 1 has size 0; sizes must be >= 1");
  CHECK(bad("\"version\": 1", "\"version\": 7").pointer == "/version");
  // S(2)R on a 2-D tensor parses: a finding, not a refusal (test_plan_builder.cpp).
  CHECK(bad("{\"name\": \"y\"", "{\"name\": \"x\"").message == "node name 'x' is used twice");
  CHECK(bad("\"spec\": [\"S(0)R\"]},\n  {\"name\": \"output\"", "\"spec\": [\"S(0)R\", \"RR\"]},\n  {\"name\": \"output\"")
            .message == "'y' has 1 outputs but 2 specs");
  CHECK(loadError("{\"format\": \"shardscope-plan\", \"version\": 1, \"mesh\": {\"shape\": [2]}}").message ==
        "missing required key 'nodes'");
  CHECK(loadError("[1, 2]").message.find("unknown JSON document") != std::string::npos);
  CHECK(loadError(std::string(300, '[') + std::string(300, ']')).message.find("deeper than 256") != std::string::npos);
  auto trunc = std::string(kMinimal).substr(0, 200);
  CHECK(loadError(trunc).message.rfind("invalid JSON", 0) == 0);
}

TEST_CASE("error strings name the file and place", "[io][errors]") {
  CHECK(Error::atLine("bad", 3, 7).toString("f.json") == "f.json:3:7: bad");
  CHECK(Error::atPointer("bad", "/nodes/1").toString("f.json") == "f.json: /nodes/1: bad");
  CHECK(Error::at("bad", 4).toString() == "bad (column 4)");
  auto missing = loadPlanFile("/nonexistent/x.plan.json");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().toString("/nonexistent/x.plan.json") == "/nonexistent/x.plan.json: cannot open: No such file or directory");
}

TEST_CASE("atomic save keeps a backup and refuses unwritable places", "[io]") {
  namespace fs = std::filesystem;
  auto dir = fs::temp_directory_path() / ("shardscope_io_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  Plan p = load("teach_tp_mlp.plan.json");
  std::string path = (dir / "a.plan.json").string();
  REQUIRE(savePlanFile(p, path).ok());
  p.name = "second";
  REQUIRE(savePlanFile(p, path).ok());
  CHECK(loadPlanFile(path)->name == "second");
  CHECK(loadPlanFile(path + ".bak")->name == "teach_tp_mlp");
  CHECK_FALSE(fs::exists(path + ".tmp"));
  auto bad = savePlanFile(p, (dir / "no_such_dir" / "b.plan.json").string());
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "cannot write: No such file or directory");
  fs::remove_all(dir);
}

TEST_CASE("format detection by content", "[io]") {
  CHECK(detectFileKind("  {\"format\": \"shardscope-plan\"}") == FileKind::NativePlan);
  CHECK(detectFileKind("{\"version\": 1, \"mesh_shape\": [2, 4], \"placements\": {}}") == FileKind::AutoparallelPlacements);
  CHECK(detectFileKind("{\"mesh\": {\"shape\": [2]}, \"nodes\": []}") == FileKind::AutoparallelJson);
  CHECK(detectFileKind("class GraphModule(torch.nn.Module):\n    def forward(self, x):") == FileKind::FxText);
  CHECK(detectFileKind("hello") == FileKind::Unknown);
}

// Faults injected into the atomic save: the disk fills mid-write (RLIMIT_FSIZE: write() fails with EFBIG, also
// for root, unlike permission bits) and the target is a directory (the final rename fails). Each time the error
// names the cause, the previous file is untouched and no temp file is left.
TEST_CASE("a save that runs out of space or cannot replace the file fails cleanly", "[io][faults]") {
  namespace fs = std::filesystem;
  auto dir = fs::temp_directory_path() / ("shardscope_io_faults_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  Plan p = load("falcon_index_put_2d.plan.json");
  const std::string path = (dir / "a.plan.json").string();
  REQUIRE(savePlanFile(p, path).ok());
  const auto before = fs::file_size(path);
  REQUIRE(before > 4096);

  const std::string original = p.name;
  p.name = "edited";
  {
    rlimit old{};
    REQUIRE(::getrlimit(RLIMIT_FSIZE, &old) == 0);
    auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);  // else the kernel kills the process at the limit
    rlimit small = old;
    small.rlim_cur = 4096;
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
    auto full = savePlanFile(p, path);
    ::setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, oldHandler);
    REQUIRE_FALSE(full.ok());
    CHECK(full.error().message == "write failed: File too large");
  }
  CHECK(fs::file_size(path) == before);
  auto kept = loadPlanFile(path);
  REQUIRE(kept.ok());
  CHECK(kept->name == original);
  for (const auto& e : fs::directory_iterator(dir)) {  // no temp file left
    INFO(e.path().string());
    CHECK(e.path().filename().string().rfind(".a.plan.json.", 0) != 0);
  }

  const std::string asDir = (dir / "taken").string();
  fs::create_directories(asDir);
  auto onDir = savePlanFile(p, asDir);
  REQUIRE_FALSE(onDir.ok());
  CHECK(onDir.error().message == "cannot write: it is a folder");
  for (const auto& e : fs::directory_iterator(dir)) CHECK(e.path().filename().string().rfind(".taken.", 0) != 0);
  CHECK(fs::is_directory(asDir));
  fs::remove_all(dir);
}

// Planted names around the target: OUT.tmp is someone's file (read as the input, too), OUT.bak a symlink to a file
// the save must not write, and the target itself private (0600). The save follows no symlink, touches no file but
// its own, keeps the mode, and the previous contents end up in OUT.bak as a file of their own.
TEST_CASE("a save follows no planted symlink, consumes no file named like its temp and keeps the file's mode",
          "[io][faults][safety]") {
  namespace fs = std::filesystem;
  auto dir = fs::temp_directory_path() / ("shardscope_io_safe_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto write = [](const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; };
  auto read = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const fs::path out = dir / "out.plan.json", victimBak = dir / "victim-bak", victimTmp = dir / "victim-tmp";
  write(out, "previous");
  fs::permissions(out, fs::perms::owner_read | fs::perms::owner_write);
  write(victimBak, "victim of .bak");
  write(victimTmp, "victim of .tmp");
  fs::create_symlink(victimBak, out.string() + ".bak");
  write(out.string() + ".tmp", "the user's own OUT.tmp");
  const fs::path outTmpLink = dir / "link.plan.json";
  fs::create_symlink(victimTmp, outTmpLink.string() + ".tmp");

  REQUIRE(writeFileAtomic(out.string(), "new contents").ok());
  CHECK(read(out) == "new contents");
  CHECK((fs::status(out).permissions() & fs::perms::all) == (fs::perms::owner_read | fs::perms::owner_write));
  CHECK(read(victimBak) == "victim of .bak");
  CHECK_FALSE(fs::is_symlink(out.string() + ".bak"));
  CHECK(read(out.string() + ".bak") == "previous");
  CHECK(read(out.string() + ".tmp") == "the user's own OUT.tmp");

  // A new file beside a planted OUT.tmp symlink: the symlink's target is untouched; the file gets the umask's mode.
  REQUIRE(writeFileAtomic(outTmpLink.string(), "fresh").ok());
  CHECK(read(outTmpLink) == "fresh");
  CHECK(read(victimTmp) == "victim of .tmp");
  const mode_t mask = ::umask(0);
  ::umask(mask);
  CHECK(static_cast<mode_t>(fs::status(outTmpLink).permissions() & fs::perms::all) == (0666 & ~mask));

  // A symlink at the target itself is replaced by the file, not written through.
  const fs::path viaLink = dir / "via.plan.json", victimTarget = dir / "victim-target";
  write(victimTarget, "victim of the target link");
  fs::create_symlink(victimTarget, viaLink);
  REQUIRE(writeFileAtomic(viaLink.string(), "replaced").ok());
  CHECK_FALSE(fs::is_symlink(viaLink));
  CHECK(read(viaLink) == "replaced");
  CHECK(read(victimTarget) == "victim of the target link");

  for (const auto& e : fs::directory_iterator(dir)) {  // only the files above: no temp file left behind
    INFO(e.path().string());
    CHECK(e.path().filename().string()[0] != '.');
  }
  fs::remove_all(dir);
}
