#pragma once
// Parsing of every placement notation users paste. All functions are total: bad text gives an Error whose
// column (1-based) points into the input.
//
// Accepted for one spec (parseSpec):
//   DTensor long:   "(Shard(dim=0), Replicate())", "[Shard(dim=0), Replicate()]", "Partial(sum)",
//                   "Partial(reduce_op=sum)", "_StridedShard(dim=0, sf=2)", "_StridedShard(dim=0, split_factor=2)"
//   DTensor short:  "S(0)", "R", "P(sum)", "P", "_S(0, 2)", comma lists "(S(0), R)"
//   mesh-centric:   "RS(0)", "S(0)S(1)", "P(sum)S(0)", with shard order "S(1)[1]S(1)[0]R"
//   tensor-centric: "[R, R, S0, S1]", "[S01, R]" (Colossal-AI; needs the mesh's ndim)
//   JAX:            "P(None, 'tp')", "P(('dp', 'tp'), None)", "PartitionSpec(...)" (needs mesh dim names)
// A single placement on an N-dim mesh (N > 1) is an error; on a 1-D mesh it is the spec.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/placement.h"

namespace ss {

struct ParseContext {
  const DeviceMesh* mesh = nullptr;  // needed for tensor-centric and JAX forms, and to check the mesh-dim count
  int tensorRank = -1;               // when >= 0: shard dims are checked against it, negatives normalised
  // Syntax only (PlanBuilder): the placement count is not checked against the mesh and a negative shard dim with
  // tensorRank < 0 is kept as it is. Plan::validate reports both as findings; the mesh is still used for the
  // forms that need it (tensor-centric, JAX) and to read a tuple of specs.
  bool syntaxOnly = false;
};

Result<Placement> parsePlacement(std::string_view text);
Result<ShardingSpec> parseSpec(std::string_view text, const ParseContext& ctx = {});

// autoparallel strategy line: "(S(0)R, RS(1)) -> S(0)S(1)", "S(0)R, RS(1) -> S(0)S(1)", tuple outputs
// "(RS(0), RS(0), None)". A `None` entry is an absent spec (a non-tensor or unused output).
struct StrategyLine {
  std::vector<std::optional<ShardingSpec>> inputs;
  std::vector<std::optional<ShardingSpec>> outputs;
};
Result<StrategyLine> parseStrategy(std::string_view text, const ParseContext& ctx = {});
// A bare spec or a tuple of specs with None entries: "RS(0)", "(RS(0), RS(0), None)".
Result<std::vector<std::optional<ShardingSpec>>> parseSpecTuple(std::string_view text, const ParseContext& ctx = {});

// The shard-dim range check parseSpec makes when ctx.tensorRank >= 0, for a spec parsed without the rank (the
// importers parse each distinct string once, then check it against each tensor it is used on). Refuses a shard
// dim >= tensorRank with the parser's message, e.g. "shard dim 5 is out of range for a tensor with 3 dims", at
// `column` (the spec's column in its text; 0 = none). tensorRank < 0 (unknown) accepts.
Result<bool> checkShardDims(const ShardingSpec& spec, int tensorRank, int column = 1);

}  // namespace ss
