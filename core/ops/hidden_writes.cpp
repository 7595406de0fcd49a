// The table of writes LibTorch 1.13's schemas hide (core/ops/hidden_writes.h).
#include "core/ops/hidden_writes.h"

#include <algorithm>

namespace ss::ops {
namespace {

// (input, weight, bias, running_mean, running_var, training, momentum, eps): the running stats, when training.
constexpr int kRunningStats[] = {3, 4};

// rrelu_with_noise(self, noise, lower, upper, training, generator): the noise.
constexpr int kNoise[] = {1};

constexpr HiddenWrite kHiddenWrites[] = {
    {"_batch_norm_impl_index", kRunningStats, "the running mean and variance (training=True)"},
    {"batch_norm", kRunningStats, "the running mean and variance (training=True)"},
    {"instance_norm", kRunningStats, "the running mean and variance (use_input_stats=True)"},
    {"native_batch_norm", kRunningStats, "the running mean and variance (training=True)"},
    {"rrelu_with_noise", kNoise, "the noise it draws (training=True)"},
    {"rrelu_with_noise_", kNoise, "the noise it draws (training=True)"},
};

}  // namespace

std::span<const HiddenWrite> hiddenWrites() { return kHiddenWrites; }

const HiddenWrite* hiddenWriteOf(std::string_view schemaName) {
  if (schemaName.starts_with("aten::")) schemaName.remove_prefix(6);
  auto it = std::lower_bound(std::begin(kHiddenWrites), std::end(kHiddenWrites), schemaName,
                             [](const HiddenWrite& w, std::string_view name) { return w.op < name; });
  return it != std::end(kHiddenWrites) && it->op == schemaName ? &*it : nullptr;
}

}  // namespace ss::ops
