#pragma once
// File dialogs that never block the UI: the desktop's own (zenity, run on a worker thread) when present and
// working, else an ImGui file browser drawn in the main window.
//
// Use: start(...) once; call frame() every frame; when it returns true the dialog finished and `result()` holds
// the chosen path (nullopt = cancelled) for the `purpose` given to start().
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace ss::app {

enum class FileDialogMode { Open, Save };

class FileDialog {
 public:
  FileDialog();
  ~FileDialog();
  void allowNative(bool v) { allowNative_ = v; }
  void start(FileDialogMode mode, std::string title, std::string suggested, int purpose);
  bool active() const { return state_ != State::Idle; }
  bool frame();
  const std::optional<std::string>& result() const { return result_; }
  int purpose() const { return purpose_; }
  bool usingBrowser() const { return state_ == State::Browser; }
  // For tests driving the browser.
  void browserAccept(const std::string& path);

 private:
  enum class State { Idle, Native, Browser, Done };
  struct NativeJob;
  void startBrowser();
  bool drawBrowser();
  void listDir();

  bool allowNative_ = true;
  State state_ = State::Idle;
  FileDialogMode mode_ = FileDialogMode::Open;
  std::string title_, suggested_;
  int purpose_ = 0;
  std::optional<std::string> result_;
  std::shared_ptr<NativeJob> job_;
  std::thread thread_;
  // Browser state.
  std::string dir_;
  char name_[512] = {};
  bool showAll_ = false;
  bool openPopup_ = false;
  bool focusName_ = false;
  std::vector<std::pair<std::string, bool>> entries_;  // name, is directory
  std::string browserError_;
};

}  // namespace ss::app
