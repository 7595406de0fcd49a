#pragma once
// Internal to core/io: strict accessors over a simdjson DOM for the fast readers (plan_json_fast.cpp,
// autoparallel_json_fast.cpp). Every helper returns false to mean "cannot read this exactly": the fast readers
// then decline and the nlohmann reader reads the input and reports the located error. Nothing throws.
#include <simdjson.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/graph.h"
#include "core/io/native/plan_json.h"
#include "core/model/plan_builder.h"
#include "core/model/plan.h"

namespace ss::sjutil {

namespace sj = simdjson;
using sj::dom::element;
using sj::dom::element_type;

// Node name -> index: PlanBuilder::find, the graph's own name index (Graph::indexNext as each node ends).

inline bool isNull(element e) { return e.type() == element_type::NULL_VALUE; }

inline bool asString(element e, std::string_view& out) {
  if (e.type() != element_type::STRING) return false;
  return !e.get_string().get(out);
}

// Optional string member: absent or null -> `def`.
inline bool optString(const element* e, std::string& out, std::string_view def = {}) {
  if (!e || isNull(*e)) {
    out.assign(def);
    return true;
  }
  std::string_view v;
  if (!asString(*e, v)) return false;
  out.assign(v);
  return true;
}

// Optional integer member in [lo, hi]: absent or null -> `def`. Only INT64 values: simdjson reports UINT64 only
// beyond int64's range, where nlohmann clamps or errors.
inline bool optInt(const element* e, int64_t& out, int64_t def, int64_t lo, int64_t hi) {
  if (!e || isNull(*e)) {
    out = def;
    return true;
  }
  if (e->type() != element_type::INT64) return false;
  int64_t v = 0;
  if (e->get_int64().get(v)) return false;
  if (v < lo || v > hi) return false;
  out = v;
  return true;
}

// Optional number member: absent or null -> `def`. Integers convert as nlohmann's get<double>() does.
inline bool optNumber(const element* e, double& out, double def) {
  if (!e || isNull(*e)) {
    out = def;
    return true;
  }
  switch (e->type()) {
    case element_type::INT64: {
      int64_t v = 0;
      if (e->get_int64().get(v)) return false;
      out = static_cast<double>(v);
      return true;
    }
    case element_type::UINT64: {
      uint64_t v = 0;
      if (e->get_uint64().get(v)) return false;
      out = static_cast<double>(v);
      return true;
    }
    case element_type::DOUBLE: return !e->get_double().get(out);
    default: return false;
  }
}

// A tensor shape within the limits every reader applies (core/model/graph.h, as shapeFromJson in plan_json.cpp), each
// size an INT64.
inline bool readShape(element e, std::vector<int64_t>& out) {
  if (e.type() != element_type::ARRAY) return false;
  sj::dom::array shape = e;
  if (shape.size() > static_cast<size_t>(kMaxTensorRank)) return false;  // before allocating for it
  out.clear();
  out.reserve(shape.size());
  for (element v : shape) {
    int64_t d = 0;
    if (v.type() != element_type::INT64 || v.get_int64().get(d)) return false;
    out.push_back(d);
  }
  return shapeWithinLimits(out);
}

// Collects the members of an object whose keys are in `keys` (index = position); false on a duplicate known key
// (nlohmann keeps the last one; rare enough to leave to it). Unknown keys are ignored (as planFromJson does), or
// with `refuseUnknown` make it return false (for readers that refuse them: the DOM reader words the error).
template <size_t N>
inline bool members(element obj, const std::string_view (&keys)[N], const element* (&out)[N], element (&store)[N],
                    bool refuseUnknown = false) {
  if (obj.type() != element_type::OBJECT) return false;
  for (size_t k = 0; k < N; ++k) out[k] = nullptr;
  for (auto field : sj::dom::object(obj)) {
    bool known = false;
    for (size_t k = 0; k < N; ++k) {
      if (field.key != keys[k]) continue;
      if (out[k]) return false;
      store[k] = field.value;
      out[k] = &store[k];
      known = true;
      break;
    }
    if (!known && refuseUnknown) return false;
  }
  return true;
}

// Well under load.cpp's kMaxJsonDepth pre-scan (256): whatever simdjson accepts, the nlohmann path accepts too.
inline constexpr size_t kFastMaxDepth = 128;
static_assert(kJsonTailPadding >= sj::SIMDJSON_PADDING, "kJsonTailPadding must cover simdjson's padding");

// The fast readers' entry: parses `text` with simdjson (in place when `paddedTail`: kJsonTailPadding readable
// bytes follow it) and hands the root to `read(root, plan)`. Any parse failure or a false from `read` gives
// `Error{fallback}`, which tells the caller to read the text with the nlohmann reader.
template <class Read>
Result<Plan> parseAndRead(std::string_view text, bool paddedTail, const char* fallback, Read&& read) {
  sj::dom::parser parser;
  if (parser.allocate(text.size(), kFastMaxDepth)) return Error{fallback};
  element root;
  if (parser.parse(text.data(), text.size(), /*realloc_if_needed=*/!paddedTail).get(root)) return Error{fallback};
  Plan p;
  if (!read(root, p)) return Error{fallback};
  return p;
}

}  // namespace ss::sjutil
