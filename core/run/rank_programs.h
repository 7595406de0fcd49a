#pragma once
// Rank programs: N graphs, one per rank, each to be executed on its own rank exactly as written, and a reference
// graph to run alone on one device. This is what a compiler pass that rewrites the graph per rank leaves (DeepSpeed
// AutoSP: each rank's graph after its passes slices the inputs itself, the rank baked into the slice bounds, and
// calls `autosp.all_to_all` over the sequence-parallel group). This half is plain C++: reading them from
// TORCH_TRACE logs, binding their size symbols, their text form for the runner child, the refusals before a run.
// The run itself: runner/rank_programs.h (its contract), docs/runner.md "Rank programs".
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/plan.h"
#include "core/model/result.h"
#include "core/run/run_report.h"

namespace ss {

struct RankPrograms {
  std::string name;                        // for the report: the folder or log the programs came from
  Plan reference;                          // the whole model, run on one device
  std::vector<Plan> ranks;                 // ranks[r]: rank r's own program
  std::map<std::string, int64_t> symbols;  // size symbol -> value ("s38" -> 8)
  // size symbol -> where Dynamo took it from ("s72" -> "L['input_ids'].size()[0]"): names the inputs for --seq-dim
  std::map<std::string, std::string> symbolSources;
  std::vector<std::string> notes;          // what the loader says about where each graph came from
};

// Binds every size symbol of `plan`'s placeholders (see contract) in a copy: tensor placeholders get their
// concrete shape, Sym placeholders keep an unknown meta. Error: "placeholder 's38' (a size symbol) has no value".
Result<Plan> bindSymbols(const Plan& plan, const std::map<std::string, int64_t>& symbols);
// The value of a Sym placeholder `node` of `plan` under `symbols`, or nullopt when it is not one or has none.
std::optional<int64_t> symbolPlaceholderValue(const Plan& plan, int node, const std::map<std::string, int64_t>& symbols);

// Whether `path` (a TORCH_TRACE log, or a folder of them) holds rank programs: a `dynamo_output_graph` record
// (the graph a backend received) and a `before_pre_grad_graph` artifact (what it handed Inductor) in its logs.
// A file in the text form below (what `fix --seq-dim` saves) holds them too.
bool holdsRankPrograms(const std::string& path);
// Reads them: the reference is the first rank's `dynamo_output_graph`; rank r's program is the last
// `before_pre_grad_graph` of rank r's log (a rank log's sibling logs in its folder are the other ranks). The
// symbols are the create_symbol hints of the logs (the same on every rank, or an error). A file in the text form
// is read as it is.
Result<RankPrograms> loadRankPrograms(const std::string& path);

// The text form the parent hands the runner child on stdin ({"format": "shardscope-rank-programs", ...}: the
// graphs as native plans), and back.
std::string writeRankProgramsText(const RankPrograms& programs);
bool looksLikeRankProgramsText(std::string_view text);
Result<RankPrograms> readRankProgramsText(std::string_view text);

// Why the programs must not run at all (an op off the allow-list in any of them, more ranks than a local run
// takes, placeholders that do not match): stage "unsafe-op", "limits" or "load", with the program named.
std::optional<RunError> rankProgramsRefusal(const RankPrograms& programs);

}  // namespace ss
