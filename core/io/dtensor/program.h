#pragma once
// DTensor programs as DTensor's own debugging tools record them (no solver): torch.utils._debug_mode.DebugMode
// (its debug_string() text and its save_logs JSON) and CommDebugMode's generate_json_dump. Format facts:
// docs/import-formats.md "DTensor programs" and ../shared/design/REAL_ARTIFACTS.md.
//
// Sections: DebugMode records (one sequence for both forms), the program (a Plan and its redistributes), what the
// checker adds (implicit-redistribute diagnostics, per-module communication).
//
// Contracts:
// - DebugMode records: text and JSON give the same records (JSON entries are the text's lines: call_depth, type,
//   op_name/args_str/output_str, redistribute src/dst/trace). Unknown record types and torch-level calls (names
//   without "::": `torch._C._nn.linear`, `<method ...>`) are kept as Other and never make nodes.
// - The program: each dispatch-level op with a DTensor argument (`aten::addmm(dt$5: f32[32]| S(0), ...)`) is a
//   node whose inputs carry the global shapes and placements DebugMode printed. With record_ids a DTensor value
//   used twice is one value, and an op's input is wired to the DTensor op whose local result it is (the local
//   tensor ids of the op's own local call); without ids each input is a value of its own (the ops in order).
// - Redistributes: `[implicit]` ones (DTensor's sharding propagation moved an input before the op) sit on their
//   op's input as a Redistribute (from -> to) and are each one implicit-redistribute diagnostic; `[explicit]` ones
//   (parallel styles' hooks, .redistribute(), full_tensor()) and untagged ones that move data (backward) are
//   planned transitions: a `redistribute` node whose input edge carries the Redistribute. Never diagnostics.
// - The mesh is never printed by DebugMode: its number of dims is the placements'; each dim's size is read from
//   the records (a DTensor argument sharded on one mesh dim against the same argument of the op's local call; a
//   collective's group size), else from the world size (the number of rank files) on a 1-D mesh, else `mesh`
//   must be given. A size that cannot be read is refused, never guessed.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/model/diagnostics.h"
#include "core/model/plan.h"
#include "core/redistribute/redistribute.h"

namespace ss {

// "32, 16" (the inside of a printed size list) -> [32, 16]; nullopt for anything but non-negative integers up to
// kMaxTensorDimSize (a symbolic size such as "s72" included). The one size-list parser of these readers.
std::optional<std::vector<int64_t>> parseSizeList(std::string_view text);

// ---- DebugMode records ----------------------------------------------------------------------------------------

enum class DebugRecordKind : uint8_t { Op, Redistribute, OutputPlacement, Module, Other };
// DebugMode's tag on an outer redistribute record (pytorch#173716): implicit (sharding propagation), explicit
// (a user's or a parallel style's call), none (backward, or the inner record of a redistribute).
enum class RedistributeTag : uint8_t { Implicit, Explicit, Untagged };
const char* redistributeTagName(RedistributeTag t);  // "implicit", "explicit", "untagged"

struct DebugRecord {
  DebugRecordKind kind = DebugRecordKind::Other;
  int depth = 0;
  int line = 0;             // text: 1-based line; JSON: index in "logs" + 1
  std::string name;         // Op: "aten::addmm"; Module: "MLP.w1"
  std::string args;         // Op: the argument text; Redistribute: "0" (outer) or "t$21: f32[8, 16]" (inner)
  std::string output;       // Op: "t$9: f32[8, 8]" (empty when not printed); OutputPlacement: "P(sum)"
  RedistributeTag tag = RedistributeTag::Untagged;
  bool outer = false;       // Redistribute: `(i, SRC -> DST)` (names the op's argument) rather than `(t, trace:)`
  std::string src, dst;     // outer: short specs ("RS(1)"); inner: empty
  std::string trace;        // inner: "S(1)S(0)->S(1)R->S(0)R", "R" when nothing moved
  std::string stack;        // record_stack_trace: the "# File: ..." line before the record
};

// debug_string() text. Errors at line:col.
Result<std::vector<DebugRecord>> readDebugModeText(std::string_view text);
// save_logs JSON ({"format": "torch.utils._debug_mode.DebugMode.logs", "version": 1, "logs": [...]}). Errors at a
// JSON pointer.
Result<std::vector<DebugRecord>> readDebugModeLogs(const nlohmann::json& j);
inline constexpr const char* kDebugModeLogsFormat = "torch.utils._debug_mode.DebugMode.logs";

// The PlanFormat these plans carry. Plan has no format of its own for them yet: Dynamo's graph is FX text, and
// the others are text the tools printed about one (adding an enumerator to core/model/plan.h is for the merge).
inline constexpr PlanFormat kProgramPlanFormat = PlanFormat::FxText;
// A planned transition's node (DebugMode's explicit redistribute, Dynamo's `.redistribute()` / from_local /
// to_local): the identity its rule knows, the Redistribute on its input edge being the transition itself.
inline constexpr const char* kRedistributeNodeOp = "aten.alias.default";

// ---- the program ----------------------------------------------------------------------------------------------

// One redistribute DTensor performed, as the tool recorded it, placed on the plan.
struct ProgramRedistribute {
  RedistributeTag tag = RedistributeTag::Untagged;
  int node = -1, input = -1;   // the plan edge it sits on (the op's input, or the redistribute node's input 0)
  int argIndex = -1;           // implicit: the op's flattened argument position DebugMode printed
  ShardingSpec from, to;
  TensorMeta meta;             // the global tensor
  std::string trace;           // DebugMode's path "S(1)S(0)->S(1)R->S(0)R->S(0)S(1)" (empty when not printed)
  std::vector<std::string> collectives;  // the collective ops recorded under it ("all_gather_into_tensor")
  RedistributePlan plan;       // core's planner on the mesh: steps, bytes per rank, time
  std::string module;          // innermost module path (record_nn_module), empty when unknown
  Phase phase = Phase::Unknown;
  int line = 0;                // the record's line in its file
};

// Communication of one module path (empty = outside any recorded module), by phase.
struct ModuleComm {
  std::string module;
  int forwardCount = 0, backwardCount = 0;
  int64_t forwardBytes = 0, backwardBytes = 0;
  double forwardUs = 0, backwardUs = 0;
};

enum class ProgramSource : uint8_t { DebugModeText, DebugModeLogs, CommDebugJson };
const char* programSourceName(ProgramSource s);  // "DebugMode text", "DebugMode save_logs JSON", "CommDebugMode JSON dump"

struct DTensorProgram {
  ProgramSource source = ProgramSource::DebugModeText;
  Plan plan;                                   // ops as nodes, inputs with global shapes and placements
  std::vector<ProgramRedistribute> redistributes;
  std::vector<std::string> files;              // one per rank, rank order
  // Where the ranks' records differ: "rank 2: line 14 differs: ..." (empty when every rank recorded the same).
  std::vector<std::string> rankDifferences;
  std::string meshFrom;                        // how the mesh sizes were read ("local shapes", "given", ...)
  // Collectives a tool counted per module without their sizes (CommDebugMode): counts only, no bytes.
  std::vector<ModuleComm> recordedComm;
  int implicitCount() const;
  // By module path, in first-appearance order: the redistributes' bytes and times, and recordedComm's counts.
  std::vector<ModuleComm> moduleComm() const;
};

struct ProgramOptions {
  std::optional<DeviceMesh> mesh;  // sizes (and names) when given
  int worldSize = 0;               // ranks in the run (files of a folder); 0 = unknown
  CostModel cost;
};

Result<DTensorProgram> programFromDebugRecords(const std::vector<DebugRecord>& records, const ProgramOptions& opts = {});
// CommDebugMode's generate_json_dump (a module tree with per-op input shapes and shardings, and the DeviceMesh).
Result<DTensorProgram> programFromCommDebugJson(const nlohmann::json& j, const ProgramOptions& opts = {});

// What DebugMode / CommDebugMode wrote, decided by content (the one detection of these formats; core/io/load
// asks it for text none of its kinds is): nullopt for anything else.
std::optional<ProgramSource> detectProgramSource(std::string_view text);
// One file's text of that kind. Errors at line:col (text) or a JSON pointer.
Result<DTensorProgram> programFromText(std::string_view text, ProgramSource source, const ProgramOptions& opts = {});
// The forms detectProgramSource decides by.
bool looksLikeDebugModeText(std::string_view text);
bool looksLikeDebugModeLogs(std::string_view head);
bool looksLikeCommDebugJson(std::string_view head);

// A file or a folder of per-rank files (`*.rank<N>.*`, or any files of one kind, by name) of one run. Errors are
// one located line naming the file.
Result<DTensorProgram> loadDTensorProgram(const std::string& path, const ProgramOptions& opts = {});
// True when `path` is such a file, or a folder holding one.
bool isDTensorProgramPath(const std::string& path);

// The implicit-redistribute diagnostics: one per implicit record, at its op and input (rank differences are in
// programSummaryText, not diagnostics).
Diagnostics programDiagnostics(const DTensorProgram& p);
// `check`'s text: totals by module and phase, and the ranks' differences.
std::string programSummaryText(const DTensorProgram& p);

}  // namespace ss
