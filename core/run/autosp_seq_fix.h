#pragma once
// DeepSpeed AutoSP's seq_dim fix, applied to the rank programs its passes left (core/run/rank_programs.h): each
// rank's graph slices a tagged input on the dim AutoSP read (`shape[1]`), and the fix moves that slice to the
// input's sequence dim, as DeepSpeed's fixed passes would have written the graph (tests/data/real/autosp/seq0_fixed).
//
// The input is named as the user's code names it (`input_ids`): a graph keeps no AutoSP tag, but Dynamo's size
// symbols say where each size came from (`s72 = L['input_ids'].size()[0]`, the logs' create_symbol records). In
// each rank program, for each input AutoSP slices (core/check/autosp_slices.h):
//   - the slice takes dim `dim`, with its bounds `r * (s // P)` .. `(r + 1) * (s // P)` computed from that dim's
//     size symbol s (the symbol placeholder of that name) instead of the old dim's; the rank r and the divisor P
//     stay as AutoSP wrote them;
//   - DeepSpeed's pass_shard_seq_dim replaced the sequence symbol by `floordiv = s // P` in every op downstream of
//     the sliced inputs (their views and reshapes): that node now divides the new symbol, the uses it took over
//     get the old symbol back, and the new symbol's uses downstream of the sliced inputs take it instead.
// An input the requests do not name follows the one dim they give, when they give one (DeepSpeed passes one
// seq_dim for every tagged input: input ids, labels, position ids). Only the graphs change: annotations printed on
// other nodes keep the sizes they were traced with (the runner does not read them).
#include <map>
#include <string>
#include <vector>

#include "core/model/autosp_sliced.h"
#include "core/model/graph.h"
#include "core/model/result.h"

namespace ss {

struct RankPrograms;

// The input a size symbol's source names and the dim it is: "L['input_ids'].size()[0]" -> {"input_ids", 0};
// {"", -1} for any other source.
std::pair<std::string, int> symbolSourceInput(const std::string& source);

// Moves AutoSP's slices in one graph after its passes (see the contract). `symbolSources`: size symbol -> its
// source. Returns one line per slice moved ("getitem_3: L_input_ids_ sliced on dim 0 (s72) instead of dim 1
// (s70)"); an Error (one line, naming the node) when a request names no sliced input or the graph is not as
// AutoSP writes it; the graph is unchanged then.
Result<std::vector<std::string>> moveAutoSpSlices(Graph& g, const std::map<std::string, std::string>& symbolSources,
                                                  const std::vector<SeqDimRequest>& requests);

// The same in every rank program (the reference, the whole model, is left as it is). The steps name the rank.
Result<std::vector<std::string>> moveAutoSpSlices(RankPrograms& programs, const std::vector<SeqDimRequest>& requests);

// "input_ids=0" -> {"input_ids", 0}; an Error naming what is wrong otherwise.
Result<SeqDimRequest> parseSeqDimRequest(const std::string& text);

}  // namespace ss
