// The clocks and sleep: time() (seconds on the steady clock, for timing),
// and _clock, _sleep and _strftime, which stdlib/lib/time.nn builds
// Python's time module from. Every clock reading goes through the state's
// Clock (runtime/clock.h), so graph and eager mode read the same values
// when one is checked against the other; reads and sleeps are ordered
// effects and barriers (ir/builtins.def's Clock): a sleep starts after the
// work before it and before the work after it.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "ir/builtins.h"
#include "runtime/interpreter.h"
#include "stdlib/builtins.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

double secondsOf(clockid_t id) {
  timespec t{};
  clock_gettime(id, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

Value bTime(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 0, 0);
  return Value::real(c.interp.context().clock().now());
}

// _clock(kind): "wall" (seconds since the Unix epoch: time.time),
// "monotonic" (the steady clock time() reads: perf_counter, monotonic) or
// "process" (the CPU time of the process, all threads: process_time).
Value bClock(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 1, 1);
  Clock& clock = c.interp.context().clock();
  std::string kind = args[0].is(Kind::Str) ? args[0].asStr() : "";
  if (kind == "wall") return Value::real(clock.reading(secondsOf(CLOCK_REALTIME)));
  if (kind == "monotonic") return Value::real(clock.now());
  if (kind == "process") return Value::real(clock.reading(secondsOf(CLOCK_PROCESS_CPUTIME_ID)));
  fail(c.loc, "_clock(): kind must be 'wall', 'monotonic' or 'process'", ErrorClass::ValueError);
}

// _sleep(seconds): waits in short slices, so that Ctrl-C, a host's cancel
// and its time limit stop a long sleep as they stop a loop.
Value bSleep(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 1, 1);
  const Value& s = args[0];
  if (!s.isNumber())
    fail(c.loc, std::string("'") + typeName(s) + "' object cannot be interpreted as an integer",
         ErrorClass::TypeError);
  double seconds = s.asFloat();
  if (std::isnan(seconds)) fail(c.loc, "Invalid value NaN (not a number)", ErrorClass::ValueError);
  if (seconds < 0) fail(c.loc, "sleep length must be non-negative", ErrorClass::ValueError);
  if (seconds > 9.2e9) fail(c.loc, "sleep length is too large", ErrorClass::OverflowError);
  using Steady = std::chrono::steady_clock;
  const Steady::time_point end =
      Steady::now() + std::chrono::duration_cast<Steady::duration>(std::chrono::duration<double>(seconds));
  for (Steady::time_point now = Steady::now(); now < end; now = Steady::now()) {
    c.interp.checkInterrupt(c.loc);
    std::this_thread::sleep_for(std::min<Steady::duration>(end - now, std::chrono::milliseconds(10)));
  }
  c.interp.checkInterrupt(c.loc);
  return Value::none();
}

// _strftime(format, seconds): the local time `seconds` after the epoch,
// written by C's strftime (Python's time.strftime writes the same).
Value bStrftime(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 2, 2);
  if (!args[0].is(Kind::Str))
    fail(c.loc, std::string("strftime() argument 1 must be str, not ") + typeName(args[0]), ErrorClass::TypeError);
  if (!args[1].isNumber() || !std::isfinite(args[1].asFloat()) || std::fabs(args[1].asFloat()) > 1e17)
    fail(c.loc, "timestamp out of range for platform time_t", ErrorClass::OverflowError);
  const std::string& format = args[0].asStr();
  if (format.find('\0') != std::string::npos) fail(c.loc, "embedded null character", ErrorClass::ValueError);
  auto t = static_cast<time_t>(std::floor(args[1].asFloat()));
  tm local{};
  if (!localtime_r(&t, &local)) fail(c.loc, "timestamp out of range for platform time_t", ErrorClass::OverflowError);
  // strftime returns 0 both for an empty result and for one that does not
  // fit: grow the buffer a few times, then take the empty result as real.
  std::string out(format.size() * 4 + 64, '\0');
  for (int tries = 0; tries < 4; ++tries, out.resize(out.size() * 8)) {
    checkHostAllocation(out.size(), 1);
    if (size_t n = strftime(out.data(), out.size(), format.c_str(), &local)) return Value::str(out.substr(0, n));
  }
  return Value::str("");
}

}  // namespace

void addTimeBuiltins(BuiltinTable& table) {
  table[ir::builtinInfo(ir::Builtin::Time).name] = bTime;
  table[ir::builtinInfo(ir::Builtin::ClockRead).name] = bClock;
  table[ir::builtinInfo(ir::Builtin::Sleep).name] = bSleep;
  table[ir::builtinInfo(ir::Builtin::Strftime).name] = bStrftime;
}

}  // namespace nn::stdlib
