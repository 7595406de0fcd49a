#include "views/ui_probe.h"

#include <map>

#include <imgui.h>

namespace ss::views {
namespace {
bool g_on = false;
std::map<std::string, Rect> g_rects;
}  // namespace

void setProbing(bool on) { g_on = on; }

void probeItem(const std::string& key) {
  if (!g_on) return;
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  g_rects[key] = Rect{a.x, a.y, b.x, b.y};
}

void probeRect(const std::string& key, const Rect& r) {
  if (g_on) g_rects[key] = r;
}

std::optional<Rect> probedRect(const std::string& key) {
  auto it = g_rects.find(key);
  if (it == g_rects.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> probedKeys(const std::string& prefix) {
  std::vector<std::string> keys;
  for (auto it = g_rects.lower_bound(prefix); it != g_rects.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it)
    keys.push_back(it->first);
  return keys;
}

void clearProbes() { g_rects.clear(); }

}  // namespace ss::views
