// localise(): see runner/divergence.h for the contract.
#include "runner/divergence.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "core/model/layout.h"

namespace ss::runner {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string joinInts(const std::vector<int>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

std::string fmtErr(double v) {
  if (std::isnan(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// One line: where, how much, who, and why (tagged inputs, shapes).
std::string describe(const Divergence& d, const DeviceMesh& mesh, const std::vector<int64_t>& globalShape,
                     const std::optional<AutoSpTag>& tag) {
  std::string s = "node " + d.node + (d.output ? " output " + std::to_string(d.output) : "") + " (batch " +
                  std::to_string(d.batch) + ", spec " + d.spec + ")";
  if (d.shapeMismatch) {
    for (const auto& r : d.ranks)
      if (!r.shape.empty() || !r.expectedShape.empty()) {
        s += ": rank " + std::to_string(r.rank) + " holds " + shapeToString(r.shape) + " where the spec gives " +
             shapeToString(r.expectedShape);
        break;
      }
  } else {
    s += ": rel. error " + fmtErr(d.relError);
  }
  if (!d.wrongRanks.empty())
    s += "; wrong on " + std::string(d.wrongRanks.size() == static_cast<size_t>(mesh.size()) ? "every rank" : "ranks " +
                                                                                                  joinInts(d.wrongRanks));
  for (const auto& g : d.disagreeingReplicas) s += "; replicas " + joinInts(g) + " disagree";
  if (tag && !d.plannedDims.empty() &&
      std::find(d.plannedDims.begin(), d.plannedDims.end(), d.slicedDim) == d.plannedDims.end()) {
    std::string planned;
    for (size_t i = 0; i < d.plannedDims.size(); ++i) planned += (i ? ", " : "") + std::to_string(d.plannedDims[i]);
    s += "; AutoSP tag " + tag->toString() + (tag->seqDim ? "" : " (bare: AutoSP's default dim 1)") +
         " slices dim " + std::to_string(d.slicedDim) + " of " + shapeToString(globalShape) +
         " where the plan shards dim " + planned;
  }
  return s;
}

}  // namespace

Localisation localise(const Plan& plan, const ReferenceFactsMap& refs,
                      const std::vector<std::vector<BlockMeasure>>& perRank, double rtol) {
  // (batch, node, output) -> per rank measure (nullptr: that rank has none)
  std::map<MeasureKey, std::vector<const BlockMeasure*>> byKey;
  const int ranks = static_cast<int>(perRank.size());
  for (int r = 0; r < ranks; ++r)
    for (const auto& m : perRank[r]) {
      auto& v = byKey[{m.batch, m.node, m.output}];
      if (v.empty()) v.resize(ranks, nullptr);
      v[r] = &m;
    }
  Localisation out;
  const DeviceMesh& mesh = plan.mesh;
  for (const auto& [key, measures] : byKey) {
    auto [batch, node, output] = key;
    auto ref = refs.find(key);
    if (ref == refs.end()) continue;
    const auto& outs = plan.specs.at(node).outputs;
    if (output >= static_cast<int>(outs.size()) || !outs[output]) continue;
    const ShardingSpec& spec = *outs[output];
    const ReferenceFacts& rf = ref->second;
    int64_t replicas = 1;
    for (int d = 0; d < mesh.ndim(); ++d)
      if (!spec[d].isShard()) replicas *= mesh.dimSize(d);

    Divergence dv;
    dv.node = plan.graph.nodes[node].name;
    dv.nodeIndex = node;
    dv.output = output;
    dv.batch = batch;
    dv.spec = spec.toMeshString();
    double sumDiff2 = 0;
    auto scaleOf = [&](const BlockMeasure& m) {
      double floor = rf.numel > 0 ? rf.norm * std::sqrt(static_cast<double>(m.numel) / static_cast<double>(rf.numel)) : 0;
      return std::max(m.expected, floor);
    };
    for (int r = 0; r < ranks; ++r) {
      const BlockMeasure* m = measures[r];
      if (!m) continue;
      RankDivergence rd;
      rd.rank = r;
      if (!m->shapeOk) {
        rd.relError = kNaN;
        rd.wrong = true;
        rd.shape = m->shape;
        auto expected = localShape(rf.shape, mesh, spec, r);
        if (expected) rd.expectedShape = *expected;
        dv.shapeMismatch = true;
      } else {
        double scale = scaleOf(*m);
        rd.relError = scale > 0 ? m->diff / scale : m->diff;
        rd.wrong = !(rd.relError <= rtol);
        sumDiff2 += m->diff * m->diff / static_cast<double>(replicas);
      }
      if (rd.wrong) dv.wrongRanks.push_back(r);
      dv.ranks.push_back(rd);
    }
    dv.relError = dv.shapeMismatch ? kNaN : (rf.norm > 0 ? std::sqrt(sumDiff2) / rf.norm : std::sqrt(sumDiff2));

    // Replica groups: same coordinates on every sharding mesh dim.
    std::map<std::vector<int64_t>, std::vector<int>> groups;
    for (int r = 0; r < ranks; ++r) {
      if (!measures[r] || !measures[r]->shapeOk) continue;
      auto coord = mesh.coordOf(r);
      std::vector<int64_t> k;
      for (int d = 0; d < mesh.ndim(); ++d) k.push_back(spec[d].isShard() ? coord[d] : -1);
      groups[k].push_back(r);
    }
    for (const auto& [k, members] : groups) {
      if (members.size() < 2) continue;
      const BlockMeasure& first = *measures[members[0]];
      bool disagree = false;
      for (size_t i = 1; i < members.size() && !disagree; ++i) {
        const BlockMeasure& m = *measures[members[i]];
        double tol = rtol * std::max(scaleOf(first), std::numeric_limits<double>::min());
        disagree = std::fabs(m.self - first.self) > tol || std::fabs(m.diff - first.diff) > tol;
      }
      if (disagree) dv.disagreeingReplicas.push_back(members);
    }

    bool divergent = dv.shapeMismatch || !(dv.relError <= rtol) || !dv.wrongRanks.empty() ||
                     !dv.disagreeingReplicas.empty();
    if (!divergent) continue;
    std::optional<AutoSpTag> tag;
    if (auto t = plan.tags.find(node); t != plan.tags.end()) {
      tag = t->second;
      dv.tag = t->second.key;
      dv.slicedDim = t->second.effectiveDim();
      std::set<int> planned;
      for (int d = 0; d < mesh.ndim(); ++d)
        if (spec[d].isShard()) planned.insert(spec[d].dim);
      dv.plannedDims.assign(planned.begin(), planned.end());
    }
    dv.detail = describe(dv, mesh, rf.shape, tag);
    if (!out.first) out.first = dv;
    if (!out.replicas && !dv.disagreeingReplicas.empty()) out.replicas = dv;
    if (out.first && out.replicas) break;
  }
  return out;
}

namespace {
// Non-finite norms (a NaN in a value) travel as null and come back as NaN.
nlohmann::json numOrNull(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }
double numBack(const nlohmann::json& j) { return j.is_null() ? kNaN : j.get<double>(); }

}  // namespace

std::string encodeMeasures(const std::vector<BlockMeasure>& ms) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& m : ms)
    j.push_back({m.batch, m.node, m.output, m.shapeOk, numOrNull(m.diff), numOrNull(m.self), numOrNull(m.expected),
                 m.numel, m.shape});
  return j.dump();
}

std::optional<std::vector<BlockMeasure>> decodeMeasures(const std::string& text) {
  try {
    auto j = nlohmann::json::parse(text);
    std::vector<BlockMeasure> out;
    for (const auto& e : j) {
      BlockMeasure m;
      m.batch = e.at(0).get<int>();
      m.node = e.at(1).get<int>();
      m.output = e.at(2).get<int>();
      m.shapeOk = e.at(3).get<bool>();
      m.diff = numBack(e.at(4));
      m.self = numBack(e.at(5));
      m.expected = numBack(e.at(6));
      m.numel = e.at(7).get<int64_t>();
      m.shape = e.at(8).get<std::vector<int64_t>>();
      out.push_back(std::move(m));
    }
    return out;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace ss::runner
