// The C embedding API's states, runs, limits and errors (include/nn/nn.h):
// each entry checks its arguments, runs the State entry it wraps as one
// run (one at a time per state, under the time limit, cancellable) and
// turns the outcome into a status and the state's last error. Nothing
// thrown inside crosses the C boundary. Values and tensors:
// embed_values.cpp.
#include <cstdio>
#include <cstring>
#include <new>
#include <sstream>

#include "nn/nn.h"
#include "runtime/interpreter.h"
#include "stdlib/embed_state.h"
#include "support/error_class.h"

#ifndef NN_STDLIB_DIR
#define NN_STDLIB_DIR "/usr/local/share/nn/lib"
#endif
#ifndef NN_VERSION
#define NN_VERSION "unknown"
#endif

namespace nn::embed {

std::streamsize HostStreamBuf::xsputn(const char* s, std::streamsize n) {
  emit(s, static_cast<size_t>(n));
  return n;
}

HostStreamBuf::int_type HostStreamBuf::overflow(int_type c) {
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    char ch = traits_type::to_char_type(c);
    emit(&ch, 1);
  }
  return traits_type::not_eof(c);
}

void HostStreamBuf::emit(const char* s, size_t n) {
  if (write_) {
    write_(context_, stream_, s, n);
    return;
  }
  std::fwrite(s, 1, n, stream_ == 1 ? stdout : stderr);
}

static std::vector<std::string> splitPath(const char* path) {
  std::vector<std::string> dirs;
  if (!path) return dirs;
  std::stringstream ss(path);
  for (std::string d; std::getline(ss, d, ':');)
    if (!d.empty()) dirs.push_back(d);
  return dirs;
}

Embedded::Embedded(const nn_options& o) {
  StateOptions so;
  so.mode = o.mode == NN_MODE_EAGER ? ExecMode::Eager : ExecMode::Graph;
  so.jit = o.jit != 0;
  // Fused nodes the JIT does not compile run slower than unfused kernels
  // (state.h): fuse only with the JIT, as the driver does.
  so.fusion = so.jit;
  so.cpuDevices = o.cpu_devices;
  so.searchPath = splitPath(o.search_path);
  so.searchPath.push_back(o.library_dir ? o.library_dir : NN_STDLIB_DIR);
  // A plugin resolves the runtime's symbols from libnn.so, or from a host
  // that links the static libraries and exports them; elsewhere it fails to
  // load and adds no device (runtime/device_plugin.h).
  so.devicePlugins = o.device_plugins != 0;
  so.pluginPath = splitPath(o.plugin_path);
  so.argv = {"<host>"};
  state_ = std::make_unique<State>(std::move(so), out_, err_);
}

Embedded::~Embedded() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
  }
  wake_.notify_all();
  if (watchdog_.joinable()) watchdog_.join();
}

void Embedded::setWriter(nn_write_fn write, void* context) {
  out_.flush();
  err_.flush();
  outBuf_.setWriter(write, context);
  errBuf_.setWriter(write, context);
}

nn_status Embedded::run(const std::function<Status()>& body) {
  if (running_.exchange(true))
    return invalid("the state is running already: a state runs one call at a time, on one thread");
  rt::Interpreter& interp = state_->interpreter();
  interp.clearStop();
  interp.setStepBudget(stepLimit_);
  stoppedWith_.store(NN_OK);
  // Without a time limit a run touches no lock (calls are sub-microsecond).
  double limit = timeLimit_.load();
  if (limit > 0) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++runNumber_;
      deadlineSet_ = true;
      deadline_ = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                         std::chrono::duration<double>(limit));
    }
    wake_.notify_all();
  }
  Status status = body();
  if (limit > 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    deadlineSet_ = false;
  }
  // The interpreter stops at the step limit itself; the host's stops say so.
  nn_status stopped = stoppedWith_.load();
  if (stopped == NN_OK && interp.stopReason() == rt::Interpreter::StopReason::StepLimit) stopped = NN_STEP_LIMIT;
  running_.store(false);
  interp.clearStop();
  out_.flush();
  err_.flush();
  if (status.ok()) {
    clearError();
    return NN_OK;
  }
  return fail(status.error(), stopped == NN_OK ? NN_ERROR : stopped);
}

nn_status Embedded::invalid(std::string message, nn_status status) {
  error_ = nn_error{};
  error_.status = status;
  error_.type = status == NN_OUT_OF_MEMORY ? "MemoryError" : "ValueError";
  error_.text = "error: " + message + "\n";
  error_.message = std::move(message);
  return status;
}

nn_status Embedded::fail(const Error& e, nn_status status) {
  error_ = nn_error{};
  const Diagnostic& d = e.diagnostic;
  ErrorClass c = classifyError(d.errorClass, d.message);
  error_.message = e.message;
  error_.type = errorClassName(c);
  error_.file = e.file;
  error_.line = static_cast<int>(e.line);
  error_.column = static_cast<int>(e.column);
  if (d.loc.valid()) {
    error_.endLine = static_cast<int>(d.loc.endLine);
    error_.endColumn = static_cast<int>(d.loc.endCol);
  }
  std::ostringstream text;
  state_->render(e, text);
  error_.text = text.str();
  if (c == ErrorClass::SystemExit) {
    status = NN_EXIT;
    error_.exitStatus = d.exitStatus;
  } else if (status == NN_ERROR && c == ErrorClass::MemoryError) {
    status = NN_OUT_OF_MEMORY;
  }
  error_.status = status;
  return status;
}

void Embedded::cancel() {
  if (!running_.load()) return;
  stoppedWith_.store(NN_CANCELLED);
  state_->interpreter().requestStop(rt::Interpreter::StopReason::Cancel);
}

void Embedded::setTimeLimit(double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  timeLimit_.store(seconds);
  if (seconds > 0 && !watchdog_.joinable()) watchdog_ = std::thread([this] { watch(); });
}

void Embedded::watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!quit_) {
    if (!deadlineSet_) {
      wake_.wait(lock);
      continue;
    }
    uint64_t run = runNumber_;
    wake_.wait_until(lock, deadline_);
    if (quit_ || !deadlineSet_ || runNumber_ != run || std::chrono::steady_clock::now() < deadline_) continue;
    deadlineSet_ = false;
    stoppedWith_.store(NN_TIME_LIMIT);
    state_->interpreter().requestStop(rt::Interpreter::StopReason::TimeLimit);
  }
}

}  // namespace nn::embed

using nn::embed::Embedded;
using nn::embed::guardedEntry;

extern "C" {

const char* nn_version(void) { return NN_VERSION; }
int nn_api_version(void) { return NN_API_VERSION; }

void nn_options_init(nn_options* options) {
  if (!options) return;
  std::memset(options, 0, sizeof *options);
  options->size = sizeof *options;
  options->mode = NN_MODE_GRAPH;
  options->jit = 1;
  options->cpu_devices = 1;
  options->device_plugins = 1;
}

nn_state* nn_state_new(const nn_options* options) {
  nn_options defaults;
  nn_options_init(&defaults);
  if (options) {
    // A host built against an older, shorter nn_options: its fields, then
    // the defaults of the rest.
    if (options->size < offsetof(nn_options, mode) + sizeof(nn_mode) || options->size > sizeof(nn_options))
      return nullptr;
    std::memcpy(&defaults, options, options->size);
    defaults.size = sizeof defaults;
  }
  if (defaults.mode != NN_MODE_GRAPH && defaults.mode != NN_MODE_EAGER) return nullptr;
  if (defaults.cpu_devices < 1 || defaults.cpu_devices > 64) return nullptr;
  try {
    auto* state = new nn_state;
    state->impl = std::make_shared<Embedded>(defaults);
    state->impl->handle = state;
    return state;
  } catch (...) {
    return nullptr;
  }
}

void nn_state_free(nn_state* state) { delete state; }

void nn_set_output(nn_state* state, nn_write_fn write, void* context) {
  if (state && state->impl) state->impl->setWriter(write, context);
}

nn_status nn_run_string(nn_state* state, const char* code, const char* name) {
  return guardedEntry(state, [&](Embedded& e) {
    if (!code) return e.invalid("nn_run_string: no code (NULL)");
    std::string text(code), file(name ? name : "<host>");
    return e.run([&] { return e.state().runChunk(text, file); });
  });
}

nn_status nn_run_file(nn_state* state, const char* path) {
  return guardedEntry(state, [&](Embedded& e) {
    if (!path) return e.invalid("nn_run_file: no path (NULL)");
    std::string file(path);
    return e.run([&] { return e.state().runFile(file); });
  });
}

nn_status nn_set_memory_limit(nn_state* state, size_t bytes) {
  return guardedEntry(state, [&](Embedded& e) {
    e.state().context().memoryCap().setLimit(bytes ? bytes : SIZE_MAX);
    e.clearError();
    return NN_OK;
  });
}

size_t nn_memory_used(const nn_state* state) {
  if (!state || !state->impl) return 0;
  return state->impl->state().context().memoryCap().used();
}

nn_status nn_set_time_limit(nn_state* state, double seconds) {
  return guardedEntry(state, [&](Embedded& e) {
    if (!(seconds >= 0) || seconds > 1e9) return e.invalid("nn_set_time_limit: seconds must be between 0 and 1e9");
    e.setTimeLimit(seconds);
    e.clearError();
    return NN_OK;
  });
}

nn_status nn_set_step_limit(nn_state* state, uint64_t steps) {
  return guardedEntry(state, [&](Embedded& e) {
    e.setStepLimit(steps);
    e.clearError();
    return NN_OK;
  });
}

void nn_cancel(nn_state* state) {
  if (state && state->impl) state->impl->cancel();
}

const nn_error* nn_last_error(const nn_state* state) {
  return state && state->impl ? state->impl->lastError() : nullptr;
}

nn_status nn_error_status(const nn_error* e) { return e ? e->status : NN_OK; }
const char* nn_error_message(const nn_error* e) { return e ? e->message.c_str() : ""; }
const char* nn_error_type(const nn_error* e) { return e ? e->type.c_str() : ""; }
const char* nn_error_file(const nn_error* e) { return e ? e->file.c_str() : ""; }
int nn_error_line(const nn_error* e) { return e ? e->line : 0; }
int nn_error_column(const nn_error* e) { return e ? e->column : 0; }
int nn_error_end_line(const nn_error* e) { return e ? e->endLine : 0; }
int nn_error_end_column(const nn_error* e) { return e ? e->endColumn : 0; }
const char* nn_error_text(const nn_error* e) { return e ? e->text.c_str() : ""; }
int nn_error_exit_status(const nn_error* e) { return e ? e->exitStatus : 0; }

}  // extern "C"
