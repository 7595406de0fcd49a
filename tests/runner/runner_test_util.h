#pragma once
// Helpers shared by the runner tests: sample loading and running the CLI as a process.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>

#include "core/plan/edit.h"
#include "core/gen/llama.h"
#include "core/io/load/load.h"
#include "core/model/placement_parse.h"
#include "core/model/plan.h"

namespace ss::test {

inline bool fileExists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0;
}

// A fresh folder for one test's files under /tmp (removed at the end).
struct TempDir {
  std::string path;
  explicit TempDir(const char* purpose = "test") {
    std::string pattern = std::string("/tmp/shardscope-") + purpose + "-XXXXXX";
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path = pattern;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return path + "/" + name; }
};

inline void writeBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}
inline std::string readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A joint graph (print_readable form) with the given parameters and body, summed into the loss `sum_1`: the form
// of the hostile-plan tests.
inline std::string graph(const std::string& params, const std::string& body, const std::string& lossOf) {
  return "class GraphModule(torch.nn.Module):\n"
         "    def forward(self, " + params + ", tangents_1: \"f32[]\"):\n" + body +
         "        sum_1: \"f32[]\" = torch.ops.aten.sum.default(" + lossOf + ")\n"
         "        return (sum_1, tangents_1)\n";
}

inline std::string samplePath(const std::string& name) { return std::string(SHARDSCOPE_SAMPLES_DIR) + "/" + name; }

// Seed 1 as shipped (samples/gen/falcon_index_put.py).
// The shipped teaching samples (samples/teach_*.plan.json), each run by the basics, divergence and dedup tests.
inline constexpr const char* kTeachingSamples[] = {
    "teach_data_parallel.plan.json", "teach_tp_mlp.plan.json",     "teach_fsdp_tp.plan.json",
    "teach_all_gather.plan.json",    "teach_all_reduce.plan.json", "teach_all_to_all.plan.json",
    "teach_reduce_scatter.plan.json"};
inline std::string falconPath() { return samplePath("falcon_index_put_2d.plan.json"); }

inline Plan loadOrFail(const std::string& path) {
  auto p = loadPlanFile(path);
  if (!p) throw std::runtime_error(p.error().toString(path));
  return *p;
}

// Seed 1 with the redistribute `shardscope fix` inserts: RS(1) -> RS(0) on index_put's values (input 2).
inline Plan falconFixed() {
  Plan plan = loadOrFail(falconPath());
  Redistribute fix;
  fix.node = plan.graph.find("index_put");
  fix.input = 2;
  fix.from = *parseSpec("RS(1)");
  fix.to = *parseSpec("RS(0)");
  if (fix.node < 0 || plan.findRedistribute(fix.node, 2) || !applyCommand(plan, InsertRedistribute{fix}).ok())
    throw std::runtime_error("seed 1: cannot insert the all_to_all before index_put");
  return plan;
}

// The small LLaMA-like joint graph of the runner tests (core/gen: 1 layer, hidden 64, 4 heads) on a dp x tp mesh.
inline Plan smallLlama(int64_t dp, int64_t tp) {
  gen::LlamaOptions o;
  o.layers = 1;
  o.batch = 2;
  o.seq = 16;
  o.hidden = 64;
  o.heads = 4;
  o.ffnHidden = 128;
  o.vocab = 64;
  o.dp = dp;
  o.tp = tp;
  return gen::makeLlamaPlan(o);
}

// x [3, 4] sharded on 2 ranks: rank 0 holds 2 rows, rank 1 one row, so select(x, 0, 1) fails on rank 1 only;
// rank 0 goes on to the all_reduce before `loss`.
inline const char* kOneRankFailsPlan = R"JSON({"format": "shardscope-plan", "version": 1, "name": "one_rank_fails",
    "mesh": {"shape": [2]}, "run": {"seed": 0, "loss": "loss", "batches": 1},
    "nodes": [
      {"name": "x", "op": "placeholder", "placeholder_kind": "input", "meta": [{"shape": [3, 4], "dtype": "f32"}],
       "spec": ["S(0)"]},
      {"name": "row", "op": "aten.select.int", "args": [{"t": "x"}, 0, 1], "meta": [{"shape": [4], "dtype": "f32"}],
       "spec": ["R"]},
      {"name": "total", "op": "aten.sum.default", "args": [{"t": "row"}], "meta": [{"shape": [], "dtype": "f32"}],
       "spec": ["P(sum)"]},
      {"name": "loss", "op": "aten.mul.Tensor", "args": [{"t": "total"}, 1.0], "meta": [{"shape": [], "dtype": "f32"}],
       "spec": ["R"], "input_specs": ["R"]},
      {"name": "output", "op": "output", "args": [[{"t": "loss"}]]}],
    "redistributes": [{"node": "loss", "input": 0, "from": "P(sum)", "to": "R"}]})JSON";

struct CliResult {
  int exitCode = -1;
  std::string output;  // stdout + stderr
};

// Runs `binary args` with stderr folded into stdout.
inline CliResult runProgram(const std::string& binary, const std::string& args) {
  std::string cmd = binary + " " + args + " 2>&1";
  CliResult r;
  FILE* f = ::popen(cmd.c_str(), "r");
  if (!f) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) r.output.append(buf, n);
  int status = ::pclose(f);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline CliResult runCli(const std::string& args) { return runProgram(SHARDSCOPE_BINARY, args); }

}  // namespace ss::test
