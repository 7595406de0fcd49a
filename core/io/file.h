#pragma once
// Files and JSON text, below every reader: the one way a file is read (size-checked, whole, with its message) and
// written (atomically, with a backup), and JSON parsed with line:col errors. No reader or format is known here.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json_fwd.hpp>

#include "core/model/limits.h"
#include "core/model/result.h"

namespace ss {

// Line and column (1-based) of byte offset `off` in `text`.
std::pair<int, int> lineColOf(std::string_view text, size_t off);

// The whole file. `tailPadding` extra spaces are appended after it (the caller views only the first
// size - tailPadding bytes; see planFromJsonTextFast's paddedTail).
Result<std::string> readFileText(const std::string& path, size_t tailPadding = 0);
// The first `maxBytes` bytes of the file (fewer when it is shorter), opened as readFileText opens it: a FIFO, device
// or socket is refused at once, never waited on. For format detection that must not read a large file whole.
Result<std::string> readFileHead(const std::string& path, size_t maxBytes);

// A file's bytes followed by `padding` readable bytes (simdjson's padding, for the fast readers). The buffer is
// not cleared first: the read fills it.
struct PaddedFile {
  std::unique_ptr<char[]> bytes;
  size_t size = 0;
  std::string_view text() const { return {bytes.get(), size}; }
};
Result<PaddedFile> readPaddedFile(const std::string& path, size_t padding);

// Parses JSON text; syntax errors become line:col errors. Depth-limited (kMaxJsonDepth).
Result<nlohmann::json> parseJsonText(std::string_view text);

// Atomic, safe save: writes a new file beside PATH (a fresh name created with O_EXCL | O_NOFOLLOW: no existing file
// or planted symlink is ever opened, and nothing of the user's named like PATH.tmp is touched), fsyncs, gives it
// PATH's mode (0666 & ~umask for a new file), keeps the previous PATH as PATH.bak (renamed into place: a symlink
// at PATH.bak is replaced, not followed), and renames it over PATH (a symlink at PATH is replaced, not followed).
// With Backup::No (rendered images, exports the user re-makes) no PATH.bak is kept.
enum class Backup : uint8_t { Keep, No };
Result<bool> writeFileAtomic(const std::string& path, std::string_view contents, Backup backup = Backup::Keep);

}  // namespace ss
