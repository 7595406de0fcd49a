#include "app/gui/settings.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/io/load/load.h"

namespace ss::app {

void clampLayout(PaneLayout& l, float w, float h, float minPx) {
  auto fin = [](float v, float d) { return std::isfinite(v) ? v : d; };
  const PaneLayout def;
  l.col1 = fin(l.col1, def.col1);
  l.col2 = fin(l.col2, def.col2);
  const float mx = w > 0 ? std::min(minPx / w, 0.3f) : 0.1f, my = h > 0 ? std::min(minPx / h, 0.45f) : 0.1f;
  l.col1 = std::clamp(l.col1, mx, 1.0f - 2 * mx);
  l.col2 = std::clamp(l.col2, l.col1 + mx, 1.0f - mx);
  for (size_t i = 0; i < 3; ++i) l.rowSplit[i] = std::clamp(fin(l.rowSplit[i], def.rowSplit[i]), my, 1.0f - my);
}

PaneRects computePanes(const PaneLayout& l, float x, float y, float w, float h, float sp) {
  PaneRects r;
  const float xs[4] = {x, x + w * l.col1, x + w * l.col2, x + w};
  for (int c = 0; c < 3; ++c) {
    const float x0 = xs[c] + (c > 0 ? sp * 0.5f : 0), x1 = xs[c + 1] - (c < 2 ? sp * 0.5f : 0);
    const float ym = y + h * l.rowSplit[static_cast<size_t>(c)];
    r.panes[static_cast<size_t>(c * 2)] = views::Rect{x0, y, x1, ym - sp * 0.5f};
    r.panes[static_cast<size_t>(c * 2 + 1)] = views::Rect{x0, ym + sp * 0.5f, x1, y + h};
    r.splitters[static_cast<size_t>(2 + c)] = views::Rect{x0, ym - sp * 0.5f, x1, ym + sp * 0.5f};
  }
  r.splitters[0] = views::Rect{xs[1] - sp * 0.5f, y, xs[1] + sp * 0.5f, y + h};
  r.splitters[1] = views::Rect{xs[2] - sp * 0.5f, y, xs[2] + sp * 0.5f, y + h};
  return r;
}

void dragSplitter(PaneLayout& l, int index, float dx, float dy, float w, float h) {
  if (w <= 0 || h <= 0) return;
  if (index == 0) l.col1 += dx / w;
  else if (index == 1) l.col2 += dx / w;
  else if (index >= 2 && index <= 4) l.rowSplit[static_cast<size_t>(index - 2)] += dy / h;
  clampLayout(l, w, h, 80);
}

namespace {

std::string envDir(const char* own, const char* xdg, const char* fallback) {
  if (const char* v = std::getenv(own); v && *v) return v;
  if (const char* v = std::getenv(xdg); v && *v) return std::string(v) + "/shardscope";
  if (const char* v = std::getenv("HOME"); v && *v) return std::string(v) + "/" + fallback + "/shardscope";
  return "/tmp/shardscope";
}

}  // namespace

std::string configDir() { return envDir("SHARDSCOPE_CONFIG_DIR", "XDG_CONFIG_HOME", ".config"); }
std::string stateDir() { return envDir("SHARDSCOPE_STATE_DIR", "XDG_STATE_HOME", ".local/state"); }

bool makeDirs(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  return std::filesystem::is_directory(dir, ec);
}

Settings loadSettings() {
  Settings s;
  Result<std::string> text = readFileText(configDir() + "/settings.json");
  if (!text.ok()) return s;
  Result<nlohmann::json> j = parseJsonText(text.value());
  if (!j.ok() || !j.value().is_object()) return s;
  const nlohmann::json& o = j.value();
  try {
    if (o.value("theme", std::string("dark")) == "light") s.theme = views::ThemeKind::Light;
    if (o.contains("layout") && o["layout"].is_object()) {
      const auto& l = o["layout"];
      s.layout.col1 = l.value("col1", s.layout.col1);
      s.layout.col2 = l.value("col2", s.layout.col2);
      if (l.contains("rows") && l["rows"].is_array() && l["rows"].size() == 3) {
        for (size_t i = 0; i < 3; ++i) {
          if (l["rows"][i].is_number()) s.layout.rowSplit[i] = l["rows"][i].get<float>();
        }
      }
    }
    if (o.contains("recent") && o["recent"].is_array()) {
      for (const auto& r : o["recent"]) {
        if (r.is_string() && s.recent.size() < kMaxRecent) s.recent.push_back(r.get<std::string>());
      }
    }
    s.windowW = std::clamp(o.value("window_width", s.windowW), 400, 16384);
    s.windowH = std::clamp(o.value("window_height", s.windowH), 300, 16384);
    s.fontPixels = std::clamp(o.value("font_pixels", s.fontPixels), 8.0f, 48.0f);
  } catch (const nlohmann::json::exception&) {
    return Settings{};  // wrong types: defaults
  }
  clampLayout(s.layout, 1600, 1000, 80);
  return s;
}

bool saveSettings(const Settings& s) {
  const std::string dir = configDir();
  if (!makeDirs(dir)) return false;
  nlohmann::json j;
  j["theme"] = s.theme == views::ThemeKind::Light ? "light" : "dark";
  j["layout"] = {{"col1", s.layout.col1}, {"col2", s.layout.col2},
                 {"rows", {s.layout.rowSplit[0], s.layout.rowSplit[1], s.layout.rowSplit[2]}}};
  j["recent"] = s.recent;
  j["window_width"] = s.windowW;
  j["window_height"] = s.windowH;
  j["font_pixels"] = s.fontPixels;
  return writeFileAtomic(dir + "/settings.json", j.dump(2) + "\n").ok();
}

void addRecent(Settings& s, const std::string& path) {
  std::error_code ec;
  std::string abs = std::filesystem::absolute(path, ec).lexically_normal().string();
  if (ec) abs = path;
  s.recent.erase(std::remove(s.recent.begin(), s.recent.end(), abs), s.recent.end());
  s.recent.insert(s.recent.begin(), abs);
  if (s.recent.size() > kMaxRecent) s.recent.resize(kMaxRecent);
}

}  // namespace ss::app
