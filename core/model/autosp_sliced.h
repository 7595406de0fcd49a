#pragma once
// What DeepSpeed AutoSP's passes did to an input, as a real graph after those passes shows it (the rank-local
// aten graph of a TORCH_TRACE log, tests/data/real/autosp/). No AutoSP tag survives into any graph text (the tag
// lives in node.meta), so this is not an AutoSpTag: it records the slice the graph itself performs,
// `aten.slice.Tensor(primal, dim, rank * (s // parts), (rank + 1) * (s // parts))`, with the sizes Dynamo's
// symbols had when the graph was traced (the log's create_symbol hints). core/check/autosp_slices.h derives it.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ss {

// A size symbol's hint: the concrete size Dynamo created it from (create_symbol's "val") and its source.
struct SymbolHint {
  int64_t hint = 0;
  std::string source;  // "L['input_ids'].size()[1]"; empty when unknown
  bool operator==(const SymbolHint&) const = default;
};
using SymbolHints = std::map<std::string, SymbolHint>;  // "s70" -> {2, "L['input_ids'].size()[1]"}

struct AutoSpSlicedInput {
  int placeholder = -1;      // the full input: a primal with symbolic sizes
  int slice = -1;            // AutoSP's slice of it: this rank's part
  int dim = -1;              // the dim it slices
  int parts = 0;             // the slicing divisor (`(s70//2)`: 2): the SP group's size
  int rank = -1;             // whose part the graph takes, read from the slice's bounds; -1 when they do not say
  std::string symbol;        // the sliced dim's size symbol ("s70"); empty when that size is a number
  std::string symbolSource;  // where Dynamo took the symbol from; empty when the log does not say
  // The placeholder's sizes with every symbol at its hint ([8, 2]): a hint of the traced sizes, not a guarantee
  // (the graph is compiled for any size in the symbol's range). Empty when a size has no hint.
  std::vector<int64_t> hintShape;
  // The input's sequence dim as AutoSP's all-to-alls show it (the dim whose symbol they gather), or the sequence
  // dim the other sliced inputs have (labels carry symbols of their own); -1 when the graph does not say.
  int seqDim = -1;

  bool hinted() const { return !hintShape.empty(); }
  // AutoSP's part size at the hints, s // parts; -1 without hints.
  int64_t chunk() const {
    return hinted() && parts > 0 && dim >= 0 && dim < static_cast<int>(hintShape.size())
               ? hintShape[static_cast<size_t>(dim)] / parts
               : -1;
  }
  // Rank r's range [start, end) on `dim` at the hints (AutoSP's bounds); {-1, -1} without hints.
  std::pair<int64_t, int64_t> rangeOf(int r) const {
    const int64_t c = chunk();
    return c < 0 ? std::pair<int64_t, int64_t>{-1, -1} : std::pair<int64_t, int64_t>{r * c, (r + 1) * c};
  }
  // "sliced by AutoSP on dim 1 (symbol s70, hint 2)"; "(size 2)" for a numeric size, "(symbol s70)" unhinted.
  std::string describe() const {
    std::string what = "sliced by AutoSP on dim " + std::to_string(dim);
    if (!symbol.empty()) {
      what += " (symbol " + symbol;
      if (hinted()) what += ", hint " + std::to_string(hintShape[static_cast<size_t>(dim)]);
      return what + ")";
    }
    return hinted() ? what + " (size " + std::to_string(hintShape[static_cast<size_t>(dim)]) + ")" : what;
  }
  bool operator==(const AutoSpSlicedInput&) const = default;
};

// DeepSpeed's seq_dim fix for one input, named as the user's code names it (`input_ids`, from the size symbols'
// sources `L['input_ids'].size()[0]`): AutoSP's slice of that input moves to `dim` (core/run/autosp_seq_fix.h).
struct SeqDimRequest {
  std::string input;
  int dim = 0;
  bool operator==(const SeqDimRequest&) const = default;
};

// The entry whose placeholder or slice is `node`, or nullptr.
inline const AutoSpSlicedInput* findAutoSpSliced(const std::vector<AutoSpSlicedInput>& all, int node) {
  for (const AutoSpSlicedInput& s : all)
    if (s.placeholder == node || s.slice == node) return &s;
  return nullptr;
}

}  // namespace ss
