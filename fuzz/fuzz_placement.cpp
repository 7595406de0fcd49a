// Fuzz target: the placement parser (every notation: DTensor long/short, mesh-centric, tensor-centric, JAX) and
// the strategy-line parser, under several parse contexts. Properties: never crash; errors are one line with a
// column inside the text (or just past its end); a spec that parses prints back (mesh-centric) to a string that
// parses to the same spec; every printer and the layout of a valid spec work.
#include <cstdint>

#include "core/model/layout.h"
#include "core/model/placement_parse.h"
#include "core/redistribute/redistribute.h"
#include "fuzz/fuzz_common.h"

namespace {

void checkColumn(const ss::Error& e, std::string_view text) {
  ss::fuzz::checkOneLineError(e, {});
  FUZZ_CHECK(e.column >= 0 && e.column <= static_cast<int>(text.size()) + 1, "error column outside the text");
}

void exercise(std::string_view text, const ss::ParseContext& ctx, int rank) {
  auto spec = ss::parseSpec(text, ctx);
  if (!spec) {
    checkColumn(spec.error(), text);
    return;
  }
  // Printers must not crash on anything the parser accepts.
  const std::string mesh = spec->toMeshString();
  (void)spec->toLongString();
  (void)spec->toTensorString(rank);
  if (ctx.mesh && ctx.mesh->hasNames()) (void)spec->toJaxString(rank < 0 ? 4 : rank, *ctx.mesh);
  auto again = ss::parseSpec(mesh, ctx);
  FUZZ_CHECK(again.ok(), "toMeshString() output does not parse");
  FUZZ_CHECK(*again == *spec, "toMeshString() does not round-trip");
  if (ctx.mesh && rank >= 0 && ss::validateSpec(*spec, *ctx.mesh, rank).empty()) {
    const std::vector<int64_t> shape = {7, 16, 5, 3};
    auto layout = ss::layoutAllRanks(shape, *ctx.mesh, *spec);
    FUZZ_CHECK(layout.ok(), "a valid spec has no layout");
    FUZZ_CHECK(static_cast<int64_t>(layout->size()) == ctx.mesh->size(), "layout misses ranks");
    ss::TensorMeta meta{shape, ss::DType::BF16, true};
    auto plan = ss::planRedistribute(meta, *ctx.mesh, *spec, ss::ShardingSpec::replicated(ctx.mesh->ndim()));
    (void)plan.summary();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const ss::DeviceMesh mesh2x4({2, 4}, {"dp", "tp"});
  static const ss::DeviceMesh mesh8({8});
  static const ss::DeviceMesh mesh2x2x2({2, 2, 2});
  const std::string_view text = ss::fuzz::asText(data, size);

  auto placement = ss::parsePlacement(text);
  if (!placement) checkColumn(placement.error(), text);
  else (void)placement->longString();

  exercise(text, ss::ParseContext{}, -1);
  exercise(text, ss::ParseContext{&mesh2x4, -1}, -1);
  exercise(text, ss::ParseContext{&mesh2x4, 4}, 4);
  exercise(text, ss::ParseContext{&mesh8, 2}, 2);
  exercise(text, ss::ParseContext{&mesh2x2x2, 4}, 4);

  auto strategy = ss::parseStrategy(text, ss::ParseContext{&mesh2x4, -1});
  if (!strategy) checkColumn(strategy.error(), text);
  auto tuple = ss::parseSpecTuple(text, ss::ParseContext{&mesh2x4, -1});
  if (!tuple) checkColumn(tuple.error(), text);
  return 0;
}
