// The clock that time() reads, one per interpreter state, and the other
// readings of the runtime's own state a program can take (memory_stats()'s
// byte counts): live values, or, while graph mode is checked against eager
// mode (stdlib/check_eager.h), a recording of the graph run's readings
// that the eager run replays in order. Both are ordered effects (Clock),
// so both runs take the readings the same number of times in the same
// order, and values computed from them (elapsed times, rates, memory
// deltas, which graph mode's earlier frees change) agree by construction
// instead of failing the check: a reading is not a semantic difference.
#pragma once

#include <cstddef>
#include <vector>

namespace nn::rt {

class Clock {
 public:
  // Seconds on the steady clock (or the next replayed reading).
  double now() { return reading(steadySeconds()); }
  // `live`, a reading of the runtime's state (or the next replayed one).
  double reading(double live);
  // Keeps every reading from now on.
  void record();
  // Answers the next readings from `readings`, then the steady clock again.
  void replay(std::vector<double> readings);
  const std::vector<double>& readings() const { return readings_; }
  // How many readings were answered from a replay.
  size_t replayed() const { return next_; }

 private:
  static double steadySeconds();
  enum class Mode { Live, Record, Replay };
  Mode mode_ = Mode::Live;
  std::vector<double> readings_;
  size_t next_ = 0;
};

}  // namespace nn::rt
