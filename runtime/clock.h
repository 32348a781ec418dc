// The clock that time() reads, one per interpreter state: the steady clock,
// or, while graph mode is checked against eager mode (stdlib/check_eager.h),
// a recording of the graph run's readings that the eager run replays in
// order. time() is an ordered effect, so both runs read the clock the same
// number of times in the same order, and values computed from the readings
// (elapsed times, rates) agree by construction instead of failing the
// check: a clock reading is not a semantic difference.
#pragma once

#include <cstddef>
#include <vector>

namespace nn::rt {

class Clock {
 public:
  // Seconds on the steady clock (or the next replayed reading).
  double now();
  // Keeps every reading from now on.
  void record();
  // Answers the next readings from `readings`, then the steady clock again.
  void replay(std::vector<double> readings);
  const std::vector<double>& readings() const { return readings_; }
  // How many readings were answered from a replay.
  size_t replayed() const { return next_; }

 private:
  enum class Mode { Live, Record, Replay };
  Mode mode_ = Mode::Live;
  std::vector<double> readings_;
  size_t next_ = 0;
};

}  // namespace nn::rt
