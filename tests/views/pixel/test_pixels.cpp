// Real GL frames: `shardscope render` in a hidden window (Xvfb in CI), then the PNG is checked: not blank,
// and the problem colour is present where the problem is drawn.
#include <catch2/catch.hpp>

#include <stb_image.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>

namespace {

struct Image {
  int w = 0, h = 0;
  std::vector<unsigned char> px;  // RGBA
  const unsigned char* at(int x, int y) const { return &px[(static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x)) * 4]; }
};

Image render(const std::string& args, const std::string& out) {
  std::remove(out.c_str());
  const std::string cmd = std::string(SHARDSCOPE_BINARY) + " render " + args + " --out " + out + " > /dev/null";
  const int rc = std::system(cmd.c_str());
  REQUIRE(rc == 0);
  Image img;
  int n = 0;
  unsigned char* data = stbi_load(out.c_str(), &img.w, &img.h, &n, 4);
  REQUIRE(data != nullptr);
  img.px.assign(data, data + static_cast<size_t>(img.w) * static_cast<size_t>(img.h) * 4);
  stbi_image_free(data);
  return img;
}

int distinctColours(const Image& img, int x0, int y0, int x1, int y1) {
  std::set<uint32_t> seen;
  for (int y = y0; y < y1; y += 2) {
    for (int x = x0; x < x1; x += 2) {
      const unsigned char* p = img.at(x, y);
      seen.insert((static_cast<uint32_t>(p[0]) << 16) | (static_cast<uint32_t>(p[1]) << 8) | p[2]);
    }
  }
  return static_cast<int>(seen.size());
}

bool reddish(const unsigned char* p) { return p[0] > 180 && p[1] < 120 && p[2] < 120; }

int countReddish(const Image& img, int x0, int y0, int x1, int y1) {
  int n = 0;
  for (int y = y0; y < y1; ++y) {
    for (int x = x0; x < x1; ++x) n += reddish(img.at(x, y)) ? 1 : 0;
  }
  return n;
}

const std::string kFixture = std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/views/data/mini_falcon.plan.json";

}  // namespace

TEST_CASE("render: the whole window is drawn, with the problem in red", "[pixels]") {
  const std::string out = (std::filesystem::temp_directory_path() / "shardscope-pixels-all.png").string();
  const Image img = render(kFixture + " --size 1280x800", out);
  REQUIRE(img.w == 1280);
  REQUIRE(img.h == 800);
  CHECK(distinctColours(img, 0, 0, img.w, img.h) > 50);
  // The diagnostics pane (left column, lower part) lists the error in the error colour.
  CHECK(countReddish(img, 0, img.h / 2, img.w * 36 / 100, img.h) > 20);
}

TEST_CASE("render: the edge view alone shows both layouts", "[pixels]") {
  const std::string out = (std::filesystem::temp_directory_path() / "shardscope-pixels-edge.png").string();
  const Image img = render(kFixture + " --view edge --select acc:1 --size 1200x700", out);
  REQUIRE(img.w == 1200);
  CHECK(distinctColours(img, 0, 0, img.w, img.h) > 30);
  // Cells of both grids: the top and bottom (or left and right) halves both carry colour.
  CHECK(distinctColours(img, 0, img.h / 3, img.w / 2, img.h) > 10);
}

TEST_CASE("render: the graph view marks the problem node in red", "[pixels]") {
  const std::string out = (std::filesystem::temp_directory_path() / "shardscope-pixels-graph.png").string();
  const Image img = render(kFixture + " --view graph --select acc --size 1000x700", out);
  CHECK(distinctColours(img, 0, 0, img.w, img.h) > 20);
  // --select centres the graph on the node: its error marking (red border, dot, badge) is around the middle.
  CHECK(countReddish(img, img.w * 3 / 10, img.h * 4 / 10, img.w * 7 / 10, img.h * 7 / 10) > 50);
  // ...and not everywhere: the corners hold no problem colour.
  CHECK(countReddish(img, 0, img.h * 8 / 10, img.w / 4, img.h) < 5);
}

int countExact(const Image& img, unsigned char r, unsigned char g, unsigned char b) {
  int n = 0;
  for (int y = 0; y < img.h; ++y)
    for (int x = 0; x < img.w; ++x) {
      const unsigned char* p = img.at(x, y);
      n += p[0] == r && p[1] == g && p[2] == b ? 1 : 0;
    }
  return n;
}

TEST_CASE("render: the light theme covers the graph canvas (no dark canvas left)", "[pixels][theme]") {
  const std::string out = (std::filesystem::temp_directory_path() / "shardscope-pixels-light.png").string();
  const Image light = render(kFixture + " --view graph --theme light --size 1280x720", out);
  REQUIRE(light.w == 1280);
  // The canvas is the light theme's (250, 250, 252) over most of the window, and the dark theme's canvas colour
  // (28, 28, 34) is nowhere.
  CHECK(countExact(light, 250, 250, 252) > light.w * light.h / 3);
  CHECK(countExact(light, 28, 28, 34) == 0);
  // The dark theme's canvas is its own.
  const Image dark = render(kFixture + " --view graph --theme dark --size 1280x720", out);
  CHECK(countExact(dark, 28, 28, 34) > dark.w * dark.h / 3);
  CHECK(countExact(dark, 250, 250, 252) == 0);
}

// A pixel of a spec colour (saturated, not the problem red): the minimap's nodes are drawn in them.
bool specColoured(const unsigned char* p) {
  const int hi = std::max({p[0], p[1], p[2]}), lo = std::min({p[0], p[1], p[2]});
  return hi - lo > 60 && !reddish(p);
}

TEST_CASE("render: the minimap draws the graph's nodes in their spec colours", "[pixels]") {
  const std::string out = (std::filesystem::temp_directory_path() / "shardscope-pixels-minimap.png").string();
  const Image img = render(kFixture + " --view graph --select acc --size 1000x700", out);
  // The minimap sits in the canvas's bottom-right corner (at most 180 x 220 px, 10 px in). A graph without
  // repeated blocks is drawn node by node there, so spec colours fill part of it.
  int coloured = 0;
  for (int y = img.h - 235; y < img.h - 8; ++y)
    for (int x = img.w - 195; x < img.w - 8; ++x) coloured += specColoured(img.at(x, y)) ? 1 : 0;
  CHECK(coloured > 150);
}

bool diffMagenta(const unsigned char* p) { return p[0] > 200 && p[1] > 60 && p[1] < 110 && p[2] > 200; }

int countDiffMagenta(const Image& img, int x0, int y0, int x1, int y1) {
  int n = 0;
  for (int y = y0; y < y1; ++y) {
    for (int x = x0; x < x1; ++x) n += diffMagenta(img.at(x, y)) ? 1 : 0;
  }
  return n;
}

// Seed 1 fixed by the real fix verb, for compare mode.
std::string fixedSeed1() {
  const std::string out = (std::filesystem::temp_directory_path() / "shardscope-pixels-fixed.plan.json").string();
  const std::string cmd = std::string(SHARDSCOPE_BINARY) + " fix " + SHARDSCOPE_SAMPLES_DIR +
                          "/falcon_index_put_2d.plan.json -o " + out + " > /dev/null";
  REQUIRE(std::system(cmd.c_str()) == 0);
  return out;
}

TEST_CASE("render: compare mode badges the changed edge in the graph, and only there", "[pixels][diff]") {
  const std::string seed = std::string(SHARDSCOPE_SAMPLES_DIR) + "/falcon_index_put_2d.plan.json";
  const std::string fixed = fixedSeed1();
  const std::string out = (std::filesystem::temp_directory_path() / "shardscope-pixels-diff-graph.png").string();
  const Image img = render(seed + " --compare " + fixed + " --view graph --select index_put:2 --size 1000x700", out);
  // The graph centres on index_put: the A|B badge of its input 2 is magenta, around the middle.
  CHECK(countDiffMagenta(img, img.w * 2 / 10, img.h * 3 / 10, img.w * 8 / 10, img.h * 8 / 10) > 150);
  CHECK(countDiffMagenta(img, 0, img.h * 85 / 100, img.w / 5, img.h) == 0);
  // Without --compare there is no magenta at all.
  const Image plain = render(seed + " --view graph --select index_put:2 --size 1000x700", out);
  CHECK(countDiffMagenta(plain, 0, 0, plain.w, plain.h) == 0);
}

TEST_CASE("render: compare mode shows A and B side by side in the edge view", "[pixels][diff]") {
  const std::string seed = std::string(SHARDSCOPE_SAMPLES_DIR) + "/falcon_index_put_2d.plan.json";
  const std::string out = (std::filesystem::temp_directory_path() / "shardscope-pixels-diff-edge.png").string();
  const Image img = render(seed + " --compare " + fixedSeed1() + " --view edge --select index_put:2 --size 1400x900", out);
  // The A|B strip fills the top: both halves carry mesh cells (many colours), and the magenta A and B labels.
  CHECK(distinctColours(img, 0, img.h / 10, img.w / 2, img.h * 45 / 100) > 10);
  CHECK(distinctColours(img, img.w / 2, img.h / 10, img.w, img.h * 45 / 100) > 10);
  CHECK(countDiffMagenta(img, 0, 0, img.w / 2, img.h / 2) > 10);
  CHECK(countDiffMagenta(img, img.w / 2, 0, img.w, img.h / 2) > 3);  // the "B" label
}

TEST_CASE("render: bad input is refused with exit 2", "[pixels]") {
  const std::string cmd = std::string(SHARDSCOPE_BINARY) + " render /nonexistent.plan.json --out /tmp/x.png 2>/dev/null";
  const int rc = std::system(cmd.c_str());
  CHECK(WEXITSTATUS(rc) == 2);
}

// Seed 1 as a TORCH_TRACE log (tests/data/trace/): the applied view lists the applied graph with the missing
// all-to-all as a red row before index_put; the whole window opens on that edge.
TEST_CASE("render: a TORCH_TRACE log shows the applied graph with the missing collective in red", "[pixels]") {
  const std::string log = std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/data/trace/seed1_missing.log";
  const std::string out = (std::filesystem::temp_directory_path() / "shardscope-pixels-applied.png").string();
  const Image img = render(log + " --view applied --select mm --size 1200x800", out);
  REQUIRE(img.w == 1200);
  CHECK(distinctColours(img, 0, 0, img.w, img.h) > 20);
  // The missing row (error colour, translucent) spans the table: many reddish-tinted pixels across the width.
  int tinted = 0;
  for (int y = 0; y < img.h; ++y)
    for (int x = 0; x < img.w; x += 3) {
      const unsigned char* p = img.at(x, y);
      tinted += (p[0] > p[1] + 40 && p[0] > p[2] + 40) ? 1 : 0;
    }
  CHECK(tinted > 300);
  const std::string fixed = std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/data/trace/seed1_applied.log";
  const Image ok = render(fixed + " --view applied --select mm --size 1200x800", out);
  int tintedOk = 0;
  for (int y = 0; y < ok.h; ++y)
    for (int x = 0; x < ok.w; x += 3) {
      const unsigned char* p = ok.at(x, y);
      tintedOk += (p[0] > p[1] + 40 && p[0] > p[2] + 40) ? 1 : 0;
    }
  CHECK(tintedOk < tinted / 4);
}

// The applied overlay: the same plan graph and camera for both logs (--select index_put:2), so the pill
// of the edge sum_1 -> index_put sits at the same place. With the all-to-all applied it is a green pill; where
// that pill is, the seed-1 log draws the missing pill in the error colour.
namespace {
bool appliedGreen(const unsigned char* p) { return p[0] > 60 && p[0] < 120 && p[1] > 180 && p[2] > 90 && p[2] < 150; }
}  // namespace

TEST_CASE("render: the graph's missing-collective pill is red where the applied one is green", "[pixels][applied]") {
  const std::string dir = std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/data/trace/";
  const std::string out = (std::filesystem::temp_directory_path() / "shardscope-pixels-overlay.png").string();
  const std::string args = " --view graph --select index_put:2 --size 1200x800";
  const Image ok = render(dir + "seed1_applied.log" + args, out);
  const Image bad = render(dir + "seed1_missing.log" + args, out);
  REQUIRE(ok.w == bad.w);
  REQUIRE(ok.h == bad.h);
  // Green in the applied render and not in the seed-1 one: the one pill that changed (index_put's input 2).
  int x0 = ok.w, y0 = ok.h, x1 = -1, y1 = -1, changed = 0;
  for (int y = 0; y < ok.h; ++y)
    for (int x = 0; x < ok.w; ++x)
      if (appliedGreen(ok.at(x, y)) && !appliedGreen(bad.at(x, y))) {
        ++changed;
        x0 = std::min(x0, x), y0 = std::min(y0, y), x1 = std::max(x1, x), y1 = std::max(y1, y);
      }
  REQUIRE(changed > 300);
  CHECK(x1 - x0 < 300);  // one pill, not the whole picture
  CHECK(y1 - y0 < 30);
  // There the seed-1 render has its outlined red pill; the applied one has no error colour there.
  CHECK(countReddish(bad, x0, y0, x1 + 1, y1 + 1) > 60);
  CHECK(countReddish(ok, x0, y0, x1 + 1, y1 + 1) == 0);
  // The applied render has no error colour anywhere in the graph (no problem in that log).
  CHECK(countReddish(ok, 0, 0, ok.w, ok.h) < 5);
}

TEST_CASE("render: the Applied graph tab draws the missing all-to-all as a red ghost node, none when applied", "[pixels][applied]") {
  const std::string dir = std::string(SHARDSCOPE_SOURCE_DIR) + "/tests/data/trace/";
  const std::string out = (std::filesystem::temp_directory_path() / "shardscope-pixels-applied-graph.png").string();
  const Image bad = render(dir + "seed1_missing.log --view applied-graph --size 1200x800", out);
  // The ghost's dashed frame and text, the dashed edge through it, index_put's error frame (on the canvas, below
  // the header and its legend chip "missing").
  const int red = countReddish(bad, 0, bad.h / 8, bad.w, bad.h);
  CHECK(red > 300);
  // Collectives are drawn as collectives: the applied all-gather, all-to-all and wait are green boxes.
  int green = 0;
  for (int y = 0; y < bad.h; ++y)
    for (int x = 0; x < bad.w; ++x) green += appliedGreen(bad.at(x, y)) ? 1 : 0;
  CHECK(green > 3000);
  const Image ok = render(dir + "seed1_applied.log --view applied-graph --size 1200x800", out);
  CHECK(countReddish(ok, 0, ok.h / 8, ok.w, ok.h) < 5);
}
