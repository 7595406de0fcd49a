// `shardscope layout`: every rank's coordinate, local shape and global offset for one tensor and spec.
#include <iostream>

#include "app/cli/args.h"
#include "app/cli/verbs.h"
#include "core/model/layout.h"
#include "core/model/placement_parse.h"

namespace ss::app {
namespace {

const VerbHelp kHelp{
    "Usage: shardscope layout --shape 7,5 --mesh 2x2 --placements SPEC [--names dp,tp] [--json]",
    "Prints every rank's mesh coordinate, local shape and global offset of a tensor laid out with SPEC.",
    "Empty shards (0 elements on some dim) are marked in the text output; their offset is clamped to the size."};

const std::vector<FlagSpec> kFlags{
    option("shape", "D0,D1,...", "global tensor shape"),
    option("mesh", "AxB...", "device mesh shape (row-major ranks)"),
    option("names", "N0,N1,...", "mesh dim names (needed for JAX specs like \"P(None, 'tp')\")"),
    option("placements", "SPEC", "any notation: \"S(0)S(0)\", \"(Shard(dim=0), Replicate())\", \"[S01, R]\", ..."),
    toggle("json", R"({"ranks": [{"rank", "coord", "local_shape", "offset"}, ...]} in rank order)")};

std::string coordString(const std::vector<int64_t>& c) {
  std::string s = "(";
  for (size_t i = 0; i < c.size(); ++i) s += (i ? ", " : "") + std::to_string(c[i]);
  return s + ")";
}

int runLayout(const ParsedArgs& args) {
  for (const char* req : {"shape", "mesh", "placements"})
    if (!args.get(req)) {
      std::cerr << "shardscope layout: missing --" << req << " (see shardscope layout --help)\n";
      return 2;
    }
  auto shape = parseShape(*args.get("shape"));
  if (!shape) {
    std::cerr << Error::oneLine("shardscope layout: --shape '" + *args.get("shape") + "': " + shape.error().toString()) << "\n";
    return 2;
  }
  auto mesh = DeviceMesh::parse(*args.get("mesh"), args.get("names").value_or(""));
  if (!mesh) {
    std::cerr << Error::oneLine("shardscope layout: --mesh '" + *args.get("mesh") + "': " + mesh.error().toString()) << "\n";
    return 2;
  }
  const std::string text = *args.get("placements");
  auto spec = parseSpec(text, ParseContext{&*mesh, static_cast<int>(shape->size())});
  if (!spec) {
    std::cerr << Error::oneLine("shardscope layout: --placements '" + text + "': " + spec.error().toString()) << "\n";
    return 2;
  }
  auto ranks = layoutAllRanks(*shape, *mesh, *spec);
  if (!ranks) {
    std::cerr << Error::oneLine("shardscope layout: " + ranks.error().message) << "\n";
    return 2;
  }
  if (args.has("json")) {
    // Python json.dumps spacing, so scripts and docs can compare the text exactly.
    auto arr = [](const std::vector<int64_t>& v) {
      std::string s = "[";
      for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
      return s + "]";
    };
    std::string out = "{\"ranks\": [";
    for (size_t i = 0; i < ranks->size(); ++i) {
      const auto& r = (*ranks)[i];
      out += (i ? ", " : "") + std::string("{\"rank\": ") + std::to_string(r.rank) + ", \"coord\": " + arr(r.coord) +
             ", \"local_shape\": " + arr(r.localShape) + ", \"offset\": " + arr(r.offset) + "}";
    }
    std::cout << out << "]}\n";
    return 0;
  }
  const int rank = static_cast<int>(shape->size());
  std::cout << "tensor " << shapeToString(*shape) << " on mesh " << mesh->toString() << "\n"
            << "spec   " << spec->toMeshString() << "   " << spec->toLongString() << "   tensor-centric "
            << spec->toTensorString(rank);
  if (mesh->hasNames()) std::cout << "   " << spec->toJaxString(rank, *mesh);
  std::cout << "\n\n";
  std::printf("%6s  %-14s %-22s %-22s %s\n", "rank", "coord", "local shape", "offset", "");
  int empties = 0;
  for (const auto& r : *ranks) {
    std::string note;
    if (r.empty) {
      note = "empty";
      ++empties;
    }
    if (r.partial) note += note.empty() ? "partial" : ", partial";
    for (const auto& s : r.slices)
      if (s.parts.size() > 1) {
        note += note.empty() ? "strided" : ", strided";
        break;
      }
    std::printf("%6lld  %-14s %-22s %-22s %s\n", static_cast<long long>(r.rank), coordString(r.coord).c_str(),
                shapeToString(r.localShape).c_str(), shapeToString(r.offset).c_str(), note.c_str());
  }
  if (empties) std::printf("\n%d of %lld ranks hold an empty shard.\n", empties, static_cast<long long>(mesh->size()));
  return 0;
}

VerbRegistrar reg({"layout", "local shape and offset of a tensor on every rank", kHelp, kFlags, runLayout});

}  // namespace
}  // namespace ss::app
