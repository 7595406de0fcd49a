#include "app/gui_graph_slot.h"

#include <imgui.h>

namespace ss::app {

struct GraphSlot::Impl {};

GraphSlot::GraphSlot() : impl_(new Impl) {}
GraphSlot::~GraphSlot() { delete impl_; }

bool GraphSlot::hasGraphView() const { return false; }

void GraphSlot::draw(const Plan& plan, const Diagnostics& diags, views::Selection& sel, views::CommandQueue& cmds,
                     uint64_t /*revision*/) {
  views::drawNodeListView(plan, diags, list_, sel, cmds);
}

void GraphSlot::focusSearch() { list_.focusSearch = true; }

void GraphSlot::planReplaced() { list_.seenGeneration = ~uint64_t{0}; }

}  // namespace ss::app
