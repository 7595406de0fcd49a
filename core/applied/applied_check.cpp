// Applied graph analysis, part: the checks: each planned transition judged against the collectives on its path,
// unplanned collectives, local shapes against the plan's layout. See applied.h for the contracts.
#include "core/applied/applied.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <tuple>
#include <set>
#include <sstream>

#include "core/applied/applied_detail.h"
#include "core/model/layout.h"
#include "core/model/enum_names.h"

namespace ss {
using namespace applied_detail;

// ---- the checks ----

namespace {

std::string inputName(const Plan& plan, int node, int input) {
  const Node& n = plan.graph.nodes[node];
  // index_put's tensor inputs: self, the non-None indices, then values (docs/checks.md).
  if (n.opName() == "index_put" || n.opName() == "index_put_") {
    const int count = static_cast<int>(plan.graph.inputs(node).size());
    if (input == 0) return "self";
    if (input == count - 1) return "values";
    return "indices";
  }
  return "";
}

// Plan ops that move no data between ranks and before which the apply pass may perform the transition of the value
// they read (a parameter's all_gather hoisted before its transpose or its dtype cast).
bool isLocalLayoutOp(const Node& n) {
  const std::string k = matchKey(n);
  return k == "permute" || k == "view" || k == "convert_element_type" || k == "clone" || k == "alias" ||
         k == "unsqueeze" || k == "squeeze" || k == "expand" || k == "contiguous";
}

// The applied nodes between the applied consumer's input `input` and the first node matched to a plan node (or a
// placeholder): the ops that perform a transition. The walk goes on through the image of a local layout op whose
// own input keeps its layout (`passThrough`): the transition may have been performed before it. Returns the
// collectives on it (indices into cs) and the node reached.
std::vector<int> pathCollectives(const AppliedGraph& a, int appliedConsumer, int input, int* reached,
                                 const std::function<bool(int)>& passThrough) {
  const Graph& g = a.graph.graph;
  std::vector<int> out;
  *reached = -1;
  const auto& ins = g.inputs(appliedConsumer);
  if (input < 0 || input >= static_cast<int>(ins.size())) return out;
  int cur = ins[input].node;
  for (int steps = 0; steps < 64 && cur >= 0; ++steps) {
    if (a.planOf[cur] >= 0 || g.nodes[cur].kind == NodeKind::Placeholder) {
      *reached = cur;
      if (g.nodes[cur].kind == NodeKind::Placeholder || !passThrough(cur)) return out;
    }
    for (size_t k = 0; k < a.collectives.size(); ++k)
      if (a.collectives[k].node == cur) out.push_back(static_cast<int>(k));
    const auto& ci = g.inputs(cur);
    cur = ci.empty() ? -1 : ci[0].node;
  }
  return out;
}

// How the tensor dims of the value node `to` reads map to those of node `from` upstream of it (through input 0):
// M[d] is `to`'s dim d in `from`'s coordinates, through permutes, transposes and ops that keep the shape. Empty
// when `from` is not reached that way or the map is not known (a view that changes the shape).
std::vector<int> dimMap(const Graph& g, int from, int to) {
  auto shapeOf = [&](int n) -> const std::vector<int64_t>* {
    const Node& x = g.nodes[n];
    return x.outputs.size() == 1 && x.outputs[0].known ? &x.outputs[0].shape : nullptr;
  };
  const auto* s0 = shapeOf(to);
  if (!s0) return {};
  std::vector<int> m(s0->size());
  for (size_t d = 0; d < m.size(); ++d) m[d] = static_cast<int>(d);
  int cur = to;
  for (int steps = 0; steps < 64 && cur >= 0; ++steps) {
    if (cur == from) return m;
    const Node& x = g.nodes[cur];
    const auto& ins = g.inputs(cur);
    if (ins.empty()) return {};
    const int up = ins[0].node;
    const auto* so = shapeOf(cur);
    // A getitem of a split (no shape of its own) reads the split's input: one rank, dims in order.
    const int upUp = x.opName() == "getitem" && g.nodes[up].opName() == "split" && !g.inputs(up).empty()
                         ? g.inputs(up)[0].node : -1;
    if (upUp >= 0) {
      const auto* sx = shapeOf(upUp);
      if (!so || !sx || so->size() != sx->size()) return {};
      if (up == from) return m;
      cur = upUp;
      continue;
    }
    const auto* si = shapeOf(up);
    if (!so || !si) return {};
    const std::string k = matchKey(x);
    if (k == "permute" && x.args.size() > 1 && x.args[1].isList() && x.args[1].items.size() == si->size()) {
      const int r = static_cast<int>(si->size());
      for (int& d : m) {
        const Arg& p = x.args[1].items[static_cast<size_t>(d)];
        if (!p.isInt()) return {};
        d = static_cast<int>(p.i < 0 ? p.i + r : p.i);
      }
    } else if (so->size() != si->size() || (k == "view" && *so != *si)) {
      return {};  // a view that changes the shape: the dims are not followed
    }
    cur = up;
  }
  return {};
}

int collectiveIndexAt(const AppliedGraph& a, int node) {
  for (size_t k = 0; k < a.collectives.size(); ++k)
    if (a.collectives[k].node == node) return static_cast<int>(k);
  return -1;
}

// The applied image of the plan value input k of node c reads: its producer, or for a plan alias without a
// counterpart the aliased value's; -1 when it has none.
int producerImage(const Plan& plan, const AppliedGraph& a, int c, int k) {
  const Graph& pg = plan.graph;
  const auto& ins = pg.inputs(c);
  if (k < 0 || k >= static_cast<int>(ins.size())) return -1;
  int p = ins[k].node;
  for (int hops = 0; hops < 16 && p >= 0 && a.appliedOf[p] < 0 && pg.nodes[p].opName() == "alias" &&
                     !pg.inputs(p).empty();
       ++hops)
    p = pg.inputs(p)[0].node;
  return p >= 0 ? a.appliedOf[p] : -1;
}

// A decomposed consumer (einsum: unsqueeze / permute / view around a bmm) reads input k somewhere inside its chain,
// not at its image's input k: the collectives upstream of the image (every input, through unmatched nodes), nearest
// first, whose own upstream reaches `image` (the producer's image; when that is unknown, every one).
// The chain's own pieces (same source line) may have been matched to plan views / permutes of that line: passed.
std::vector<int> decomposedPathCollectives(const AppliedGraph& a, int appliedConsumer, int image) {
  const Graph& g = a.graph.graph;
  const std::string& code = g.nodes[appliedConsumer].source.code;
  auto unmatched = [&](int n) {
    const Node& x = g.nodes[n];
    if (x.kind == NodeKind::Placeholder) return false;
    return a.planOf[n] < 0 || (!code.empty() && x.source.code == code && isDecompositionPiece(matchKey(x)));
  };
  auto reaches = [&](int from) {
    if (image < 0) return true;
    std::vector<int> stack{from};
    std::set<int> seen;
    while (!stack.empty() && seen.size() < 256) {
      const int cur = stack.back();
      stack.pop_back();
      if (cur == image) return true;
      if (!seen.insert(cur).second || (cur != from && !unmatched(cur))) continue;
      for (const TensorRef& r : g.inputs(cur)) stack.push_back(r.node);
    }
    return false;
  };
  std::vector<int> out;
  std::vector<int> frontier;
  for (const TensorRef& r : g.inputs(appliedConsumer)) frontier.push_back(r.node);
  std::set<int> seen;
  for (size_t q = 0; q < frontier.size() && seen.size() < 256; ++q) {
    const int cur = frontier[q];
    if (cur < 0 || !seen.insert(cur).second || !unmatched(cur)) continue;
    if (const int k = collectiveIndexAt(a, cur); k >= 0 && reaches(cur)) out.push_back(k);
    for (const TensorRef& r : g.inputs(cur)) frontier.push_back(r.node);
  }
  return out;
}

// An inlined higher-order op's input: its transition is performed on the paths leaving the producer's image (the
// op's body follows, unmatched): the collectives downstream of `image` through unmatched nodes, nearest first.
std::vector<int> downstreamCollectives(const AppliedGraph& a, int image) {
  const Graph& g = a.graph.graph;
  std::vector<int> out;
  std::vector<int> frontier{image};
  std::set<int> seen;
  for (size_t q = 0; q < frontier.size() && seen.size() < 256; ++q) {
    const int cur = frontier[q];
    if (!seen.insert(cur).second) continue;
    if (cur != image && (a.planOf[cur] >= 0 || g.nodes[cur].kind == NodeKind::Output)) continue;
    if (const int k = collectiveIndexAt(a, cur); k >= 0 && cur != image) {
      out.push_back(k);  // the value's own collective: what comes after it is the region's program
      continue;
    }
    // Only through the local ops that move the value itself (casts, views, chunks): past a compute op the body's
    // collectives are its own, not this input's transition.
    if (cur != image && !isLocalLayoutOp(g.nodes[cur]) && g.nodes[cur].opName() != "split" &&
        g.nodes[cur].opName() != "getitem" && g.nodes[cur].opName() != "cat" && g.nodes[cur].opName() != "slice")
      continue;
    for (const auto& [u, in] : g.users(cur)) frontier.push_back(u);
  }
  return out;
}

bool isComm(CollectiveKind k) {
  return k == CollectiveKind::AllGather || k == CollectiveKind::AllReduce || k == CollectiveKind::ReduceScatter ||
         k == CollectiveKind::AllToAll;
}

// The collectives of `path` that performed steps (`used`) belong to the transition into plan node c's input k.
void claimUsed(AppliedGraph& a, const std::vector<int>& path, const std::vector<char>& used, int c, int k,
               AppliedTransition& tr, std::vector<char>& claimed) {
  for (size_t q = 0; q < path.size(); ++q)
    if (used[q]) {
      tr.collectives.push_back(path[q]);
      claimed[path[q]] = 1;
      a.collectives[path[q]].planConsumer = c;
      a.collectives[path[q]].planInput = k;
    }
}

// After every step of a transition has its collective: the other collectives on its path that work on a mesh dim
// the transition involves belong to it too (DTensor's redistribute may take a longer route than planRedistribute's,
// e.g. S(0)S(0) -> RS(0) as an all_gather on mesh dim 1, a local chunk on dim 1, all_gathers on mesh dims 0 and 1
// and a chunk). A mesh dim is involved when its placement changes or it shards a tensor dim that a changing mesh
// dim shards (nested shards are gathered and re-chunked); the flattened mesh's collective always is.
void claimInvolved(AppliedGraph& a, const std::vector<int>& path, std::vector<char>& used, const ShardingSpec& from,
                   const ShardingSpec& to) {
  const int nd = std::min(from.meshDims(), to.meshDims());
  std::vector<char> involved(static_cast<size_t>(std::max(nd, 0)), 0);
  std::set<int> tensorDims;
  for (int m = 0; m < nd; ++m)
    if (!(from[m] == to[m])) {
      involved[static_cast<size_t>(m)] = 1;
      if (from[m].isShard()) tensorDims.insert(from[m].dim);
      if (to[m].isShard()) tensorDims.insert(to[m].dim);
    }
  for (int m = 0; m < nd; ++m)
    if ((from[m].isShard() && tensorDims.count(from[m].dim)) || (to[m].isShard() && tensorDims.count(to[m].dim)))
      involved[static_cast<size_t>(m)] = 1;
  for (size_t q = 0; q < path.size(); ++q) {
    if (used[q]) continue;
    // The MoE's token all_to_all (split lists) is its region's own program, never a layout change's detour.
    if (a.collectives[static_cast<size_t>(path[q])].op == "all_to_all_single") continue;
    const int md = a.collectives[static_cast<size_t>(path[q])].meshDim;
    if (md == -2 || (md >= 0 && md < nd && involved[static_cast<size_t>(md)])) used[q] = 1;
  }
}

// Where the transition into input k of plan node c is judged: there, or for a plan alias at a user with a counterpart.
std::pair<int, int> judgePoint(const Graph& pg, const AppliedGraph& a, int c, int k) {
  int judgeAt = c, judgeInput = k;
  if (a.appliedOf[c] < 0 && pg.nodes[c].opName() == "alias") {
    // Breadth-first through alias chains: the first user (in plan order) that has a counterpart.
    std::vector<int> frontier{c};
    for (int hops = 0; hops < 16 && !frontier.empty() && judgeAt == c; ++hops) {
      std::vector<int> next;
      for (int f : frontier)
        for (const auto& [u, in] : pg.users(f)) {
          if (judgeAt != c) break;
          if (a.appliedOf[u] >= 0) {
            judgeAt = u;
            judgeInput = in;
          } else if (pg.nodes[u].opName() == "alias") {
            next.push_back(u);
          }
        }
      frontier = std::move(next);
    }
  }
  return {judgeAt, judgeInput};
}

// False when the applied graph gives `group` two sizes (GroupMapping::consistent).
bool groupConsistent(const AppliedGraph& a, const std::string& group) {
  for (const GroupMapping& g : a.groups)
    if (g.group == group) return g.consistent;
  return true;
}

// Whether collective `col` works on the tensor dim step `st` needs: `m` maps the plan value's dims to the
// collective's value's (dimMap; empty: not known, not judged). A gather from S(d) gathers d; a scatter to S(d)
// scatters d; an all_to_all S(a) -> S(b) gathers a (and a shard_dim_alltoall shards b).
bool tensorDimOk(const AppliedCollective& col, const RedistributeStep& st, const std::vector<int>& m) {
  if (m.empty() || col.tensorDim < 0) return true;
  auto mapped = [&](const Placement& p) {
    return p.kind == PlacementKind::Shard && p.dim >= 0 && p.dim < static_cast<int>(m.size()) ? m[static_cast<size_t>(p.dim)] : -1;
  };
  int want = -1;
  if (st.kind == CollectiveKind::AllGather || st.kind == CollectiveKind::AllToAll) want = mapped(st.from);
  if (st.kind == CollectiveKind::ReduceScatter) want = mapped(st.to);
  if (st.kind == CollectiveKind::AllToAll && col.op == "shard_dim_alltoall" && col.shardDim >= 0 && mapped(st.to) >= 0 &&
      col.shardDim != mapped(st.to))
    return false;
  return want < 0 || col.tensorDim == want;
}

// The communicating steps of `rp` no collective on `path` performs; marks in `used` the collectives that perform one.
// `maps[q]`: path collective q's dimMap (empty: its tensor dim is not judged). A collective of the right kind and
// mesh dim that works on another tensor dim performs nothing: a line in `wrong` says so.
std::vector<const RedistributeStep*> missingSteps(const Plan& plan, const AppliedGraph& a, const RedistributePlan& rp,
                                                  const std::vector<int>& path, std::vector<char>& used,
                                                  const std::vector<std::vector<int>>& maps = {},
                                                  std::vector<std::string>* wrong = nullptr) {
  std::vector<const RedistributeStep*> missing;
  for (const auto& st : rp.steps) {
    if (!isComm(st.kind)) continue;
    bool ok = false;
    for (size_t q = 0; q < path.size() && !ok; ++q) {
      const AppliedCollective& col = a.collectives[path[q]];
      const bool kindOk = col.kind == st.kind || (st.kind == CollectiveKind::AllToAll && col.kind == CollectiveKind::AllGather);
      // An unmapped group (two mesh dims of one size) performs a step of its size; an inconsistent one none.
      const bool dimOk = col.meshDim == st.meshDim || col.meshDim == -2 ||
                         (col.meshDim == -1 && col.groupSize == plan.mesh.dimSize(st.meshDim) &&
                          groupConsistent(a, col.group));
      if (!kindOk || !dimOk) continue;
      if (q < maps.size() && !tensorDimOk(col, st, maps[q])) {
        if (wrong)
          wrong->push_back("'" + a.graph.graph.nodes[col.node].name + "' (" + collectiveName(col.kind) + " on " +
                           meshDimString(plan.mesh, col.meshDim) + ") works on tensor dim " +
                           std::to_string(col.tensorDim) + " of its value, where " + st.toString() + " needs dim " +
                           std::to_string(st.kind == CollectiveKind::ReduceScatter ? maps[q][static_cast<size_t>(st.to.dim)]
                                                                                   : maps[q][static_cast<size_t>(st.from.dim)]));
        continue;
      }
      ok = true;
      if (!used[q]) used[q] = 1;
    }
    if (!ok) missing.push_back(&st);
  }
  return missing;
}

// autoparallel casts a whole tensor, then splits it (numerically the same as split, then cast): a conversion whose
// planned input transition only splits (no communication) may show its input's unsplit local shape.
bool castThenSplit(const Plan& plan, const AppliedGraph& a, int p, const CostModel& cost) {
  const Graph& pg = plan.graph;
  if (matchKey(pg.nodes[p]) != "convert_element_type" || pg.inputs(p).empty()) return false;
  const int j = a.appliedOf[p];
  if (j < 0) return false;
  const Node& an = a.graph.graph.nodes[j];
  if (an.outputs.size() != 1 || !an.outputs[0].known) return false;
  auto src = plan.producerSpec(p, 0);
  auto dst = plan.consumerSpec(p, 0);
  const TensorMeta* meta = pg.meta(pg.inputs(p)[0]);
  if (!src || !dst || *src == *dst || !meta || !meta->known) return false;
  RedistributePlan rp = planRedistribute(*meta, plan.mesh, *src, *dst, cost);
  if (!rp.possible) return false;
  for (const auto& st : rp.steps)
    if (isComm(st.kind)) return false;
  auto l = localShape(meta->shape, plan.mesh, *src, plan.mesh.rankOf(a.coord));
  return l && *l == an.outputs[0].shape;
}

// Judges the planned transition into input k of call node c on this rank: records it in `a`, its findings in `d`.
void checkTransition(const Plan& plan, AppliedGraph& a, const CheckOptions& copts, const RedistIndex& redist,
                     const std::vector<char>& inlined, const std::string& where, int c, int k,
                     std::vector<char>& claimed, Diagnostics& d) {
  const Graph& pg = plan.graph;
  const Graph& ag = a.graph.graph;
  const Node& cn = pg.nodes[c];
  const auto& ins = pg.inputs(c);
  auto src = plan.producerSpec(c, k);
  std::optional<ShardingSpec> dst;
  if (int r = redist.find(c, k); r >= 0) {
    src = plan.redistributes[r].from;
    dst = plan.redistributes[r].to;
  } else {
    dst = plan.consumerSpec(c, k);
  }
  if (!src || !dst || *src == *dst) return;
  // This edge's findings: at the consumer and input, what arrives against what the plan wants there.
  auto edgeError = [&](DiagKind kind) {
    Diagnostic x;
    x.severity = Severity::Error;
    x.kind = kind;
    x.node = c;
    x.input = k;
    x.have = src;
    x.want = dst;
    return x;
  };
  const TensorMeta* meta = pg.meta(ins[k]);
  if (!meta) return;
  RedistributePlan rp = planRedistribute(*meta, plan.mesh, *src, *dst, copts.cost);
  if (!rp.possible) {
    // A change of a Partial's reduce op (P(sum) -> P(avg)), which DTensor refuses (the checker reports it), is what
    // autoparallel's apply pass performs as an all_reduce to Replicate and the free R -> P(avg): judged as that.
    ShardingSpec mid = *src;
    bool change = false;
    for (int m = 0; m < src->meshDims() && m < dst->meshDims(); ++m)
      if ((*src)[m].isPartial() && (*dst)[m].isPartial() && (*src)[m].reduce != (*dst)[m].reduce) {
        mid.placements[m] = Placement::replicate();
        change = true;
      }
    if (!change) return;
    RedistributePlan toR = planRedistribute(*meta, plan.mesh, *src, mid, copts.cost);
    RedistributePlan fromR = planRedistribute(*meta, plan.mesh, mid, *dst, copts.cost);
    if (!toR.possible || !fromR.possible) return;
    rp = std::move(toR);
    rp.steps.insert(rp.steps.end(), fromR.steps.begin(), fromR.steps.end());
  }
  ++a.transitionsPlanned;
  AppliedTransition tr;
  tr.consumer = c;
  tr.input = k;
  tr.from = src;
  tr.to = dst;
  for (const auto& st : rp.steps)
    if (isComm(st.kind)) tr.planned.push_back(st);
  // A plan alias has no counterpart (the apply pass's cleanup removes aliases): its transition is performed
  // before the alias's first user, judged there at the input that reads the alias.
  const auto [judgeAt, judgeInput] = judgePoint(pg, a, c, k);
  const int ac = a.appliedOf[judgeAt];
  if (ac < 0) {  // the consumer has no counterpart: nothing to judge
    // An inlined higher-order op (local_map_hop): its input's transition is on the paths leaving the producer's
    // image (through the inlined body, up to the next matched node). Found there it is applied; a step with no
    // collective of its kind and mesh dim there means the body reads the value untransformed: an error.
    const int image = inlined[judgeAt] == 1 ? producerImage(plan, a, judgeAt, judgeInput) : -1;
    if (image >= 0) {
      std::vector<int> path = downstreamCollectives(a, image);
      std::vector<char> used(path.size(), 0);
      std::vector<const RedistributeStep*> missing = missingSteps(plan, a, rp, path, used);
      tr.appliedProducer = image;
      if (missing.empty()) {
        claimUsed(a, path, used, c, k, tr, claimed);
        tr.state = TransitionState::Applied;
        ++a.transitionsFound;
      } else {
        tr.state = TransitionState::Missing;
        Diagnostic x = edgeError(DiagKind::TransitionNotApplied);
        std::string steps;
        for (const RedistributeStep* st : missing) {
          tr.missing.push_back(*st);
          steps += (steps.empty() ? "" : " and ") + std::string(collectiveName(st->kind)) + " on " +
                   meshDimString(plan.mesh, st->meshDim);
        }
        x.message = "the planned " + src->toMeshString() + " -> " + dst->toMeshString() + " (" + steps + ") into " +
                    cn.name + " input " + std::to_string(k) + " (a region the applied graph inlines) is not in the " +
                    "applied graph: on " + where + " no such collective reads '" + ag.nodes[image].name +
                    "' before the region's ops";
        x.fix = "the apply pass must insert " + rp.summary() + " on the edge " + pg.nodes[ins[k].node].name + " -> " +
                cn.name + " (input " + std::to_string(k) + ")";
        tr.fix = x.fix;
        for (const RedistributeStep* st : missing) x.notes.push_back("missing: " + st->toString());
        d.items.push_back(std::move(x));
      }
    }
    a.transitions.push_back(std::move(tr));
    return;
  }
  tr.appliedConsumer = ac;
  if (judgeInput < static_cast<int>(ag.inputs(ac).size())) tr.appliedProducer = ag.inputs(ac)[judgeInput].node;
  // A decomposed consumer's image is the last piece of its chain, whose inputs are not the consumer's.
  const bool decomposed = isDecomposedInApplied(matchKey(pg.nodes[judgeAt]));
  int reached = -1;
  // Through the image of a plan layout op (permute, view, cast, ...) whose own input keeps its layout.
  auto passThrough = [&](int appliedNode) {
    const int p = a.planOf[appliedNode];
    if (p < 0 || !isLocalLayoutOp(pg.nodes[p]) || pg.inputs(p).empty() || redist.find(p, 0) >= 0) return false;
    auto ps = plan.producerSpec(p, 0), cs = plan.consumerSpec(p, 0);
    return ps && cs && *ps == *cs;
  };
  std::vector<int> path = pathCollectives(a, ac, judgeInput, &reached, passThrough);
  if (decomposed)  // the input's own branch of the chain, after the first-input walk's
    for (int q : decomposedPathCollectives(a, ac, producerImage(plan, a, judgeAt, judgeInput)))
      if (std::find(path.begin(), path.end(), q) == path.end()) path.push_back(q);
  // Each path collective's tensor dims against the plan value's: from the value the consumer reads (a decomposed
  // consumer: whichever of its inputs leads up to the collective).
  std::vector<std::vector<int>> maps(path.size());
  for (size_t q = 0; q < path.size(); ++q) {
    const int from = a.collectives[static_cast<size_t>(path[q])].result;
    const auto& aIn = ag.inputs(ac);
    for (size_t i = 0; i < aIn.size() && maps[q].empty(); ++i) {
      if (!decomposed && static_cast<int>(i) != judgeInput) continue;
      maps[q] = dimMap(ag, from, aIn[i].node);
    }
    if (!meta->known || maps[q].size() != meta->shape.size()) maps[q].clear();
  }
  // Each communicating step needs a collective of its kind on its mesh dim and tensor dim (an all_to_all may be
  // done as an all_gather then a local chunk; the flattened mesh's collective covers every dim).
  std::vector<char> used(path.size(), 0);
  std::vector<std::string> wrongDim;
  std::vector<const RedistributeStep*> missing = missingSteps(plan, a, rp, path, used, maps, &wrongDim);
  if (missing.empty() && !tr.planned.empty()) claimInvolved(a, path, used, *src, *dst);
  claimUsed(a, path, used, c, k, tr, claimed);
  // What arrives and what the consumer's spec needs, on this rank.
  const auto& aIns = ag.inputs(ac);
  const TensorMeta* arrives =
      !decomposed && judgeInput < static_cast<int>(aIns.size()) ? ag.meta(aIns[judgeInput]) : nullptr;
  std::optional<std::vector<int64_t>> need;
  if (meta->known)
    if (auto l = localShape(meta->shape, plan.mesh, *dst, plan.mesh.rankOf(a.coord))) need = *l;
  const std::string inName = inputName(plan, c, k);
  const std::string inLabel = "input " + std::to_string(k) + (inName.empty() ? "" : " (" + inName + ")");
  for (const RedistributeStep* st : missing) tr.missing.push_back(*st);
  tr.state = missing.empty() ? TransitionState::Applied : TransitionState::Missing;
  a.transitions.push_back(std::move(tr));
  if (missing.empty()) {
    ++a.transitionsFound;
    if (arrives && arrives->known && need && arrives->shape != *need && !castThenSplit(plan, a, c, copts.cost)) {
      Diagnostic x = edgeError(DiagKind::LocalShapeMismatch);
      x.message = "on " + where + " " + inLabel + " of " + cn.name + " arrives with local shape " +
                  shapeToString(arrives->shape) + " in the applied graph; the plan's " + dst->toMeshString() +
                  " of " + shapeToString(meta->shape) + " gives " + shapeToString(*need);
      d.items.push_back(std::move(x));
    }
    return;
  }
  Diagnostic x = edgeError(DiagKind::TransitionNotApplied);
  std::string steps;
  int64_t bytes = 0;
  double us = 0;
  for (const RedistributeStep* st : missing) {
    steps += (steps.empty() ? "" : " and ") + std::string(collectiveName(st->kind)) + " on " + meshDimString(plan.mesh, st->meshDim);
    bytes += st->bytesSent;
    us += st->timeUs;
  }
  const std::string producer = pg.nodes[ins[k].node].name;
  const int param = cn.kind == NodeKind::Output ? plan.gradientParamOf(k) : -1;
  const std::string what =
      param >= 0 ? " bringing the gradient of parameter " + pg.nodes[param].name +
                       (pg.nodes[param].modulePath.empty() ? "" : " (" + pg.nodes[param].modulePath + ")") +
                       " to its placement"
                 : "";
  x.message = "the planned " + src->toMeshString() + " -> " + dst->toMeshString() + " (" + steps + ", " +
              formatBytes(bytes) + " per rank)" + what + (wrongDim.empty() ? " is not in the applied graph" : " is performed on the wrong tensor dim") + ": on " + where +
              " " + cn.name +
              " " + inLabel;
  if (arrives && arrives->known && need && arrives->shape == *need)  // e.g. a Partial left unreduced
    x.message += " receives a value of the right local shape " + shapeToString(*need) + " still in " +
                 src->toMeshString() + ", not " + dst->toMeshString();
  else
    x.message += " receives local " + (arrives && arrives->known ? shapeToString(arrives->shape) : std::string("?")) +
                 " where " + dst->toMeshString() + " needs " + (need ? shapeToString(*need) : "?");
  x.fix = "the apply pass must insert " + rp.summary() + " on the edge " + producer + " -> " + cn.name +
          " (input " + std::to_string(k) + ")";
  a.transitions.back().fix = x.fix;  // this transition's record (pushed above)
  const int readsFrom = judgeInput < static_cast<int>(aIns.size()) ? aIns[judgeInput].node : -1;
  x.notes.push_back("applied graph: '" + ag.nodes[ac].name + "' reads '" + (readsFrom >= 0 ? ag.nodes[readsFrom].name : "?") +
                    "'" + (path.empty() ? " with no collective between them" : (wrongDim.empty() ? " through collectives of other kinds or mesh dims" : " through a collective on another tensor dim")));
  for (const RedistributeStep* st : missing) x.notes.push_back("missing: " + st->toString());
  for (const std::string& w : wrongDim) x.notes.push_back("wrong tensor dim: " + w);
  (void)us;
  d.items.push_back(std::move(x));
}

// Collectives no planned transition explains (not `claimed`): a warning each, recorded in a.unplanned.
void reportUnplannedCollectives(const Plan& plan, AppliedGraph& a, const std::vector<char>& claimed,
                                const std::vector<char>& inlined, Diagnostics& d) {
  const Graph& pg = plan.graph;
  const Graph& ag = a.graph.graph;
  // True when plan input `input` of `consumer` is (through aliases) an output of an inlined higher-order op.
  auto readsInlinedOutput = [&](int consumer, int input) {
    const auto& ins = pg.inputs(consumer);
    if (input < 0 || input >= static_cast<int>(ins.size())) return false;
    int p = ins[input].node;
    for (int hops = 0; hops < 16 && p >= 0 && pg.nodes[p].opName() == "alias" && !pg.inputs(p).empty(); ++hops)
      p = pg.inputs(p)[0].node;
    return p >= 0 && inlined[p] == 2;
  };
  for (size_t q = 0; q < a.collectives.size(); ++q) {
    if (claimed[q]) continue;
    const AppliedCollective& col = a.collectives[q];
    // The first plan node downstream (through the wait and unmatched ops); and whether any plan node it reaches
    // first reads it as an inlined higher-order op's output: then it is that op's own program (a local_map
    // region's all_to_all), no transition of the plan.
    int consumer = -1, input = -1;
    bool region = false;
    std::vector<int> frontier{col.wait >= 0 ? col.wait : col.node};
    std::set<int> seen;
    while (!frontier.empty() && seen.size() < 1024 && !region) {
      const int cur = frontier.back();
      frontier.pop_back();
      if (!seen.insert(cur).second) continue;
      for (const auto& [user, in] : ag.users(cur)) {
        if (a.planOf[user] >= 0) {
          if (consumer < 0) {
            consumer = a.planOf[user];
            input = in;
          }
          if (readsInlinedOutput(a.planOf[user], in)) region = true;
          continue;
        }
        frontier.push_back(user);
      }
    }
    // An invalid collective is an error where it feeds (its arguments are wrong, in a region's program too), not
    // one more unplanned warning.
    if (!col.invalid.empty()) {
      Diagnostic x = invalidCollectiveDiagnostic(ag, col);
      x.node = consumer;
      x.input = consumer >= 0 ? input : -1;
      x.message += consumer >= 0 ? " (it feeds " + pg.nodes[consumer].name + ")" : "";
      d.items.push_back(std::move(x));
      continue;
    }
    if (region) continue;
    a.unplanned.push_back({static_cast<int>(q), consumer, input});
    Diagnostic x;
    x.severity = Severity::Warning;
    x.kind = DiagKind::UnplannedCollective;
    x.node = consumer;
    x.input = consumer >= 0 ? input : -1;
    x.message = "the applied graph's '" + ag.nodes[col.node].name + "' (" + col.toString(plan.mesh) +
                ") performs no transition the plan has" + (consumer >= 0 ? " (it feeds " + pg.nodes[consumer].name + ")" : "");
    d.items.push_back(std::move(x));
  }
}

// Matched nodes whose applied shape is not the plan's layout on this rank: an error each.
void reportLocalShapeMismatches(const Plan& plan, const AppliedGraph& a, const std::string& where,
                                const CostModel& cost, Diagnostics& d) {
  const Graph& pg = plan.graph;
  const Graph& ag = a.graph.graph;
  for (int p = 0; p < pg.size(); ++p) {
    const int j = a.appliedOf[p];
    if (j < 0 || pg.nodes[p].kind == NodeKind::Output) continue;
    const Node& an = ag.nodes[j];
    if (an.outputs.size() != 1 || !an.outputs[0].known) continue;
    auto want = planLocalShape(plan, p, a.coord);
    if (!want || *want == an.outputs[0].shape || castThenSplit(plan, a, p, cost)) continue;
    Diagnostic x;
    x.severity = Severity::Error;
    x.kind = DiagKind::LocalShapeMismatch;
    x.node = p;
    x.have = plan.specs[p].outputs[0];
    x.message = "on " + where + " the applied graph's '" + an.name + "' has local shape " +
                shapeToString(an.outputs[0].shape) + "; the plan's " + plan.specs[p].outputs[0]->toMeshString() + " of " +
                shapeToString(pg.nodes[p].outputs[0].shape) + " gives " + shapeToString(*want);
    d.items.push_back(std::move(x));
  }
}

}  // namespace

Diagnostic invalidCollectiveDiagnostic(const Graph& g, const AppliedCollective& c) {
  Diagnostic x;
  x.severity = Severity::Error;
  x.kind = DiagKind::InvalidCollective;
  x.message = "the applied graph's '" + g.nodes[c.node].name + "' (" + c.op + " on group '" + Error::oneLine(c.group) +
              "') is no collective a process group runs: " + c.invalid;
  return x;
}

Diagnostics invalidCollectiveDiagnostics(const AppliedAlone& a) {
  Diagnostics d;
  for (const AppliedCollective& c : a.collectives) {
    if (c.invalid.empty()) continue;
    Diagnostic x = invalidCollectiveDiagnostic(a.plan.graph, c);
    x.node = c.node;
    d.items.push_back(std::move(x));
  }
  return d;
}

Diagnostics checkApplied(const Plan& plan, AppliedGraph& a, const CheckOptions& copts) {
  Diagnostics d;
  const Graph& pg = plan.graph;
  const std::string where = "rank " + std::to_string(a.rank) + " " + coordString(a.coord);
  std::vector<char> claimed(a.collectives.size(), 0);
  RedistIndex redist;
  redist.build(plan);
  const std::vector<char> inlined = inlinedHops(pg, a.graph.graph);
  a.transitionsPlanned = a.transitionsFound = 0;
  a.transitions.clear();
  a.unplanned.clear();
  for (auto& col : a.collectives) col.planConsumer = col.planInput = -1;  // re-judged from scratch (after an edit)
  for (int c = 0; c < pg.size(); ++c) {
    const Node& cn = pg.nodes[c];
    // Calls, and the output: a gradient's transition to its parameter's placement ends there.
    if (cn.kind != NodeKind::Call && cn.kind != NodeKind::Output) continue;
    const auto& ins = pg.inputs(c);
    for (int k = 0; k < static_cast<int>(ins.size()); ++k)
      checkTransition(plan, a, copts, redist, inlined, where, c, k, claimed, d);
  }
  reportUnplannedCollectives(plan, a, claimed, inlined, d);
  reportLocalShapeMismatches(plan, a, where, copts.cost, d);
  std::stable_sort(d.items.begin(), d.items.end(), [](const Diagnostic& x, const Diagnostic& y) {
    return std::make_pair(x.node < 0 ? INT32_MAX : x.node, x.input) < std::make_pair(y.node < 0 ? INT32_MAX : y.node, y.input);
  });
  return d;
}


}  // namespace ss
