#pragma once
// TORCH_TRACE logs (torch._logging's structured trace, what `TORCH_TRACE=/dir python train.py` writes, one file
// per process), and the artifacts autoparallel writes into them. Format facts: docs/import-formats.md.
//
// Record: one line `<L><MMDD> <HH:MM:SS.uuuuuu> <pid> <path>:<line>] <envelope JSON>` (tlparse's glog regex),
// the envelope's first key naming the record kind; payload lines follow, each a TAB and the raw text. Joined by
// "\n" after removing one tab each, the payload's md5 equals the envelope's "has_payload".
//
// Contract: readTraceLog is total. Lines that are neither a record nor a payload line (a stray print) are
// skipped and counted; unknown record kinds are skipped and counted. A damaged log is refused with FILE:LINE:COL:
// a kept payload whose md5 differs or that the end of the file cuts short, an envelope that is not JSON or nests
// deeper than kMaxJsonDepth. A damaged payload of a record this reader does not keep is tolerated (tlparse
// counts those and goes on). Empty lines inside a payload are taken as payload lines whose tab an editor
// stripped (a lone-tab line is an empty payload line) when that makes the md5 match.
// A stack frame naming an interned file index never defined reads "<file #N>" (logs may be cut). Payloads are kept only for the records `keep` selects (a
// real log carries megabytes of Inductor code), but every payload is md5-checked.
// Dynamo's create_symbol records (no payload) are kept as TraceLog::symbols: a symbolic graph's size hints.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/result.h"

namespace ss {

// One frame of a record's stack. The file name is shared with the `str` record that interned it, never copied: a log
// may reference one long interned name from every frame of every record (a 5 MB log naming a 1 MiB file 10^5 times
// asked for ~100 GB when each frame held its own copy), so memory stays a small multiple of the file's size.
struct TraceFrame {
  std::shared_ptr<const std::string> fileName;  // the interned file name resolved; never null once read
  int line = 0;
  std::string name;
  const std::string& file() const { static const std::string none; return fileName ? *fileName : none; }
};

struct TraceRecord {
  int line = 0;              // 1-based line of the envelope in its file
  std::string kind;          // "artifact", "graph_dump", "dynamo_start", "str", ...
  std::string name;          // envelope[kind]["name"] when it has one (artifact and graph_dump names)
  std::string encoding;      // envelope[kind]["encoding"] ("string", "json"), else empty
  std::string caller;        // "autoparallel/api.py:212"
  int rank = -1;             // envelope "rank"; -1 when torch.distributed was not initialised
  std::vector<TraceFrame> stack;
  bool hasPayload = false;
  bool kept = false;         // payload kept (see `keep`)
  std::string payload;
  int payloadLine = 0;       // 1-based line of the payload's first line
};

// A size symbol Dynamo created (a `create_symbol` record): `s72`, its hint (the size it was created from, the
// envelope's "val"; nullopt when that is not an integer) and its source (`L['input_ids'].size()[0]`).
struct TraceSymbol {
  std::string symbol;
  std::optional<int64_t> hint;
  std::string source;
  int line = 0;              // the record's line
};

struct TraceLog {
  std::string file;
  int rank = -1;                           // from the records, else from the file name (rank_<N>_), else -1
  std::vector<TraceRecord> records;        // every record, in file order (payload only when kept)
  int skippedLines = 0;                    // lines that were neither records nor payload lines
  std::vector<TraceSymbol> symbols;        // every create_symbol record, in file order
  // The last record of kind "artifact" with this name (a run that re-plans writes it again); nullptr if none.
  const TraceRecord* artifact(std::string_view name) const;
};

// True when the text's first non-empty line is a structured-trace record (format detection).
bool looksLikeTraceLog(std::string_view text);

// torch's own record of its version, near the top of every log: {"pytorch_version": "2.14.1+debian", ...}.
inline constexpr const char* kTorchVersionArtifact = "torch_version";
// AOT autograd's joint graph (a record kind of its own, not an artifact): the aten graph torch compiles, e.g.
// after DeepSpeed AutoSP's passes. Read where a log holds no autoparallel artifact.
inline constexpr const char* kAotJointGraphRecord = "aot_joint_graph";

using TraceKeep = std::function<bool(const TraceRecord&)>;
// Keeps payloads of artifacts whose names start with "autoparallel_", the torch_version artifact and the
// aot_joint_graph record.
bool keepAutoparallelArtifacts(const TraceRecord& r);

// Errors carry line:col in `text` (print with Error::toString(file)).
Result<TraceLog> readTraceLog(std::string_view text, const TraceKeep& keep = keepAutoparallelArtifacts);
// One log file, or a folder of per-rank files (every regular file in it that is a trace log, by rank then name).
// Errors are already located with their file name: print them with Error::toString() and no file argument.
Result<std::vector<TraceLog>> readTraceLogPath(const std::string& path, const TraceKeep& keep = keepAutoparallelArtifacts);

}  // namespace ss
