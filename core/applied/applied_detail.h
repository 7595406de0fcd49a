// Small helpers the applied-graph units share (applied_groups.cpp, applied.cpp, applied_check.cpp). Internal to
// core/applied: not part of applied.h's contract.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "core/model/plan.h"

namespace ss::applied_detail {

inline std::string stripOverload(std::string op) {
  for (const char* s : {".default", ".Tensor", ".int", ".Scalar"})
    if (op.size() > std::strlen(s) && op.compare(op.size() - std::strlen(s), std::string::npos, s) == 0) {
      op.resize(op.size() - std::strlen(s));
      break;
    }
  return op;
}

inline bool isWait(const Node& n) { return n.op.rfind("_c10d_functional.wait_tensor", 0) == 0; }

inline const std::vector<int64_t>* knownShape(const TensorMeta* m) { return m && m->known ? &m->shape : nullptr; }

inline std::string coordString(const std::vector<int64_t>& c) {
  std::string s = "(";
  for (size_t i = 0; i < c.size(); ++i) s += (i ? ", " : "") + std::to_string(c[i]);
  return s + ")";
}

inline std::string meshDimString(const DeviceMesh& mesh, int d) {
  if (d == -2) return "the flattened mesh";
  if (d < 0) return "an unmapped mesh dim";
  return "mesh dim " + std::to_string(d) + " (" + mesh.dimName(d) + ")";
}
// The op a node is matched by across plan and applied graph: the names the apply pass re-traces to fold into one.
inline std::string matchKey(const Node& n) {
  std::string op = n.opName();
  if (op == "t" || op == "transpose") return "permute";
  if (op == "reshape" || op == "_unsafe_view") return "view";
  // autoparallel's mixed-precision cast is traced back as prims' conversion.
  if (op == "dtype_cast" || op == "_to_copy") return "convert_element_type";
  return op;
}

// Plan ops the apply pass's re-trace (with Inductor's decompositions) replaces by a chain of simpler ops:
// `einsum('abk,kn->abn', ...)` becomes unsqueeze / permute / view around a bmm. Such a node matches the
// chain's op that carries its source line and its local shape (the chain's result).
inline bool isDecomposedInApplied(const std::string& key) { return key == "einsum"; }
inline bool isDecompositionPiece(const std::string& key) {
  return key == "view" || key == "permute" || key == "bmm" || key == "mm" || key == "unsqueeze" || key == "squeeze" ||
         key == "clone" || key == "expand" || key == "sum";
}

// The plan's higher-order ops that the applied graph inlines (a local_map_hop's body traced through): 1 at such a
// HOP, 2 at the getitems reading its outputs; 0 elsewhere. One entry per plan node.
std::vector<char> inlinedHops(const Graph& pg, const Graph& ag);

// Plan node `node`'s local output shape on the rank at mesh coordinate `coord`, from its declared output spec;
// nullopt when the node has no single known output or no spec over the whole mesh.
std::optional<std::vector<int64_t>> planLocalShape(const Plan& plan, int node, const std::vector<int64_t>& coord);

}  // namespace ss::applied_detail
