#include "app/gui_run.h"

namespace ss::app {

struct RunPanel::Impl {};

RunPanel::RunPanel() : impl_(std::make_unique<Impl>()) {
  model_.available = false;
  model_.unavailableReason = "this build has no run client yet (runner work in progress).";
}
RunPanel::~RunPanel() = default;

void RunPanel::start(const Plan& /*plan*/) {}
void RunPanel::cancel() {}
bool RunPanel::poll() { return false; }

}  // namespace ss::app
