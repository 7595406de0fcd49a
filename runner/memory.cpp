// Memory estimate before a run (plain C++: exact numbers from shapes and layouts, nothing allocated).
#include <cstdio>
#include <fstream>
#include <string>

#include "core/model/layout.h"
#include "core/redistribute/redistribute.h"
#include "core/model/saturate.h"
#include "core/model/units.h"
#include "runner/runner.h"

namespace ss::runner {

std::string MemoryEstimate::toString() const {
  return "needs about " + formatBytes(totalBytes) + " (reference " + formatBytes(referenceBytes) + " + ranks " +
         formatBytes(shardedBytes) + ")";
}

namespace {
int bytesIn(DType t, const RunOptions& o) {
  bool floating = t == DType::F32 || t == DType::F16 || t == DType::BF16 || t == DType::F64 || t == DType::Unknown;
  if (floating && o.computeDtype == "f32") return 4;
  if (floating && o.computeDtype == "f64") return 8;
  return std::max(dtypeBytes(t), 1);
}
}  // namespace

MemoryEstimate estimateMemory(const Plan& plan, const RunOptions& options) {
  MemoryEstimate e;
  const int64_t ranks = plan.mesh.size();
  for (int n = 0; n < plan.graph.size(); ++n) {
    const Node& node = plan.graph.nodes[n];
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      const TensorMeta& m = node.outputs[k];
      if (!m.known) continue;
      int64_t b = bytesIn(m.dtype, options);
      e.referenceBytes = satAdd(e.referenceBytes, satMul(m.numel(), b));
      const auto& specs = n < static_cast<int>(plan.specs.size()) ? plan.specs[n].outputs
                                                                    : std::vector<std::optional<ShardingSpec>>{};
      // Placeholders are made whole once (counted with the reference) and shared; each rank's piece is counted
      // as if it were a copy (it is one when the graph writes in place).
      bool whole = k >= specs.size() || !specs[k];
      for (int64_t r = 0; r < ranks; ++r) {
        int64_t local = m.numel();
        if (!whole) {
          auto s = shardOnRank(m.shape, plan.mesh, *specs[k], r);
          if (s) local = s->numel();
        }
        e.shardedBytes = satAdd(e.shardedBytes, satMul(local, b));
      }
    }
  }
  int mult = options.gradients ? 2 : 1;
  const int64_t outputs = e.referenceBytes;
  e.referenceBytes = satMul(e.referenceBytes, mult);
  e.shardedBytes = satMul(e.shardedBytes, mult);
  // Localisation keeps the reference's outputs of the first batch (no gradients) for the sharded run to compare
  // with (runner/run_plan.cpp: kLocalisedBatches).
  if (options.localise) e.referenceBytes = satAdd(e.referenceBytes, outputs);
  e.totalBytes = satAdd(e.referenceBytes, e.shardedBytes);
  return e;
}

int64_t availableMemoryBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  int64_t value = 0;
  std::string unit;
  while (in >> key >> value >> unit)
    if (key == "MemAvailable:") return value * 1024;
  return 0;
}

}  // namespace ss::runner
