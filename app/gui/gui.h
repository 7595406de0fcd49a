#pragma once
// The desktop app's entry points, called by app/main.cpp (`shardscope gui [FILE]`, `shardscope FILE`) and by
// the `render` verb. Everything else of the GUI lives in app/gui_*.h.
#include <string>
#include <vector>

namespace ss::app {

// Opens the main window (optionally with a file). Returns the process exit code: 0 on a normal quit, 2 when the
// window cannot be created (no DISPLAY: the message says so).
int runGui(const std::vector<std::string>& args);

}  // namespace ss::app
