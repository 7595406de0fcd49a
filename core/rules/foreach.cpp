// (stub: being written)
#include "core/rules/engine.h"
#include "core/rules/families.h"

namespace ss::rules {

void registerForeachRules(RuleTable& t) { (void)t; }

}  // namespace ss::rules
