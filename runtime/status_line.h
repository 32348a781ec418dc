// The line at the bottom of a terminal that progress bars redraw in place
// (on the error stream, as tqdm's). Program output printed while a bar is
// shown first clears the bar's line, so a print inside a training loop gets
// a line of its own and the bar comes back below it at its next update.
// Where the error stream is not a terminal nothing is redrawn: bars write
// whole lines. Shared (shared_ptr) between the state and the bars, which
// may outlive it; the streams are the embedding application's.
#pragma once

#include <mutex>
#include <ostream>
#include <string>

namespace nn::rt {

class StatusLine {
 public:
  StatusLine(std::ostream& out, std::ostream& err, bool terminal) : out_(out), err_(err), terminal_(terminal) {}
  bool terminal() const { return terminal_; }

  // Shows `text`: in place on a terminal, as a line of its own otherwise.
  // `last`: the bar is done; a terminal moves on to the next line.
  void show(const std::string& text, bool last) {
    std::lock_guard<std::mutex> lock(mutex_);
    out_.flush();
    if (terminal_) {
      err_ << "\r" << text << "\033[K" << (last ? "\n" : "");
      drawn_ = !last;
    } else {
      err_ << text << "\n";
    }
    err_.flush();
  }

  // Called before program output: takes a drawn bar off the screen (the
  // bar is redrawn at its next update).
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!drawn_) return;
    err_ << "\r\033[K";
    err_.flush();
    drawn_ = false;
  }

  bool drawn() {
    std::lock_guard<std::mutex> lock(mutex_);
    return drawn_;
  }

 private:
  std::ostream& out_;
  std::ostream& err_;
  bool terminal_;
  std::mutex mutex_;
  bool drawn_ = false;
};

}  // namespace nn::rt
