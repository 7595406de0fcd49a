// TORCH_TRACE logs and autoparallel's artifacts: the record reader (md5, interned names, damaged logs), format
// detection, joint graph + solution -> one Plan, the optimizer log. Fixtures: tests/data/trace/ (written by
// samples/gen/trace_log.py from tests/data/io/falcon_mqa_joint.*).
#include <catch2/catch.hpp>

#include "test_data.h"

#include "core/io/autoparallel/artifacts.h"
#include "core/io/formats.h"
#include "core/io/load/load.h"
#include "core/io/trace/md5.h"
#include "core/io/trace/trace_log.h"
#include "core/model/placement_parse.h"

using namespace ss;

namespace {
std::string trace(const std::string& name) { return std::string(SHARDSCOPE_TESTDATA_DIR) + "/trace/" + name; }
std::string readTrace(const std::string& name) { return test::readFile(trace(name)); }
const std::string kTl = "seed1_tlparse/-_0_0_0/";
ShardingSpec spec(const char* s) { return parseSpec(s).value(); }
}  // namespace

TEST_CASE("md5 gives RFC 1321's test vectors", "[io][trace]") {
  CHECK(md5Hex("") == "d41d8cd98f00b204e9800998ecf8427e");
  CHECK(md5Hex("a") == "0cc175b9c0f1b6a831c399e269772661");
  CHECK(md5Hex("abc") == "900150983cd24fb0d6963f7d28e17f72");
  CHECK(md5Hex("message digest") == "f96b697d7cb7938d525a2f31aaf161d0");
  CHECK(md5Hex("abcdefghijklmnopqrstuvwxyz") == "c3fcd3d76192e4007dfb496cca67e13b");
  CHECK(md5Hex("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") == "d174ab98d277d9f5a5611c2c9f419d9f");
  std::string digits;
  for (int i = 0; i < 8; ++i) digits += "1234567890";
  CHECK(md5Hex(digits) == "57edf4a22be3c955ac49da2e2107b67a");
  // Fed in pieces that straddle the 64-byte blocks: the same digest.
  Md5 m;
  for (size_t i = 0; i < digits.size(); i += 7) m.update(std::string_view(digits).substr(i, 7));
  CHECK(m.hexDigest() == "57edf4a22be3c955ac49da2e2107b67a");
}

TEST_CASE("a TORCH_TRACE log: records, kinds, rank, payloads, interned file names", "[io][trace]") {
  auto log = readTraceLog(readTrace("seed1_missing.log"));
  REQUIRE(log.ok());
  CHECK(log->rank == 0);
  CHECK(log->skippedLines == 0);
  std::vector<std::string> kinds;
  for (const auto& r : log->records) kinds.push_back(r.kind + (r.name.empty() ? "" : ":" + r.name));
  CHECK(kinds == std::vector<std::string>{"str", "dynamo_start", "dynamo_output_graph", "graph_dump:aot_joint_graph", "str",
                                          "artifact:autoparallel_joint_graph", "compilation_metrics",
                                          "artifact:autoparallel_sharding_optimizer_log", "artifact:autoparallel_solution",
                                          "artifact:autoparallel_parallel_graph", "inductor_output_code",
                                          "artifact:fx_graph_cache_miss"});
  // Payloads are kept for autoparallel's artifacts only, byte for byte what tlparse writes to its files.
  const TraceRecord* joint = log->artifact(kJointGraphArtifact);
  REQUIRE(joint);
  CHECK(joint->kept);
  CHECK(joint->encoding == "string");
  CHECK(joint->line == 48);
  CHECK(joint->payloadLine == 49);
  CHECK(joint->payload == readTrace(kTl + "autoparallel_joint_graph.txt"));
  CHECK(log->artifact(kSolutionArtifact)->payload == readTrace(kTl + "autoparallel_solution.json"));
  CHECK(log->artifact(kOptimizerLogArtifact)->payload == readTrace(kTl + "autoparallel_sharding_optimizer_log.txt"));
  for (const auto& r : log->records)
    if (r.kind == "graph_dump" || r.kind == "inductor_output_code" || r.name == "fx_graph_cache_miss") {
      CHECK(r.hasPayload);
      CHECK_FALSE(r.kept);
      CHECK(r.payload.empty());
    }
  // Stack frames name interned files.
  REQUIRE(joint->stack.size() == 3);
  CHECK(joint->stack[0].file() == "/home/user/train.py");
  CHECK(joint->stack[2].file() == "/usr/lib/python3/site-packages/autoparallel/api.py");
  CHECK(joint->stack[2].line == 430);
  CHECK(joint->stack[2].name == "optimize_placement");
  CHECK(joint->caller == "autoparallel/api.py:212");
}

TEST_CASE("a folder of per-rank logs is read by rank", "[io][trace]") {
  auto logs = readTraceLogPath(trace("seed1_ranks"));
  REQUIRE(logs.ok());
  REQUIRE(logs->size() == 2);
  CHECK((*logs)[0].rank == 0);
  CHECK((*logs)[1].rank == 5);
  CHECK((*logs)[1].file == trace("seed1_ranks/dedicated_log_torch_trace_rank_5_9d03be.log"));
  // Rank 5 sits at (1, 1): its getitem after the all-gather takes chunk 1.
  CHECK((*logs)[1].artifact(kAppliedGraphArtifact)->payload.find("getitem: \"bf16[512, 4672][4672, 1]cuda:0\" = split[1]") !=
        std::string::npos);
}

TEST_CASE("a record without rank takes the file name's rank; a lone tab is an empty last payload line", "[io][trace]") {
  const std::string payload = "line one\nline two\n";
  const std::string text = "V1201 10:22:03.000411 81234 torch/_logging/structured.py:28] {\"str\": [\"/a.py\", 0]}\n"
                           "W1201 10:22:04.000000 81234 x.py:1] plain warning, skipped\n"
                           "V1201 10:22:05.000001 81234 autoparallel/api.py:212] {\"artifact\": {\"name\": "
                           "\"autoparallel_joint_graph\", \"encoding\": \"string\"}, \"stack\": [{\"line\": 3, \"name\": "
                           "\"f\", \"filename\": 9}], \"has_payload\": \"" + md5Hex(payload) + "\"}\n"
                           "\tline one\n\tline two\n\t\n";
  auto log = readTraceLog(text);
  REQUIRE(log.ok());
  CHECK(log->rank == -1);
  REQUIRE(log->records.size() == 2);  // the plain warning line is no structured record: skipped
  CHECK(log->skippedLines == 1);
  CHECK(log->records[1].payload == payload);
  CHECK(log->records[1].stack[0].file() == "<file #9>");
}

TEST_CASE("format detection: a log is a log, never FX text; unknown text says what was expected", "[io][trace]") {
  CHECK(detectFileKind(readTrace("seed1_missing.log")) == FileKind::TorchTrace);
  CHECK(detectFileKind(readTrace(kTl + "autoparallel_joint_graph.txt")) == FileKind::FxText);
  CHECK(detectFileKind(readTrace(kTl + "autoparallel_sharding_optimizer_log.txt")) == FileKind::FxText);
  CHECK(std::string(fileKindName(FileKind::TorchTrace)) == "TORCH_TRACE log");
  auto r = loadPlanText("hello, this is no plan\n", "x.txt");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().toString("x.txt") ==
        "x.txt:1:1: not a plan file: expected a JSON object (shardscope plan, autoparallel export), FX graph text "
        "(print_readable, a repro script) or a TORCH_TRACE log");
  // A log whose records are all someone else's is refused, not read as an empty plan.
  const std::string other = "V1201 10:22:03.000411 81234 torch/_dynamo/convert_frame.py:1012] {\"dynamo_start\": {\"stack\": []}}\n";
  auto o = loadPlanText(other, "o.log");
  REQUIRE_FALSE(o.ok());
  CHECK(o.error().toString("o.log") ==
        "o.log: a TORCH_TRACE log with no graph to read (expected autoparallel's autoparallel_joint_graph, "
        "autoparallel_solution, autoparallel_sharding_optimizer_log or autoparallel_parallel_graph, or torch's "
        "aot_joint_graph; 1 records of other kinds)");
}

TEST_CASE("joint graph + solution make one plan: graph from the joint, specs from the solution", "[io][trace]") {
  auto fromLog = loadPlanFile(trace("seed1_missing.log"));
  REQUIRE(fromLog.ok());
  const Plan& p = *fromLog;
  auto joint = readFxText(readTrace(kTl + "autoparallel_joint_graph.txt"));
  REQUIRE(joint.ok());
  CHECK(p.graph.size() == joint->graph.size());
  CHECK(p.mesh == DeviceMesh({2, 4}, {"dim0", "dim1"}));
  CHECK(p.isSolverSolution());
  const int ip = p.graph.find("index_put");
  REQUIRE(ip >= 0);
  // The joint graph's arguments (the index list with its Nones) and shapes...
  CHECK(p.graph.nodes[ip].args == joint->graph.nodes[ip].args);
  CHECK(p.graph.nodes[ip].outputs[0].shape == std::vector<int64_t>{16, 128, 73, 64});
  // ... and the solution's specs, per input by producer name.
  CHECK(p.specs[ip].outputs[0] == spec("RS(0)"));
  CHECK(p.specs[ip].inputs == std::vector<std::optional<ShardingSpec>>{spec("RS(0)"), spec("RR"), spec("RS(0)")});
  CHECK(p.producerSpec(ip, 2) == spec("RS(1)"));
  CHECK(p.edgeCosts.at({ip, 2}) == std::make_pair(0.0, 1.0));
  CHECK(p.specs[p.graph.find("_tensor_constant0")].outputs[0] == spec("RR"));  // a get_attr
  CHECK(p.graph.nodes[p.graph.find("tangents_1")].placeholderKind == PlaceholderKind::Tangent);
  // Separate files (tlparse's) give the same plan.
  AutoparallelArtifacts a;
  a.joint = ArtifactText{readTrace(kTl + "autoparallel_joint_graph.txt"), "j.txt", 1, 0, kJointGraphArtifact};
  a.solution = ArtifactText{readTrace(kTl + "autoparallel_solution.json"), "s.json", 1, 0, kSolutionArtifact};
  auto sep = planFromArtifacts(a);
  REQUIRE(sep.ok());
  CHECK(sep->graph == p.graph);
  CHECK(sep->specs == p.specs);
}

TEST_CASE("a solution of another run is refused naming the node", "[io][trace]") {
  std::string sol = readTrace(kTl + "autoparallel_solution.json");
  const std::string from = "\"name\": \"slice_scatter\"";
  for (size_t at = sol.find(from); at != std::string::npos; at = sol.find(from, at + 1))
    sol.replace(at, from.size(), "\"name\": \"slice_scatter_9\"");
  AutoparallelArtifacts a;
  a.joint = ArtifactText{readTrace(kTl + "autoparallel_joint_graph.txt"), "j.txt", 1, 0, kJointGraphArtifact};
  a.solution = ArtifactText{sol, "s.json", 1, 0, kSolutionArtifact};
  auto p = planFromArtifacts(a);
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().toString() ==
        "j.txt + s.json: the solution's node 'slice_scatter_9' (aten.slice_scatter.default) is not in the joint graph: "
        "the two are not of one run");
}

TEST_CASE("an envelope nested past the JSON depth limit is refused before it is parsed", "[io][trace]") {
  const std::string line = "V1201 10:22:03.000411 81234 x.py:1] {\"a\": " + std::string(100000, '[') + "\n";
  auto log = readTraceLog(line);
  REQUIRE_FALSE(log.ok());
  CHECK(log.error().toString("deep.log") == "deep.log:1:298: the record's envelope nests deeper than 256 levels");
}

TEST_CASE("editor damage: lone-tab payload lines stripped to empty lines still match their md5", "[io][trace]") {
  const std::string payload = "a\n\nb\n";
  const std::string head = "V1201 10:22:05.000001 81234 autoparallel/api.py:212] {\"artifact\": {\"name\": "
                           "\"autoparallel_joint_graph\", \"encoding\": \"string\"}, \"has_payload\": \"" + md5Hex(payload) + "\"}\n";
  auto log = readTraceLog(head + "\ta\n\n\tb\n\n");  // both empty payload lines lost their tab
  REQUIRE(log.ok());
  CHECK(log->records[0].payload == payload);
  // A damaged payload in a record this reader does not read is tolerated (tlparse counts those); one it reads is not.
  const std::string other = "V1201 10:22:05.000001 81234 torch/_inductor/graph.py:1] {\"inductor_output_code\": {}, "
                            "\"has_payload\": \"" + md5Hex("x") + "\"}\n\ty\n";
  CHECK(readTraceLog(other + head + "\ta\n\t\n\tb\n\t\n").ok());
  auto bad = readTraceLog(head + "\ta\n\t\n\tB\n\t\n");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().line == 1);
}

TEST_CASE("interned file names are shared by every frame that names them, never copied", "[io][trace][hardening]") {
  // Issue 43: a 5 MB log whose records name one interned 1 MiB file 10^5 times asked for ~100 GB (each frame held
  // a copy) and ended in "internal error: std::bad_alloc". Here 2,000 frames name it (a copy each would be 2 GiB):
  // every frame must hold the one string the `str` record interned.
  const std::string longName = "/" + std::string(size_t{1} << 20, 'a') + ".py";
  std::string text = "V1201 10:22:02.000000 81234 torch/_logging/structured.py:28] {\"str\": [\"" + longName + "\", 7]}\n";
  for (int i = 0; i < 1000; ++i)
    text += "V1201 10:22:02.000001 81234 torch/_dynamo/convert_frame.py:1] {\"dynamo_start\": {\"stack\": "
            "[{\"line\": 1, \"name\": \"f\", \"filename\": 7}, {\"line\": 2, \"name\": \"g\", \"filename\": 7}]}}\n";
  auto log = readTraceLog(text);
  REQUIRE(log.ok());
  REQUIRE(log->records.size() == 1001);
  const std::string* shared = log->records[1].stack.at(0).fileName.get();
  REQUIRE(shared);
  CHECK(*shared == longName);
  size_t frames = 0;
  for (const auto& r : log->records)
    for (const auto& f : r.stack) {
      CHECK(f.fileName.get() == shared);
      ++frames;
    }
  CHECK(frames == 2000);
}
