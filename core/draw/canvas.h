#pragma once
// Canvas: pan and zoom over an unbounded 2-D world, as a small value type (imgui-node-editor's CanvasView).
//
// Coordinate contract
//   world:  the layout's units (core/draw/graph_layout.h). x grows right, y grows down. Unbounded.
//   screen: pixels in the host window (ImGui screen space). x grows right, y grows down.
//   The canvas widget occupies the screen rectangle [origin, origin + size).
//   screen = origin + (world - offset) * zoom        world = offset + (screen - origin) / zoom
//   `offset` is the world point drawn at the widget's top-left corner; `zoom` is pixels per world unit and is
//   always kept inside [minZoom, maxZoom]. Every operation below keeps these two formulas exact (no hidden
//   state), so tests can check them with plain arithmetic. Doubles: a 100k-node layout is ~1e6 world units
//   tall and float would lose sub-pixel precision there.
#include <algorithm>
#include <cmath>

namespace ss {

struct Vec2d {
  double x = 0, y = 0;
  Vec2d operator+(Vec2d o) const { return {x + o.x, y + o.y}; }
  Vec2d operator-(Vec2d o) const { return {x - o.x, y - o.y}; }
  Vec2d operator*(double s) const { return {x * s, y * s}; }
  Vec2d operator/(double s) const { return {x / s, y / s}; }
  bool operator==(const Vec2d&) const = default;
};

// Axis-aligned rectangle [min, max]. Empty when max < min on either axis.
struct Rectd {
  Vec2d min, max;
  double width() const { return max.x - min.x; }
  double height() const { return max.y - min.y; }
  Vec2d center() const { return (min + max) * 0.5; }
  bool empty() const { return max.x < min.x || max.y < min.y; }
  bool contains(Vec2d p) const { return p.x >= min.x && p.x <= max.x && p.y >= min.y && p.y <= max.y; }
  bool overlaps(const Rectd& o) const {
    return !(o.max.x < min.x || o.min.x > max.x || o.max.y < min.y || o.min.y > max.y);
  }
  Rectd expanded(double m) const { return {{min.x - m, min.y - m}, {max.x + m, max.y + m}}; }
  static Rectd none() { return {{1e300, 1e300}, {-1e300, -1e300}}; }  // empty; grows by include()
  void include(Vec2d p) {
    min.x = std::min(min.x, p.x); min.y = std::min(min.y, p.y);
    max.x = std::max(max.x, p.x); max.y = std::max(max.y, p.y);
  }
  void include(const Rectd& r) { if (!r.empty()) { include(r.min); include(r.max); } }
  bool operator==(const Rectd&) const = default;
};

struct Canvas {
  Vec2d origin;              // screen position of the widget's top-left corner
  Vec2d size{800, 600};      // widget size in pixels
  Vec2d offset;              // world point at the widget's top-left corner
  double zoom = 1.0;         // pixels per world unit
  double minZoom = 1e-7;   // a 1M-node graph is ~3e7 world units tall
  double maxZoom = 8.0;

  Vec2d toScreen(Vec2d world) const { return origin + (world - offset) * zoom; }
  Vec2d toWorld(Vec2d screen) const { return offset + (screen - origin) / zoom; }
  Rectd rectToScreen(const Rectd& w) const { return {toScreen(w.min), toScreen(w.max)}; }
  // The world rectangle the widget shows.
  Rectd visibleWorld() const { return {offset, offset + size / zoom}; }

  // Moves the view by a screen-space drag: the world point under the mouse follows the mouse.
  void pan(Vec2d screenDelta) { offset = offset - screenDelta / zoom; }

  // Multiplies zoom by `factor` (clamped) keeping the world point under `screenPoint` where it is.
  void zoomAt(Vec2d screenPoint, double factor) {
    const Vec2d anchor = toWorld(screenPoint);
    zoom = std::clamp(zoom * factor, minZoom, maxZoom);
    offset = anchor - (screenPoint - origin) / zoom;
  }

  // Puts `world` at the widget's centre, zoom unchanged.
  void centerOn(Vec2d world) { offset = world - size / (2.0 * zoom); }

  // Shows all of `world` with `marginPx` pixels free on every side, centred; zoom clamped (so a tiny graph is
  // not blown up past maxZoom). An empty rectangle leaves the canvas unchanged.
  void fit(const Rectd& world, double marginPx = 20.0) {
    if (world.empty()) return;
    const double w = std::max(world.width(), 1e-9), h = std::max(world.height(), 1e-9);
    const double availW = std::max(size.x - 2 * marginPx, 1.0), availH = std::max(size.y - 2 * marginPx, 1.0);
    zoom = std::clamp(std::min(availW / w, availH / h), minZoom, maxZoom);
    centerOn(world.center());
  }

  bool operator==(const Canvas&) const = default;
};

}  // namespace ss
