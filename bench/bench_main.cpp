// shardscope_bench: performance at real size. A benchmark, not a timed test.
//
// For each size it generates a LLaMA-like joint forward+backward plan (core/gen/llama.h), writes it in the
// native format (and autoparallel JSON / FX text when those writers exist), then in a fresh child process
// loads it back and measures: load, full check, layout, frame build (record pass + ImGui draw lists, headless,
// no GL) fitted to the whole graph and zoomed to ~10k visible nodes, one edit's incremental re-check, the diff of
// the plan against a perturbed copy (core/plan/diff.h, both checks included), and the peak RSS after load + check (getrusage, per child, so sizes do not pollute each other). Finally the
// redistribute planner's evaluations per second and the growth exponents 10k -> 100k.
// Sections: options, timing helpers, generation child, measurement child, redistribute rate, report.
#include <imgui.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/plan/diff.h"
#include "core/plan/edit.h"
#include "core/gen/llama.h"
#include "core/draw/graph_layout.h"
#include "core/io/formats.h"
#include "core/io/load/load.h"
#include "core/io/native/plan_json.h"
#include "core/model/placement_parse.h"
#include "core/redistribute/redistribute.h"
#include "core/plan/teach.h"
#include "core/check/check.h"
#include "core/rules/rules.h"
#include "views/graph_overview.h"
#include "views/graph_view.h"
#include "core/applied/session.h"
#include "views/headless_frame.h"
#ifdef SHARDSCOPE_BENCH_HAVE_TEACH_VIEW
#include "views/teach_view.h"
#endif
#ifdef SHARDSCOPE_BENCH_HAVE_VIEWS
#include "views/model/applied_graph_overlay.h"
#include "views/applied_graph_view.h"
#endif

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

// ---- options ----
struct Options {
  std::vector<long> sizes{1000, 10000, 100000};
  bool json = false;
  int frames = 30;
  std::string dir = "/tmp/shardscope-bench";
  std::vector<std::string> applied;  // --applied FILE: autoparallel artifacts (a log, an applied graph alone)
  bool sizesGiven = false;
  std::vector<std::string> files;  // --files: measure these real graphs instead of generated plans
};

const char* kUsage =
    "usage: shardscope_bench [--sizes 1k,10k,100k] [--stress] [--json] [--frames N] [--dir DIR]\n"
    "       shardscope_bench --files A.py,B.json,... [--json] [--frames N]\n"
    "  --stress adds a 1M-node plan. --files measures the given graphs (load, check, unchecked ops, the app's\n"
    "  first frame) instead. Results: a table on stdout, or one JSON object with --json.\n"
    "  --applied FILE (repeatable) opens autoparallel artifacts (a TORCH_TRACE log, an applied graph alone) as\n"
    "  `shardscope check` and the app do, and times open and check (alone: no generated sizes unless --sizes).\n";

long parseSize(std::string s) {
  long mult = 1;
  if (!s.empty() && (s.back() == 'k' || s.back() == 'K')) { mult = 1000; s.pop_back(); }
  else if (!s.empty() && (s.back() == 'm' || s.back() == 'M')) { mult = 1000000; s.pop_back(); }
  return std::stol(s) * mult;
}

// ---- timing helpers ----
double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }
long peakRssKb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

ss::gen::LlamaOptions llamaFor(long nodes) {
  ss::gen::LlamaOptions o;
  // ~285 nodes per layer plus ~30 outside the layers (see core/gen/llama.h).
  o.layers = static_cast<int>(std::max(1L, std::lround((nodes - 30) / 285.0)));
  return o;
}

// Runs `body` in a child process; it writes one JSON object to the pipe. A crash or OOM becomes an error entry.
json inChild(const std::function<json()>& body) {
  int fds[2];
  if (pipe(fds) != 0) return json{{"error", "pipe failed"}};
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::string out;
    try {
      out = body().dump();
    } catch (const std::exception& e) {
      out = json{{"error", e.what()}}.dump();
    }
    size_t done = 0;
    while (done < out.size()) {
      const ssize_t w = write(fds[1], out.data() + done, out.size() - done);
      if (w <= 0) break;
      done += static_cast<size_t>(w);
    }
    close(fds[1]);
    std::fflush(stdout);
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buf[65536];
  ssize_t r;
  while ((r = read(fds[0], buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(r));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (text.empty()) return json{{"error", "child died (status " + std::to_string(status) + ")"}};
  return json::parse(text);
}

// ---- generation child ----
json generate(long target, const std::string& dir) {
  json r;
  auto t0 = Clock::now();
  ss::Plan plan = ss::gen::makeLlamaPlan(llamaFor(target));
  r["gen_ms"] = msSince(t0);
  r["layers"] = llamaFor(target).layers;
  r["nodes"] = plan.graph.size();
  size_t edges = 0;
  for (int v = 0; v < plan.graph.size(); ++v) edges += plan.graph.inputs(v).size();
  r["edges"] = edges;
  const std::string base = dir + "/llama_" + std::to_string(target);
  t0 = Clock::now();
  const std::string text = ss::writePlanString(plan);
  r["write_native_ms"] = msSince(t0);
  std::ofstream(base + ".plan.json") << text;
  r["native_bytes"] = text.size();
  t0 = Clock::now();
  const json ap = ss::writeAutoparallelJson(plan);
  if (!ap.empty()) {
    const std::string s = ap.dump();
    std::ofstream(base + ".autoparallel.json") << s;
    r["autoparallel_bytes"] = s.size();
  }
  const std::string fx = ss::writeFxText(plan).value();
  if (!fx.empty()) {
    std::ofstream(base + ".fx.txt") << fx;
    r["fx_bytes"] = fx.size();
  }
  return r;
}

// "a,b,,c" -> {"a", "b", "c"} (empty items dropped).
std::vector<std::string> commaList(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    if (end > start) out.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// ---- measurement child ----
struct Headless : ss::views::HeadlessFrame {
  Headless() : HeadlessFrame(ImVec2(1600, 1000)) {}
  void frame(const std::function<void()>& body) { HeadlessFrame::frame(body, "bench"); }
};

// The plan's graph view driven headless; the layout runs synchronously, so the first frame includes it.
struct HeadlessGraph {
  Headless ui;
  ss::views::GraphViewState st;
  ss::views::Selection sel;
  HeadlessGraph() { st.syncLayoutBelow = static_cast<size_t>(-1); }
  void frame(const ss::Plan& plan, const ss::Diagnostics& diags) {
    ui.frame([&] { ss::views::drawGraphView(plan, diags, st, sel); });
  }
};

json measure(long target, const std::string& dir, int frames) {
  json r;
  const std::string base = dir + "/llama_" + std::to_string(target);
  auto t0 = Clock::now();
  auto loaded = ss::loadPlanFile(base + ".plan.json");
  r["load_ms"] = msSince(t0);
  if (!loaded) return json{{"error", loaded.error().toString(base + ".plan.json")}};
  ss::Plan plan = std::move(*loaded);
  ss::Diagnostics diags;
  ss::Checker checker;
  t0 = Clock::now();
  diags = checker.run(plan);
  r["check_ms"] = msSince(t0);
  r["diagnostics"] = diags.items.size();
  r["peak_load_check_mb"] = peakRssKb() / 1024.0;

  for (const char* ext : {".autoparallel.json", ".fx.txt"}) {
    if (!std::filesystem::exists(base + ext)) continue;
    t0 = Clock::now();
    auto other = ss::loadPlanFile(base + ext);
    r[std::string("load") + (ext[1] == 'a' ? "_autoparallel_ms" : "_fx_ms")] =
        other ? json(msSince(t0)) : json(other.error().toString(base + ext));
  }

  t0 = Clock::now();
  ss::LayoutInput in = ss::layoutInputFromPlan(plan);
  r["layout_input_ms"] = msSince(t0);
  t0 = Clock::now();
  auto layout = ss::layoutGraph(in);
  r["layout_ms"] = msSince(t0) + r["layout_input_ms"].get<double>();
  r["layout_layers"] = layout->layerCount();
  r["layout_templates"] = layout->templatesLaidOut;
  r["layout_stamped"] = layout->stampedBlocks;
  long longEdges = 0;
  for (uint8_t l : layout->longEdge) longEdges += l;
  r["long_edges"] = longEdges;

  // Frames: the whole graph fitted, then zoomed in until at most ~10k nodes are in view.
  {
    HeadlessGraph g;
    ss::views::GraphViewState& st = g.st;
    auto frame = [&] { g.frame(plan, diags); };
    t0 = Clock::now();
    frame();  // lays out (synchronously) and builds the model
    r["first_frame_ms"] = msSince(t0);
    // The module overview (views/graph_overview.h): the level the first frame's Fit picked, then one box opened
    // (its relayout and the frame that shows it), as a user's first click does.
    if (const auto level = ss::views::currentLevel(st)) r["overview_level"] = ss::overviewLevelName(*level);
    int box = -1;
    for (size_t b = 0; b < st.model->layout.blocks.size() && box < 0; ++b)
      if (st.model->layout.blocks[b].collapsed) box = static_cast<int>(b);
    if (box >= 0) {
      int boxes = 0;
      for (const auto& blk : st.model->layout.blocks) boxes += blk.collapsed;
      r["overview_boxes"] = boxes;
      t0 = Clock::now();
      ss::views::expandBox(st, box);
      frame();
      r["overview_expand_ms"] = msSince(t0);
      ss::views::setLevel(st, ss::OverviewLevel::Nodes);
    }
    // The frames below measure the whole graph fitted, as before the overview: every node, no readable-zoom floor.
    st.minLabelPx = 0.f;
    frame();
    st.fitRequested = true;
    frame();
    auto timeFrames = [&](json& into, const char* key) {
      frame();
      double total = 0, worst = 0, records = 0;
      for (int i = 0; i < frames; ++i) {
        const auto f0 = Clock::now();
        frame();
        const double ms = msSince(f0);
        total += ms;
        worst = std::max(worst, ms);
        records += st.lastRecordMs;
      }
      into[std::string(key) + "_ms"] = total / frames;
      into[std::string(key) + "_worst_ms"] = worst;
      into[std::string(key) + "_records_ms"] = records / frames;
      into[std::string(key) + "_nodes_in_view"] = st.records.nodesVisited;
      into[std::string(key) + "_vertices"] = ImGui::GetDrawData()->TotalVtxCount;
    };
    timeFrames(r, "frame_fit");
    const ss::Vec2d centre = st.model->layout.bounds.center();
    while (st.records.nodesVisited > 10000 && st.canvas.zoom < st.canvas.maxZoom) {
      st.canvas.zoom *= 1.25;
      st.canvas.centerOn(centre);
      frame();
    }
    timeFrames(r, "frame_10k");
    // Readable: zoom 1 (op names and shapes drawn) on the middle of the graph.
    st.canvas.zoom = 1.0;
    st.canvas.centerOn(centre);
    timeFrames(r, "frame_zoom1");
  }

  // Diff against a perturbed copy: every 1000th call node's output replicated, every 100th redistribute dropped,
  // every 500th node renamed (so structure matching has work). Both plans are checked inside diffPlans.
  {
    ss::Plan b = plan;
    int flipped = 0, dropped = 0, renamed = 0;
    for (int v = 0; v < b.graph.size(); ++v) {
      ss::Node& n = b.graph.nodes[static_cast<size_t>(v)];
      auto& outs = b.specs[static_cast<size_t>(v)].outputs;
      if (v % 1000 == 500 && n.kind == ss::NodeKind::Call && !outs.empty() && outs[0]) {
        outs[0] = ss::ShardingSpec::replicated(b.mesh.ndim());
        ++flipped;
      }
      if (v % 500 == 250) {
        n.name += "_renamed";
        ++renamed;
      }
    }
    b.graph.reindex();
    std::vector<ss::Redistribute> kept;
    for (size_t k = 0; k < b.redistributes.size(); ++k) {
      if (k % 100 == 50) ++dropped;
      else kept.push_back(b.redistributes[k]);
    }
    b.redistributes = std::move(kept);
    t0 = Clock::now();
    const ss::PlanDiff same = ss::diffPlans(plan, plan);
    r["diff_same_ms"] = msSince(t0);
    t0 = Clock::now();
    const ss::PlanDiff d = ss::diffPlans(plan, b);
    r["diff_ms"] = msSince(t0);
    r["diff_changes"] = d.changes.size();
    r["diff_diagnostics_added"] = d.diagnosticsAdded.size();
    r["diff_by_structure"] = d.matchedByStructure;
    r["diff_perturbed"] = {{"outputs", flipped}, {"redistributes", dropped}, {"renamed", renamed}};
    r["diff_same_ok"] = same.same();
    // The diff's own work (matching, changes, costs, diagnostics matched), given both plans' diagnostics: what the
    // app pays to re-diff after an edit of A (it keeps A's diagnostics in the document and B's from the first diff).
    ss::DiffOptions pre;
    pre.diagnosticsA = &d.diagnosticsA;
    pre.diagnosticsB = &d.diagnosticsB;
    t0 = Clock::now();
    const ss::PlanDiff again = ss::diffPlans(plan, b, pre);
    r["diff_no_check_ms"] = msSince(t0);
    r["diff_no_check_same_result"] = again.changes.size() == d.changes.size() &&
                                     again.diagnosticsAdded == d.diagnosticsAdded;
  }

  // One edit: a mid-graph mm's output spec flipped to replicated, then the incremental re-check.
  int target_node = -1;
  for (int v = plan.graph.size() / 2; v < plan.graph.size(); ++v)
    if (plan.graph.nodes[v].op == "aten.mm.default") { target_node = v; break; }
  if (target_node >= 0) {
    ss::SetOutputSpec cmd{target_node, 0, ss::ShardingSpec::replicated(plan.mesh.ndim())};
    auto applied = ss::applyCommand(plan, cmd);
    if (applied) {
      t0 = Clock::now();
      const auto& d2 = checker.update(plan, applied->touchedNodes);
      r["recheck_ms"] = msSince(t0);
      r["recheck_diagnostics"] = d2.items.size();
    }
  }
  return r;
}

std::string cell(const json& r, const char* key, int decimals = 1);

// A real graph file (e.g. autoparallel's overlap-simulator repros): what opening it costs. load_ms reads and
// parses it (for FX text: shape inference included), check_ms is the full check; first_frame_ms is the app's first
// graph frame (layout included), so load + check + first frame is the time until the graph is on screen.
// Process CPU time (all threads), in ms: on a shared machine wall time also counts the waits for a core.
double cpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

json measureFile(const std::string& path, int frames) {
  json r;
  r["file"] = std::filesystem::path(path).filename().string();
  auto t0 = Clock::now();
  double c0 = cpuMs();
  auto loaded = ss::loadPlanFile(path);
  r["load_ms"] = msSince(t0);
  r["load_cpu_ms"] = cpuMs() - c0;
  if (!loaded) return json{{"file", r["file"]}, {"error", loaded.error().toString(path)}};
  ss::Plan plan = std::move(*loaded);
  r["nodes"] = plan.graph.size();
  long known = 0, calls = 0;
  for (const auto& n : plan.graph.nodes) {
    if (n.kind != ss::NodeKind::Call) continue;
    ++calls;
    known += !n.outputs.empty() && n.outputs[0].known;
  }
  r["calls"] = calls;
  r["calls_with_shapes"] = known;
  ss::Diagnostics diags;
  ss::Checker checker;
  t0 = Clock::now();
  c0 = cpuMs();
  diags = checker.run(plan);
  r["check_ms"] = msSince(t0);
  r["check_cpu_ms"] = cpuMs() - c0;
  long unchecked = 0, errors = 0;
  for (const auto& n : plan.graph.nodes)  // the nodes an unchecked-op diagnostic stands for
    unchecked += n.kind == ss::NodeKind::Call && !ss::rules::findRule(n.op);
  for (const auto& d : diags.items) errors += d.severity == ss::Severity::Error;
  r["unchecked_ops"] = unchecked;
  r["errors"] = errors;
  r["diagnostics"] = diags.items.size();
  r["peak_load_check_mb"] = peakRssKb() / 1024.0;
  HeadlessGraph g;
  auto frame = [&] { g.frame(plan, diags); };
  t0 = Clock::now();
  frame();  // lays out (synchronously) and builds the model
  r["first_frame_ms"] = msSince(t0);
  double total = 0;
  for (int i = 0; i < frames; ++i) {
    const auto f0 = Clock::now();
    frame();
    total += msSince(f0);
  }
  r["frame_fit_ms"] = total / std::max(1, frames);
  r["open_ms"] = r["load_ms"].get<double>() + (r.contains("check_ms") ? r["check_ms"].get<double>() : 0.0) +
                 r["first_frame_ms"].get<double>();
  return r;
}

int runFiles(const Options& opt) {
  json runs = json::array();
  for (const auto& f : opt.files) {
    if (!opt.json) std::fprintf(stderr, "bench: %s...\n", f.c_str());
    runs.push_back(inChild([&] { return measureFile(f, opt.frames); }));
  }
  if (opt.json) {
    std::printf("%s\n", json{{"files", runs}}.dump(2).c_str());
    return 0;
  }
  std::printf("%-30s %6s %8s %8s %9s %9s %9s %9s %8s %7s\n", "file", "nodes", "load_ms", "load_cpu", "check_ms",
              "check_cpu", "unchecked", "frame1_ms", "open_ms", "shapes%");
  for (const auto& r : runs) {
    if (r.contains("error")) {
      std::printf("%-30s error: %s\n", r.value("file", "?").c_str(), r["error"].get<std::string>().c_str());
      continue;
    }
    const double pct = r["calls"].get<double>() > 0 ? 100.0 * r["calls_with_shapes"].get<double>() / r["calls"].get<double>() : 0;
    std::printf("%-30s %6s %8s %8s %9s %9s %9s %9s %8s %6.1f%%\n", r["file"].get<std::string>().c_str(),
                cell(r, "nodes").c_str(), cell(r, "load_ms").c_str(), cell(r, "load_cpu_ms").c_str(),
                cell(r, "check_ms").c_str(), cell(r, "check_cpu_ms").c_str(), cell(r, "unchecked_ops").c_str(),
                cell(r, "first_frame_ms").c_str(), cell(r, "open_ms").c_str(), pct);
  }
  return 0;
}

// ---- redistribute rate ----
json redistributeRate() {
  ss::DeviceMesh mesh({2, 4}, {"dp", "tp"});
  ss::ParseContext ctx;
  ctx.mesh = &mesh;
  std::vector<ss::ShardingSpec> specs;
  for (const char* s : {"RR", "S(0)R", "RS(0)", "RS(1)", "S(0)S(1)", "S(1)S(2)", "P(sum)R", "RP(sum)", "S(0)P(sum)",
                        "P(sum)S(1)", "S(2)R", "RS(2)", "S(0)S(0)", "S(1)R"}) {
    auto r = ss::parseSpec(s, ctx);
    if (r) specs.push_back(*r);
  }
  const ss::TensorMeta meta{{8, 2048, 4096}, ss::DType::BF16, true};
  long evals = 0, possible = 0;
  const auto t0 = Clock::now();
  double elapsed = 0;
  while (elapsed < 500.0) {
    for (const auto& a : specs)
      for (const auto& b : specs) {
        possible += ss::planRedistribute(meta, mesh, a, b).possible;
        ++evals;
      }
    elapsed = msSince(t0);
  }
  return json{{"evals", evals}, {"possible", possible}, {"evals_per_s", evals / (elapsed / 1000.0)}};
}

// Teaching (core/plan/teach.h, views/teach_view.h): expanding a redistribute into block movements and one frame's
// record pass, on the seed-1 edge (2x4) and at the largest mesh teach pictures (16x16 = 256 ranks, an
// all_to_all of 3840 transfers).
json teachRate() {
  json out = json::object();
  struct Case { const char* name; std::vector<int64_t> mesh; const char* from; const char* to; };
  for (const Case& c : {Case{"seed1_2x4", {2, 4}, "RS(1)", "RS(0)"}, Case{"a2a_16x16", {16, 16}, "RS(1)", "RS(0)"},
                        Case{"ar_16x16", {16, 16}, "RP(sum)", "RR"}}) {
    ss::DeviceMesh mesh(c.mesh);
    ss::ParseContext ctx;
    ctx.mesh = &mesh;
    const ss::TensorMeta meta{{64, 4096}, ss::DType::BF16, true};
    const ss::ShardingSpec a = *ss::parseSpec(c.from, ctx), b = *ss::parseSpec(c.to, ctx);
    long n = 0;
    auto t0 = Clock::now();
    ss::TeachPlan tp;
    while (msSince(t0) < 300.0 || n < 3) {
      tp = ss::teachRedistribute(meta, mesh, a, b);
      ++n;
    }
    const double expandMs = msSince(t0) / static_cast<double>(n);
    size_t transfers = 0;
    for (const auto& s : tp.steps) transfers += s.transfers.size();
    json r = {{"transfers", transfers}, {"expand_ms", expandMs}};
#ifdef SHARDSCOPE_BENCH_HAVE_TEACH_VIEW
    ss::views::TeachMoment m;
    m.step = 0;
    m.overview = true;
    ss::views::TeachFrameOptions o;
    o.width = 1200;
    o.height = 800;
    long f = 0;
    t0 = Clock::now();
    while (msSince(t0) < 300.0 || f < 3) {
      (void)ss::views::teachFrame(tp, m, o);
      ++f;
    }
    r["frame_records_ms"] = msSince(t0) / static_cast<double>(f);
#endif
    out[c.name] = r;
  }
  return out;
}

// ---- applied graphs (autoparallel artifacts) ----
json measureApplied(const std::string& file) {
  json r;
  r["file"] = std::filesystem::path(file).filename().string();
  auto t0 = Clock::now();
  auto text = ss::readFileText(file);
  r["read_ms"] = msSince(t0);
  if (!text) {
    r["error"] = text.error().toString(file);
    return r;
  }
  t0 = Clock::now();
  ss::SessionInputs in;
  in.primary = file;
  auto s = ss::loadSession(in);
  r["open_ms"] = msSince(t0);
  if (!s) {
    r["error"] = s.error().toString();
    return r;
  }
  t0 = Clock::now();
  ss::Diagnostics d = ss::checkSession(*s);
  r["check_ms"] = msSince(t0);
  r["nodes"] = s->alone ? s->alone->plan.graph.size() : s->plan.graph.size();
  size_t colls = s->alone ? s->alone->collectives.size() : 0;
  for (const auto& a : s->applied) colls += a.collectives.size();
  r["collectives"] = colls;
  r["mesh"] = s->plan.mesh.toString();
  r["diagnostics"] = d.items.size();
#ifdef SHARDSCOPE_BENCH_HAVE_VIEWS
  // The plan graph's overlay (what the app builds on open), then the Applied graph tab: its first frame (layout,
  // overlay, model; laid out synchronously here, on a worker in the app), the whole graph fitted, and zoomed in
  // on the first collective (readable: labels, pills).
  t0 = Clock::now();
  const ss::views::GraphOverlay po = s->applied.empty() ? (s->alone ? ss::views::aloneOverlay(*s->alone) : ss::views::GraphOverlay{})
                                                        : ss::views::planOverlay(s->applied, s->plan.mesh);
  r["overlay_ms"] = msSince(t0);
  r["overlay_pills"] = po.edges.size();
  r["overlay_marks"] = po.nodes.size();
  {
    const ss::Plan& plan = s->alone ? s->alone->plan : s->plan;
    Headless ui;
    ss::views::AppliedGraphViewState st;
    st.graph.syncLayoutBelow = static_cast<size_t>(-1);
    ss::views::Selection sel;
    auto frame = [&] {
      ui.frame([&] { ss::views::drawAppliedGraphView(plan, d, s->applied, s->alone ? &*s->alone : nullptr, st, sel, 1); });
    };
    t0 = Clock::now();
    frame();
    r["applied_first_frame_ms"] = msSince(t0);
    r["applied_laid_out"] = st.graph.model ? st.graph.model->layout.nodeCount() : 0;
    r["applied_nodes_drawn"] = st.graph.records.nodes.size() + st.graph.records.cells.size();
    const int frames = 20;
    auto timeFrames = [&](const char* key) {
      double total = 0, records = 0;
      for (int i = 0; i < frames; ++i) {
        const auto f0 = Clock::now();
        frame();
        total += msSince(f0);
        records += st.graph.lastRecordMs;
      }
      r[std::string(key) + "_ms"] = total / frames;
      r[std::string(key) + "_records_ms"] = records / frames;
    };
    timeFrames("applied_frame_fit");
    const auto& cs = s->alone ? s->alone->collectives : s->applied.empty() ? std::vector<ss::AppliedCollective>{} : s->applied[0].collectives;
    if (!cs.empty()) {
      if (s->alone) sel.selectNode(cs[0].node, true);
      else st.local.selectNode(cs[0].node, true);
      frame();
      timeFrames("applied_frame_zoom");
      r["applied_zoom_nodes_drawn"] = st.graph.records.nodes.size();
      r["applied_zoom_px"] = st.graph.canvas.zoom * st.graph.model->layout.nodeHeight;
    }
  }
#endif
  r["peak_mb"] = static_cast<double>(peakRssKb()) / 1024.0;
  return r;
}

// ---- report ----
std::string cell(const json& r, const char* key, int decimals) {
  if (!r.contains(key)) return "n/a";
  const json& v = r[key];
  char buf[64];
  if (v.is_number_float()) std::snprintf(buf, sizeof buf, "%.*f", decimals, v.get<double>());
  else if (v.is_number()) std::snprintf(buf, sizeof buf, "%lld", v.get<long long>());
  else return v.is_string() ? "err" : "n/a";
  return buf;
}

double exponent(const json& a, const json& b, const char* key) {
  if (!a.contains(key) || !b.contains(key) || !a[key].is_number() || !b[key].is_number()) return NAN;
  const double ta = a[key].get<double>(), tb = b[key].get<double>();
  const double na = a["nodes"].get<double>(), nb = b["nodes"].get<double>();
  if (ta <= 0 || tb <= 0 || na == nb) return NAN;
  return std::log(tb / ta) / std::log(nb / na);
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) { std::fprintf(stderr, "shardscope_bench: %s needs a value\n%s", a.c_str(), kUsage); std::exit(2); }
      return argv[++i];
    };
    try {
      if (a == "--json") opt.json = true;
      else if (a == "--stress") opt.sizes.push_back(1000000);
      else if (a == "--frames") opt.frames = std::max(1, std::stoi(next()));
      else if (a == "--dir") opt.dir = next();
      else if (a == "--applied") opt.applied.push_back(next());
      else if (a == "--files") {
        for (auto& f : commaList(next())) opt.files.push_back(f);
      }
      else if (a == "--sizes") {
        opt.sizes.clear();
        opt.sizesGiven = true;
        for (auto& item : commaList(next())) opt.sizes.push_back(parseSize(item));
      } else if (a == "--help" || a == "-h") { std::fputs(kUsage, stdout); return 0; }
      else { std::fprintf(stderr, "shardscope_bench: unknown argument %s\n%s", a.c_str(), kUsage); return 2; }
    } catch (const std::exception&) {
      std::fprintf(stderr, "shardscope_bench: bad value for %s\n%s", a.c_str(), kUsage);
      return 2;
    }
  }
  if (!opt.files.empty()) return runFiles(opt);
  std::filesystem::create_directories(opt.dir);
  if (!opt.applied.empty() && !opt.sizesGiven) opt.sizes.clear();

  json report;
  json appliedRuns = json::array();
  for (const std::string& f : opt.applied) appliedRuns.push_back(inChild([&] { return measureApplied(f); }));
  report["applied"] = appliedRuns;
  report["machine"] = {{"cpus", sysconf(_SC_NPROCESSORS_ONLN)}};
  json runs = json::array();
  for (long size : opt.sizes) {
    if (!opt.json) std::fprintf(stderr, "bench: %ld nodes...\n", size);
    json run = inChild([&] { return generate(size, opt.dir); });
    if (!run.contains("error")) {
      const json m = inChild([&] { return measure(size, opt.dir, opt.frames); });
      run.update(m);
    }
    run["target"] = size;
    runs.push_back(run);
  }
  report["runs"] = runs;
  report["redistribute"] = redistributeRate();
  report["teach"] = teachRate();
  json exps = json::object();
  const json* r10k = nullptr;
  const json* r100k = nullptr;
  for (const auto& r : runs) {
    if (r["target"] == 10000) r10k = &r;
    if (r["target"] == 100000) r100k = &r;
  }
  if (r10k && r100k && !r10k->contains("error") && !r100k->contains("error"))
    for (const char* k : {"load_ms", "check_ms", "layout_ms", "frame_fit_ms", "frame_10k_ms", "frame_zoom1_ms", "recheck_ms",
                          "diff_ms", "peak_load_check_mb"}) {
      const double e = exponent(*r10k, *r100k, k);
      if (!std::isnan(e)) exps[k] = e;
    }
  report["growth_exponent_10k_100k"] = exps;

  if (opt.json) {
    std::printf("%s\n", report.dump(2).c_str());
    return 0;
  }
  for (const auto& r : appliedRuns) {
    if (r.contains("error")) {
      std::printf("applied %s: error: %s\n", r["file"].get<std::string>().c_str(), r["error"].get<std::string>().c_str());
      continue;
    }
    std::printf("applied %s: %s nodes, %s collectives, mesh %s: open %s ms (read %s ms), check %s ms, peak %s MB\n",
                r["file"].get<std::string>().c_str(), cell(r, "nodes").c_str(), cell(r, "collectives").c_str(),
                r["mesh"].get<std::string>().c_str(), cell(r, "open_ms").c_str(), cell(r, "read_ms").c_str(),
                cell(r, "check_ms").c_str(), cell(r, "peak_mb", 0).c_str());
    if (r.contains("overlay_ms"))
      std::printf("  overlay %s ms (%s pills, %s collective marks); Applied graph tab: first frame %s ms (layout included), "
                  "frame fit %s ms (records %s), frame zoomed %s ms (records %s)\n",
                  cell(r, "overlay_ms", 2).c_str(), cell(r, "overlay_pills").c_str(), cell(r, "overlay_marks").c_str(),
                  cell(r, "applied_first_frame_ms").c_str(), cell(r, "applied_frame_fit_ms", 2).c_str(),
                  cell(r, "applied_frame_fit_records_ms", 2).c_str(), cell(r, "applied_frame_zoom_ms", 2).c_str(),
                  cell(r, "applied_frame_zoom_records_ms", 2).c_str());
  }
  if (runs.empty()) return 0;
  std::printf("%-8s %8s %8s %8s %8s %8s %9s %8s %10s %10s %10s %9s %8s\n", "target", "nodes", "edges", "file MB",
              "load ms", "check ms", "layout ms", "stamped", "frame fit", "frame 10k", "frame 1:1", "recheck",
              "peak MB");
  for (const auto& r : runs) {
    if (r.contains("error")) {
      std::printf("%-8ld error: %s\n", r["target"].get<long>(), r["error"].get<std::string>().c_str());
      continue;
    }
    std::printf("%-8ld %8s %8s %8.1f %8s %8s %9s %8s %10s %10s %10s %9s %8s\n", r["target"].get<long>(),
                cell(r, "nodes").c_str(), cell(r, "edges").c_str(), r["native_bytes"].get<double>() / 1e6,
                cell(r, "load_ms").c_str(), cell(r, "check_ms").c_str(), cell(r, "layout_ms").c_str(),
                (cell(r, "layout_stamped") + "/" + cell(r, "layout_templates")).c_str(), cell(r, "frame_fit_ms", 2).c_str(),
                cell(r, "frame_10k_ms", 2).c_str(), cell(r, "frame_zoom1_ms", 2).c_str(), cell(r, "recheck_ms", 2).c_str(), cell(r, "peak_load_check_mb", 0).c_str());
  }
  auto megabytes = [](const json& r, const char* key) {
    char buf[32];
    if (!r.contains(key)) return std::string("n/a");
    std::snprintf(buf, sizeof buf, "%.1f", r[key].get<double>() / 1e6);
    return std::string(buf);
  };
  for (const auto& r : runs)
    if (!r.contains("error") && (r.contains("load_autoparallel_ms") || r.contains("load_fx_ms")))
      std::printf("%-8ld other formats: autoparallel JSON %s MB loads in %s ms, FX text %s MB in %s ms\n",
                  r["target"].get<long>(), megabytes(r, "autoparallel_bytes").c_str(),
                  cell(r, "load_autoparallel_ms").c_str(), megabytes(r, "fx_bytes").c_str(), cell(r, "load_fx_ms").c_str());
  for (const auto& r : runs)
    if (!r.contains("error") && r.contains("diff_ms"))
      std::printf("%-8ld diff against a perturbed copy: %s ms (%s changes, %s matched by structure; %s ms of it not "
                  "checking); against itself %s ms\n",
                  r["target"].get<long>(), cell(r, "diff_ms").c_str(), cell(r, "diff_changes").c_str(),
                  cell(r, "diff_by_structure").c_str(), cell(r, "diff_no_check_ms").c_str(), cell(r, "diff_same_ms").c_str());
  std::printf("redistribute planner: %.2f M evaluations/s\n", report["redistribute"]["evals_per_s"].get<double>() / 1e6);
  for (auto it = report["teach"].begin(); it != report["teach"].end(); ++it)
    std::printf("teach %-10s %5lld transfers: expand %.3f ms, frame records %s ms\n", it.key().c_str(),
                it.value()["transfers"].get<long long>(), it.value()["expand_ms"].get<double>(),
                cell(it.value(), "frame_records_ms", 3).c_str());
  for (auto it = exps.begin(); it != exps.end(); ++it)
    std::printf("growth exponent 10k->100k %-20s %.2f\n", it.key().c_str(), it.value().get<double>());
  return 0;
}
