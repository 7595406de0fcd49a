#include <catch2/catch.hpp>

#include "core/draw/canvas.h"

using ss::Canvas;
using ss::Rectd;
using ss::Vec2d;

namespace {
Canvas makeCanvas() {
  Canvas c;
  c.origin = {100, 50};
  c.size = {800, 600};
  c.offset = {10, 20};
  c.zoom = 2.0;
  return c;
}
}  // namespace

TEST_CASE("canvas: world <-> screen follow the contract formulas", "[canvas]") {
  Canvas c = makeCanvas();
  // screen = origin + (world - offset) * zoom
  CHECK(c.toScreen({10, 20}) == Vec2d{100, 50});
  CHECK(c.toScreen({60, 70}) == Vec2d{200, 150});
  CHECK(c.toWorld({200, 150}) == Vec2d{60, 70});
  CHECK(c.visibleWorld() == Rectd{{10, 20}, {410, 320}});
}

TEST_CASE("canvas: pan moves the world with the mouse", "[canvas]") {
  Canvas c = makeCanvas();
  const Vec2d before = c.toWorld({300, 300});
  c.pan({40, -20});
  // The world point that was under (300,300) is now under (340,280).
  CHECK(c.toWorld({340, 280}) == before);
  CHECK(c.offset == Vec2d{-10, 30});
}

TEST_CASE("canvas: zoomAt keeps the point under the cursor fixed and clamps", "[canvas]") {
  Canvas c = makeCanvas();
  const Vec2d cursor{500, 350};
  const Vec2d w = c.toWorld(cursor);
  c.zoomAt(cursor, 1.5);
  CHECK(c.zoom == Approx(3.0));
  CHECK(c.toWorld(cursor).x == Approx(w.x));
  CHECK(c.toWorld(cursor).y == Approx(w.y));
  c.zoomAt(cursor, 1000.0);
  CHECK(c.zoom == c.maxZoom);
  CHECK(c.toWorld(cursor).x == Approx(w.x));
  c.zoomAt(cursor, 1e-12);
  CHECK(c.zoom == c.minZoom);
  CHECK(c.toWorld(cursor).y == Approx(w.y));
}

TEST_CASE("canvas: fit shows the whole rectangle centred with the margin", "[canvas]") {
  Canvas c = makeCanvas();
  const Rectd world{{0, 0}, {1000, 300}};
  c.fit(world, 20);
  // width limits: (800 - 40) / 1000 = 0.76; height would allow (600 - 40) / 300.
  CHECK(c.zoom == Approx(0.76));
  const Vec2d centre = c.toScreen(world.center());
  CHECK(centre.x == Approx(100 + 400));
  CHECK(centre.y == Approx(50 + 300));
  CHECK(c.toScreen(world.min).x == Approx(120));
  CHECK(c.toScreen(world.max).x == Approx(880));

  Canvas unchanged = c;
  c.fit(Rectd::none());
  CHECK(c == unchanged);

  // A single point is not blown up beyond maxZoom.
  c.fit(Rectd{{5, 5}, {5, 5}});
  CHECK(c.zoom == c.maxZoom);
  CHECK(c.toScreen({5, 5}).x == Approx(500));
}

TEST_CASE("canvas: rect helpers", "[canvas]") {
  Rectd r = Rectd::none();
  CHECK(r.empty());
  r.include(Vec2d{1, 2});
  r.include(Vec2d{-3, 7});
  CHECK(r == Rectd{{-3, 2}, {1, 7}});
  CHECK(r.contains({0, 5}));
  CHECK_FALSE(r.contains({2, 5}));
  CHECK(r.overlaps(Rectd{{1, 7}, {9, 9}}));
  CHECK_FALSE(r.overlaps(Rectd{{1.5, 0}, {9, 9}}));
}
