#include "app/gui_graph_slot.h"

#include <imgui.h>

#include "views/GraphView.h"

namespace ss::app {

struct GraphSlot::Impl {
  views::GraphViewState state;
  uint64_t revisionSeen = 0;
};

GraphSlot::GraphSlot() : impl_(new Impl) {}
GraphSlot::~GraphSlot() { delete impl_; }

bool GraphSlot::busy() const { return impl_->state.layoutRunning(); }

void GraphSlot::draw(const Plan& plan, const Diagnostics& diags, views::Selection& sel, uint64_t revision) {
  if (revision != impl_->revisionSeen) {
    impl_->revisionSeen = revision;
    ++impl_->state.revision;  // colours and redistribute edges refresh after an edit
  }
  views::drawGraphView(plan, diags, impl_->state, sel);
}

void GraphSlot::focusSearch() {
  impl_->state.focusSearch = true;
}

void GraphSlot::planReplaced() {
  impl_->state.fitRequested = true;
  impl_->state.relayoutRequested = true;  // a document replaced in place keeps its address: ask for a fresh layout
}

}  // namespace ss::app
