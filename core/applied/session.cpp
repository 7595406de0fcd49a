#include "core/io/file.h"
#include "core/applied/session.h"

#include <filesystem>
#include <fstream>

#include "core/check/autosp_slices.h"
#include "core/io/formats.h"
#include "core/io/load/load.h"

namespace ss {
namespace {

bool isOptimizerLog(std::string_view text) { return text.find("  # placement=") != std::string_view::npos; }

bool hasCollectiveOps(std::string_view text) {
  return text.find("torch.ops._c10d_functional.") != std::string_view::npos ||
         text.find("torch.ops._dtensor.shard_dim_alltoall") != std::string_view::npos;
}

Result<std::string> readText(const std::string& path) {
  auto t = readFileText(path);
  if (!t) return Error{t.error().toString(path)};
  return t;
}

Result<Plan> readApplied(const ArtifactText& a) {
  auto p = readFxText(a.text);
  if (!p) {
    Error e = a.locate(p.error());
    return a.columnShift ? Error{e.toString(a.file)} : e;
  }
  return p;
}

// A --group naming a mesh dim the mesh lacks: refused with one line (mapGroups would leave it unmapped).
std::optional<Error> groupOverrideProblem(const std::map<std::string, int>& groups, const DeviceMesh& mesh) {
  for (const auto& [name, dim] : groups)
    if (dim < 0 || dim >= mesh.ndim())
      return Error{"--group " + name + "=" + std::to_string(dim) + ": the mesh " + mesh.toString() + " has mesh dims 0 to " +
                   std::to_string(mesh.ndim() - 1)};
  return std::nullopt;
}

}  // namespace

bool needsSession(const SessionInputs& in) {
  if (in.solution || in.applied) return true;
  std::error_code ec;
  if (std::filesystem::is_directory(in.primary, ec)) return true;
  // Not a regular file (a FIFO would block any read): no session; loading it refuses it with one line.
  if (!std::filesystem::is_regular_file(in.primary, ec)) return false;
  if (isDTensorProgramPath(in.primary)) return true;
  // The head decides (a plain plan of 1 GB is not read twice): the kind, and for FX text an optimizer log's
  // placement comments or a collective in its first MiB.
  auto read = readFileHead(in.primary, size_t{1} << 20);
  if (!read) return false;
  const std::string& head = *read;
  const FileKind k = detectFileKind(head);
  if (k == FileKind::TorchTrace) return true;
  // A graph after DeepSpeed AutoSP's passes (its all-to-alls) too: the session gives it its SP mesh and the
  // sliced inputs (annotateAutoSpSlices), in the app as in check.
  return k == FileKind::FxText &&
         (isOptimizerLog(head) || hasCollectiveOps(head) || head.find("torch.ops.autosp.") != std::string::npos);
}

Result<AppliedSession> loadSession(const SessionInputs& in, const AppliedOptions& baseOpts) {
  AppliedSession s;
  AppliedOptions opts = baseOpts;
  for (const auto& [g, d] : in.groups) opts.groups[g] = d;
  std::vector<AutoparallelArtifacts> runs;  // one per log (rank), or one from the separate files
  std::vector<SymbolHints> hintsOf;         // per run: its log's create_symbol hints (none for separate files)
  std::error_code ec;
  if (!in.solution && !in.applied && isDTensorProgramPath(in.primary)) {
    ProgramOptions po;
    po.mesh = in.mesh;
    po.cost = opts.cost;
    auto p = loadDTensorProgram(in.primary, po);
    if (!p) return p.error();
    s.plan = p->plan;
    s.hasPlan = true;
    s.description = std::string(programSourceName(p->source)) + " of " + std::to_string(p->files.size()) + " rank" +
                    (p->files.size() == 1 ? "" : "s");
    s.program = std::move(*p);
    return s;
  }
  const bool dir = std::filesystem::is_directory(in.primary, ec);
  std::optional<std::string> primaryText;
  if (!dir) {
    auto t = readText(in.primary);
    if (!t) return t.error();
    primaryText = std::move(*t);
  }
  // A compiled DTensor program (one log, or a folder's first rank): read as one, or refused.
  {
    std::string file = in.primary;
    std::optional<std::string> text = primaryText;
    if (dir) {
      auto logs = readTraceLogPath(in.primary, [](const TraceRecord&) { return false; });
      if (logs && !logs->empty()) {
        file = logs->front().file;
        auto t = readText(file);
        if (!t) return t.error();
        text = std::move(*t);
      }
    }
    if (!in.solution && !in.applied && text && detectFileKind(*text) == FileKind::TorchTrace && looksLikeCompiledDTensorLog(*text)) {
      auto c = readCompiledDTensorLog(*text, file, opts);
      if (!c) return Error{c.error().toString(file)};
      s.plan = c->plan;
      s.hasPlan = true;
      s.description = "compiled DTensor program (TORCH_TRACE log)";
      s.compiled = std::move(*c);
      return s;
    }
  }
  if (dir || detectFileKind(*primaryText) == FileKind::TorchTrace) {
    std::vector<TraceLog> logs;
    if (dir) {
      auto l = readTraceLogPath(in.primary);
      if (!l) return l.error();
      logs = std::move(*l);
    } else {
      auto l = readTraceLog(*primaryText);
      if (!l) return Error{l.error().toString(in.primary)};
      l->file = in.primary;
      logs.push_back(std::move(*l));
    }
    int records = 0;
    for (const auto& log : logs) {
      records += static_cast<int>(log.records.size());
      auto a = artifactsFromTraceLog(log);
      if (!a) return Error{a.error().toString(log.file)};
      if (!in.solution && placementsNotInLog(*a)) return Error{placementsNotInLogMessage(log.file)};
      if (in.solution) {
        auto t = readText(*in.solution);
        if (!t) return t.error();
        a->solution = ArtifactText{std::move(*t), *in.solution, 1, 0, kSolutionArtifact};
      }
      runs.push_back(std::move(*a));
      SymbolHints& h = hintsOf.emplace_back();
      for (const TraceSymbol& t : log.symbols)
        if (t.hint) h.emplace(t.symbol, SymbolHint{*t.hint, t.source});
    }
    s.description = "TORCH_TRACE log" + std::string(logs.size() > 1 ? "s of " + std::to_string(logs.size()) + " ranks" : "") +
                    ", " + std::to_string(records) + " records";
  } else {
    AutoparallelArtifacts a;
    a.source = in.primary;
    a.rank = in.rank;
    const FileKind k = detectFileKind(*primaryText);
    if (k == FileKind::FxText) {
      if (isOptimizerLog(*primaryText)) a.optimizerLog = ArtifactText{*primaryText, in.primary, 1, 0, kOptimizerLogArtifact};
      else if (in.solution || !hasCollectiveOps(*primaryText)) a.joint = ArtifactText{*primaryText, in.primary, 1, 0, kJointGraphArtifact};
      else a.applied = ArtifactText{*primaryText, in.primary, 1, 0, kAppliedGraphArtifact};
    } else if (k == FileKind::AutoparallelJson) {
      a.solution = ArtifactText{*primaryText, in.primary, 1, 0, kSolutionArtifact};
    } else if (k == FileKind::Unknown) {
      return Error{in.primary + ": not an autoparallel artifact: expected a joint graph or optimizer log (FX graph text), "
                   "a solution (autoparallel JSON export) or a TORCH_TRACE log"};
    } else {
      auto p = loadPlanFile(in.primary);
      if (!p) return Error{p.error().toString(in.primary)};
      s.plan = std::move(*p);
      s.hasPlan = true;
    }
    if (in.solution) {
      auto t = readText(*in.solution);
      if (!t) return t.error();
      if (detectFileKind(*t) != FileKind::AutoparallelJson)
        return Error{*in.solution + ": --solution expects autoparallel's solution JSON (get_json: {\"mesh\", \"nodes\"})"};
      a.solution = ArtifactText{std::move(*t), *in.solution, 1, 0, kSolutionArtifact};
    }
    if (in.applied) {
      auto t = readText(*in.applied);
      if (!t) return t.error();
      if (detectFileKind(*t) != FileKind::FxText)
        return Error{*in.applied + ": --applied expects the applied graph as FX graph text (print_readable or a repro script)"};
      a.applied = ArtifactText{std::move(*t), *in.applied, 1, 0, kAppliedGraphArtifact};
    }
    runs.push_back(std::move(a));
    hintsOf.emplace_back();
    s.description = "autoparallel artifacts";
  }
  // The plan: from the first run that gives one.
  if (!s.hasPlan) {
    for (size_t r = 0; r < runs.size(); ++r) {
      const AutoparallelArtifacts& a = runs[r];
      if (!a.joint && !a.optimizerLog && !a.solution) continue;
      std::optional<DeviceMesh> mesh = in.mesh;
      if (!mesh && a.optimizerLog && !a.solution && a.applied) {
        // The optimizer log has no mesh sizes; the applied graph's collectives give them.
        if (auto ap = readApplied(*a.applied)) {
          mesh = inferMesh(findCollectives((ap->graph.reindex(), ap->graph)));
        }
      }
      auto p = planFromArtifacts(a, mesh);
      if (!p) {
        const bool inLog = (a.joint && a.joint->columnShift) || (a.solution && a.solution->columnShift) ||
                           (a.optimizerLog && a.optimizerLog->columnShift);
        return Error{inLog ? p.error().toString(a.source) : p.error().toString()};
      }
      s.plan = std::move(*p);
      s.hasPlan = true;
      // A graph after DeepSpeed AutoSP's passes (no solution, no mesh given): its SP mesh and sliced inputs.
      if (!a.solution && !in.mesh) annotateAutoSpSlices(s.plan, hintsOf[r]);
      break;
    }
  }
  for (const auto& a : runs) {
    if (!a.applied) continue;
    auto ap = readApplied(*a.applied);
    if (!ap) return ap.error();
    if (!s.hasPlan) {
      s.alone = analyzeAppliedAlone(std::move(*ap), in.mesh, opts);
      if (auto bad = groupOverrideProblem(opts.groups, s.alone->plan.mesh)) return *bad;
      s.plan = s.alone->plan;
      break;
    }
    if (auto bad = groupOverrideProblem(opts.groups, s.plan.mesh)) return *bad;
    AppliedOptions o = opts;
    o.rank = in.rank >= 0 && runs.size() == 1 ? in.rank : a.rank;
    s.applied.push_back(analyzeApplied(s.plan, std::move(*ap), o));
  }
  if (!s.hasPlan && !s.alone) return Error{in.primary + ": no plan and no applied graph in these artifacts"};
  // The version the log says wrote it, where the plan's own file does not say.
  for (const auto& a : runs) {
    if (a.torchVersion.empty() || !s.plan.torchVersion.empty()) continue;
    s.plan.torchVersion = a.torchVersion;
    if (s.alone) s.alone->plan.torchVersion = a.torchVersion;
  }
  return s;
}

Diagnostics checkSession(AppliedSession& s, const CheckOptions& opts) {
  // An applied graph alone has rank-local shapes and no specs: the checker's shape rules judge every node as on a
  // plain graph (the same rules, the same messages), through its collectives and waits.
  if (!s.hasPlan) {
    if (!s.alone) return Diagnostics{};
    Diagnostics d = checkPlan(s.alone->plan, opts);
    // Its invalid collectives, each where the checker has no error yet (a group size of -1 is already the
    // all_gather's shape error: one error per wrong thing).
    for (Diagnostic& x : invalidCollectiveDiagnostics(*s.alone).items)
      if (d.worstFor(x.node) != Severity::Error) d.items.push_back(std::move(x));
    return d;
  }
  Diagnostics d = checkPlan(s.plan, opts);
  if (s.program || s.compiled) asDTensorProgram(d);
  Diagnostics x = sessionDiagnostics(s.plan, s.program, s.compiled, s.applied, opts);
  d.items.insert(d.items.end(), x.items.begin(), x.items.end());
  return d;
}

void asDTensorProgram(Diagnostics& checker) {
  for (Diagnostic& d : checker.items) {
    if (d.severity != Severity::Error || (d.kind != DiagKind::IncompatibleInputs && d.kind != DiagKind::PartialIntoNonlinear))
      continue;
    d.severity = Severity::Warning;
    d.kind = DiagKind::ImplicitRedistribute;
    d.message = "DTensor redistributes implicitly before this op: " + d.message;
  }
}

Diagnostics sessionDiagnostics(const Plan& plan, const std::optional<DTensorProgram>& program,
                               const std::optional<CompiledDTensorProgram>& compiled, std::vector<AppliedGraph>& applied,
                               const CheckOptions& opts) {
  Diagnostics d;
  auto add = [&](const Diagnostics& x) { d.items.insert(d.items.end(), x.items.begin(), x.items.end()); };
  if (program) add(programDiagnostics(*program));
  if (compiled) add(compiledDiagnostics(*compiled));
  for (auto& a : applied) add(checkApplied(plan, a, opts));
  return d;
}

}  // namespace ss
