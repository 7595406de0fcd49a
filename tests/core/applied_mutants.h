#pragma once
// The mutation harness of the applied-graph check (issue 39): realistic apply-pass defects written into a real
// TORCH_TRACE log's `autoparallel_parallel_graph` payload, at every place each defect class applies, with the
// record's has_payload md5 rewritten so the log reads as torch would have written it. Mutants are made at test time
// from the committed logs (none is committed).
//
// Defect classes, each at one planned transition (as the clean log's check attributes its collectives):
// - Drop: every collective performing the transition removed (each wait's users read the collective's input),
//   as autoparallel #348's lost redistribute;
// - Regroup: one collective's process group replaced by another mesh dim's (torch's group name for that dim on the
//   tracing rank; the size argument kept);
// - Redim: the tensor dim a gather / scatter / all-to-all works on replaced: a shard_dim_alltoall's gather dim, or
//   the dim of the cat that reassembles an all_gather's chunks (split on dim 0 -> cat on dim d);
// - DropAllReduce: one all_reduce (a Partial's reduction) removed.
// The expected finding: an error at the plan node whose transition was damaged (its consumer).
//
// Edits are text edits on the payload's statement lines (`    name: "ann" = torch.ops...(args);  x = None`):
// names are replaced as whole identifiers.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/applied/session.h"
#include "core/io/trace/md5.h"
#include "core/io/trace/trace_log.h"

namespace ss::test::mutants {

enum class DefectClass { Drop, Regroup, Redim, DropAllReduce };
inline constexpr DefectClass kDefectClasses[] = {DefectClass::Drop, DefectClass::Regroup, DefectClass::Redim,
                                                 DefectClass::DropAllReduce};
inline const char* defectName(DefectClass c) {
  switch (c) {
    case DefectClass::Drop: return "drop";
    case DefectClass::Regroup: return "regroup";
    case DefectClass::Redim: return "redim";
    case DefectClass::DropAllReduce: return "drop-all-reduce";
  }
  return "?";
}

struct Mutant {
  DefectClass cls = DefectClass::Drop;
  int expectNode = -1;   // the plan node (the damaged transition's consumer)
  int expectInput = -1;
  std::string what;      // "drop all_gather_into_tensor_3 (+ wait_tensor_3) on primals_2 -> convert_element_type_1"
  std::string payload;   // the mutated parallel graph
};

inline bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `text` with every whole identifier `from` replaced by `to`.
inline std::string replaceIdent(std::string_view text, std::string_view from, std::string_view to) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const size_t at = text.find(from, i);
    if (at == std::string_view::npos) break;
    // An attribute (`_c10d_functional.wait_tensor.default`) is no name.
    const bool left = at == 0 || (!identChar(text[at - 1]) && text[at - 1] != '.');
    const bool right = at + from.size() >= text.size() || !identChar(text[at + from.size()]);
    out.append(text.substr(i, at - i));
    if (left && right) out.append(to);
    else out.append(text.substr(at, from.size()));
    i = at + from.size();
  }
  out.append(text.substr(i));
  return out;
}

// The payload as statement lines, with each node's line found by its name.
struct PayloadLines {
  std::vector<std::string> lines;
  std::map<std::string, size_t> lineOf;  // node name -> line index
  explicit PayloadLines(std::string_view payload) {
    size_t s = 0;
    while (true) {
      const size_t e = payload.find('\n', s);
      lines.emplace_back(payload.substr(s, e == std::string_view::npos ? std::string_view::npos : e - s));
      if (e == std::string_view::npos) break;
      s = e + 1;
    }
    for (size_t i = 0; i < lines.size(); ++i) {
      const std::string& l = lines[i];
      size_t b = l.find_first_not_of(' ');
      if (b == std::string::npos || !identChar(l[b])) continue;
      size_t e = b;
      while (e < l.size() && identChar(l[e])) ++e;
      if (e + 1 < l.size() && ((l[e] == ':' && l[e + 1] == ' ') || (l[e] == ' ' && l[e + 1] == '=')))
        lineOf.emplace(l.substr(b, e - b), i);
    }
  }
  std::string join() const {
    std::string out;
    for (size_t i = 0; i < lines.size(); ++i) out += (i ? "\n" : "") + lines[i];
    return out;
  }
};

// Removes collective node `col` (and its wait): the wait's (else the collective's) users read `input` instead.
inline bool dropCollective(PayloadLines& p, const std::string& col, const std::string& wait, const std::string& input) {
  auto c = p.lineOf.find(col);
  if (c == p.lineOf.end()) return false;
  const std::string result = wait.empty() ? col : wait;
  size_t last = c->second;
  if (!wait.empty()) {
    auto w = p.lineOf.find(wait);
    if (w == p.lineOf.end()) return false;
    last = std::max(last, w->second);
    p.lines[w->second] = "";
  }
  p.lines[c->second] = "";
  for (size_t i = last + 1; i < p.lines.size(); ++i) p.lines[i] = replaceIdent(p.lines[i], result, input);
  return true;
}

// The log `log` (its text) with record `rec`'s payload replaced by `payload` and has_payload rewritten.
inline std::string replacePayload(std::string_view log, const TraceRecord& rec, const std::string& payload) {
  std::vector<std::string_view> lines;
  size_t s = 0;
  while (s <= log.size()) {
    const size_t e = log.find('\n', s);
    if (e == std::string_view::npos) {
      if (s < log.size()) lines.push_back(log.substr(s));
      break;
    }
    lines.push_back(log.substr(s, e - s));
    s = e + 1;
  }
  const size_t env = static_cast<size_t>(rec.line - 1), first = static_cast<size_t>(rec.payloadLine - 1);
  size_t end = first;
  while (end < lines.size() && !lines[end].empty() && lines[end][0] == '\t') ++end;
  std::string out;
  out.reserve(log.size() + 4096);
  for (size_t i = 0; i < first; ++i) {
    if (i == env) {
      std::string e(lines[i]);
      const std::string key = "\"has_payload\": \"";
      const size_t at = e.find(key);
      if (at != std::string::npos) e.replace(at + key.size(), 32, md5Hex(payload));
      out += e;
    } else {
      out += lines[i];
    }
    out += '\n';
  }
  size_t a = 0;
  while (true) {
    const size_t b = payload.find('\n', a);
    out += '\t';
    out += std::string_view(payload).substr(a, b == std::string::npos ? std::string::npos : b - a);
    out += '\n';
    if (b == std::string::npos) break;
    a = b + 1;
  }
  for (size_t i = end; i < lines.size(); ++i) {
    out += lines[i];
    out += '\n';
  }
  return out;
}

// Every mutant of every class for the clean session `s` (a log's; its rank-0 applied graph).
inline std::vector<Mutant> makeMutants(const AppliedSession& s, const std::string& payload) {
  std::vector<Mutant> out;
  if (s.applied.empty()) return out;
  const AppliedGraph& a = s.applied.front();
  const Graph& g = a.graph.graph;
  const Plan& plan = s.plan;
  auto nameOf = [&](int n) { return n >= 0 ? g.nodes[static_cast<size_t>(n)].name : std::string(); };
  auto inputOf = [&](const AppliedCollective& c) {
    const auto& ins = g.inputs(c.node);
    return ins.empty() ? std::string() : nameOf(ins[0].node);
  };
  auto edge = [&](const AppliedTransition& t) {
    return plan.graph.nodes[static_cast<size_t>(plan.graph.inputs(t.consumer)[static_cast<size_t>(t.input)].node)].name +
           " -> " + plan.graph.nodes[static_cast<size_t>(t.consumer)].name + ":" + std::to_string(t.input);
  };
  for (const AppliedTransition& t : a.transitions) {
    if (t.state != TransitionState::Applied || t.collectives.empty()) continue;
    // Drop: every collective of the transition.
    {
      PayloadLines p(payload);
      bool ok = true;
      std::string what = "drop";
      // Last first: a later collective of the chain reads an earlier one's wait, renamed when that one goes.
      std::vector<int> order = t.collectives;
      std::sort(order.begin(), order.end(), [&](int x, int y) {
        return a.collectives[static_cast<size_t>(x)].node > a.collectives[static_cast<size_t>(y)].node;
      });
      for (int k : order) {
        const AppliedCollective& c = a.collectives[static_cast<size_t>(k)];
        ok = ok && dropCollective(p, nameOf(c.node), nameOf(c.wait), inputOf(c));
        what += " " + nameOf(c.node);
      }
      if (ok) out.push_back({DefectClass::Drop, t.consumer, t.input, what + " on " + edge(t), p.join()});
    }
    for (int k : t.collectives) {
      const AppliedCollective& c = a.collectives[static_cast<size_t>(k)];
      const std::string cname = nameOf(c.node);
      // DropAllReduce
      if (c.kind == CollectiveKind::AllReduce) {
        PayloadLines p(payload);
        if (dropCollective(p, cname, nameOf(c.wait), inputOf(c)))
          out.push_back({DefectClass::DropAllReduce, t.consumer, t.input, "drop " + cname + " on " + edge(t), p.join()});
      }
      // Regroup: to the group of another mesh dim (the flattened mesh's collective: to mesh dim 0's).
      for (int d = 0; d < plan.mesh.ndim() && plan.mesh.ndim() > 1; ++d) {
        if (d == c.meshDim) continue;
        const std::string other = torchGroupName(plan.mesh, d, a.coord);
        if (other.empty() || other == c.group) continue;
        PayloadLines p(payload);
        auto at = p.lineOf.find(cname);
        if (at == p.lineOf.end()) continue;
        std::string& l = p.lines[at->second];
        const std::string from = "'" + c.group + "')", to = "'" + other + "')";
        const size_t pos = l.find(from);
        if (pos == std::string::npos) continue;
        l.replace(pos, from.size(), to);
        out.push_back({DefectClass::Regroup, t.consumer, t.input,
                       "regroup " + cname + " '" + c.group + "' -> '" + other + "' (mesh dim " + std::to_string(d) +
                           ") on " + edge(t),
                       p.join()});
        if (c.meshDim == -2) break;  // one regroup of a flattened-mesh collective
      }
      // Redim: a shard_dim_alltoall's gather dim; an all_gather's reassembly cat.
      if (c.op == "shard_dim_alltoall" && !c.inShape.empty()) {
        for (int d = 0; d < static_cast<int>(c.inShape.size()); ++d) {
          if (d == c.gatherDim || d == c.shardDim) continue;
          PayloadLines p(payload);
          auto at = p.lineOf.find(cname);
          if (at == p.lineOf.end()) continue;
          std::string& l = p.lines[at->second];
          const std::string from = ", " + std::to_string(c.gatherDim) + ", " + std::to_string(c.shardDim) + ", '";
          const size_t pos = l.find(from);
          if (pos == std::string::npos) continue;
          l.replace(pos, from.size(), ", " + std::to_string(d) + ", " + std::to_string(c.shardDim) + ", '");
          out.push_back({DefectClass::Redim, t.consumer, t.input,
                         "redim " + cname + " gather dim " + std::to_string(c.gatherDim) + " -> " + std::to_string(d) +
                             " on " + edge(t),
                         p.join()});
          break;
        }
      }
      if (c.kind == CollectiveKind::AllGather && c.wait >= 0) {
        // wait -> split(.., dim 0) -> getitems -> cat(.., d): the cat's dim to another one.
        for (const auto& [u, in] : g.users(c.wait)) {
          const Node& sp = g.nodes[static_cast<size_t>(u)];
          if (sp.opName() != "split") continue;
          int cat = -1;
          for (const auto& [gi, in2] : g.users(u))
            for (const auto& [cu, in3] : g.users(gi))
              if (g.nodes[static_cast<size_t>(cu)].opName() == "cat") cat = cu;
          if (cat < 0) continue;
          const Node& cn = g.nodes[static_cast<size_t>(cat)];
          if (cn.args.size() < 2 || !cn.args[1].isInt() || cn.outputs.empty() || !cn.outputs[0].known) continue;
          const int64_t dim = cn.args[1].i;
          const int64_t to = dim == 0 ? 1 : 0;
          PayloadLines p(payload);
          auto at = p.lineOf.find(cn.name);
          if (at == p.lineOf.end()) continue;
          std::string& l = p.lines[at->second];
          const std::string from = "], " + std::to_string(dim) + ")";
          const size_t pos = l.rfind(from);
          if (pos == std::string::npos) continue;
          l.replace(pos, from.size(), "], " + std::to_string(to) + ")");
          out.push_back({DefectClass::Redim, t.consumer, t.input,
                         "redim " + cname + "'s reassembly " + cn.name + " cat dim " + std::to_string(dim) + " -> " +
                             std::to_string(to) + " on " + edge(t),
                         p.join()});
          break;
        }
      }
    }
  }
  return out;
}

}  // namespace ss::test::mutants
