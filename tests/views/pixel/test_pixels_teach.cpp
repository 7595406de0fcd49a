// Real GL frames of `shardscope teach --out DIR` (hidden window; Xvfb in CI): consecutive frames differ exactly
// where blocks move, and a block keeps its colour from the rank that sent it to the rank that holds it after.
// Where each cell and atom is drawn comes from DIR/frames.json, written next to the PNGs.
#include <catch2/catch.hpp>

#include <stb_image.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace {

struct Png {
  int w = 0, h = 0;
  std::vector<unsigned char> px;  // RGBA
  uint32_t rgb(double x, double y) const {
    const int xi = static_cast<int>(x), yi = static_cast<int>(y);
    const unsigned char* p = &px[(static_cast<size_t>(yi) * static_cast<size_t>(w) + static_cast<size_t>(xi)) * 4];
    return (static_cast<uint32_t>(p[0]) << 16) | (static_cast<uint32_t>(p[1]) << 8) | p[2];
  }
};

Png load(const std::string& path) {
  Png img;
  int n = 0;
  unsigned char* data = stbi_load(path.c_str(), &img.w, &img.h, &n, 4);
  REQUIRE(data != nullptr);
  img.px.assign(data, data + static_cast<size_t>(img.w) * static_cast<size_t>(img.h) * 4);
  stbi_image_free(data);
  return img;
}

struct Frames {
  std::vector<Png> images;
  nlohmann::json records;
};

Frames teach(const std::string& args, const std::string& name) {
  const std::string dir = (std::filesystem::temp_directory_path() / ("shardscope-teach-px-" + name)).string();
  std::filesystem::remove_all(dir);
  const std::string cmd = std::string(SHARDSCOPE_BINARY) + " teach " + args + " --out " + dir + " > /dev/null";
  REQUIRE(std::system(cmd.c_str()) == 0);
  Frames f;
  std::ifstream in(dir + "/frames.json");
  f.records = nlohmann::json::parse(in);
  for (const auto& fr : f.records["frames"]) f.images.push_back(load(dir + "/" + fr["file"].get<std::string>()));
  std::filesystem::remove_all(dir);
  return f;
}

// Centre of atom `a` inside a cell's miniature.
std::pair<double, double> atomCentre(const nlohmann::json& records, const nlohmann::json& cell, int a) {
  const auto& fr = records["atoms"][static_cast<size_t>(a)];
  const auto& m = cell["mini"];
  const double fx = (fr[0].get<double>() + fr[2].get<double>()) / 2, fy = (fr[1].get<double>() + fr[3].get<double>()) / 2;
  return {m[0].get<double>() + fx * (m[2].get<double>() - m[0].get<double>()),
          m[1].get<double>() + fy * (m[3].get<double>() - m[1].get<double>())};
}

std::set<int> held(const nlohmann::json& cell, const char* which = "held") {
  std::set<int> s;
  for (const auto& a : cell[which]) s.insert(a.get<int>());
  return s;
}

// For consecutive frames: every atom whose holding changed (held or not, partial or not) looks different, every
// other atom looks the same (when no holding changed, chips in flight still make the frames differ), and every fully held atom has one colour wherever it is held (the colour travels
// with the block; partial atoms are hatched, so their centre pixel depends on where the hatch lines fall).
void checkFrames(const Frames& f) {
  const auto& frames = f.records["frames"];
  const int atoms = static_cast<int>(f.records["atoms"].size());
  std::map<int, uint32_t> colourOf;
  for (size_t i = 0; i < frames.size(); ++i) {
    for (const auto& cell : frames[i]["cells"]) {
      const std::set<int> h = held(cell), partial = held(cell, "partial");
      for (int a : h) {
        if (partial.count(a)) continue;
        auto [x, y] = atomCentre(f.records, cell, a);
        const uint32_t c = f.images[i].rgb(x, y);
        auto it = colourOf.emplace(a, c).first;
        INFO("frame " << i << " rank " << cell["rank"] << " atom " << a);
        CHECK(it->second == c);
      }
    }
  }
  for (size_t i = 1; i < frames.size(); ++i) {
    int changed = 0;
    for (size_t r = 0; r < frames[i]["cells"].size(); ++r) {
      const auto& before = frames[i - 1]["cells"][r];
      const auto& after = frames[i]["cells"][r];
      const std::set<int> hb = held(before), ha = held(after);
      const std::set<int> pb = held(before, "partial"), pa = held(after, "partial");
      for (int a = 0; a < atoms; ++a) {
        auto [x0, y0] = atomCentre(f.records, before, a);
        auto [x1, y1] = atomCentre(f.records, after, a);
        const bool moved = hb.count(a) != ha.count(a) || pb.count(a) != pa.count(a);
        INFO("frames " << i - 1 << "->" << i << " rank " << r << " atom " << a);
        if (moved) {
          CHECK(f.images[i - 1].rgb(x0, y0) != f.images[i].rgb(x1, y1));
          ++changed;
        } else {
          CHECK(f.images[i - 1].rgb(x0, y0) == f.images[i].rgb(x1, y1));
        }
      }
    }
    if (changed == 0) {  // within a round of an animation: only the chips in flight move
      INFO("frames " << i - 1 << "->" << i);
      CHECK(f.records["frames"][i]["chips"].get<int>() > 0);
      CHECK(f.images[i - 1].px != f.images[i].px);
    }
  }
}

}  // namespace

TEST_CASE("teach frames: all_to_all RS(1) -> RS(0) on 2x4 moves the blocks and keeps their colours", "[pixels][teach]") {
  const Frames f = teach("--shape 8,6 --mesh 2x4 --names dp,tp --from 'RS(1)' --to 'RS(0)' --dtype bf16 --size 1400x860", "a2a");
  REQUIRE(f.images.size() == 2);
  CHECK(f.images[0].w == 1400);
  CHECK(f.records["frames"][1]["arrows"] == 24);
  CHECK(f.records["frames"][1]["chips"] == 24);
  checkFrames(f);
}

TEST_CASE("teach frames: S(0)S(0) -> RR of [7, 5] on 2x2, uneven, two gathers", "[pixels][teach]") {
  const Frames f = teach("--shape 7,5 --mesh 2x2 --from 'S(0)S(0)' --to 'RR'", "ag2");
  REQUIRE(f.images.size() == 3);
  checkFrames(f);
}

TEST_CASE("teach frames: --animate plays the ring all_gather round by round", "[pixels][teach]") {
  // 3 rounds at 2 frames per round: 7 animation frames after the 2 step frames. Chips fly outside the cells,
  // so the cells change only when a round lands.
  const Frames f = teach("--shape 10,3 --mesh 4 --from 'S(0)' --to 'R' --animate 2", "anim");
  REQUIRE(f.images.size() == 9);
  CHECK(f.records["frames"][2]["file"] == "anim_000.png");
  CHECK(f.records["frames"][3]["chips"] == 4);  // round 1 in flight
  CHECK(held(f.records["frames"][4]["cells"][1]).size() == 2);  // round 1 landed: r1 holds its block and r0's
  checkFrames(f);
}

TEST_CASE("teach frames: uneven reduce_scatter P -> S(0) of [5, 2] leaves the last rank empty", "[pixels][teach]") {
  const Frames f = teach("--shape 5,2 --mesh 4 --from 'P(sum)' --to 'S(0)'", "rs");
  REQUIRE(f.images.size() == 2);
  CHECK(held(f.records["frames"][1]["cells"][3]).empty());
  checkFrames(f);
}
