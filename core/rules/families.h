#pragma once
// Internal: each rule family registers its ops into the table (core/rules/registry.cpp calls these).
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/rules/rules.h"

namespace ss::rules {

using RuleTable = std::unordered_map<std::string, RuleFn, RuleKeyHash, std::equal_to<>>;
// Every family's rules by rule key (registry.cpp); the op table (core/ops/op_table.h) joins them with the op's
// other facts.
const RuleTable& familyRules();

// Ops DTensor itself only runs replicated (its strategy is "all inputs Replicate"), or that core checks that way
// on purpose: key -> the reason, one sentence, shown by `shardscope ops` and in the checker's message. Their
// sharding rule is replicateOnlyRule (every tensor input Replicate, no Partial; outputs Replicate).
using ReplicateOnlyTable = std::unordered_map<std::string, std::string_view, RuleKeyHash, std::equal_to<>>;
const ReplicateOnlyTable& replicateOnlyOps();
RuleResult replicateOnlyRule(const RuleContext& ctx);
// The rule of an in-place form `name_` the families do not register: `name`'s rule, with self (input 0) kept in
// the placement it arrives in (an in-place op cannot redistribute the tensor it writes). The op table derives it.
RuleResult inplaceRule(const RuleContext& ctx);
// The op whose rule the in-place form `key` derives ("exp" for "exp_"): empty when `key` is no in-place form or
// its op has no family rule. The one test of derivability, for findRule and the op table.
std::string_view inplaceBaseOf(std::string_view key);

void registerPointwiseRules(RuleTable& t);   // pointwise.cpp: elementwise ops, conversions, getitem
void registerMatmulRules(RuleTable& t);      // matmul.cpp: mm, bmm, addmm, matmul, linear, embedding(+backward)
void registerViewRules(RuleTable& t);        // view.cpp: view family, slicing, cat/stack
void registerReductionRules(RuleTable& t);   // reduction.cpp: sum, mean, amax, var_mean, ...
void registerIndexRules(RuleTable& t);       // index.cpp: index, index_put, gather, scatter, *_scatter
void registerAttentionRules(RuleTable& t);   // attention.cpp: softmax(+bwd), SDPA(+bwd), nll/cross entropy, norms
void registerFactoryRules(RuleTable& t);     // factory.cpp: full, zeros, ones, empty, arange, *_like
void registerCollectiveRules(RuleTable& t);  // collective.cpp: _c10d_functional.*, wait_tensor
void registerMoeRules(RuleTable& t);         // moe.cpp: topk, sort, cumsum, histc, _grouped_mm
void registerHigherOrderRules(RuleTable& t); // higher_order.cpp: flex_attention(+bwd), triton kernels
void registerSymbolicRules(RuleTable& t);    // symbolic.cpp: _local_scalar_dense, sym_size, operator.*, sym_sum
void registerPartialPointwiseRules(RuleTable& t);  // pointwise_partial.cpp: monotone ops carrying P(max)/P(min)
void registerConvRules(RuleTable& t);        // conv.cpp: convolution(+bwd), pooling, upsampling, batch/group norm
void registerForeachRules(RuleTable& t);     // foreach.cpp: _foreach_*, _fused_adam(w), amp unscale
void registerLinalgRules(RuleTable& t, ReplicateOnlyTable& replicateOnly);  // linalg.cpp: linalg, fft, random
void registerTensorOpRules(RuleTable& t, ReplicateOnlyTable& replicateOnly);  // tensor_ops.cpp: scans, sorts,
                                                                              // index_fill/reduce, flip, roll, ...

}  // namespace ss::rules
