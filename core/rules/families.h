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

}  // namespace ss::rules
