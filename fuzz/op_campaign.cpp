// The op campaign: every op the runner's allow-list admits (core/ops/op_safety.h), every overload LibTorch has for
// it, called through the runner's own executor (runner/torch_internal.h runGraph: the allow-list check, the schema's
// defaults, the op contracts of runner/op_contracts.h, then the boxed dispatcher call) with adversarial arguments
// generated from the overload's schema. A case is a one-node plan: placeholders for its tensors, one call node.
//
// Detector (Debian's LibTorch is not instrumented, so it watches memory from outside the kernels):
// - every CPU allocation in the case's child, the harness's tensors and the kernel's own outputs and temporaries
//   alike, is its own mapping between two PROT_NONE pages (c10::SetCPUAllocator). A case runs twice: first with
//   each block's end against the guard after it (rounded to 16 bytes), then with its start against the guard
//   before it, so a read or write just past either end faults. The slack between a block and its guards is filled
//   with a byte that differs between the two runs and checked when the block is freed (a write there is a finding
//   even where it did not fault);
// - the two runs' fresh memory differs too, so a result that depends on bytes outside the inputs (a heap read that
//   comes back as a value, an output the kernel never wrote) differs between them: a finding;
// - each case runs in a forked child: a signal (SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL) is a finding, confirmed by
//   running the case again alone; a case past its time limit is counted as slow, not as a finding;
// - every input is compared before and after the call: one that changed although its schema argument carries no
//   `!` (and core's table of hidden writes, core/ops/hidden_writes.h, does not name it) is a finding.
//
// Usage: op_campaign [--cases N] [--seed S] [--jobs J] [--ops a,b,c] [--sample K] [--time-limit-ms T] [--log FILE]
//                    [--no-contracts]   (the baseline: what it finds without runner/op_contracts.cpp's checks)
//        op_campaign --repro OP CASE [--seed S]    one case in this process (for valgrind), its result printed
//        op_campaign --list                        the overloads the campaign drives
// Exit: 0 no finding, 1 findings (listed), 2 bad arguments.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>

#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/model/plan.h"
#include "core/ops/hidden_writes.h"
#include "core/ops/op_safety.h"
#include "runner/op_contracts.h"
#include "runner/torch_internal.h"

namespace {

using ss::Arg;

// ---------------------------------------------------------------- guarded allocation

enum class Align { End, Start };

struct GuardState {
  Align align = Align::End;
  uint8_t fill = 0x5a;
  size_t live = 0;
  int reportFd = -1;   // where a corrupted slack is reported before abort()
  long currentCase = -1;
};
GuardState g_guard;

constexpr size_t kMaxAllocation = size_t(256) << 20;  // one block
constexpr size_t kMaxLive = size_t(1) << 30;          // all live blocks of a case

struct Region {
  char* base;     // first guard page
  size_t total;   // whole mapping
  char* lo;       // first usable byte (after the leading guard)
  char* hi;       // one past the last usable byte (before the trailing guard)
  char* data;
  size_t n;
  uint8_t fill;
};

size_t pageSize() {
  static const size_t p = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return p;
}

void reportAndAbort(const char* what, const Region& r, const char* at) {
  char line[256];
  const int len = std::snprintf(line, sizeof line, "F %ld heap-write %s a block of %zu bytes (byte %td)\n",
                                g_guard.currentCase, what, r.n, at - r.data);
  if (g_guard.reportFd >= 0 && len > 0) (void)!::write(g_guard.reportFd, line, static_cast<size_t>(len));
  std::abort();
}

void guardedFree(void* ctx) {
  auto* r = static_cast<Region*>(ctx);
  for (char* p = r->lo; p < r->data; ++p)
    if (static_cast<uint8_t>(*p) != r->fill) reportAndAbort("before", *r, p);
  for (char* p = r->data + r->n; p < r->hi; ++p)
    if (static_cast<uint8_t>(*p) != r->fill) reportAndAbort("after", *r, p);
  ::munmap(r->base, r->total);
  g_guard.live -= r->n;
  delete r;
}

struct GuardAllocator final : c10::Allocator {
  c10::DataPtr allocate(size_t n) const override {
    TORCH_CHECK(n <= kMaxAllocation && g_guard.live + n <= kMaxLive, "op campaign: an allocation of ", n,
                " bytes is past the campaign's memory cap");
    const size_t page = pageSize();
    const size_t rounded = (n + 15) / 16 * 16;
    const size_t usable = (rounded + page - 1) / page * page + (rounded == 0 ? page : 0);
    const size_t total = usable + 2 * page;
    void* m = ::mmap(nullptr, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    TORCH_CHECK(m != MAP_FAILED, "op campaign: mmap of ", total, " bytes failed");
    auto* r = new Region{static_cast<char*>(m), total, nullptr, nullptr, nullptr, n, g_guard.fill};
    r->lo = r->base + page;
    r->hi = r->lo + usable;
    if (::mprotect(r->lo, usable, PROT_READ | PROT_WRITE) != 0) {
      ::munmap(m, total);
      delete r;
      TORCH_CHECK(false, "op campaign: mprotect failed");
    }
    std::memset(r->lo, r->fill, usable);
    r->data = g_guard.align == Align::Start ? r->lo : r->hi - rounded;
    g_guard.live += n;
    return {r->data, r, &guardedFree, c10::Device(c10::DeviceType::CPU)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return nullptr; }
};
GuardAllocator g_allocator;

// ---------------------------------------------------------------- targets

struct Target {
  std::string name;      // aten::native_batch_norm
  std::string overload;  // "" for the default
  std::string op;        // aten.native_batch_norm.default (the plan's spelling)
  const c10::FunctionSchema* schema;
};

bool typeSupported(const c10::TypePtr& type) {
  c10::TypePtr t = type;
  if (t->kind() == c10::TypeKind::OptionalType) t = t->castRaw<c10::OptionalType>()->getElementType();
  switch (t->kind()) {
    case c10::TypeKind::TensorType: case c10::TypeKind::IntType: case c10::TypeKind::SymIntType:
    case c10::TypeKind::FloatType: case c10::TypeKind::BoolType: case c10::TypeKind::NumberType:
    case c10::TypeKind::StringType: case c10::TypeKind::ScalarTypeType: case c10::TypeKind::LayoutType:
    case c10::TypeKind::DeviceObjType: case c10::TypeKind::MemoryFormatType: case c10::TypeKind::GeneratorType:
      return true;
    case c10::TypeKind::ListType: {
      c10::TypePtr e = t->castRaw<c10::ListType>()->getElementType();
      if (e->kind() == c10::TypeKind::OptionalType) e = e->castRaw<c10::OptionalType>()->getElementType();
      const auto k = e->kind();
      return k == c10::TypeKind::TensorType || k == c10::TypeKind::IntType || k == c10::TypeKind::SymIntType ||
             k == c10::TypeKind::FloatType || k == c10::TypeKind::BoolType;
    }
    default:
      return false;
  }
}

// Every aten overload the allow-list admits whose arguments the campaign can express (Dimname overloads and the
// like are left out: a plan cannot call them either), sorted by name.
std::vector<Target> allowedTargets() {
  std::vector<Target> out;
  for (const c10::OperatorName& on : c10::Dispatcher::singleton().getAllOpNames()) {
    if (on.name.rfind("aten::", 0) != 0) continue;
    const std::string bare = on.name.substr(6);
    const std::string op = "aten." + bare + "." + (on.overload_name.empty() ? "default" : on.overload_name);
    if (!ss::isPureTensorOp(op)) continue;
    auto h = c10::Dispatcher::singleton().findSchema(on);
    if (!h || !h->hasSchema()) continue;
    const c10::FunctionSchema& s = h->schema();
    if (s.is_vararg()) continue;
    bool ok = true;
    for (const auto& a : s.arguments()) ok = ok && typeSupported(a.type());
    if (!ok) continue;
    // Only CPU kernels matter (and ops with no kernel at all fail at the node the same way every time).
    out.push_back(Target{on.name, on.overload_name, op, &s});
  }
  std::sort(out.begin(), out.end(), [](const Target& a, const Target& b) { return a.op < b.op; });
  return out;
}

// ---------------------------------------------------------------- case generation

enum class Layout : uint8_t { Contiguous, Transposed, Expanded };
enum class Values : uint8_t { Normal, Indices, Wide, Special };

struct TensorSpec {
  at::ScalarType dtype = at::kFloat;
  std::vector<int64_t> shape;
  Layout layout = Layout::Contiguous;
  Values values = Values::Normal;
  int64_t base = 2;  // the case's common size (index values are drawn around it)
};

struct Case {
  std::vector<Arg> args;           // one per schema argument; tensors refer to placeholder node k (TensorRef{k, 0})
  std::vector<TensorSpec> tensors;  // placeholder k's tensor
};

class Gen {
 public:
  explicit Gen(uint64_t seed) : rng_(seed) {}
  uint64_t next() { return rng_(); }
  int pick(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  bool chance(int percent) { return pick(100) < percent; }

 private:
  std::mt19937_64 rng_;
};

uint64_t mix(uint64_t a, uint64_t b) {
  uint64_t x = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull + (a << 6) + (a >> 2));
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return x;
}

uint64_t caseSeed(uint64_t seed, const Target& t, long index) {
  uint64_t h = 1469598103934665603ull;
  for (char c : t.op) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
  return mix(mix(seed, h), static_cast<uint64_t>(index));
}

const int64_t kAdversarialInts[] = {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
                                    -(int64_t(1) << 40), int64_t(1) << 40, int64_t(1) << 31, -(int64_t(1) << 31),
                                    65536, 1000, -1000, 7, -7, 5};

int64_t genInt(Gen& g, int64_t base) {
  if (g.chance(78)) {
    const int64_t small[] = {0, 1, 2, 3, -1, -2, base, base - 1, base + 1, 1, 2, 0};
    return small[g.pick(12)];
  }
  return kAdversarialInts[g.pick(12)];
}

TensorSpec genTensor(Gen& g, int64_t base) {
  TensorSpec s;
  s.base = base;
  const int d = g.pick(100);
  s.dtype = d < 55 ? at::kFloat : d < 75 ? at::kLong : d < 80 ? at::kDouble : d < 85 ? at::kInt : d < 89 ? at::kBool
          : d < 92 ? at::kHalf : d < 94 ? at::kBFloat16 : d < 97 ? at::kComplexFloat : d < 99 ? at::kByte : at::kChar;
  const int r = g.pick(100);
  const int rank = r < 6 ? 0 : r < 30 ? 1 : r < 58 ? 2 : r < 78 ? 3 : r < 95 ? 4 : 5;
  for (int k = 0; k < rank; ++k) {
    const int p = g.pick(100);
    s.shape.push_back(p < 62 ? base : p < 77 ? 1 : p < 82 ? 0 : p < 92 ? base + 1 : p < 96 ? base - 1 : 5 + g.pick(3));
  }
  const int l = g.pick(100);
  s.layout = l < 82 ? Layout::Contiguous : l < 91 ? Layout::Transposed : Layout::Expanded;
  const int v = g.pick(100);
  const bool integral = at::isIntegralType(s.dtype, /*includeBool=*/false);
  s.values = integral ? (v < 70 ? Values::Indices : v < 90 ? Values::Normal : Values::Wide)
                      : (v < 90 ? Values::Normal : Values::Special);
  return s;
}

const char* const kStrings[] = {"sum", "mean", "none", "amax", "amin", "prod", "max", "min", "linear", "nearest",
                                "bilinear", "bicubic", "zeros", "border", "reflection", "tanh", "same", "valid", "L",
                                "U", "reduced", "complete", "r", "backward", "forward", "ortho", "ij,jk->ik", "i,i->",
                                "ii->i", "...,...->...", "xyz", "", "fro", "nuc", "floor", "trunc", "left", "right"};

const at::ScalarType kDtypes[] = {at::kFloat, at::kDouble, at::kLong, at::kInt, at::kBool, at::kHalf,
                                  at::kBFloat16, at::kComplexFloat, at::kByte, at::kChar};

ss::DType toPlanDtype(at::ScalarType t) {
  switch (t) {
    case at::kFloat: return ss::DType::F32;
    case at::kDouble: return ss::DType::F64;
    case at::kHalf: return ss::DType::F16;
    case at::kBFloat16: return ss::DType::BF16;
    case at::kLong: return ss::DType::I64;
    case at::kInt: return ss::DType::I32;
    case at::kShort: return ss::DType::I16;
    case at::kChar: return ss::DType::I8;
    case at::kByte: return ss::DType::U8;
    case at::kBool: return ss::DType::Bool;
    case at::kComplexFloat: return ss::DType::C64;
    default: return ss::DType::F32;
  }
}

class CaseBuilder {
 public:
  CaseBuilder(Gen& g, Case& c, int64_t base) : g_(g), c_(c), base_(base) {}

  Arg tensor() {
    // Aliasing: an earlier tensor of the case again (in-place ops see self as their other operand too).
    if (!c_.tensors.empty() && g_.chance(10)) return Arg::tensor(ss::TensorRef{g_.pick(static_cast<int>(c_.tensors.size())), 0});
    c_.tensors.push_back(genTensor(g_, base_));
    return Arg::tensor(ss::TensorRef{static_cast<int>(c_.tensors.size()) - 1, 0});
  }

  Arg value(const c10::Argument& sa) {
    c10::TypePtr t = sa.type();
    const bool optional = t->kind() == c10::TypeKind::OptionalType;
    if (optional) t = t->castRaw<c10::OptionalType>()->getElementType();
    if (t->kind() == c10::TypeKind::GeneratorType) return Arg::none();
    if (optional && g_.chance(30)) return Arg::none();
    // Keep a default now and then: many kernels are reached only through their defaults.
    if (sa.default_value() && g_.chance(25)) return Arg::none();
    return scalarOrList(t, sa.N());
  }

 private:
  Arg scalarOrList(const c10::TypePtr& t, c10::optional<int32_t> fixedLength) {
    switch (t->kind()) {
      case c10::TypeKind::TensorType: return tensor();
      case c10::TypeKind::IntType: case c10::TypeKind::SymIntType: return Arg::integer(genInt(g_, base_));
      case c10::TypeKind::FloatType: return Arg::real(genFloat());
      case c10::TypeKind::BoolType: return Arg::boolean(g_.chance(50));
      case c10::TypeKind::NumberType: return g_.chance(50) ? Arg::integer(genInt(g_, base_)) : Arg::real(genFloat());
      case c10::TypeKind::StringType: return Arg::string(kStrings[g_.pick(sizeof kStrings / sizeof *kStrings)]);
      case c10::TypeKind::ScalarTypeType: return Arg::dtype(toPlanDtype(kDtypes[g_.pick(10)]));
      case c10::TypeKind::LayoutType: return Arg::symbol(g_.chance(85) ? "torch.strided" : "torch.sparse_coo");
      case c10::TypeKind::DeviceObjType: return Arg::device("cpu");
      case c10::TypeKind::MemoryFormatType: {
        const char* f[] = {"torch.contiguous_format", "torch.preserve_format", "torch.channels_last"};
        return Arg::symbol(f[g_.pick(3)]);
      }
      case c10::TypeKind::ListType: {
        c10::TypePtr e = t->castRaw<c10::ListType>()->getElementType();
        const bool optionalItems = e->kind() == c10::TypeKind::OptionalType;
        if (optionalItems) e = e->castRaw<c10::OptionalType>()->getElementType();
        int length = g_.pick(5);
        if (fixedLength && g_.chance(70)) length = *fixedLength;
        if (e->kind() == c10::TypeKind::TensorType && g_.chance(70)) length = 1 + g_.pick(3);
        std::vector<Arg> items;
        for (int k = 0; k < length; ++k)
          items.push_back(optionalItems && g_.chance(25) ? Arg::none() : scalarOrList(e, c10::nullopt));
        return Arg::list(std::move(items));
      }
      default:
        return Arg::none();
    }
  }

  double genFloat() {
    const double v[] = {0.0, 1.0, 0.5, -1.0, 1e-5, 0.1, 2.0, -0.5, 1e30, -1e30,
                        std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()};
    return v[g_.chance(85) ? g_.pick(8) : 8 + g_.pick(4)];
  }

  Gen& g_;
  Case& c_;
  int64_t base_;
};

Case makeCase(const Target& t, uint64_t seed) {
  Gen g(seed);
  Case c;
  const int64_t base = 2 + g.pick(3);
  CaseBuilder b(g, c, base);
  for (const auto& sa : t.schema->arguments()) c.args.push_back(b.value(sa));
  return c;
}

std::string describeArg(const Arg& a, const Case& c) {
  switch (a.kind) {
    case Arg::Kind::None: return "None";
    case Arg::Kind::Bool: return a.b ? "True" : "False";
    case Arg::Kind::Int: return std::to_string(a.i);
    case Arg::Kind::Float: { std::ostringstream o; o << a.f; return o.str(); }
    case Arg::Kind::String: return "'" + a.s + "'";
    case Arg::Kind::DType: return ss::dtypeTorchName(a.dt);
    case Arg::Kind::Device: return a.s;
    case Arg::Kind::Symbol: return a.s;
    case Arg::Kind::List: {
      std::string s = "[";
      for (size_t k = 0; k < a.items.size(); ++k) s += (k ? ", " : "") + describeArg(a.items[k], c);
      return s + "]";
    }
    case Arg::Kind::Tensor: {
      const TensorSpec& t = c.tensors.at(a.t.node);
      std::string s = "t" + std::to_string(a.t.node) + ":" + c10::toString(t.dtype) + "[";
      for (size_t k = 0; k < t.shape.size(); ++k) s += (k ? "," : "") + std::to_string(t.shape[k]);
      s += "]";
      if (t.layout == Layout::Transposed) s += "T";
      if (t.layout == Layout::Expanded) s += "E";
      if (t.values == Values::Wide) s += "(wide)";
      if (t.values == Values::Special) s += "(nan/inf)";
      return s;
    }
  }
  return "?";
}

std::string describeCase(const Target& t, const Case& c) {
  std::string s = t.op + "(";
  const auto& args = t.schema->arguments();
  for (size_t k = 0; k < c.args.size(); ++k) s += (k ? ", " : "") + args[k].name() + "=" + describeArg(c.args[k], c);
  return s + ")";
}

// ---------------------------------------------------------------- running one case

at::Tensor makeTensor(const TensorSpec& s, uint64_t seed) {
  at::manual_seed(static_cast<uint64_t>(seed));
  std::vector<int64_t> phys = s.shape;
  int expandDim = -1;
  if (s.layout == Layout::Transposed && phys.size() >= 2) std::swap(phys[phys.size() - 1], phys[phys.size() - 2]);
  if (s.layout == Layout::Expanded)
    for (size_t k = 0; k < phys.size(); ++k)
      if (phys[k] > 1) { expandDim = static_cast<int>(k); phys[k] = 1; break; }
  at::Tensor t;
  if (at::isIntegralType(s.dtype, /*includeBool=*/true)) {
    if (s.dtype == at::kBool) {
      t = at::randint(0, 2, phys, at::kLong).to(at::kBool);
    } else {
      const int64_t hi = s.values == Values::Indices ? 2 * s.base + 2 : 1000;
      const int64_t lo = s.values == Values::Indices ? -1 : -1000;
      t = at::randint(lo, hi, phys, at::kLong).to(s.dtype);
      if (s.values == Values::Wide && t.numel() > 0)
        t.reshape(-1)[0].fill_(s.dtype == at::kLong ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << 30));
    }
  } else {
    t = at::randn(phys, at::kDouble).to(s.dtype);
    if (s.values == Values::Special && t.numel() > 0) {
      t.reshape(-1)[0].fill_(std::numeric_limits<double>::quiet_NaN());
      if (t.numel() > 1) t.reshape(-1)[1].fill_(std::numeric_limits<double>::infinity());
    }
  }
  if (s.layout == Layout::Transposed && phys.size() >= 2) t = t.transpose(-1, -2);
  if (expandDim >= 0) t = t.expand(s.shape);
  return t;
}

ss::Plan planOf(const Target& t, const Case& c) {
  ss::Plan plan;
  for (size_t k = 0; k < c.tensors.size(); ++k) {
    ss::Node p;
    p.name = "t" + std::to_string(k);
    p.op = "placeholder";
    p.kind = ss::NodeKind::Placeholder;
    p.outputs.push_back(ss::TensorMeta{c.tensors[k].shape, toPlanDtype(c.tensors[k].dtype), true});
    plan.graph.nodes.push_back(p);
  }
  ss::Node call;
  call.name = "call";
  call.op = t.op;
  call.args = c.args;
  call.outputs.push_back(ss::TensorMeta{{}, ss::DType::F32, false});  // unknown: nothing rewrites its arguments
  plan.graph.nodes.push_back(call);
  plan.graph.reindex();
  return plan;
}

struct Outcome {
  enum Kind { Ok, Error, Contract } kind = Ok;
  std::string message;
  std::vector<std::string> outputs;  // per output: a fingerprint of dtype, sizes and bytes
  std::vector<std::pair<int, std::string>> hiddenWrites;  // (schema argument, name) changed without a `!`
};

std::string fingerprint(const at::Tensor& t) {
  if (!t.defined()) return "undefined";
  if (t.layout() != at::kStrided) return "layout " + c10::str(t.layout());
  const at::Tensor c = t.contiguous();
  std::string s = c10::toString(t.scalar_type()) + c10::str(t.sizes()) + ":";
  s.append(static_cast<const char*>(c.data_ptr()), static_cast<size_t>(c.numel()) * c.element_size());
  return s;
}

std::string bytesOf(const at::Tensor& t) {
  if (!t.defined() || t.layout() != at::kStrided) return {};
  const at::Tensor c = t.contiguous();
  std::string s = c10::str(t.sizes()) + ":";
  s.append(static_cast<const char*>(c.data_ptr()), static_cast<size_t>(c.numel()) * c.element_size());
  return s;
}

bool isContractStop(const std::string& message) {
  return message.find("the runner checks this before the kernel") != std::string::npos ||
         message.find("the runner refuses") != std::string::npos;
}

Outcome runOnce(const Target& target, const Case& c, const ss::Plan& plan, uint64_t seed, bool watchInputs) {
  Outcome out;
  ss::runner::Values values(plan.graph.size());
  std::vector<std::string> before;
  try {
    for (size_t k = 0; k < c.tensors.size(); ++k) values[k] = {makeTensor(c.tensors[k], mix(seed, k))};
    if (watchInputs)
      for (size_t k = 0; k < c.tensors.size(); ++k) before.push_back(bytesOf(values[k][0]));
  } catch (const std::exception& e) {
    out.kind = Outcome::Error;
    out.message = std::string("harness: ") + e.what();
    return out;
  }
  ss::runner::ExecEnv env;
  env.plan = &plan;
  env.floatType = at::ScalarType::Undefined;  // dtypes as generated
  at::manual_seed(mix(seed, 0xfeed));
  try {
    ss::runner::runGraph(env, values);
  } catch (const ss::runner::NodeError& e) {
    out.message = e.what();
    out.kind = isContractStop(out.message) ? Outcome::Contract : Outcome::Error;
  } catch (const std::exception& e) {
    out.kind = Outcome::Error;
    out.message = e.what();
  }
  const int call = static_cast<int>(c.tensors.size());
  // A result too large to copy (an expanded view of 2^63 elements) is compared by its sizes only.
  auto safely = [](const at::Tensor& t, std::string (*f)(const at::Tensor&)) {
    try {
      return f(t);
    } catch (const std::exception&) {
      return "too large to copy: " + c10::str(t.sizes());
    }
  };
  if (out.kind == Outcome::Ok)
    for (const at::Tensor& t : values[call]) out.outputs.push_back(safely(t, fingerprint));
  if (watchInputs) {
    // Which schema arguments each placeholder was passed as, and whether any of them is written.
    const auto written = ss::runner::writtenArguments(*target.schema);
    std::map<int, std::vector<int>> argsOf;
    std::function<void(const Arg&, int)> walk = [&](const Arg& a, int k) {
      if (a.isTensor()) argsOf[a.t.node].push_back(k);
      for (const Arg& i : a.items) walk(i, k);
    };
    for (size_t k = 0; k < c.args.size(); ++k) walk(c.args[k], static_cast<int>(k));
    for (size_t k = 0; k < c.tensors.size(); ++k) {
      if (safely(values[k][0], bytesOf) == before[k]) continue;
      bool declared = false;
      for (int a : argsOf[static_cast<int>(k)]) declared = declared || written.at(a);
      if (declared) continue;
      for (int a : argsOf[static_cast<int>(k)])
        out.hiddenWrites.emplace_back(a, target.schema->arguments()[a].name());
    }
  }
  return out;
}

// Both runs of a case; the protocol line's status and, for a finding, its detail.
std::pair<std::string, std::string> runCase(const Target& t, long index, uint64_t baseSeed) {
  const uint64_t seed = caseSeed(baseSeed, t, index);
  const Case c = makeCase(t, seed);
  const ss::Plan plan = planOf(t, c);
  g_guard.align = Align::End;
  g_guard.fill = 0x5a;
  const Outcome a = runOnce(t, c, plan, seed, /*watchInputs=*/true);
  g_guard.align = Align::Start;
  g_guard.fill = 0xc3;
  const Outcome b = runOnce(t, c, plan, seed, /*watchInputs=*/false);
  if (!a.hiddenWrites.empty()) {
    std::string d;
    for (const auto& [k, name] : a.hiddenWrites) d += (d.empty() ? "" : ",") + std::to_string(k) + ":" + name;
    return {"hidden", d};
  }
  if ((a.kind == Outcome::Ok) != (b.kind == Outcome::Ok))
    return {"diff", "one run failed, the other did not: " + (a.kind == Outcome::Ok ? b.message : a.message)};
  if (a.kind == Outcome::Ok && a.outputs != b.outputs) {
    size_t k = 0;
    while (k < a.outputs.size() && k < b.outputs.size() && a.outputs[k] == b.outputs[k]) ++k;
    return {"diff", "output " + std::to_string(k) + " depends on memory outside the inputs"};
  }
  if (a.kind == Outcome::Contract) return {"contract", a.message};
  if (a.kind == Outcome::Error) return {"error", a.message};
  return {"ok", ""};
}

std::string oneLine(std::string s) {
  for (char& ch : s)
    if (ch == '\n' || ch == '\r') ch = ' ';
  if (s.size() > 300) s.resize(300);
  return s;
}

// The child: runs cases [first, last] of target `t`, one protocol line per event on `fd`.
[[noreturn]] void childMain(const Target& t, long first, long last, uint64_t seed, int fd, int timeLimitMs) {
  g_guard.reportFd = fd;
  at::set_num_threads(1);
  c10::SetCPUAllocator(&g_allocator, /*priority=*/255);
  for (long i = first; i <= last; ++i) {
    g_guard.currentCase = i;
    const std::string start = "S " + std::to_string(i) + "\n";
    (void)!::write(fd, start.data(), start.size());
    itimerval timer{};
    timer.it_value.tv_sec = timeLimitMs / 1000;
    timer.it_value.tv_usec = (timeLimitMs % 1000) * 1000;
    ::setitimer(ITIMER_REAL, &timer, nullptr);
    auto [status, detail] = runCase(t, i, seed);
    timer = itimerval{};
    ::setitimer(ITIMER_REAL, &timer, nullptr);
    const std::string line = "R " + std::to_string(i) + " " + status + " " + oneLine(detail) + "\n";
    (void)!::write(fd, line.data(), line.size());
  }
  ::_exit(0);
}

// ---------------------------------------------------------------- the campaign (parent)

struct OpStats {
  long cases = 0, ok = 0, errors = 0, contracts = 0, slow = 0;
  std::set<std::string> contractMessages;
};

struct Finding {
  std::string kind;  // crash, heap-write, diff, hidden
  std::string op;
  long index;
  std::string detail;
  std::string description;
};

struct Job {
  size_t target;
  long first, last;
  bool confirm = false;  // a crash seen in a batch, run alone
};

struct Running {
  pid_t pid;
  int fd;
  Job job;
  std::string buffer;
  long started = -1;  // the case started and not yet reported
  std::string pendingFinding;  // an F line of the case in flight
};

struct Options {
  long cases = 64;
  uint64_t seed = 1;
  int jobs = 2;
  int timeLimitMs = 3000;
  size_t sample = 0;  // 0: every target
  std::vector<std::string> ops;
  std::string log;
  bool noContracts = false;  // the baseline: what the campaign finds without the op contracts
};

void setChildLimits() {
  // Kernels given huge sizes may allocate outside the CPU allocator (std::vector): cap the address space.
  rlimit as{};
  as.rlim_cur = as.rlim_max = rlim_t(6) << 30;
  ::setrlimit(RLIMIT_AS, &as);
  rlimit core{};
  ::setrlimit(RLIMIT_CORE, &core);
}

Running spawn(const std::vector<Target>& targets, const Job& job, const Options& o) {
  int p[2];
  if (::pipe(p) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::close(p[0]);
    setChildLimits();
    childMain(targets[job.target], job.first, job.last, o.seed, p[1], o.timeLimitMs);
  }
  ::close(p[1]);
  return Running{pid, p[0], job, {}, -1, {}};
}

const char* signalName(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGABRT: return "SIGABRT";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGALRM: return "SIGALRM";
    case SIGKILL: return "SIGKILL";
    default: return "signal";
  }
}

int campaign(const Options& o) {
  std::vector<Target> targets = allowedTargets();
  if (!o.ops.empty()) {
    std::vector<Target> chosen;
    for (const Target& t : targets) {
      const std::string bare = t.name.substr(6);
      for (const std::string& want : o.ops)
        if (want == bare || want == t.op || want == bare + "." + (t.overload.empty() ? "default" : t.overload))
          chosen.push_back(t);
    }
    targets = chosen;
  }
  if (o.sample > 0 && targets.size() > o.sample) {
    // An even spread over the sorted list (the same sample for the same list).
    std::vector<Target> every;
    for (size_t k = 0; k < o.sample; ++k) every.push_back(targets[k * targets.size() / o.sample]);
    targets = every;
  }
  std::set<std::string> names;
  for (const Target& t : targets) names.insert(t.name);
  std::cerr << "op campaign: " << names.size() << " ops, " << targets.size() << " overloads, " << o.cases
            << " cases each (2 executions a case), seed " << o.seed << ", " << o.jobs << " jobs\n";
  const auto t0 = std::chrono::steady_clock::now();
  std::deque<Job> queue;
  for (size_t k = 0; k < targets.size(); ++k) queue.push_back(Job{k, 0, o.cases - 1});
  std::vector<OpStats> stats(targets.size());
  std::vector<Finding> findings;
  std::vector<Running> running;
  size_t finishedJobs = 0;
  auto finding = [&](const std::string& kind, size_t target, long index, const std::string& detail) {
    const Target& t = targets[target];
    findings.push_back(Finding{kind, t.op, index, detail, describeCase(t, makeCase(t, caseSeed(o.seed, t, index)))});
    std::cerr << "FINDING " << kind << " " << t.op << " case " << index << ": " << detail << "\n  "
              << findings.back().description << "\n";
  };
  auto handleLine = [&](Running& r, const std::string& line) {
    std::istringstream in(line);
    std::string tag;
    long index = -1;
    in >> tag >> index;
    std::string rest;
    std::getline(in, rest);
    if (!rest.empty() && rest[0] == ' ') rest.erase(0, 1);
    OpStats& s = stats[r.job.target];
    if (tag == "S") { r.started = index; return; }
    if (tag == "F") { r.pendingFinding = rest; return; }
    if (tag != "R") return;
    r.started = -1;
    if (r.job.confirm) return;  // counted in its batch
    ++s.cases;
    std::istringstream rs(rest);
    std::string status;
    rs >> status;
    std::string detail;
    std::getline(rs, detail);
    if (!detail.empty() && detail[0] == ' ') detail.erase(0, 1);
    if (status == "ok") ++s.ok;
    else if (status == "error") ++s.errors;
    else if (status == "contract") { ++s.contracts; s.contractMessages.insert(detail.substr(0, detail.find(" ("))); }
    else finding(status, r.job.target, index, detail);
  };
  while (!queue.empty() || !running.empty()) {
    while (!queue.empty() && static_cast<int>(running.size()) < o.jobs) {
      running.push_back(spawn(targets, queue.front(), o));
      queue.pop_front();
    }
    std::vector<pollfd> fds;
    for (const Running& r : running) fds.push_back(pollfd{r.fd, POLLIN, 0});
    ::poll(fds.data(), fds.size(), 1000);
    for (size_t k = 0; k < running.size();) {
      Running& r = running[k];
      bool done = false;
      if (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) {
        char buf[65536];
        const ssize_t got = ::read(r.fd, buf, sizeof buf);
        if (got > 0) {
          r.buffer.append(buf, static_cast<size_t>(got));
          size_t nl;
          while ((nl = r.buffer.find('\n')) != std::string::npos) {
            handleLine(r, r.buffer.substr(0, nl));
            r.buffer.erase(0, nl + 1);
          }
        } else {
          done = true;
        }
      }
      if (!done) { ++k; continue; }
      ::close(r.fd);
      int status = 0;
      ::waitpid(r.pid, &status, 0);
      if (r.started >= 0) {
        const int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        const std::string how = sig ? signalName(sig) : "exit " + std::to_string(WEXITSTATUS(status));
        if (sig == SIGALRM) {
          if (!r.job.confirm) { ++stats[r.job.target].cases; ++stats[r.job.target].slow; }
        } else if (!r.pendingFinding.empty()) {
          if (!r.job.confirm) ++stats[r.job.target].cases;
          finding("heap-write", r.job.target, r.started, r.pendingFinding);
        } else if (r.job.confirm) {
          finding("crash", r.job.target, r.started, "killed by " + how);
        } else {
          // Run it again alone: a crash is attributed to its own case.
          ++stats[r.job.target].cases;
          queue.push_front(Job{r.job.target, r.started, r.started, true});
        }
        if (!r.job.confirm && r.started < r.job.last) queue.push_back(Job{r.job.target, r.started + 1, r.job.last});
      } else if (r.job.confirm && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        finding("crash", r.job.target, r.job.first, "the child ended abnormally after the case");
      } else if (r.job.confirm) {
        finding("crash", r.job.target, r.job.first, "crashed in its batch, not when run alone");
      }
      if (!r.job.confirm && r.started < 0 && ++finishedJobs % 100 == 0)
        std::cerr << "op campaign: " << finishedJobs << " batches done, at " << targets[r.job.target].op << "\n";
      running.erase(running.begin() + static_cast<long>(k));
      fds.erase(fds.begin() + static_cast<long>(k));
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  OpStats total;
  for (const OpStats& s : stats) {
    total.cases += s.cases; total.ok += s.ok; total.errors += s.errors; total.contracts += s.contracts;
    total.slow += s.slow;
  }
  std::ostringstream report;
  report << "op campaign: seed " << o.seed << ", " << names.size() << " ops, " << targets.size() << " overloads, "
         << total.cases << " cases, " << 2 * total.cases << " executions in " << static_cast<long>(seconds) << " s: "
         << total.ok << " ran, " << total.errors << " failed at the node, " << total.contracts
         << " stopped by an op contract, " << total.slow << " past the time limit, " << findings.size()
         << " findings\n";
  for (size_t k = 0; k < targets.size(); ++k)
    if (stats[k].contracts > 0)
      report << "  " << targets[k].op << ": " << stats[k].contracts << " cases stopped by its contract ("
             << stats[k].contractMessages.size() << " distinct messages)\n";
  for (const Finding& f : findings)
    report << "FINDING " << f.kind << " " << f.op << " case " << f.index << ": " << f.detail << "\n  " << f.description
           << "\n";
  if (!o.log.empty()) {
    std::ofstream log(o.log);
    log << report.str();
    for (size_t k = 0; k < targets.size(); ++k) {
      const OpStats& s = stats[k];
      log << targets[k].op << " cases " << s.cases << " ran " << s.ok << " failed " << s.errors << " contract "
          << s.contracts << " slow " << s.slow << "\n";
    }
  }
  std::cout << report.str();
  return findings.empty() ? 0 : 1;
}

int repro(const std::string& op, long index, uint64_t seed) {
  for (const Target& t : allowedTargets()) {
    if (t.op != op) continue;
    const Case c = makeCase(t, caseSeed(seed, t, index));
    std::cout << describeCase(t, c) << "\n";
    at::set_num_threads(1);
    c10::SetCPUAllocator(&g_allocator, 255);
    g_guard.reportFd = 1;
    auto [status, detail] = runCase(t, index, seed);
    std::cout << status << " " << detail << "\n";
    return status == "ok" || status == "error" || status == "contract" ? 0 : 1;
  }
  std::cerr << "op campaign: no allowed overload " << op << "\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::vector<std::string> args(argv + 1, argv + argc);
  auto number = [&](size_t& k) -> long {
    if (k + 1 >= args.size()) throw std::invalid_argument(args[k] + " needs a value");
    return std::stol(args[++k]);
  };
  try {
    for (size_t k = 0; k < args.size(); ++k) {
      const std::string& a = args[k];
      if (a == "--cases") o.cases = number(k);
      else if (a == "--seed") o.seed = static_cast<uint64_t>(number(k));
      else if (a == "--jobs") o.jobs = static_cast<int>(number(k));
      else if (a == "--sample") o.sample = static_cast<size_t>(number(k));
      else if (a == "--time-limit-ms") o.timeLimitMs = static_cast<int>(number(k));
      else if (a == "--log" && k + 1 < args.size()) o.log = args[++k];
      else if (a == "--no-contracts") o.noContracts = true;
      else if (a == "--ops" && k + 1 < args.size()) {
        std::stringstream ss(args[++k]);
        for (std::string s; std::getline(ss, s, ',');) o.ops.push_back(s);
      } else if (a == "--list") {
        for (const Target& t : allowedTargets()) std::cout << t.op << "  " << toString(*t.schema) << "\n";
        return 0;
      } else if (a == "--repro" && k + 2 < args.size()) {
        const std::string op = args[k + 1];
        const long index = std::stol(args[k + 2]);
        k += 2;
        for (size_t j = k + 1; j < args.size(); ++j)
          if (args[j] == "--seed" && j + 1 < args.size()) o.seed = std::stoull(args[j + 1]);
          else if (args[j] == "--no-contracts") ss::runner::disableOpContractsForBaseline();
        return repro(op, index, o.seed);
      } else {
        throw std::invalid_argument("unknown argument " + a);
      }
    }
    if (o.cases < 1 || o.jobs < 1 || o.timeLimitMs < 1) throw std::invalid_argument("counts must be positive");
    if (o.noContracts) ss::runner::disableOpContractsForBaseline();
  } catch (const std::exception& e) {
    std::cerr << "op_campaign: " << e.what() << "\n";
    return 2;
  }
  return campaign(o);
}
