#include "app/gui/file_dialog.h"

#include <imgui.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "views/keys.h"
#include "views/ui_probe.h"

extern char** environ;

namespace ss::app {

struct FileDialog::NativeJob {
  std::atomic<bool> done{false};
  int exitCode = -1;
  std::string out, err;
};

namespace {

// Runs `argv` (no shell: arguments are passed as they are, whatever they hold) and collects its stdout and
// stderr until it exits. Returns its exit status, -1 when it could not start or did not exit normally.
int runCollecting(const std::vector<std::string>& argv, std::string& out, std::string& err) {
  int outPipe[2], errPipe[2];
  if (pipe2(outPipe, O_CLOEXEC) != 0) return -1;
  if (pipe2(errPipe, O_CLOEXEC) != 0) {
    close(outPipe[0]);
    close(outPipe[1]);
    return -1;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, outPipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&fa, errPipe[1], STDERR_FILENO);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(outPipe[1]);
  close(errPipe[1]);
  if (rc != 0) {
    close(outPipe[0]);
    close(errPipe[0]);
    return -1;
  }
  pollfd fds[2] = {{outPipe[0], POLLIN, 0}, {errPipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&out, &err};
  int open = 2;
  char buf[4096];
  while (open > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = read(fds[i].fd, buf, sizeof(buf));
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
  for (const pollfd& f : fds)
    if (f.fd >= 0) close(f.fd);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

FileDialog::FileDialog() = default;

FileDialog::~FileDialog() {
  if (thread_.joinable()) thread_.detach();  // zenity keeps running until the user closes it; the job is shared
}

void FileDialog::start(FileDialogMode mode, std::string title, std::string suggested, int purpose) {
  if (active() && state_ != State::Done) return;
  mode_ = mode;
  title_ = std::move(title);
  suggested_ = std::move(suggested);
  purpose_ = purpose;
  result_.reset();
  const bool haveDisplay = std::getenv("DISPLAY") != nullptr || std::getenv("WAYLAND_DISPLAY") != nullptr;
  const bool haveZenity = std::filesystem::exists("/usr/bin/zenity") || std::filesystem::exists("/usr/local/bin/zenity");
  if (!allowNative_ || !haveDisplay || !haveZenity) {
    startBrowser();
    return;
  }
  state_ = State::Native;
  job_ = std::make_shared<NativeJob>();
  std::vector<std::string> argv = {"zenity", "--file-selection", "--title=" + title_};
  if (mode_ == FileDialogMode::Save) {
    argv.push_back("--save");
    argv.push_back("--confirm-overwrite");
  }
  if (!suggested_.empty()) argv.push_back("--filename=" + suggested_);
  if (mode_ == FileDialogMode::Open) {
    argv.push_back("--file-filter=Plans | *.json *.txt *.py *.fx");
    argv.push_back("--file-filter=All files | *");
  }
  if (thread_.joinable()) thread_.join();
  std::shared_ptr<NativeJob> job = job_;
  thread_ = std::thread([job, argv]() {
    job->exitCode = runCollecting(argv, job->out, job->err);
    job->done = true;
  });
}

void FileDialog::browserAccept(const std::string& path) {
  result_ = path;
  state_ = State::Done;
}

void FileDialog::startBrowser() {
  state_ = State::Browser;
  std::error_code ec;
  std::filesystem::path s(suggested_);
  if (!suggested_.empty() && std::filesystem::is_directory(s.parent_path(), ec)) {
    dir_ = std::filesystem::absolute(s.parent_path(), ec).string();
    std::snprintf(name_, sizeof(name_), "%s", s.filename().string().c_str());
  } else {
    dir_ = std::filesystem::current_path(ec).string();
    name_[0] = 0;
  }
  openPopup_ = true;
  focusName_ = true;
  listDir();
}

void FileDialog::listDir() {
  entries_.clear();
  browserError_.clear();
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir_, std::filesystem::directory_options::skip_permission_denied, ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    const bool isDir = e.is_directory(ec);
    if (!isDir && !showAll_) {
      const bool plan = name.size() > 5 && (name.ends_with(".json") || name.ends_with(".txt") || name.ends_with(".py") ||
                                            name.ends_with(".fx"));
      if (!plan) continue;
    }
    entries_.emplace_back(name, isDir);
    if (entries_.size() > 20000) break;
  }
  if (ec) browserError_ = ec.message();
  std::sort(entries_.begin(), entries_.end(), [](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second;
    return a.first < b.first;
  });
}

bool FileDialog::drawBrowser() {
  const char* id = "##filebrowser";
  if (openPopup_) {
    ImGui::OpenPopup(id);
    openPopup_ = false;
  }
  const ImVec2 ds = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowSize(ImVec2(std::min(ds.x * 0.8f, 900.0f), std::min(ds.y * 0.8f, 640.0f)), ImGuiCond_Appearing);
  ImGui::SetNextWindowPos(ImVec2(ds.x * 0.5f, ds.y * 0.5f), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  bool finished = false;
  if (ImGui::BeginPopupModal(id, nullptr, ImGuiWindowFlags_NoSavedSettings)) {
    ImGui::TextUnformatted(title_.c_str());
    if (ImGui::Button("Up")) {
      dir_ = std::filesystem::path(dir_).parent_path().string();
      if (dir_.empty()) dir_ = "/";
      listDir();
    }
    ImGui::SameLine();
    ImGui::TextUnformatted(dir_.c_str());
    ImGui::SameLine();
    if (ImGui::Checkbox("all files", &showAll_)) listDir();
    views::probeItem("filedialog.all");
    if (!browserError_.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", browserError_.c_str());
    const float footer = ImGui::GetFrameHeightWithSpacing() * 2 + 6;
    ImGui::BeginChild("##entries", ImVec2(0, -footer), true);
    std::string enter;
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(entries_.size()));
    while (clipper.Step()) {
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
        const auto& [name, isDir] = entries_[static_cast<size_t>(i)];
        const std::string label = isDir ? name + "/" : name;
        if (ImGui::Selectable(label.c_str(), !isDir && name == name_, ImGuiSelectableFlags_AllowDoubleClick)) {
          if (isDir) enter = name;
          else {
            std::snprintf(name_, sizeof(name_), "%s", name.c_str());
            if (ImGui::IsMouseDoubleClicked(0)) {
              result_ = (std::filesystem::path(dir_) / name).string();
              finished = true;
            }
          }
        }
      }
    }
    ImGui::EndChild();
    if (!enter.empty()) {
      dir_ = (std::filesystem::path(dir_) / enter).string();
      listDir();
    }
    ImGui::SetNextItemWidth(-1);
    if (focusName_) {
      ImGui::SetKeyboardFocusHere();  // type a path straight away
      focusName_ = false;
    }
    const bool entered = ImGui::InputText("##name", name_, sizeof(name_), ImGuiInputTextFlags_EnterReturnsTrue);
    // Enter confirms wherever the focus is (the name field, the list, nothing): the name shown is the choice.
    const bool confirm = entered || (!ImGui::IsWindowAppearing() && views::keys::actionPressed(views::keys::Action::Confirm));
    if ((ImGui::Button(mode_ == FileDialogMode::Save ? "Save" : "Open") || confirm) && name_[0] != 0) {
      std::filesystem::path p(name_);
      result_ = p.is_absolute() ? p.string() : (std::filesystem::path(dir_) / p).string();
      finished = true;
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) {
      result_.reset();
      finished = true;
    }
    if (finished) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
  } else if (!openPopup_) {
    finished = true;  // closed some other way
  }
  return finished;
}

bool FileDialog::frame() {
  switch (state_) {
    case State::Idle: return false;
    case State::Native: {
      if (!job_ || !job_->done) return false;
      if (thread_.joinable()) thread_.join();
      const int rc = job_->exitCode;
      std::string out = job_->out;
      while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
      const bool broken = rc != 0 && rc != 1;
      const bool noDisplay = rc == 1 && !job_->err.empty() && job_->err.find("display") != std::string::npos;
      job_.reset();
      if (broken || noDisplay) {
        startBrowser();  // zenity could not show itself: use ours
        return false;
      }
      if (rc == 0 && !out.empty()) result_ = out;
      state_ = State::Idle;
      return true;
    }
    case State::Browser:
      if (drawBrowser()) {
        state_ = State::Idle;
        return true;
      }
      return false;
    case State::Done:
      state_ = State::Idle;
      return true;
  }
  return false;
}

}  // namespace ss::app
