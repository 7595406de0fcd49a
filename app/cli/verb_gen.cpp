// `shardscope gen`: writes a generated LLaMA-like joint forward+backward plan (core/gen/llama.h) in any
// supported format: test data and benchmark input the project makes itself.
#include <charconv>
#include <iostream>

#include <nlohmann/json.hpp>

#include "app/cli/args.h"
#include "app/cli/verbs.h"
#include "core/gen/llama.h"
#include "core/io/formats.h"
#include "core/io/load/load.h"
#include "core/io/native/plan_json.h"

namespace ss::app {
namespace {

const VerbHelp kHelp{
    "Usage: shardscope gen [--layers N] [--format native|autoparallel|placements|fx] -o FILE\n"
    "                      [--mesh 2x4] [--batch 8] [--seq 2048] [--hidden 4096] [--heads 32] [--ffn 11008]\n"
    "                      [--vocab 32000] [--no-recompute]",
    "Writes a LLaMA-like N-layer joint forward+backward graph (about 290 nodes per layer) placed on a 2-D mesh\n"
    "(FSDP on mesh dim 0 \"dp\", Megatron tensor parallel on mesh dim 1 \"tp\"), deterministic.",
    "Exit codes: 0 written, 2 bad flags or the file cannot be written."};

const std::vector<FlagSpec> kFlags{
    FlagSpec{"output", true, false, "FILE", "where to write (required)", "o"},
    option("format", "FORMAT", "native: shardscope plan JSON (default)\n"
                               "autoparallel: autoparallel get_json() export\n"
                               "placements: autoparallel placements file (pair it with --format fx:\n"
                               "  check G.py --placements P.json)\n"
                               "fx: FX print_readable() text (graph only: no placements)"),
    option("layers", "N", "transformer layers (default 32)"),
    option("mesh", "DPxTP", "the 2-D mesh (default 2x4)"),
    option("batch", "N", "batch size"),
    option("seq", "N", "sequence length"),
    option("hidden", "N", "hidden size"),
    option("heads", "N", "attention heads"),
    option("ffn", "N", "feed-forward hidden size"),
    option("vocab", "N", "vocabulary size"),
    toggle("no-recompute", "no activation checkpointing (about 215 nodes per layer)")};

bool parseInt(const std::string& s, int64_t& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size() && out >= 0;
}

int runGen(const ParsedArgs& args) {
  auto out = args.get("output");
  if (!out) {
    std::cerr << "shardscope gen: missing -o FILE (see shardscope gen --help)\n";
    return 2;
  }
  gen::LlamaOptions o;
  struct IntFlag { const char* name; int64_t* dst; };
  int64_t layers = o.layers;
  for (IntFlag f : {IntFlag{"layers", &layers}, IntFlag{"batch", &o.batch}, IntFlag{"seq", &o.seq},
                    IntFlag{"hidden", &o.hidden}, IntFlag{"heads", &o.heads}, IntFlag{"ffn", &o.ffnHidden},
                    IntFlag{"vocab", &o.vocab}}) {
    if (auto v = args.get(f.name); v && !parseInt(*v, *f.dst)) {
      std::cerr << "shardscope gen: --" << f.name << " '" << *v << "': expected a non-negative integer\n";
      return 2;
    }
  }
  if (layers > 100000) {
    std::cerr << "shardscope gen: --layers " << layers << ": at most 100000\n";
    return 2;
  }
  o.layers = static_cast<int>(layers);
  o.recompute = !args.has("no-recompute");
  if (auto m = args.get("mesh")) {
    auto mesh = DeviceMesh::parse(*m);
    if (!mesh || mesh->ndim() != 2) {
      std::cerr << "shardscope gen: --mesh '" << *m << "': expected a 2-D mesh such as 2x4\n";
      return 2;
    }
    o.dp = mesh->dimSize(0);
    o.tp = mesh->dimSize(1);
  }
  std::string format = args.get("format").value_or("native");
  Plan plan;
  try {
    plan = gen::makeLlamaPlan(o);
  } catch (const std::exception& e) {
    std::cerr << "shardscope gen: " << e.what() << "\n";
    return 2;
  }
  std::string text;
  if (format == "native") text = writePlanString(plan);
  else if (format == "autoparallel") text = writeAutoparallelJson(plan).dump(1) + "\n";
  else if (format == "placements") text = writePlacementsJson(plan).dump(2) + "\n";
  else if (format == "fx") text = writeFxText(plan).value();  // generated names are Python names
  else {
    std::cerr << "shardscope gen: --format '" << format << "': expected native, autoparallel, placements or fx\n";
    return 2;
  }
  auto w = writeFileAtomic(*out, text);
  if (!w) {
    std::cerr << "shardscope gen: " << w.error().toString(*out) << "\n";
    return 2;
  }
  std::cout << "wrote " << *out << " (" << format << ", " << plan.graph.size() << " nodes, " << o.layers
            << " layers, mesh " << plan.mesh.toString() << ")\n";
  return 0;
}

const VerbRegistrar kGen{Verb{"gen", "write a generated LLaMA-like plan (test and benchmark data)", kHelp, kFlags, runGen}};

}  // namespace
}  // namespace ss::app
