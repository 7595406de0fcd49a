// (stub: being written)
#include "core/rules/engine.h"
#include "core/rules/families.h"

namespace ss::rules {

void registerLinalgRules(RuleTable& t, ReplicateOnlyTable& replicateOnly) { (void)t; (void)replicateOnly; }

}  // namespace ss::rules
