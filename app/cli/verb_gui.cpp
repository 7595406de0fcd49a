// `shardscope gui [FILE]`: the desktop app. (`shardscope FILE` with no verb runs this verb too, from main.)
#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>

#include "app/cli/args.h"
#include "app/cli/verbs.h"

#ifdef SHARDSCOPE_WITH_GUI
#include "app/gui/app.h"
#include "app/gui/platform.h"
#endif

namespace ss::app {

namespace {

// Opens the main window (optionally with a file). Returns the process exit code: 0 on a normal quit, 130 after
// a termination signal, 2 when the window cannot be created (no DISPLAY: the message says so).
int runGui(const ParsedArgs& a) {
#ifdef SHARDSCOPE_WITH_GUI
  if (a.positionals.size() > 1) {
    std::cerr << "shardscope gui: one file at most (got " << a.positionals.size() << ")\n";
    return 2;
  }
  GuiOptions opts;
  if (auto t = a.get("theme")) {
    if (*t == "light") opts.theme = views::ThemeKind::Light;
    else if (*t == "dark") opts.theme = views::ThemeKind::Dark;
    else {
      std::cerr << "shardscope gui: --theme: expected dark or light, got '" << *t << "'\n";
      return 2;
    }
  }
  opts.recovery = !a.has("no-recovery");
  Result<SessionInputs> extras = sessionInputs(a);
  if (!extras.ok()) {
    std::cerr << "shardscope gui: " << extras.error().message << "\n";
    return 2;
  }
  std::unique_ptr<Platform> platform = makeGlfwPlatform();
  GuiApp app(*platform, opts);
  std::string error;
  if (!app.init(error)) {
    std::cerr << "shardscope gui: " << error << "\n";
    return 2;
  }
  if (!a.positionals.empty()) app.openFile(a.positionals[0], *extras);  // an error shows in the window
  // A termination signal ends the loop after the current wait; unsaved edits are kept in the recovery file.
  static std::atomic<bool> g_terminate{false};
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) std::signal(sig, [](int) { g_terminate = true; });
  int rc = 0;
  while (!app.finished()) {
    app.step(0.25);
    if (g_terminate) {
      app.terminate();
      rc = 130;
    }
  }
  app.shutdown();
  return rc;
#else
  (void)a;
  std::cerr << "shardscope: this build has no GUI (configured with SHARDSCOPE_WITH_GUI=OFF)\n";
  return 2;
#endif
}

const VerbRegistrar kGuiVerb{Verb{
    "gui", "open the desktop app (also: shardscope FILE)",
    {"Usage: shardscope gui [FILE] [--theme dark|light] [--no-recovery] [--mesh 2x4 [--names dp,tp]] [--group NAME=DIM]\n"
     "                      [--solution SOLUTION.json] [--applied APPLIED.txt] [--rank N]",
     "Opens the desktop app, optionally with a plan file (any supported format). With unsaved edits from a\n"
     "crashed session, the app offers to restore them.\n"
     "The artifact flags read autoparallel's files as `shardscope check` does (--mesh: an applied graph alone).",
     "Exit codes: 0 quit, 2 bad flags or no window (no X server), 130 ended by a signal (edits kept for recovery)."},
    withFlags({option("theme", "dark|light", "the colour theme (default: the saved setting)"),
               toggle("no-recovery", "neither offer nor write recovery files")},
              sessionFlags()),
    runGui}};
}  // namespace

}  // namespace ss::app
