// Internal to the FX text reader (core/io/fx_*.cpp): the reader's state and the pieces its files share.
// Not part of core's interface: readers elsewhere go through readFxText (core/io/formats.h).
//
// The reader is split by concern: fx_text.cpp (statements, signature, return, post-passes, read), fx_values.cpp
// (annotations and argument values), fx_survey.cpp (the module survey and `load_args`), fx_write.cpp (the writer).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/io/formats.h"
#include "core/io/fx/lexer.h"

namespace ss::fxread {

using fx::Cursor;

// The meta of a value whose dtype and shape the text does not give.
inline const TensorMeta kUnknownMeta{{}, DType::Unknown, false};

// "f32[2048, 4672][4672, 1]cuda:0", "i64[]", "Sym(s0)", "f32[s0, 4096]" -> the meta; an annotation that is not a
// tensor (Sym(...)) or has symbolic sizes gives an unknown meta. Only a malformed tensor annotation is an error
// (offset = the string's first char, for the column).
Result<TensorMeta> parseAnnotation(std::string_view a, const Cursor& cur, size_t offset,
                                   std::vector<std::string>* symbolic = nullptr);
// The string literal at the cursor (the caller saw atString()) read as an annotation.
Result<TensorMeta> stringAnnotation(Cursor& cur, std::vector<std::string>* symbolic = nullptr);

// AOT autograd's descriptor comments (`expanded_def` code): `ParamAOTInput(target='proj.weight')`,
// `BufferAOTInput(...)`, `PlainAOTInput(idx=0)`, `TangentAOTInput(...)` on inputs;
// `GradAOTOutput(grad_of=ParamAOTInput(target='proj.weight'))` on outputs. Others leave everything empty.
struct AotDescriptor {
  PlaceholderKind kind = PlaceholderKind::None;
  std::string target;  // the parameter's or buffer's fully qualified name
  std::string gradOf;  // an output: the target of the parameter it is the gradient of
};
AotDescriptor parseAotDescriptor(std::string_view d);

class FxReader {
 public:
  explicit FxReader(std::string_view text) : text_(text), lines_(text), ll_(fx::splitLogicalLines(text)) {}
  Result<Plan> read(FxReadReport* report);

 private:
  std::string_view text_;
  fx::LineIndex lines_;
  std::vector<fx::LogicalLine> ll_;
  Graph g_;
  // Looked up by string_view (once per argument of every node): transparent hashing, no key copies.
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, int, NameHash, std::equal_to<>> byName_;
  std::unordered_map<std::string, TensorRef, NameHash, std::equal_to<>> alias_;  // `l_x_ = L_x_`
  // Python slice objects Dynamo's graphs build for indexing (`slice_2 = slice(mul, add, None)`, then
  // `x[(slice_1, slice_2)]`): values, not nodes; read where an index uses them.
  struct SliceValue {
    Arg start, stop, step;
    bool whole() const { return start.kind == Arg::Kind::None && stop.kind == Arg::Kind::None && step.kind == Arg::Kind::None; }
  };
  std::unordered_map<std::string, SliceValue, NameHash, std::equal_to<>> slices_;
  std::vector<bool> annotated_;
  SourceLoc source_;
  bool haveOutput_ = false;
  std::unordered_map<int, std::vector<std::string>> outputKeys_;  // dict-returning node -> its output keys
  std::unordered_set<std::string> callableAttrs_;                  // __init__ attributes holding callables
  int opaqueRefs_ = 0;
  // Pytree codegen (`def forward(self, primals, tangents):`, the joint graphs AOT autograd prints): the
  // signature's parameters are containers, not nodes; the placeholders are the names that
  // `fx_pytree.tree_flatten_spec([...], self._in_spec)` unpacks, with the metas and descriptor comments of their
  // declarations (`primals_1: "f32[4, 8][8, 1]cpu"; ...` on one line, or one per line under `expanded_def`).
  bool pytreeInputs_ = false;
  struct Declared {
    TensorMeta meta;
    std::string descriptor;  // "ParamAOTInput(target='proj.weight')", or empty
    std::vector<std::string> symbolic;  // Node::symbolicShape
  };
  std::unordered_map<std::string, Declared, NameHash, std::equal_to<>> declared_;
  std::unordered_map<int, std::string> placeholderDescriptors_;   // placeholder node -> its descriptor
  std::vector<std::string> outputDescriptors_;                    // per returned value, "" when none

  Cursor cursor(const fx::LogicalLine& l) const { return Cursor(text_, lines_, l.begin, l.end); }
  std::string_view lineText(const fx::LogicalLine& l) const { return text_.substr(l.begin, l.end - l.begin); }
  // The line without its leading blanks. `indent` counts a tab as 8 columns, so it is no byte offset.
  std::string_view lineBody(const fx::LogicalLine& l) const {
    std::string_view t = lineText(l);
    size_t k = t.find_first_not_of(" \t");
    return k == std::string_view::npos ? std::string_view() : t.substr(k);
  }

  Result<int> addNode(Node n, Cursor& cur, size_t nameAt);
  // The end of a `name = ...` statement: nothing but `;` or a comment may follow; the node gets its annotated
  // meta and joins the graph.
  Result<bool> endStatement(Cursor& cur, Node node, const TensorMeta& meta, bool annotated, size_t nameAt);
  Result<TensorRef> lookup(std::string_view name, Cursor& cur, size_t at);
  Result<Arg> value(Cursor& cur, int depth = 0);
  Result<bool> callArgs(Cursor& cur, std::vector<Arg>& args, std::vector<std::pair<std::string, Arg>>& kwargs);
  Result<bool> signature(const fx::LogicalLine& l);
  Result<bool> statement(const fx::LogicalLine& l);
  Result<bool> returnStatement(Cursor& cur);
  Result<bool> declarations(Cursor& cur, size_t firstAt);
  Result<bool> unpackInputs(Cursor& cur, std::string_view first, size_t firstAt);
  Result<Arg> returnList(Cursor& cur);
  Result<bool> addPlaceholder(std::string_view name, Cursor& cur, size_t at, const TensorMeta& meta, bool annotated,
                              std::vector<std::string> symbolic,
                              std::string descriptor);
  Result<bool> binaryExpression(Cursor& cur, Node& node);
  // `x[(slice_1, slice_2)]`, `x[(slice(None, None, None), 0)]`: a tensor indexed by slices and integers, read as
  // the one aten op it is (aten.slice.Tensor on the one dim sliced, aten.select.int on the one dim indexed).
  Result<bool> tensorIndex(Cursor& cur, Node& node, TensorRef base, size_t rhsAt);
  Result<SliceValue> sliceCall(Cursor& cur);
  // `recv.method(...)`: the receiver's node when `dotted`'s first part names one (a Tensor method call).
  std::optional<TensorRef> methodReceiver(std::string_view dotted) const;
  Result<Arg> operand(Cursor& cur);
  int outputKey(int node, const std::string& key);
  bool isStubForward(size_t defLine) const;
  size_t blockEnd(size_t line) const;
  void survey(int fwd, FxReadReport& rep);
  void comment(const fx::LogicalLine& l);
  Result<bool> loadArgs(size_t defLine, FxReadReport& rep);
  void finish(FxReadReport& rep);
};

}  // namespace ss::fxread
