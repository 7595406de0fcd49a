// shardscope-runner: the child process that `shardscope run` and the GUI's Run panel start, so that LibTorch's
// load time and any crash inside a run stay out of the app.
//
// Usage: shardscope-runner PLAN|- [--options JSON] [--events]
//   PLAN is any plan file core can load; `-` reads a native plan from stdin.
//   --options: a RunOptions object as JSON (core/run_report.h), e.g. {"scale": 4, "batches": 3}.
//   --events: stdout carries one RunEvent JSON object per line, the last one {"event": "report", ...};
//             otherwise a human summary. Exit code: RunReport::exitCode() (0 match, 1 mismatch, 3 failed),
//             2 for unusable arguments or input.
#include <cstdio>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/io/load.h"
#include "core/run_report.h"
#include "runner/infer_shapes.h"
#include "runner/runner.h"

namespace {

void emitLine(const std::string& line) {
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

int usage(const std::string& why) {
  std::fprintf(stderr, "shardscope-runner: %s\nusage: shardscope-runner PLAN|- [--options JSON] [--events]\n",
               why.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "infer-shapes") return ss::runner::inferShapesMain(argc - 1, argv + 1);
  std::string planPath, optionsJson;
  bool events = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--events") events = true;
    else if (a == "--options" && i + 1 < argc) optionsJson = argv[++i];
    else if (a.rfind("--options=", 0) == 0) optionsJson = a.substr(10);
    else if (a == "--help" || a == "-h") return usage("runs a plan on local ranks and compares with a reference"), 0;
    else if (!a.empty() && a[0] == '-' && a != "-") return usage("unknown flag '" + a + "'");
    else if (planPath.empty()) planPath = a;
    else return usage("more than one plan given");
  }
  if (planPath.empty()) return usage("no plan given");

  ss::RunOptions options;
  if (!optionsJson.empty()) {
    try {
      options = nlohmann::json::parse(optionsJson).get<ss::RunOptions>();
    } catch (const std::exception& e) {
      return usage(std::string("bad --options: ") + e.what());
    }
  }

  ss::Result<ss::Plan> plan = ss::Error{"no plan", 0, 0, {}};
  if (planPath == "-") {
    std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    plan = ss::loadPlanText(text, "<stdin>");
  } else {
    plan = ss::loadPlanFile(planPath);
  }
  if (!plan) {
    std::string msg = plan.error().toString(planPath == "-" ? "<stdin>" : planPath);
    if (events) {
      ss::RunReport report;
      report.error = ss::RunError{"load", -1, -1, "", msg};
      ss::RunEvent e;
      e.kind = ss::RunEvent::Kind::Report;
      e.report = report;
      emitLine(ss::runEventLine(e));
    }
    std::fprintf(stderr, "%s\n", msg.c_str());
    return 2;
  }

  ss::runner::EventSink sink;
  if (events) sink = [](const ss::RunEvent& e) { emitLine(ss::runEventLine(e)); };
  ss::RunReport report = ss::runner::runPlan(*plan, options, sink);
  if (events) {
    ss::RunEvent e;
    e.kind = ss::RunEvent::Kind::Report;
    e.report = report;
    emitLine(ss::runEventLine(e));
  } else {
    std::fputs(report.summary().c_str(), stdout);
    std::fflush(stdout);
  }
  return report.exitCode();
}
