// `shardscope render FILE --out shot.png`: draws the app (or one view) off-screen in a hidden window and writes
// a PNG. Needs an X server: under CI, `xvfb-run -a shardscope render ...`.
#include <cstdio>
#include <iostream>
#include <string>

#include "app/cli/args.h"
#include "app/cli/verbs.h"

#ifdef SHARDSCOPE_WITH_GUI
#include "app/gui/png_file.h"

#include <chrono>
#include <thread>

#include "app/gui/app.h"
#include "app/gui/platform.h"
#include "views/model/fix_all.h"
#endif

namespace ss::app {
namespace {

const VerbHelp kRenderHelp{
    "Usage: shardscope render FILE --out shot.png [--select NODE[:INPUT]] [--view VIEW] [--size 1600x1000]\n"
    "                         [--theme dark|light] [--fix] [--run [--scale N]] [--compare B] [--frames N]\n"
    "                         [--mesh 2x4 [--names dp,tp]] [--group NAME=DIM] [--solution S] [--applied A]",
    "Renders the app with FILE open into a PNG, off-screen (hidden window; needs an X server, e.g. xvfb-run -a).\n"
    "The artifact flags read autoparallel's files as `shardscope check` does (--mesh: an applied graph alone).",
    "Exit codes: 0 written, 2 unusable input, bad flags or no X server."};

const std::vector<FlagSpec> kRenderFlags = withFlags(
    {option("out", "PNG", "the PNG to write (required)"),
     option("select", "NODE[:INPUT]", "the node (and optionally an input edge) to select; default: the first problem"),
     option("view", "VIEW", "all (default: the whole window), or one view alone: graph, mesh, tensor, edge,\n"
                            "diagnostics, inspector, costs, comm, run, teach, applied, changes, applied-graph"),
     option("size", "WxH", "the window size (default 1600x1000)"),
     option("theme", "dark|light", "the colour theme (default dark)"),
     option("frames", "N", "frames drawn before the capture (default 4)"),
     toggle("fix", "apply \"Fix all\" first"),
     toggle("run", "run the plan (child process) and render the Run panel with its results"),
     option("scale", "N", "with --run: divide tensor sizes by N"),
     option("compare", "B", "open plan B against FILE (File > Compare with...)")},
    sessionFlags());

#ifdef SHARDSCOPE_WITH_GUI
// What render's window flags ask for.
struct RenderRequest {
  GuiOptions opts;
  std::string view;
  int frames = 4;
};

// Reads --theme, --view, --size and --frames into `r`; on a bad value says why on stderr and returns false.
bool renderRequest(const ParsedArgs& a, RenderRequest& r) {
  GuiOptions& opts = r.opts;
  opts = GuiOptions::isolated();
  opts.visible = false;
  if (auto t = a.get("theme")) {
    if (*t == "light") opts.theme = views::ThemeKind::Light;
    else if (*t != "dark") {
      std::cerr << "shardscope render: --theme: expected dark or light, got '" << *t << "'\n";
      return false;
    }
  }
  r.view = a.get("view").value_or("all");
  const std::string& view = r.view;
  const auto solo = views::viewFromName(view);
  if (!solo && view != "all") {
    std::string names;
    for (views::ViewId v : views::allViews()) names += std::string(names.empty() ? "" : ", ") + views::viewName(v);
    std::cerr << "shardscope render: --view: unknown view '" << view << "' (expected " << names << " or all)\n";
    return false;
  }
  opts.soloView = solo;
  if (auto s = a.get("size")) {
    int w = 0, h = 0;
    char x = 0;
    if (std::sscanf(s->c_str(), "%d%c%d", &w, &x, &h) != 3 || (x != 'x' && x != 'X') || w < 200 || h < 150 ||
        w > 8192 || h > 8192) {
      std::cerr << "shardscope render: --size: expected WIDTHxHEIGHT between 200x150 and 8192x8192, got '" << *s << "'\n";
      return false;
    }
    opts.width = w;
    opts.height = h;
  }
  if (auto f = a.get("frames")) r.frames = std::max(2, std::min(60, std::atoi(f->c_str())));
  return true;
}

// Opens `file` (with the session's artifact flags) and --compare's plan; on failure says why, shuts the app
// down and returns false.
bool openInputs(GuiApp& app, const ParsedArgs& a, const std::string& file, const std::string& view) {
  Result<SessionInputs> extras = sessionInputs(a);
  if (!extras.ok()) {
    std::cerr << "shardscope render: " << extras.error().message << "\n";
    app.shutdown();
    return false;
  }
  if (!app.openFile(file, *extras)) {
    std::cerr << "shardscope render: " << app.document().lastError() << "\n";
    app.shutdown();
    return false;
  }
  if (auto cmp = a.get("compare")) {
    if (!app.compareWith(*cmp)) {
      std::string why = app.modalText();
      for (char& c : why) if (c == '\n') c = ' ';
      std::cerr << "shardscope render: --compare: " << why << "\n";
      app.shutdown();
      return false;
    }
    if (view == "all") app.showTab(views::ViewId::Changes);
  }
  return true;
}

// Applies --select, --fix and --run (waiting for the run); on failure says why, shuts the app down and returns
// false.
bool selectFixRun(GuiApp& app, const ParsedArgs& a, const std::string& file) {
  if (auto sel = a.get("select")) {
    std::string name = *sel;
    int input = -1;
    if (const auto colon = name.rfind(':'); colon != std::string::npos) {
      input = std::atoi(name.c_str() + colon + 1);
      name = name.substr(0, colon);
    }
    const int node = app.document().plan().graph.find(name);
    if (node < 0) {
      std::cerr << "shardscope render: --select: no node named '" << name << "' in " << file << "\n";
      app.shutdown();
      return false;
    }
    if (input >= 0) app.selection().selectEdge(node, input, true);
    else app.selection().selectNode(node, true);
  }
  if (a.has("fix")) {
    const views::Document& doc = app.document();
    if (std::optional<Command> fix = views::fixAllCommand(doc.plan(), views::pinnedByEdits(doc.history())))
      app.commands().push(std::move(*fix));
    app.frame();
  }
  if (a.has("run")) {
    const int scale = std::max(1, std::atoi(a.get("scale").value_or("1").c_str()));
    if (!app.runPanel().model().available) {
      std::cerr << "shardscope render: --run: " << app.runPanel().model().unavailableReason << "\n";
      app.shutdown();
      return false;
    }
    app.runPanel().start(app.document().plan(), scale, app.document().stamp());
    app.showTab(views::ViewId::Run);
    const auto t0 = std::chrono::steady_clock::now();
    while (app.runPanel().active() && std::chrono::steady_clock::now() - t0 < std::chrono::minutes(10)) {
      app.frame();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    app.showTab(views::ViewId::Run);
  }
  return true;
}

// Waits for the layout, draws the frames, shuts the app down and writes the last frame to `out`; returns the
// exit status.
int capture(GuiApp& app, int frames, const std::string& out) {
  // Big graphs are laid out on a worker thread: wait for the picture, not the progress bar.
  {
    const auto t0 = std::chrono::steady_clock::now();
    app.frame();
    while ((app.graphSlot().busy() || app.appliedGraphState().graph.layoutRunning()) &&
           std::chrono::steady_clock::now() - t0 < std::chrono::minutes(2)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      app.frame();
    }
  }
  std::vector<unsigned char> pixels;
  int w = 0, h = 0;
  for (int i = 0; i < frames; ++i) app.frame(i + 1 == frames ? &pixels : nullptr, &w, &h);
  app.shutdown();
  if (pixels.empty() || w <= 0 || h <= 0) {
    std::cerr << "shardscope render: nothing was rendered\n";
    return 2;
  }
  if (auto written = writePngFile(out, w, h, pixels.data()); !written) {
    std::cerr << "shardscope render: cannot write " << out << ": " << written.error().message << "\n";
    return 2;
  }
  std::cout << "wrote " << out << " (" << w << "x" << h << ")\n";
  return 0;
}
#endif

int renderVerb(const ParsedArgs& a) {
#ifdef SHARDSCOPE_WITH_GUI
  if (a.positionals.size() != 1) {
    std::cerr << "shardscope render: expected one FILE (see shardscope render --help)\n";
    return 2;
  }
  const auto out = a.get("out");
  if (!out || out->empty()) {
    std::cerr << "shardscope render: --out PNG is required\n";
    return 2;
  }
  RenderRequest req;
  if (!renderRequest(a, req)) return 2;

  std::unique_ptr<Platform> platform = makeGlfwPlatform();
  GuiApp app(*platform, req.opts);
  std::string error;
  if (!app.init(error)) {
    std::cerr << "shardscope render: " << error << "\n";
    return 2;
  }
  const std::string file = a.positionals[0];
  if (!openInputs(app, a, file, req.view)) return 2;
  if (!selectFixRun(app, a, file)) return 2;
  return capture(app, req.frames, *out);
#else
  (void)a;
  std::cerr << "shardscope render: this build has no GUI (configured with SHARDSCOPE_WITH_GUI=OFF)\n";
  return 2;
#endif
}

const VerbRegistrar kRenderVerb{Verb{"render", "render the app or one view to a PNG (off-screen)", kRenderHelp, kRenderFlags, renderVerb}};

}  // namespace
}  // namespace ss::app
