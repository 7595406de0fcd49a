// core/io/file.h: reading, writing and parsing, for every reader and writer.
#include "core/io/file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ss {

using json = nlohmann::json;
using limits::kMaxFileBytes;
using limits::kMaxJsonDepth;

namespace {

// Reads the whole file at `path` into the buffer `alloc(size)` returns (size bytes, or more). The one way every
// reader opens a file, with its messages. (Reading the halves of a large file on two threads saved ~5 ms of 24
// on a quiet machine and cost more than that on a busy one: one read.)
template <class Alloc>
Result<size_t> readWholeFile(const std::string& path, Alloc&& alloc, size_t maxBytes = SIZE_MAX) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Error{"is a directory, not a plan file"};
  // O_NONBLOCK: opening a FIFO for reading would wait for a writer forever (a path from a bug report may name one);
  // it is refused below with every other file that is not regular, whose size cannot be known before reading.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Error{std::string("cannot open: ") + std::strerror(errno)};
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Error{"cannot read the file size"};
  if (!S_ISREG(st.st_mode)) {
    const char* what = S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                       : S_ISSOCK(st.st_mode)                                    ? "a socket"
                                                                                 : "not a regular file";
    return Error{std::string("is ") + what + ", not a plan file (shardscope reads regular files only)"};
  }
  const off_t end = st.st_size;
  if (end > kMaxFileBytes) return Error{"the file is larger than 2 GiB"};
  const size_t size = std::min(static_cast<size_t>(end), maxBytes);
  char* dst = alloc(size);
  for (size_t from = 0; from < size;) {
    const ssize_t n = ::pread(fd, dst + from, size - from, static_cast<off_t>(from));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Error{"read failed"};  // shrunk under us, or an I/O error
    from += static_cast<size_t>(n);
  }
  return size;
}

}  // namespace

Result<std::string> readFileHead(const std::string& path, size_t maxBytes) {
  std::string head;
  auto n = readWholeFile(path, [&head](size_t size) { head.resize(size); return head.data(); }, maxBytes);
  if (!n) return n.error();
  return head;
}

// Line and column (1-based) of byte offset `off` in `text`.
std::pair<int, int> lineColOf(std::string_view text, size_t off) {
  off = std::min(off, text.size());
  int line = 1;
  size_t lineStart = 0;
  for (size_t i = 0; i < off; ++i)
    if (text[i] == '\n') {
      ++line;
      lineStart = i + 1;
    }
  return {line, static_cast<int>(off - lineStart) + 1};
}

Result<nlohmann::json> parseJsonText(std::string_view text) {
  // Depth pre-scan (outside strings): refuses pathological nesting before the parser sees it.
  int depth = 0;
  bool inStr = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inStr) {
      if (c == '\\') ++i;
      else if (c == '"') inStr = false;
      continue;
    }
    if (c == '"') inStr = true;
    else if (c == '{' || c == '[') {
      if (++depth > kMaxJsonDepth) {
        auto [l, col] = lineColOf(text, i);
        return Error::atLine("JSON nests deeper than " + std::to_string(kMaxJsonDepth) + " levels", l, col);
      }
    } else if (c == '}' || c == ']') --depth;
  }
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    size_t byte = e.byte > 0 ? e.byte - 1 : 0;
    auto [l, col] = lineColOf(text, byte);
    std::string msg = e.what();
    // nlohmann: "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error while parsing
    // object - unexpected end of input; expected '}'". Keep the part after the location.
    if (auto p = msg.find(": syntax error"); p != std::string::npos) msg = msg.substr(p + 2);
    else if (auto q = msg.rfind(": "); q != std::string::npos) msg = msg.substr(q + 2);
    return Error::atLine("invalid JSON: " + msg, l, col);
  } catch (const std::exception& e) {
    return Error::atLine(std::string("invalid JSON: ") + e.what(), 1, 1);
  }
}


Result<PaddedFile> readPaddedFile(const std::string& path, size_t padding) {
  PaddedFile f;
  auto size = readWholeFile(path, [&f, padding](size_t n) {
    f.bytes.reset(new char[n + padding]);
    std::memset(f.bytes.get() + n, ' ', padding);
    return f.bytes.get();
  });
  if (!size) return size.error();
  f.size = *size;
  return f;
}

Result<std::string> readFileText(const std::string& path, size_t tailPadding) {
  std::string s;
  auto size = readWholeFile(path, [&s, tailPadding](size_t n) {
    s.assign(n + tailPadding, ' ');
    return s.data();
  });
  if (!size) return size.error();
  return s;
}

namespace {

// Writes all of `contents` to `fd`.
bool writeAll(int fd, std::string_view contents) {
  size_t done = 0;
  while (done < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// A new file beside `path`, created exclusively (never an existing name, never through a symlink), mode 0600 until
// the caller sets the final one. Returns the descriptor and fills `name`; -1 with errno set on failure.
int createBeside(const std::string& path, const char* purpose, std::string& name) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  for (int attempt = 0; attempt < 64; ++attempt) {
    char suffix[24];
    std::snprintf(suffix, sizeof suffix, "%016llx", static_cast<unsigned long long>(rng()));
    name = dir + "." + base + "." + purpose + "-" + suffix;
    int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

void syncFolderOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

}  // namespace

Result<bool> writeFileAtomic(const std::string& path, std::string_view contents, Backup backup) {
  struct stat old {};
  const bool exists = ::lstat(path.c_str(), &old) == 0;
  if (exists && S_ISDIR(old.st_mode)) return Error{"cannot write: it is a folder"};
  // The new file's mode: the one the file has (a private 0600 plan stays private), else what the umask leaves.
  mode_t mode = 0;
  if (exists && S_ISREG(old.st_mode)) {
    mode = old.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  std::string tmp;
  int fd = createBeside(path, "tmp", tmp);
  if (fd < 0) return Error{std::string("cannot write: ") + std::strerror(errno)};
  if (!writeAll(fd, contents) || ::fchmod(fd, mode) != 0 || ::fsync(fd) != 0) {
    int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return Error{std::string("write failed: ") + std::strerror(err)};
  }
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return Error{std::string("write failed: ") + std::strerror(err)};
  }
  // The previous file becomes PATH.bak: a second name for its inode, made under a fresh name and renamed over
  // PATH.bak, so that whatever PATH.bak was (a symlink planted there included) is replaced, never written through.
  // A failed backup is not fatal: the new contents are already safe in the temp file.
  if (backup == Backup::Keep && exists && S_ISREG(old.st_mode)) {
    std::string bak;
    int probe = createBeside(path, "bak", bak);
    if (probe >= 0) {
      ::close(probe);
      ::unlink(bak.c_str());
      if (::link(path.c_str(), bak.c_str()) == 0 && ::rename(bak.c_str(), (path + ".bak").c_str()) != 0)
        ::unlink(bak.c_str());
    }
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return Error{std::string("cannot replace the file: ") + std::strerror(err)};
  }
  syncFolderOf(path);
  return true;
}


}  // namespace ss
