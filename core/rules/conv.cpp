// (stub: being written)
#include "core/rules/engine.h"
#include "core/rules/families.h"

namespace ss::rules {

void registerConvRules(RuleTable& t) { (void)t; }

}  // namespace ss::rules
