#include "core/model/graph.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <limits>
#include <unordered_set>

#include "core/model/enum_names.h"

namespace ss {

namespace {
// The FX annotation names, then the torch names; a parser alias is a further spelling dtypeFromName takes.
constexpr EnumName<DType> kDTypeNames[] = {
    {DType::F32, "f32"}, {DType::F16, "f16"}, {DType::BF16, "bf16"}, {DType::F64, "f64"},
    {DType::I64, "i64"}, {DType::I32, "i32"}, {DType::I16, "i16"},   {DType::I8, "i8"},
    {DType::U8, "u8"},   {DType::Bool, "b8"}, {DType::C64, "c64"},   {DType::F8E4M3FN, "f8e4m3fn"},
    {DType::F8E5M2, "f8e5m2"}, {DType::F8E8M0FNU, "f8e8m0fnu"}, {DType::Unknown, "unknown"}};
constexpr EnumName<DType> kDTypeTorchNames[] = {
    {DType::F32, "torch.float32"}, {DType::F16, "torch.float16"}, {DType::BF16, "torch.bfloat16"},
    {DType::F64, "torch.float64"}, {DType::I64, "torch.int64"},   {DType::I32, "torch.int32"},
    {DType::I16, "torch.int16"},   {DType::I8, "torch.int8"},     {DType::U8, "torch.uint8"},
    {DType::Bool, "torch.bool"},   {DType::C64, "torch.complex64"}, {DType::F8E4M3FN, "torch.float8_e4m3fn"},
    {DType::F8E5M2, "torch.float8_e5m2"}, {DType::F8E8M0FNU, "torch.float8_e8m0fnu"}, {DType::Unknown, "unknown"}};
constexpr EnumName<DType> kDTypeAliases[] = {
    {DType::F32, "float"}, {DType::F16, "half"}, {DType::F64, "double"}, {DType::I64, "long"}, {DType::I32, "int"}};
static_assert(enumTableCovers(kDTypeNames, DType::Unknown) && enumNamesValid(kDTypeNames, kDTypeAliases));
static_assert(enumTableCovers(kDTypeTorchNames, DType::Unknown) && enumNamesValid(kDTypeTorchNames));
}  // namespace

const char* dtypeName(DType t) { return enumName(kDTypeNames, t, "unknown"); }

const char* dtypeTorchName(DType t) { return enumName(kDTypeTorchNames, t, "unknown"); }

// Takes, after one optional "torch." prefix, an FX name ("f32"), a torch name without its prefix ("float32") or
// an alias ("float"); anything else is Unknown.
DType dtypeFromName(std::string_view s) {
  if (s.rfind("torch.", 0) == 0) s.remove_prefix(6);
  if (auto t = enumFromName(kDTypeNames, kDTypeAliases, s)) return *t;
  if (auto t = enumFromPrefixedName(kDTypeTorchNames, "torch.", s)) return *t;
  return DType::Unknown;
}

int dtypeBytes(DType t) {
  switch (t) {
    case DType::F64: case DType::I64: case DType::C64: return 8;
    case DType::F32: case DType::I32: return 4;
    case DType::F16: case DType::BF16: case DType::I16: return 2;
    case DType::I8: case DType::U8: case DType::Bool: case DType::F8E4M3FN: case DType::F8E5M2:
    case DType::F8E8M0FNU: return 1;
    case DType::Unknown: return 4;
  }
  return 4;
}

bool shapeWithinLimits(const std::vector<int64_t>& shape) {
  if (shape.size() > static_cast<size_t>(kMaxTensorRank)) return false;
  __int128 numel = 1;
  for (int64_t d : shape) {
    if (d < 0 || d > kMaxTensorDimSize) return false;
    numel *= d;
    if (numel > (__int128{1} << limits::kMaxTensorElementsLog2)) return false;
  }
  return true;
}

int64_t TensorMeta::numel() const {
  int64_t n = 1;
  for (auto s : shape) {
    if (s <= 0) return 0;
    n = n > std::numeric_limits<int64_t>::max() / s ? std::numeric_limits<int64_t>::max() : n * s;  // saturate
  }
  return n;
}

namespace {
constexpr EnumName<Phase> kPhaseNames[] = {
    {Phase::Unknown, "unknown"}, {Phase::Forward, "forward"}, {Phase::Backward, "backward"},
    {Phase::Optimizer, "optimizer"}};
constexpr EnumName<Phase> kPhaseAliases[] = {
    {Phase::Forward, "fwd"}, {Phase::Backward, "bwd"}, {Phase::Optimizer, "optim"}};
static_assert(enumTableCovers(kPhaseNames, Phase::Optimizer) && enumNamesValid(kPhaseNames, kPhaseAliases));

constexpr EnumName<PlaceholderKind> kPlaceholderKindNames[] = {
    {PlaceholderKind::None, "none"},   {PlaceholderKind::Param, "param"},     {PlaceholderKind::Buffer, "buffer"},
    {PlaceholderKind::Input, "input"}, {PlaceholderKind::Tangent, "tangent"}};
constexpr EnumName<PlaceholderKind> kPlaceholderKindAliases[] = {
    {PlaceholderKind::Param, "parameter"}, {PlaceholderKind::Input, "user_input"}};
static_assert(enumTableCovers(kPlaceholderKindNames, PlaceholderKind::Tangent) &&
              enumNamesValid(kPlaceholderKindNames, kPlaceholderKindAliases));
}  // namespace

const char* phaseName(Phase p) { return enumName(kPhaseNames, p, "unknown"); }

Phase phaseFromName(std::string_view s) { return enumFromName(kPhaseNames, kPhaseAliases, s).value_or(Phase::Unknown); }

const char* placeholderKindName(PlaceholderKind k) { return enumName(kPlaceholderKindNames, k, "none"); }

PlaceholderKind placeholderKindFromName(std::string_view s) {
  return enumFromName(kPlaceholderKindNames, kPlaceholderKindAliases, s).value_or(PlaceholderKind::None);
}

std::string Node::shapeText(size_t o) const {
  if (o < outputs.size() && outputs[o].known) {
    std::string out = "[";
    for (size_t i = 0; i < outputs[o].shape.size(); ++i) out += (i ? ", " : "") + std::to_string(outputs[o].shape[i]);
    return out + "]";
  }
  if (o != 0 || symbolicShape.empty()) return "?";
  std::string out = "[";
  for (size_t i = 0; i < symbolicShape.size(); ++i) out += (i ? ", " : "") + symbolicShape[i];
  return out + "]";
}

std::string Node::opName() const {
  std::string_view o = op;
  if (o.rfind("torch.ops.", 0) == 0) o.remove_prefix(10);
  size_t first = o.find('.');
  if (first == std::string_view::npos) return std::string(o);
  std::string_view rest = o.substr(first + 1);
  size_t second = rest.find('.');
  return std::string(second == std::string_view::npos ? rest : rest.substr(0, second));
}

namespace {
void walkArg(const Arg& a, std::vector<TensorRef>& out) {
  if (a.kind == Arg::Kind::Tensor) out.push_back(a.t);
  else if (a.kind == Arg::Kind::List)
    for (const auto& x : a.items) walkArg(x, out);
}
}  // namespace

void collectTensorRefs(const Node& n, std::vector<TensorRef>& out) {
  for (const auto& a : n.args) walkArg(a, out);
  for (const auto& kv : n.kwargs) walkArg(kv.second, out);
}

namespace {
uint64_t nameHash(std::string_view name) { return std::hash<std::string_view>{}(name); }
uint32_t nameTag(uint64_t h) { return static_cast<uint32_t>(h >> 32); }
}  // namespace

int Graph::find(std::string_view name) const {
  if (nameSlots_.empty()) return -1;
  const size_t mask = nameSlots_.size() - 1;
  const uint64_t hash = nameHash(name);
  const uint32_t tag = nameTag(hash);
  for (size_t h = hash & mask;; h = (h + 1) & mask) {
    const NameSlot& s = nameSlots_[h];
    if (s.index < 0) return -1;
    if (s.tag == tag && s.index < size() && nodes[s.index].name == name) return s.index;
  }
}

void Graph::prefetchName(std::string_view name) const {
  if (nameSlots_.empty()) return;
  __builtin_prefetch(&nameSlots_[nameHash(name) & (nameSlots_.size() - 1)]);
}

// Probes for node i's name: an earlier node of that name is returned (and i noted as a duplicate), else i takes
// the empty slot. The caller keeps the load factor <= 1/2.
int Graph::insertName(int i) {
  const std::string& name = nodes[i].name;
  const size_t mask = nameSlots_.size() - 1;
  const uint64_t hash = nameHash(name);
  const uint32_t tag = nameTag(hash);
  ++named_;
  for (size_t h = hash & mask;; h = (h + 1) & mask) {
    NameSlot& s = nameSlots_[h];
    if (s.index < 0) {
      s = NameSlot{i, tag};
      return -1;
    }
    if (s.tag == tag && nodes[s.index].name == name) {
      if (firstDuplicate_ < 0) firstDuplicate_ = i;
      return s.index;
    }
  }
}

void Graph::reindex() {
  // Load factor <= 1/2. A duplicate name keeps its first node, as the readers' uniqueness checks expect.
  nameSlots_.assign(std::bit_ceil(nodes.size() * 2 + 2), NameSlot{});
  named_ = 0;
  firstDuplicate_ = -1;
  for (int i = 0; i < size(); ++i) insertName(i);
  // Inputs first, then each users list sized once (no regrowth on nodes read by many).
  const int N = size();
  inputs_.assign(nodes.size(), {});
  users_.assign(nodes.size(), {});
  outputNode_ = -1;
  std::vector<int> userCount(nodes.size(), 0);
  for (int i = 0; i < N; ++i) {
    inputs_[i].reserve(nodes[i].args.size() + nodes[i].kwargs.size());
    collectTensorRefs(nodes[i], inputs_[i]);
    for (const TensorRef& r : inputs_[i])
      if (r.node >= 0 && r.node < N) ++userCount[r.node];
    if (nodes[i].kind == NodeKind::Output) outputNode_ = i;
  }
  for (int i = 0; i < N; ++i) users_[i].reserve(userCount[i]);
  for (int i = 0; i < N; ++i)
    for (int k = 0; k < static_cast<int>(inputs_[i].size()); ++k) {
      const int p = inputs_[i][k].node;
      if (p >= 0 && p < N) users_[p].emplace_back(i, k);
    }
}

void Graph::indexEdgesOf(int i) {
  if (inputs_.capacity() < nodes.capacity()) {  // one allocation for a reserved graph
    inputs_.reserve(nodes.capacity());
    users_.reserve(nodes.capacity());
  }
  inputs_.emplace_back();
  users_.emplace_back();
  std::vector<TensorRef>& ins = inputs_.back();
  ins.reserve(nodes[i].args.size() + nodes[i].kwargs.size());
  collectTensorRefs(nodes[i], ins);
  // Only earlier nodes get users here; a reference to node i or later is not valid (validate() says so).
  for (int k = 0; k < static_cast<int>(ins.size()); ++k)
    if (ins[k].node >= 0 && ins[k].node < i) users_[ins[k].node].emplace_back(i, k);
  if (nodes[i].kind == NodeKind::Output) outputNode_ = i;
}

int Graph::indexNext() {
  const int last = size() - 1;
  if (last < 0) return -1;
  if (named_ != last || static_cast<size_t>(last + 1) * 2 > nameSlots_.size()) {
    // Grow (or catch up with nodes appended or removed without it): the nodes before the last, in order, into a
    // table sized for the nodes' capacity.
    nameSlots_.assign(std::bit_ceil(std::max<size_t>(nodes.capacity(), nodes.size()) * 2 + 2), NameSlot{});
    named_ = 0;
    firstDuplicate_ = -1;
    for (int i = 0; i < last; ++i) insertName(i);
  }
  if (static_cast<int>(inputs_.size()) != last || static_cast<int>(users_.size()) != last) {
    inputs_.clear();
    users_.clear();
    outputNode_ = -1;
    for (int i = 0; i < last; ++i) indexEdgesOf(i);
  }
  const int earlier = insertName(last);
  indexEdgesOf(last);
  return earlier;
}

const TensorMeta* Graph::meta(TensorRef r) const {
  if (r.node < 0 || r.node >= size()) return nullptr;
  const auto& outs = nodes[r.node].outputs;
  if (r.output < 0 || r.output >= static_cast<int>(outs.size())) return nullptr;
  return &outs[r.output];
}

std::string Graph::validate() const {
  // After reindex() (the readers call validate right after it) the name index (its first duplicate) and the
  // input lists answer without a second hash set and a second walk of every argument list; otherwise both are
  // built here.
  const bool indexed = this->indexed();
  std::unordered_set<std::string_view> seen;  // views of the nodes' own names
  std::vector<TensorRef> refs;
  for (int i = 0; i < size(); ++i) {
    const Node& n = nodes[i];
    if (n.name.empty()) return "node " + std::to_string(i) + " has no name";
    if (indexed ? i == firstDuplicate_ : !seen.insert(n.name).second) return "node name '" + n.name + "' is used twice";
    if (!indexed) {
      refs.clear();
      collectTensorRefs(n, refs);
    }
    for (const auto& r : indexed ? inputs_[i] : refs) {
      if (r.node < 0 || r.node >= i)
        return "node '" + n.name + "' uses a tensor that is not defined before it";
      if (r.output < 0 || (!nodes[r.node].outputs.empty() && r.output >= static_cast<int>(nodes[r.node].outputs.size())))
        return "node '" + n.name + "' uses output " + std::to_string(r.output) + " of '" + nodes[r.node].name +
               "', which has " + std::to_string(nodes[r.node].outputs.size()) + " outputs";
    }
  }
  return {};
}

}  // namespace ss
