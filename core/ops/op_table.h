#pragma once
// The op table: one entry per op the project knows, keyed by the checker's rule key (rules::ruleKeyView: the bare
// name for aten, prims, the collective namespaces, operator and autoparallel ops; the full name for others). An
// entry holds everything about its op in one place:
//   - its sharding rule (core/rules families) and its shape rule (core/ops/op_shapes*), each null when it has none;
//   - where the runner may execute it (`runsIn`: the namespaces in which it is a pure tensor op) and whether it is
//     refused although a derivation would allow it (core/ops/op_safety.h has the contract);
//   - shape-rule flags: `tensorOnly` (its shapes follow from its tensor inputs alone, so the rule also runs on an
//     autoparallel export whose args are tensors only) and `symbolicSafe` (its rule only copies, reorders,
//     compares or broadcasts sizes, so it passes symbolic sizes on).
// The facts live in one list (core/ops/op_table.cpp); the rules register by name in their family files. Adding an
// op: one line in that list, and its rules in their families. opTableProblems() names a rule registered for an op
// the list lacks, or a flag no rule reads; a test keeps it empty.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/graph.h"
#include "core/rules/rules.h"

namespace ss::ops {

namespace detail {
struct Ctx;  // core/ops/op_shapes_detail.h
// A shape rule: the outputs' metas, or nullopt when they are not known (fail() says when the inputs do not fit).
using Rule = std::function<std::optional<std::vector<TensorMeta>>(const Ctx&)>;
}  // namespace detail

// Namespaces an op runs in (bit set). kAten also admits the op's in-place form (`name_`) and its backwards
// (`name_backward`, `name_backward_data`); every other bit admits exactly that namespace's op.
enum OpNamespace : uint16_t {
  kRunsNowhere = 0,
  kRunsAten = 1 << 0,
  kRunsPrims = 1 << 1,
  kRunsCollective = 1 << 2,  // _c10d_functional, c10d_functional, c10d, _c10d_functional_autograd, _dtensor
  kRunsOperator = 1 << 3,    // operator.*
  kRunsUnderscoreOperator = 1 << 4,  // _operator.*
  kRunsAutoparallel = 1 << 5,
  kRunsExact = 1 << 6,  // the key is the full name (torch.sym_*, higher_order.*)
};

struct OpEntry {
  std::string_view key;
  rules::RuleFn sharding = nullptr;       // nullptr: no sharding rule (the checker reports unchecked-op)
  const detail::Rule* shape = nullptr;    // nullptr: no shape rule
  uint16_t runsIn = kRunsNowhere;         // OpNamespace bits
  bool refused = false;                   // aten: refused even where a derivation would allow it
  std::string_view refusedWhy;            // why (set for every refused entry; `shardscope ops OP` shows it)
  bool tensorOnly = false;
  bool symbolicSafe = false;
  // Non-empty: the op is checked replicate-only (every input Replicate), for this reason (DTensor runs it on
  // whole tensors only, or core checks it that way on purpose).
  std::string_view replicateOnlyWhy;
  // Non-empty: an in-place form (`name_`) the list does not hold, derived from this op's entry: the same rules,
  // and self keeps its placement (DTensor's in-place variants of its strategies).
  std::string_view inplaceOf;
};

// The entry for an op target (any spelling: "aten.mm.default", "torch.ops.aten.mm.default", "mm"); nullptr for
// an op the table does not know.
const OpEntry* findOp(std::string_view op);
// The entry whose key is exactly `key` (no namespace stripping); nullptr when none.
const OpEntry* findOpKey(std::string_view key);
// Every listed entry, sorted by key (derived in-place forms are found by findOp, not listed here).
std::span<const OpEntry> allOps();
// Inconsistencies between the facts list and the rule registries (empty when the table is whole).
std::vector<std::string> opTableProblems();

}  // namespace ss::ops
