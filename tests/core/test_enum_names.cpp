// Enum names (core/model/enum_names.h): every enum's table, through its public name function and parser. The
// strings are the ones files, reports and scripts match on, so each is pinned here; each parser takes back every
// name it prints (name -> value -> name) and refuses what is in no table.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/applied/applied.h"
#include "core/io/formats.h"
#include "core/io/load/load.h"
#include "core/model/diagnostics.h"
#include "core/model/enum_names.h"
#include "core/model/graph.h"
#include "core/model/placement.h"
#include "core/model/placement_parse.h"
#include "core/model/plan.h"
#include "core/plan/costs.h"
#include "core/plan/diff.h"
#include "core/redistribute/redistribute.h"
#include "core/run/run_report.h"

using namespace ss;

namespace {

template <class E>
using Names = std::vector<std::pair<E, std::string>>;

// Every enumerator of E (they are 0..size-1) gets its pinned name, the names are distinct, and a value past the
// last gets the fallback (what the switch each table replaced returned).
template <class E, class F>
void checkNames(const char* what, F name, const Names<E>& want, const std::string& fallback) {
  INFO(what);
  std::set<std::string> seen;
  for (size_t i = 0; i < want.size(); ++i) {
    INFO(i);
    CHECK(static_cast<size_t>(want[i].first) == i);
    CHECK(std::string(name(want[i].first)) == want[i].second);
    CHECK(seen.insert(want[i].second).second);
  }
  CHECK(std::string(name(static_cast<E>(want.size()))) == fallback);
  CHECK(std::string(name(static_cast<E>(255))) == fallback);
}

}  // namespace

TEST_CASE("enum names: the generic table lookups", "[enum_names]") {
  enum class Colour : uint8_t { Red, Green, Blue };
  static constexpr EnumName<Colour> names[] = {{Colour::Red, "red"}, {Colour::Green, "green"}, {Colour::Blue, "blue"}};
  static constexpr EnumName<Colour> aliases[] = {{Colour::Green, "verde"}};
  static_assert(enumTableCovers(names, Colour::Blue) && enumNamesValid(names, aliases));
  static_assert(!enumTableCovers(names, Colour::Green));  // a row past `last`
  static constexpr EnumName<Colour> unordered[] = {{Colour::Green, "green"}, {Colour::Red, "red"}};
  static_assert(!enumTableInOrder(unordered));
  static constexpr EnumName<Colour> twice[] = {{Colour::Red, "red"}, {Colour::Green, "red"}};
  static_assert(!enumNamesValid(twice));
  static_assert(!enumNamesValid(names, names));  // an alias may not repeat a name
  static constexpr EnumName<Colour> empty[] = {{Colour::Red, ""}};
  static_assert(!enumNamesValid(empty));
  static_assert(std::string_view(enumName(names, Colour::Blue, "?")) == "blue");
  static_assert(std::string_view(enumName(names, static_cast<Colour>(7), "?")) == "?");
  static_assert(std::string_view(enumName(unordered, Colour::Red, "?")) == "red");  // not in order: found by scan
  static_assert(enumFromName(names, "green") == Colour::Green);
  static_assert(!enumFromName(names, "verde"));
  static_assert(enumFromName(names, aliases, "verde") == Colour::Green);
  static_assert(!enumFromName(names, "Green") && !enumFromName(names, "") && !enumFromName(names, "gree"));
  static constexpr EnumName<Colour> prefixed[] = {{Colour::Red, "c.red"}, {Colour::Green, "green"}};
  static_assert(enumFromPrefixedName(prefixed, "c.", "red") == Colour::Red);
  static_assert(!enumFromPrefixedName(prefixed, "c.", "green") && !enumFromPrefixedName(prefixed, "c.", "c.red"));
  CHECK(std::string(enumName(names, Colour::Green, "?")) == "green");
}

TEST_CASE("enum names: dtypes, phases and placeholder kinds round-trip through their parsers", "[enum_names]") {
  const Names<DType> dtypes = {{DType::F32, "f32"}, {DType::F16, "f16"}, {DType::BF16, "bf16"}, {DType::F64, "f64"},
                               {DType::I64, "i64"}, {DType::I32, "i32"}, {DType::I16, "i16"},   {DType::I8, "i8"},
                               {DType::U8, "u8"},   {DType::Bool, "b8"}, {DType::C64, "c64"},   {DType::F8E4M3FN, "f8e4m3fn"},
                               {DType::F8E5M2, "f8e5m2"}, {DType::F8E8M0FNU, "f8e8m0fnu"}, {DType::Unknown, "unknown"}};
  checkNames("dtypeName", dtypeName, dtypes, "unknown");
  const Names<DType> torch = {
      {DType::F32, "torch.float32"}, {DType::F16, "torch.float16"}, {DType::BF16, "torch.bfloat16"},
      {DType::F64, "torch.float64"}, {DType::I64, "torch.int64"},   {DType::I32, "torch.int32"},
      {DType::I16, "torch.int16"},   {DType::I8, "torch.int8"},     {DType::U8, "torch.uint8"},
      {DType::Bool, "torch.bool"},   {DType::C64, "torch.complex64"}, {DType::F8E4M3FN, "torch.float8_e4m3fn"},
      {DType::F8E5M2, "torch.float8_e5m2"}, {DType::F8E8M0FNU, "torch.float8_e8m0fnu"}, {DType::Unknown, "unknown"}};
  checkNames("dtypeTorchName", dtypeTorchName, torch, "unknown");
  for (const auto& [t, n] : dtypes) {
    INFO(n);
    CHECK(dtypeFromName(n) == t);
    CHECK(dtypeFromName("torch." + n) == t);
    CHECK(dtypeFromName(dtypeTorchName(t)) == t);
    CHECK(dtypeFromName(std::string(dtypeTorchName(t)).substr(6)) == t);  // "float32": a torch name unprefixed
  }
  for (const auto& [alias, t] : std::vector<std::pair<std::string, DType>>{
           {"float", DType::F32}, {"half", DType::F16}, {"double", DType::F64}, {"long", DType::I64},
           {"int", DType::I32}, {"torch.half", DType::F16}, {"bool", DType::Bool}, {"bfloat16", DType::BF16}}) {
    INFO(alias);
    CHECK(dtypeFromName(alias) == t);
  }
  for (const char* bad : {"", "F32", "float8", "torch.", "torch", "torch.torch.float32", "f32 ", "complex128", "uint16"}) {
    INFO(bad);
    CHECK(dtypeFromName(bad) == DType::Unknown);
  }

  const Names<Phase> phases = {
      {Phase::Unknown, "unknown"}, {Phase::Forward, "forward"}, {Phase::Backward, "backward"}, {Phase::Optimizer, "optimizer"}};
  checkNames("phaseName", phaseName, phases, "unknown");
  for (const auto& [p, n] : phases) CHECK(phaseFromName(n) == p);
  CHECK(phaseFromName("fwd") == Phase::Forward);
  CHECK(phaseFromName("bwd") == Phase::Backward);
  CHECK(phaseFromName("optim") == Phase::Optimizer);
  for (const char* bad : {"", "Forward", "fw", "opt", "backwards"}) CHECK(phaseFromName(bad) == Phase::Unknown);

  const Names<PlaceholderKind> kinds = {{PlaceholderKind::None, "none"},
                                        {PlaceholderKind::Param, "param"},
                                        {PlaceholderKind::Buffer, "buffer"},
                                        {PlaceholderKind::Input, "input"},
                                        {PlaceholderKind::Tangent, "tangent"}};
  checkNames("placeholderKindName", placeholderKindName, kinds, "none");
  for (const auto& [k, n] : kinds) CHECK(placeholderKindFromName(n) == k);
  CHECK(placeholderKindFromName("parameter") == PlaceholderKind::Param);
  CHECK(placeholderKindFromName("user_input") == PlaceholderKind::Input);
  for (const char* bad : {"", "Param", "params", "tangents", "constant"})
    CHECK(placeholderKindFromName(bad) == PlaceholderKind::None);
}

TEST_CASE("enum names: reduce ops round-trip through the placement parser", "[enum_names]") {
  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Avg, ReduceOp::Product, ReduceOp::Max, ReduceOp::Min}) {
    const std::string text = std::string("Partial(") + reduceOpName(op) + ")";
    INFO(text);
    auto p = parsePlacement(text);
    REQUIRE(p.ok());
    CHECK(*p == Placement::partial(op));
    CHECK(p->longString() == text);
  }
  for (const auto& [alias, op] : std::vector<std::pair<std::string, ReduceOp>>{
           {"SUM", ReduceOp::Sum}, {"mean", ReduceOp::Avg}, {"AVG", ReduceOp::Avg}, {"prod", ReduceOp::Product},
           {"PRODUCT", ReduceOp::Product}, {"MAX", ReduceOp::Max}, {"MIN", ReduceOp::Min}}) {
    INFO(alias);
    auto p = parsePlacement("P(" + alias + ")");
    REQUIRE(p.ok());
    CHECK(*p == Placement::partial(op));
  }
  for (const char* bad : {"P(Sum)", "P(MEAN)", "P(average)", "P(Max)", "P(products)"}) {
    INFO(bad);
    auto p = parsePlacement(bad);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().message.find("unknown reduce op '") != std::string::npos);
  }
}

TEST_CASE("enum names: diagnostic kinds and severities", "[enum_names]") {
  checkNames("severityName", severityName,
             Names<Severity>{{Severity::Info, "info"}, {Severity::Warning, "warning"}, {Severity::Error, "error"}},
             "error");
  std::set<std::string> seen;
  for (DiagKind k : allDiagKinds()) {
    const std::string n = diagKindName(k);
    INFO(n);
    CHECK(seen.insert(n).second);
    REQUIRE(diagKindFromName(n));
    CHECK(*diagKindFromName(n) == k);
  }
  CHECK(std::string(diagKindName(DiagKind::MissingRedistribute)) == "missing-redistribute");
  CHECK(std::string(diagKindName(DiagKind::ImplicitRedistribute)) == "implicit-redistribute");
  CHECK(std::string(diagKindName(static_cast<DiagKind>(allDiagKinds().size()))) == "unknown");
  for (const char* bad : {"", "unknown", "Missing-Redistribute", "missing_redistribute", "missing-redistribute "})
    CHECK_FALSE(diagKindFromName(bad));
}

TEST_CASE("enum names: the print-only enums keep their strings", "[enum_names]") {
  checkNames("reduceOpName", reduceOpName,
             Names<ReduceOp>{{ReduceOp::Sum, "sum"}, {ReduceOp::Avg, "avg"}, {ReduceOp::Product, "product"},
                             {ReduceOp::Max, "max"}, {ReduceOp::Min, "min"}},
             "sum");
  checkNames("planFormatName", planFormatName,
             Names<PlanFormat>{{PlanFormat::Native, "shardscope plan"},
                               {PlanFormat::AutoparallelJson, "autoparallel JSON"},
                               {PlanFormat::AutoparallelPlacements, "autoparallel placements"},
                               {PlanFormat::FxText, "FX graph text"}},
             "?");
  checkNames("collectiveName", collectiveName,
             Names<CollectiveKind>{{CollectiveKind::None, "none"},
                                   {CollectiveKind::AllGather, "all_gather"},
                                   {CollectiveKind::AllReduce, "all_reduce"},
                                   {CollectiveKind::ReduceScatter, "reduce_scatter"},
                                   {CollectiveKind::AllToAll, "all_to_all"},
                                   {CollectiveKind::LocalChunk, "chunk"},
                                   {CollectiveKind::LocalDivide, "divide"},
                                   {CollectiveKind::LocalEmbed, "embed"}},
             "none");
  checkNames("edgeStatusName", edgeStatusName,
             Names<EdgeCost::Status>{{EdgeCost::Status::Inserted, "inserted"},
                                     {EdgeCost::Status::Planned, "planned"},
                                     {EdgeCost::Status::Missing, "missing"}},
             "missing");
  checkNames("changeKindName", changeKindName,
             Names<ChangeKind>{{ChangeKind::Mesh, "mesh"},
                               {ChangeKind::NodeRemoved, "node-removed"},
                               {ChangeKind::NodeAdded, "node-added"},
                               {ChangeKind::OutputSpec, "output-spec"},
                               {ChangeKind::InputSpec, "input-spec"},
                               {ChangeKind::RedistributeAdded, "redistribute-added"},
                               {ChangeKind::RedistributeRemoved, "redistribute-removed"},
                               {ChangeKind::RedistributeChanged, "redistribute-changed"},
                               {ChangeKind::AutoSpTag, "autosp-tag"},
                               {ChangeKind::AppliedGraph, "applied-graph"}},
             "mesh");
  checkNames("matchMethodName", matchMethodName,
             Names<MatchMethod>{{MatchMethod::None, "none"}, {MatchMethod::Name, "name"}, {MatchMethod::Structure, "structure"}},
             "none");
  checkNames("transitionStateName", transitionStateName,
             Names<TransitionState>{{TransitionState::Applied, "applied"},
                                    {TransitionState::Missing, "missing"},
                                    {TransitionState::Unjudged, "unjudged"}},
             "unjudged");
  checkNames("runVerdictName", runVerdictName,
             Names<RunVerdict>{{RunVerdict::Match, "match"}, {RunVerdict::Mismatch, "mismatch"},
                               {RunVerdict::Failed, "failed"}, {RunVerdict::Refused, "refused"}},
             "failed");
  checkNames("fileKindName", fileKindName,
             Names<FileKind>{{FileKind::NativePlan, "shardscope plan"},
                             {FileKind::AutoparallelJson, "autoparallel JSON export"},
                             {FileKind::AutoparallelPlacements, "autoparallel placements file"},
                             {FileKind::FxText, "FX graph text"},
                             {FileKind::TorchTrace, "TORCH_TRACE log"},
                             {FileKind::Unknown, "unknown"}},
             "unknown");
  checkNames("fxSkippedName", fxSkippedName,
             Names<FxSkipped>{{FxSkipped::Import, "import"},
                              {FxSkipped::Environment, "environment"},
                              {FxSkipped::Config, "config"},
                              {FxSkipped::TritonKernel, "triton-kernel"},
                              {FxSkipped::KernelSideTable, "kernel-side-table"},
                              {FxSkipped::StubClass, "stub-class"},
                              {FxSkipped::SubgraphClass, "subgraph-class"},
                              {FxSkipped::ModuleAttribute, "module-attribute"},
                              {FxSkipped::OtherPython, "other-python"}},
             "?");
  CHECK(kFxSkippedKinds == 9);
}

TEST_CASE("enum names: runner event kinds round-trip through an event line", "[enum_names]") {
  const Names<RunEvent::Kind> kinds = {{RunEvent::Kind::Started, "started"},
                                       {RunEvent::Kind::Progress, "progress"},
                                       {RunEvent::Kind::Note, "note"},
                                       {RunEvent::Kind::Batch, "batch"},
                                       {RunEvent::Kind::Report, "report"}};
  for (const auto& [k, n] : kinds) {
    INFO(n);
    RunEvent e;
    e.kind = k;
    const std::string line = runEventLine(e);
    CHECK(line.rfind("{\"event\":\"" + n + "\"", 0) == 0);
    auto back = parseRunEventLine(line);
    REQUIRE(back.ok());
    CHECK(back->kind == k);
  }
  RunEvent odd;
  odd.kind = static_cast<RunEvent::Kind>(200);
  CHECK(runEventLine(odd) == "{\"event\":\"note\"}");  // the fallback name
  for (const char* bad : {"{\"event\": \"Note\"}", "{\"event\": \"\"}", "{\"event\": \"reports\"}"}) {
    INFO(bad);
    auto r = parseRunEventLine(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("unknown event '") != std::string::npos);
  }
}
