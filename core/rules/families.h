#pragma once
// Internal: each rule family registers its ops into the table (core/rules/registry.cpp calls these).
#include <string>
#include <unordered_map>

#include "core/rules/rules.h"

namespace ss::rules {

using RuleTable = std::unordered_map<std::string, RuleFn>;

void registerPointwiseRules(RuleTable& t);   // pointwise.cpp: elementwise ops, conversions, getitem
void registerMatmulRules(RuleTable& t);      // matmul.cpp: mm, bmm, addmm, matmul, linear, embedding(+backward)
void registerViewRules(RuleTable& t);        // view.cpp: view family, slicing, cat/stack
void registerReductionRules(RuleTable& t);   // reduction.cpp: sum, mean, amax, var_mean, ...
void registerIndexRules(RuleTable& t);       // index.cpp: index, index_put, gather, scatter, *_scatter
void registerAttentionRules(RuleTable& t);   // attention.cpp: softmax(+bwd), SDPA(+bwd), nll/cross entropy, norms
void registerFactoryRules(RuleTable& t);     // factory.cpp: full, zeros, ones, empty, arange, *_like
void registerCollectiveRules(RuleTable& t);  // collective.cpp: _c10d_functional.*, wait_tensor

}  // namespace ss::rules
