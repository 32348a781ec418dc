// The state's clock (see clock.h).
#include "runtime/clock.h"

#include <chrono>

namespace nn::rt {

double Clock::steadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double Clock::reading(double live) {
  if (mode_ == Mode::Replay && next_ < readings_.size()) return readings_[next_++];
  if (mode_ == Mode::Record) readings_.push_back(live);
  return live;
}

void Clock::record() {
  mode_ = Mode::Record;
  readings_.clear();
}

void Clock::replay(std::vector<double> readings) {
  mode_ = Mode::Replay;
  readings_ = std::move(readings);
  next_ = 0;
}

}  // namespace nn::rt
