// `shardscope teach`: a redistribute as DTensor plans it, step by step: the text of every step (which rank sends
// which block to which rank, what each holds after, bytes per rank) and, with --out, one rendered frame per
// step (DIR/step_00.png is the start, step_NN.png shows step NN) drawn off-screen like `shardscope render`.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "app/cli/args.h"
#include "app/cli/verbs.h"
#include "core/io/load/load.h"
#include "core/model/layout.h"
#include "core/model/placement_parse.h"
#include "core/plan/teach.h"

#ifdef SHARDSCOPE_WITH_GUI
#include <imgui.h>
#include "app/gui/png_file.h"

#include "app/gui/platform.h"
#include "views/fonts.h"
#include "views/teach_view.h"
#include "views/theme.h"
#endif

namespace ss::app {
namespace {

const VerbHelp kTeachHelp{
    "Usage: shardscope teach --shape 8,6 --mesh 2x4 --from SPEC --to SPEC [--names dp,tp] [--dtype bf16]\n"
    "                        [--out DIR [--animate N]] [--size 1600x900] [--theme dark|light]",
    R"TEXT(Plays a redistribute step by step, as DTensor plans it (one collective per mesh dim). Prints, per step, which
rank sends which block (global index ranges, half-open) to which rank in which round, what each rank holds
after and the bytes each rank sends and receives (uneven shards travel padded). Specs in any notation
("RS(1)", "(Replicate(), Shard(dim=1))", "[R, S1]", "P(None, 'tp')" with --names, ...).)TEXT",
    "Exit codes: 0 ok, 1 no valid redistribute between the specs (e.g. S->P), 2 bad flags or specs."};

const std::vector<FlagSpec> kTeachFlags{
    option("shape", "D0,D1,...", "global tensor shape"),
    option("mesh", "AxB...", "device mesh shape"),
    option("from", "SPEC", "the placements before"),
    option("to", "SPEC", "the placements after"),
    option("names", "N0,N1,...", "mesh dim names"),
    option("dtype", "DTYPE", "the tensor's dtype, for the bytes (default f32)"),
    option("out", "DIR", "also writes DIR/step_00.png (the start), DIR/step_01.png (step 1), ... and\n"
                         "DIR/frames.json (where each rank's cell is in every frame). Needs an X server\n"
                         "(xvfb-run -a shardscope teach ...)"),
    option("animate", "N", "with --out, also writes the animation the Teach view plays, N frames per round:\n"
                           "DIR/anim_000.png, ... (e.g. ffmpeg -i DIR/anim_%03d.png teach.gif)"),
    option("size", "WxH", "the frames' size (default 1600x900)"),
    option("theme", "dark|light", "the frames' colour theme (default dark)")};

int fail(const std::string& msg) {
  std::cerr << Error::oneLine("shardscope teach: " + msg) << "\n";
  return 2;
}

#ifdef SHARDSCOPE_WITH_GUI
std::string rectJson(const views::Rect& r, ImVec2 o) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "[%.1f, %.1f, %.1f, %.1f]", o.x + r.x0, o.y + r.y0, o.x + r.x1, o.y + r.y1);
  return buf;
}

// Renders every frame into `dir`. Returns an error message, empty on success.
// `animate` > 0 adds the animation the Teach view plays, `animate` frames per round: DIR/anim_000.png, ...
std::string renderFrames(const TeachPlan& tp, const std::string& dir, int w, int h, views::ThemeKind theme, int animate) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return "cannot create " + dir + ": " + ec.message();
  std::unique_ptr<Platform> platform = makeGlfwPlatform();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  std::string error;
  PlatformOptions po;
  po.width = w;
  po.height = h;
  po.visible = false;
  po.title = "shardscope teach";
  if (!platform->init(po, error)) {
    ImGui::DestroyContext();
    return "cannot render: " + error;
  }
  views::loadFonts(15.0f, platform->contentScale());
  platform->fontsChanged();
  views::applyTheme(theme);
  const views::TeachAtoms atoms = views::teachAtoms(tp);
  std::string json = "{\"atoms\": [";
  for (int a = 0; a < atoms.count(); ++a) json += (a ? ", " : "") + rectJson(atoms.frac(a), ImVec2(0, 0));
  json += "], \"frames\": [";
  const int stepFrames = static_cast<int>(tp.steps.size()) + 1;
  const double length = views::teachTimelineLength(tp);
  const int animFrames = animate > 0 ? static_cast<int>(std::lround(length * animate)) + 1 : 0;
  for (int i = 0; i < stepFrames + animFrames && error.empty(); ++i) {
    const bool anim = i >= stepFrames;
    views::TeachMoment m;
    if (anim) {
      m = views::teachMomentAt(tp, static_cast<double>(i - stepFrames) / animate);
    } else {
      m.step = i - 1;
      m.overview = i > 0;
    }
    std::vector<unsigned char> pixels;
    int pw = 0, ph = 0;
    views::TeachPage page;
    for (int pass = 0; pass < 3; ++pass) {  // a few frames so sizes settle, as `render` does
      platform->beginFrame();
      ImGui::NewFrame();
      const ImGuiIO& io = ImGui::GetIO();
      ImGui::SetNextWindowPos(ImVec2(0, 0));
      ImGui::SetNextWindowSize(io.DisplaySize);
      ImGui::Begin("##teach", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings);
      page = views::drawTeachPage(tp, m, ImGui::GetContentRegionAvail());
      ImGui::End();
      ImGui::Render();
      if (pass == 2) platform->capture(pixels, pw, ph);
      const ImVec4 bg = ImGui::ColorConvertU32ToFloat4(views::palette().background);
      const float clear[4] = {bg.x, bg.y, bg.z, 1.0f};
      platform->endFrame(clear);
    }
    char name[32];
    if (anim) std::snprintf(name, sizeof name, "anim_%03d.png", i - stepFrames);
    else std::snprintf(name, sizeof name, "step_%02d.png", i);
    const std::string path = (std::filesystem::path(dir) / name).string();
    if (pixels.empty() || pw <= 0 || ph <= 0) error = "nothing was rendered";
    else if (auto written = writePngFile(path, pw, ph, pixels.data()); !written)
      error = "cannot write " + path + ": " + written.error().message;
    json += std::string(i ? ", " : "") + "{\"file\": \"" + name + "\", \"caption\": \"" + page.frame.caption +
            "\", \"cells\": [";
    for (size_t c = 0; c < page.frame.cells.size(); ++c) {
      const views::TeachCell& cell = page.frame.cells[c];
      json += std::string(c ? ", " : "") + "{\"rank\": " + std::to_string(cell.rank) + ", \"rect\": " +
              rectJson(cell.rect, page.origin) + ", \"mini\": " + rectJson(cell.mini, page.origin) + ", \"held\": [";
      std::string partial;
      for (size_t k = 0; k < cell.held.size(); ++k) {
        json += (k ? ", " : "") + std::to_string(cell.held[k].atom);
        if (cell.held[k].partial) partial += (partial.empty() ? "" : ", ") + std::to_string(cell.held[k].atom);
      }
      json += "], \"partial\": [" + partial + "]}";
    }
    json += "], \"chips\": " + std::to_string(page.frame.chips.size()) + ", \"arrows\": " +
            std::to_string(page.frame.arrows.size()) + "}";
    if (error.empty()) std::cout << "wrote " << path << " (" << pw << "x" << ph << ")\n";
  }
  platform->shutdown();
  ImGui::DestroyContext();
  if (!error.empty()) return error;
  const std::string framesFile = (std::filesystem::path(dir) / "frames.json").string();
  if (auto written = writeFileAtomic(framesFile, json + "]}\n", Backup::No); !written)
    return "cannot write " + framesFile + ": " + written.error().message;
  return {};
}
#endif

int teachVerb(const ParsedArgs& args) {
  for (const char* req : {"shape", "mesh", "from", "to"})
    if (!args.get(req)) return fail(std::string("missing --") + req + " (see shardscope teach --help)");
  auto shape = parseShape(*args.get("shape"));
  if (!shape) return fail("--shape '" + *args.get("shape") + "': " + shape.error().toString());
  auto mesh = DeviceMesh::parse(*args.get("mesh"), args.get("names").value_or(""));
  if (!mesh) return fail("--mesh '" + *args.get("mesh") + "': " + mesh.error().toString());
  TensorMeta meta{*shape, DType::F32, true};
  if (auto d = args.get("dtype")) {
    meta.dtype = dtypeFromName(*d);
    if (meta.dtype == DType::Unknown) return fail("--dtype '" + *d + "': unknown dtype (f32, bf16, f16, f64, i64, ...)");
  }
  const ParseContext ctx{&*mesh, meta.rank()};
  ShardingSpec specs[2];
  const char* names[2] = {"from", "to"};
  for (int i = 0; i < 2; ++i) {
    const std::string text = *args.get(names[i]);
    auto s = parseSpec(text, ctx);
    if (!s) return fail(std::string("--") + names[i] + " '" + text + "': " + s.error().toString());
    specs[i] = *s;
  }
  int w = 1600, h = 900;
  if (auto s = args.get("size")) {
    char x = 0;
    if (std::sscanf(s->c_str(), "%d%c%d", &w, &x, &h) != 3 || (x != 'x' && x != 'X') || w < 400 || h < 300 ||
        w > 8192 || h > 8192)
      return fail("--size: expected WIDTHxHEIGHT between 400x300 and 8192x8192, got '" + *s + "'");
  }
  int animate = 0;
  if (auto s = args.get("animate")) {
    char* end = nullptr;
    const long v = std::strtol(s->c_str(), &end, 10);
    if (end == s->c_str() || *end != '\0' || v < 1 || v > 30)
      return fail("--animate: expected frames per round between 1 and 30, got '" + *s + "'");
    animate = static_cast<int>(v);
  }
  const std::string theme = args.get("theme").value_or("dark");
  if (theme != "dark" && theme != "light") return fail("--theme: expected dark or light, got '" + theme + "'");

  const TeachPlan tp = teachRedistribute(meta, *mesh, specs[0], specs[1]);
  if (!tp.possible) {
    std::cerr << Error::oneLine("shardscope teach: " + tp.whyNot) << "\n";
    return 1;
  }
  std::cout << tp.text();
  if (auto out = args.get("out")) {
#ifdef SHARDSCOPE_WITH_GUI
    const std::string err = renderFrames(tp, *out, w, h, theme == "light" ? views::ThemeKind::Light : views::ThemeKind::Dark,
                                         animate);
    if (!err.empty()) return fail(err);
#else
    return fail("--out: this build has no GUI (configured with SHARDSCOPE_WITH_GUI=OFF); the text above is all");
#endif
  }
  return 0;
}

const VerbRegistrar kTeachVerb{Verb{"teach", "play a redistribute step by step (text, and PNG frames with --out)", kTeachHelp, kTeachFlags, teachVerb}};

}  // namespace
}  // namespace ss::app
