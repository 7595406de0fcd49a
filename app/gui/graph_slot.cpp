#include "app/gui/graph_slot.h"

#include <imgui.h>

#include "views/model/applied_graph_overlay.h"
#include "views/graph_view.h"

namespace ss::app {

struct GraphSlot::Impl {
  views::GraphViewState state;
  uint64_t revisionSeen = 0;
  views::GraphOverlay overlay;
  bool overlayStale = true;   // rebuilt on the next draw (a new document, an edit)
};

GraphSlot::GraphSlot() : impl_(new Impl) {}
GraphSlot::~GraphSlot() { delete impl_; }

bool GraphSlot::busy() const { return impl_->state.layoutRunning(); }

void GraphSlot::draw(const Plan& plan, const Diagnostics& diags, views::Selection& sel, uint64_t revision,
                     const std::vector<AppliedGraph>* applied, const AppliedAlone* alone) {
  if (revision != impl_->revisionSeen || impl_->overlayStale) {
    impl_->revisionSeen = revision;
    impl_->overlayStale = false;
    // An edit re-judges the applied graphs (views/model/document.h): their pills follow.
    impl_->overlay = applied && !applied->empty() ? views::planOverlay(*applied, plan.mesh)
                     : alone                      ? views::aloneOverlay(*alone)
                                                  : views::GraphOverlay{};
    impl_->state.overlay = impl_->overlay.empty() ? nullptr : &impl_->overlay;
    ++impl_->state.revision;  // colours and redistribute edges refresh after an edit
  }
  views::drawGraphView(plan, diags, impl_->state, sel);
}

void GraphSlot::setDiffMarks(const views::GraphDiffMarks* marks) { impl_->state.diff = marks; }

const std::vector<views::DiffBadgeRecord>& GraphSlot::diffRecords() const { return impl_->state.diffRecords; }

void GraphSlot::focusSearch() {
  impl_->state.focusSearch = true;
}

void GraphSlot::requestFit() { impl_->state.fitRequested = true; }
void GraphSlot::requestZoom(double factor) { impl_->state.zoomRequest *= factor; }
void GraphSlot::requestPan(double dx, double dy) {
  impl_->state.panRequest.x += dx;
  impl_->state.panRequest.y += dy;
}

void GraphSlot::setDivergentNode(int node) { impl_->state.divergentNode = node; }
int GraphSlot::divergentNode() const { return impl_->state.divergentNode; }

const views::GraphViewState& GraphSlot::viewState() const { return impl_->state; }

void GraphSlot::planReplaced() {
  impl_->overlayStale = true;
  impl_->state.fitRequested = true;
  impl_->state.relayoutRequested = true;  // a document replaced in place keeps its address: ask for a fresh layout
  // The search was of the old plan: its text and hits go with it.
  impl_->state.search.clear();
  impl_->state.searchSeen.clear();
  impl_->state.searchHits.clear();
  impl_->state.searchCursor = -1;
  impl_->state.searchReset = true;
}

}  // namespace ss::app
