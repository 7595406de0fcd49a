#pragma once
// Graph: an aten-level compute graph as torch.fx prints it (placeholders, call_function nodes, one output).
//
// Contract: nodes are stored in topological order (every tensor reference points to an earlier node). A node's
// tensor inputs are numbered by walking args then kwargs depth-first (lists included): that number is the
// "input index" used by specs, redistributes and diagnostics everywhere. Each node has one TensorMeta per output
// (tuple-returning ops have several; `operator.getitem` selects one). Shapes may be unknown (rank < 0) for
// files that carry no shapes.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/model/limits.h"

namespace ss {

// F8*: float8_e4m3fn / float8_e5m2 (_scaled_mm's data) and float8_e8m0fnu (MX block scales).
enum class DType : uint8_t { F32, F16, BF16, F64, I64, I32, I16, I8, U8, Bool, C64, F8E4M3FN, F8E5M2, F8E8M0FNU, Unknown };
const char* dtypeName(DType t);        // "f32", "bf16", ... (FX annotation names)
const char* dtypeTorchName(DType t);   // "torch.float32", "torch.bfloat16", ...
DType dtypeFromName(std::string_view s);  // accepts "f32", "float32", "torch.float32", "bf16", ...; Unknown
int dtypeBytes(DType t);

// The limits every reader applies to a described tensor (the native reader's, so that whatever any reader loads
// also saves and reloads natively): at most 64 dims, each size in [0, 2^53], at most 2^62 elements.
// (core/model/limits.h holds them.)
using limits::kMaxTensorRank;
using limits::kMaxTensorDimSize;
bool shapeWithinLimits(const std::vector<int64_t>& shape);
using limits::kMaxGraphNodes;  // the most nodes any reader accepts in one graph

struct TensorMeta {
  std::vector<int64_t> shape;   // empty = scalar (rank 0)
  DType dtype = DType::F32;
  bool known = true;            // false: shape unknown (not given, not inferred)
  int rank() const { return static_cast<int>(shape.size()); }
  int64_t numel() const;  // saturates at INT64_MAX (a described tensor may be huge)
  bool operator==(const TensorMeta&) const = default;
};

// A reference to output `output` of node `node` (index into Graph::nodes).
struct TensorRef {
  int node = -1;
  int output = 0;
  bool operator==(const TensorRef&) const = default;
};

// One argument value, recursive for lists/tuples. `Symbol` holds names such as torch.strided,
// torch.contiguous_format, device strings; DType holds a dtype argument.
struct Arg {
  enum class Kind : uint8_t { None, Bool, Int, Float, String, Tensor, List, DType, Device, Symbol };
  Kind kind = Kind::None;
  bool b = false;
  int64_t i = 0;
  double f = 0.0;
  std::string s;                // String, Device ("cuda:0"), Symbol ("torch.strided")
  TensorRef t;
  ss::DType dt = ss::DType::Unknown;
  std::vector<Arg> items;       // List (tuples too)

  static Arg none() { return {}; }
  static Arg boolean(bool v) { Arg a; a.kind = Kind::Bool; a.b = v; return a; }
  static Arg integer(int64_t v) { Arg a; a.kind = Kind::Int; a.i = v; return a; }
  static Arg real(double v) { Arg a; a.kind = Kind::Float; a.f = v; return a; }
  static Arg string(std::string v) { Arg a; a.kind = Kind::String; a.s = std::move(v); return a; }
  static Arg tensor(TensorRef r) { Arg a; a.kind = Kind::Tensor; a.t = r; return a; }
  static Arg list(std::vector<Arg> v) { Arg a; a.kind = Kind::List; a.items = std::move(v); return a; }
  static Arg dtype(ss::DType d) { Arg a; a.kind = Kind::DType; a.dt = d; return a; }
  static Arg device(std::string d) { Arg a; a.kind = Kind::Device; a.s = std::move(d); return a; }
  static Arg symbol(std::string d) { Arg a; a.kind = Kind::Symbol; a.s = std::move(d); return a; }

  bool isTensor() const { return kind == Kind::Tensor; }
  bool isInt() const { return kind == Kind::Int; }
  bool isList() const { return kind == Kind::List; }
  bool operator==(const Arg&) const = default;
};

enum class NodeKind : uint8_t { Placeholder, Call, Output };
enum class Phase : uint8_t { Unknown, Forward, Backward, Optimizer };
enum class PlaceholderKind : uint8_t { None, Param, Buffer, Input, Tangent };
const char* phaseName(Phase p);
Phase phaseFromName(std::string_view s);
const char* placeholderKindName(PlaceholderKind k);
PlaceholderKind placeholderKindFromName(std::string_view s);

struct SourceLoc {
  std::string file;
  int line = 0;
  std::string func;
  std::string code;
  bool operator==(const SourceLoc&) const = default;
};

struct Node {
  std::string name;
  std::string op;               // "placeholder", "output", "aten.mm.default", "operator.getitem", ...
  NodeKind kind = NodeKind::Call;
  std::vector<Arg> args;
  std::vector<std::pair<std::string, Arg>> kwargs;
  std::vector<TensorMeta> outputs;  // placeholders and single-output ops: one entry; output node: none
  Phase phase = Phase::Unknown;
  PlaceholderKind placeholderKind = PlaceholderKind::None;
  std::string modulePath;
  SourceLoc source;
  // Solver-provided extras (autoparallel export); NaN/-1 when absent.
  double computeCost = -1;
  double transitionCost = -1;
  int clusterId = -1;
  std::string acRegion;
  // Output 0's sizes as an FX annotation printed them, when any is symbolic ("s72", "(s70//2)", "2*s72"; the
  // numeric ones as digits); empty otherwise. The shape itself then holds -1 there (unknown).
  std::vector<std::string> symbolicShape;

  // The op without namespace and overload: "aten.mm.default" -> "mm", "aten._to_copy.default" -> "_to_copy",
  // "prims.convert_element_type.default" -> "convert_element_type", "operator.getitem" -> "getitem".
  std::string opName() const;
  // Output `o`'s shape for people: "[16, 32]" when known, the printed symbolic sizes "[s72, (s70//2)]" for
  // output 0 of an annotated symbolic node, else "?".
  std::string shapeText(size_t o = 0) const;
  bool operator==(const Node&) const = default;
};

class Graph {
 public:
  std::vector<Node> nodes;

  int size() const { return static_cast<int>(nodes.size()); }
  int find(std::string_view name) const;  // -1 when absent (the name index: reindex(), or indexNext())
  void reindex();                          // call after adding/renaming nodes: name index, inputs and users
  // For a reader that appends nodes one by one: indexNext() indexes the last node as reindex() does (its name,
  // its tensor inputs, its producers' users, the output node), so that every query answers for the nodes
  // appended so far, without a second walk over the graph. Call it right after appending each node, its args
  // final. Returns the earlier node of the same name (the index keeps the first) or -1.
  int indexNext();
  // A hint before appending a node named `name` (a reader that knows the name early): loads its name slot into the
  // cache so that indexNext() does not wait for it. Changes nothing.
  void prefetchName(std::string_view name) const;
  // Every node is indexed (by reindex() or indexNext()); a node appended or removed since makes it false.
  bool indexed() const {
    return named_ == size() && inputs_.size() == nodes.size() && users_.size() == nodes.size() && !nameSlots_.empty();
  }
  // Tensor inputs of node `n` in input-index order (see contract above).
  const std::vector<TensorRef>& inputs(int n) const { return inputs_.at(n); }
  // (consumer node, input index) pairs that read any output of node `n`.
  const std::vector<std::pair<int, int>>& users(int n) const { return users_.at(n); }
  const TensorMeta* meta(TensorRef r) const;  // nullptr when out of range
  int outputNode() const { return outputNode_; }  // -1 when the graph has none

  // Checks topological order, unique names, tensor refs in range. Empty string when valid.
  std::string validate() const;
  bool operator==(const Graph& o) const { return nodes == o.nodes; }

 private:
  // Name index: open addressing over node indices (-1 = empty slot), compared against nodes[i].name. It holds no
  // copies of names nor views into them, so a stale index (nodes added or renamed without reindex()) can only
  // miss, never read freed memory; find() re-checks the name it lands on. Each slot keeps the high half of its
  // name's hash, so a probe reads a node's name only when that matches. Nodes [0, named_) are indexed;
  // firstDuplicate_ is the first of them whose name an earlier node has (-1: none), which validate() reports.
  struct NameSlot {
    int index = -1;
    uint32_t tag = 0;
  };
  int insertName(int i);
  void indexEdgesOf(int i);  // node i's inputs and its producers' users (inputs_ and users_ hold i entries)
  std::vector<NameSlot> nameSlots_;
  int named_ = 0;
  int firstDuplicate_ = -1;
  std::vector<std::vector<TensorRef>> inputs_;
  std::vector<std::vector<std::pair<int, int>>> users_;
  int outputNode_ = -1;
};

// Depth-first walk of tensor refs in args then kwargs: the order that defines input indices.
void collectTensorRefs(const Node& n, std::vector<TensorRef>& out);

}  // namespace ss
