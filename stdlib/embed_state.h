// What the handles of the C embedding API (include/nn/nn.h) hold: an
// nn_state owns an Embedded — the interpreter State, the streams its output
// goes through, the time-limit watchdog and the last error — by a shared
// pointer that every nn_value handle it made shares too, so a handle the
// host frees after its state still frees memory of a living context. Only
// the embedding API's files (stdlib/embed_*.cpp) see these.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <streambuf>
#include <string>
#include <thread>
#include <vector>

#include "nn/nn.h"
#include "runtime/host_memory.h"
#include "runtime/tensor.h"
#include "runtime/value.h"
#include "stdlib/state.h"

// The record behind nn_last_error.
struct nn_error {
  nn_status status = NN_OK;
  std::string message, type, file, text;
  int line = 0, column = 0, endLine = 0, endColumn = 0, exitStatus = 0;
};

namespace nn::embed {

// A stream buffer that hands each write to the host's nn_write_fn (or to
// stdout/stderr when it set none).
class HostStreamBuf final : public std::streambuf {
 public:
  explicit HostStreamBuf(int stream) : stream_(stream) {}
  void setWriter(nn_write_fn write, void* context) {
    write_ = write;
    context_ = context;
  }

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int_type overflow(int_type c) override;

 private:
  void emit(const char* s, size_t n);
  int stream_;
  nn_write_fn write_ = nullptr;
  void* context_ = nullptr;
};

class Embedded : public std::enable_shared_from_this<Embedded> {
 public:
  explicit Embedded(const nn_options& options);
  ~Embedded();

  State& state() { return *state_; }
  void setWriter(nn_write_fn write, void* context);

  // Runs `body` (a State entry) as one run: at most one at a time, under
  // the time limit, cancellable; records its error. The status of the run.
  nn_status run(const std::function<Status()>& body);
  // Whether a run is under way (a host function is being called from it).
  bool running() const { return running_.load(); }
  // Records a host-side error: a bad argument (NN_INVALID_ARGUMENT), or
  // memory running out outside a run (NN_OUT_OF_MEMORY).
  nn_status invalid(std::string message, nn_status status = NN_INVALID_ARGUMENT);
  // Records a failed run's error: its status.
  nn_status fail(const Error& e, nn_status status);
  void clearError() { error_.status = NN_OK; }
  const nn_error* lastError() const { return error_.status == NN_OK ? nullptr : &error_; }

  void cancel();
  void setTimeLimit(double seconds);
  void setStepLimit(uint64_t steps) { stepLimit_ = steps; }

  // The host's handle of this state, passed to its host functions.
  nn_state* handle = nullptr;
  // What nn_raise asked the running host function's call to raise.
  struct Raised {
    bool set = false;
    std::string type, message;
  } raised;

 private:
  void watch();  // the watchdog thread's loop

  HostStreamBuf outBuf_{1}, errBuf_{2};
  std::ostream out_{&outBuf_}, err_{&errBuf_};
  std::unique_ptr<State> state_;
  nn_error error_;
  std::atomic<bool> running_{false};
  // Why the current run was stopped by the host, if it was.
  std::atomic<nn_status> stoppedWith_{NN_OK};

  // Each run's step budget (Interpreter::setStepBudget); 0: none.
  uint64_t stepLimit_ = 0;
  // Time limit: the watchdog stops run number `runNumber_` at `deadline_`.
  std::atomic<double> timeLimit_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  uint64_t runNumber_ = 0;
  bool deadlineSet_ = false, quit_ = false;
  std::chrono::steady_clock::time_point deadline_;
  std::thread watchdog_;
};

}  // namespace nn::embed

struct nn_state {
  std::shared_ptr<nn::embed::Embedded> impl;
};

namespace nn::embed {

// Runs a C entry's body on its state; whatever it throws (memory for a
// message, say) becomes a status instead of crossing the C boundary.
template <class F>
nn_status guardedEntry(nn_state* state, F&& body) {
  if (!state || !state->impl) return NN_INVALID_ARGUMENT;
  // What the host makes through the API (nn_str, a call's arguments)
  // counts against the state's memory limit as the script's values do.
  nn::rt::HostMemoryScope scope(&state->impl->state().context().memoryCap());
  try {
    return body(*state->impl);
  } catch (const std::bad_alloc&) {
    return NN_OUT_OF_MEMORY;
  } catch (...) {
    return NN_ERROR;
  }
}

}  // namespace nn::embed

struct nn_value {
  std::shared_ptr<nn::embed::Embedded> owner;
  nn::rt::Value value;
  // What the handle keeps for the host to read: str text, a tensor's
  // dims, its elements made readable.
  std::string text;
  std::vector<int64_t> shape;
  nn::rt::Tensor readable;
  bool haveReadable = false;
};
