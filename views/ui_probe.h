#pragma once
// Where key widgets were drawn last frame, for interaction tests (ImGui 1.86 has no test engine in Debian's
// build). Views call probeItem("edge.insert") right after a widget; tests enable probing, run a frame, then
// move the mouse to probedRect(...). Disabled (a no-op) in the app.
#include <optional>
#include <string>
#include <vector>

#include "views/model/mesh_layout.h"

namespace ss::views {

void setProbing(bool on);
void probeItem(const std::string& key);                 // the last ImGui item's rect, when probing
void probeRect(const std::string& key, const Rect& r);  // an explicit rect (screen pixels)
std::optional<Rect> probedRect(const std::string& key);
std::vector<std::string> probedKeys(const std::string& prefix);  // keys starting with `prefix`, sorted
void clearProbes();

}  // namespace ss::views
