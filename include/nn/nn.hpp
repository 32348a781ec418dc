// nn's embedding API for C++: a thin, header-only layer over the C ABI of
// <nn/nn.h>. Handles become RAII values, a failed call throws nn::api::Error
// (the status with the state's last error: message, class, location, the
// rendered diagnostic), and host functions may be any callable. Exceptions
// stay on the host's side of the ABI: the C calls never throw, and a host
// function's exception becomes an nn error raised at the script's call.
// docs/embedding.md is the guide.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "nn/nn.h"

namespace nn::api {

// A failed call: its status and the state's last error.
class Error : public std::runtime_error {
 public:
  Error(nn_status status, const nn_error* e)
      : std::runtime_error(e ? nn_error_message(e) : "nn: a call failed"),
        status_(status),
        type_(e ? nn_error_type(e) : "RuntimeError"),
        file_(e ? nn_error_file(e) : ""),
        text_(e ? nn_error_text(e) : ""),
        line_(e ? nn_error_line(e) : 0),
        column_(e ? nn_error_column(e) : 0) {}
  // An error a host function raises: `type` is a Python exception class.
  Error(std::string type, const std::string& message)
      : std::runtime_error(message), status_(NN_ERROR), type_(std::move(type)), line_(0), column_(0) {}
  nn_status status() const { return status_; }
  // Python's exception class: "ValueError", "MemoryError", ...
  const std::string& type() const { return type_; }
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  int column() const { return column_; }
  // The diagnostic as the nn command prints it (source line, caret, trace).
  const std::string& text() const { return text_; }

 private:
  nn_status status_;
  std::string type_, file_, text_;
  int line_, column_;
};

// An owned handle to an nn value.
class Value {
 public:
  Value() = default;
  // Takes ownership of `v` (may be null).
  explicit Value(nn_value* v) : v_(v) {}
  Value(const Value& o) : v_(o.v_ ? nn_value_copy(o.v_) : nullptr) {}
  Value(Value&& o) noexcept : v_(std::exchange(o.v_, nullptr)) {}
  Value& operator=(Value o) noexcept {
    std::swap(v_, o.v_);
    return *this;
  }
  ~Value() { nn_value_free(v_); }

  nn_value* get() const { return v_; }
  nn_value* release() { return std::exchange(v_, nullptr); }
  explicit operator bool() const { return v_ != nullptr; }
  nn_kind kind() const { return nn_value_kind(v_); }

  int64_t toInt() const {
    int64_t out = 0;
    expect(nn_get_int(v_, &out), "an int");
    return out;
  }
  double toFloat() const {
    double out = 0;
    expect(nn_get_float(v_, &out), "a number");
    return out;
  }
  bool toBool() const {
    int out = 0;
    expect(nn_get_bool(v_, &out), "a bool");
    return out != 0;
  }
  std::string toStr() const {
    size_t n = 0;
    const char* s = nn_get_str(v_, &n);
    if (!s) throw std::invalid_argument("nn: the value is not a str");
    return std::string(s, n);
  }
  // What print() shows.
  std::string str() const {
    const char* s = nn_value_str(v_);
    return s ? s : "";
  }

  // Tuples and lists: items by index; dicts: entries by key.
  size_t size() const { return kind() == NN_KIND_DICT ? nn_dict_size(v_) : nn_sequence_size(v_); }
  Value operator[](size_t i) const { return Value(nn_sequence_item(v_, i)); }
  Value operator[](const std::string& key) const { return Value(nn_dict_get(v_, key.c_str())); }
  std::vector<std::string> keys() const {
    std::vector<std::string> out;
    for (size_t i = 0; i < nn_dict_size(v_); ++i) out.emplace_back(nn_dict_key(v_, i));
    return out;
  }

  // Tensors.
  nn_dtype dtype() const {
    nn_dtype d = NN_F32;
    expect(nn_tensor_info(v_, &d, nullptr, nullptr), "a tensor");
    return d;
  }
  std::vector<int64_t> shape() const {
    int ndim = 0;
    const int64_t* dims = nullptr;
    expect(nn_tensor_info(v_, nullptr, &ndim, &dims), "a tensor");
    return std::vector<int64_t>(dims, dims + ndim);
  }
  int64_t numel() const { return nn_tensor_numel(v_); }
  // The elements, row-major, read-only, valid while this handle lives.
  template <class T>
  const T* data() const {
    return static_cast<const T*>(nn_tensor_data(v_));
  }
  template <class T>
  std::vector<T> toVector() const {
    const T* p = data<T>();
    return p ? std::vector<T>(p, p + numel()) : std::vector<T>{};
  }

 private:
  static void expect(nn_status s, const char* what) {
    if (s != NN_OK) throw std::invalid_argument(std::string("nn: the value is not ") + what);
  }
  nn_value* v_ = nullptr;
};

template <class T>
constexpr nn_dtype dtypeOf() {
  if constexpr (std::is_same_v<T, float>) return NN_F32;
  else if constexpr (std::is_same_v<T, double>) return NN_F64;
  else if constexpr (std::is_same_v<T, int32_t>) return NN_I32;
  else if constexpr (std::is_same_v<T, int64_t>) return NN_I64;
  else if constexpr (std::is_same_v<T, bool>) return NN_BOOL;
  else static_assert(!sizeof(T), "no nn dtype for this element type");
}

// A state the caller does not own: what host functions are given.
class StateRef {
 public:
  explicit StateRef(nn_state* s) : s_(s) {}
  nn_state* get() const { return s_; }

  void run(const std::string& code, const std::string& name = "<host>") {
    check(nn_run_string(s_, code.c_str(), name.c_str()));
  }
  void runFile(const std::string& path) { check(nn_run_file(s_, path.c_str())); }
  Value global(const std::string& name) {
    nn_value* v = nullptr;
    check(nn_get_global(s_, name.c_str(), &v));
    return Value(v);
  }
  void setGlobal(const std::string& name, const Value& v) { check(nn_set_global(s_, name.c_str(), v.get())); }

  // Calls the global function `name` (or a function value) with arguments
  // that value() converts: Values, numbers, bools and strings.
  template <class... Args>
  Value call(const std::string& name, const Args&... args) {
    return callValue(global(name), {value(args)...});
  }
  Value callValue(const Value& fn, const std::vector<Value>& args,
                  const std::vector<std::pair<std::string, Value>>& keywords = {}) {
    std::vector<nn_value*> in, kw;
    std::vector<const char*> names;
    for (const Value& a : args) in.push_back(a.get());
    for (const auto& [name, v] : keywords) {
      names.push_back(name.c_str());
      kw.push_back(v.get());
    }
    nn_value* out = nullptr;
    check(nn_call_kw(s_, fn.get(), in.data(), in.size(), names.data(), kw.data(), kw.size(), &out));
    return Value(out);
  }

  Value value(const Value& v) { return v; }
  Value value(bool b) { return made(nn_bool(s_, b)); }
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Value value(T i) {
    return made(nn_int(s_, static_cast<int64_t>(i)));
  }
  Value value(double f) { return made(nn_float(s_, f)); }
  Value value(float f) { return made(nn_float(s_, f)); }
  Value value(const std::string& s) { return made(nn_str(s_, s.data(), static_cast<ptrdiff_t>(s.size()))); }
  Value value(const char* s) { return made(nn_str(s_, s, -1)); }
  Value none() { return made(nn_none(s_)); }
  Value tuple(const std::vector<Value>& items) { return sequence(items, false); }
  Value list(const std::vector<Value>& items) { return sequence(items, true); }
  Value dict(const std::vector<std::pair<std::string, Value>>& entries) {
    std::vector<const char*> keys;
    std::vector<nn_value*> values;
    for (const auto& [k, v] : entries) {
      keys.push_back(k.c_str());
      values.push_back(v.get());
    }
    return made(nn_dict(s_, keys.data(), values.data(), entries.size()));
  }

  // A CPU tensor holding a copy of `data`, of dims `shape`.
  template <class T>
  Value tensor(const std::vector<T>& data, const std::vector<int64_t>& shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    if (n != static_cast<int64_t>(data.size())) throw std::invalid_argument("nn: the data does not fill the shape");
    return made(nn_tensor_copy(s_, dtypeOf<T>(), shape.data(), static_cast<int>(shape.size()), data.data()));
  }
  // A CPU tensor over `data` itself, which must stay valid and unchanged
  // while nn holds it (see nn_tensor_wrap).
  template <class T>
  Value wrap(T* data, const std::vector<int64_t>& shape) {
    return made(nn_tensor_wrap(s_, dtypeOf<T>(), shape.data(), static_cast<int>(shape.size()), data, nullptr,
                               nullptr));
  }

  void setMemoryLimit(size_t bytes) { check(nn_set_memory_limit(s_, bytes)); }
  void setTimeLimit(double seconds) { check(nn_set_time_limit(s_, seconds)); }
  void setStepLimit(uint64_t steps) { check(nn_set_step_limit(s_, steps)); }
  size_t memoryUsed() const { return nn_memory_used(s_); }
  void cancel() { nn_cancel(s_); }

 protected:
  void check(nn_status status) const {
    if (status != NN_OK) throw Error(status, nn_last_error(s_));
  }
  Value made(nn_value* v) const {
    if (!v) {
      const nn_error* e = nn_last_error(s_);
      throw Error(e ? nn_error_status(e) : NN_INVALID_ARGUMENT, e);
    }
    return Value(v);
  }
  Value sequence(const std::vector<Value>& items, bool list) {
    std::vector<nn_value*> in;
    for (const Value& v : items) in.push_back(v.get());
    return made(list ? nn_list(s_, in.data(), in.size()) : nn_tuple(s_, in.data(), in.size()));
  }
  nn_state* s_;
};

// A host function: gets the state and the call's positional arguments;
// throwing nn::api::Error raises that class, any other exception a
// RuntimeError, at the script's call.
using HostFunction = std::function<Value(StateRef& state, const std::vector<Value>& args)>;

// An owned state.
class State : public StateRef {
 public:
  explicit State(const nn_options* options = nullptr) : StateRef(nn_state_new(options)) {
    if (!s_) throw std::runtime_error("nn: could not make a state (bad options, or out of memory)");
  }
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  ~State() { nn_state_free(s_); }

  // Print output and warnings to `write` (see nn_set_output); empty: stdout
  // and stderr.
  void setOutput(std::function<void(int stream, const std::string& text)> write) {
    writer_ = std::make_unique<std::function<void(int, const std::string&)>>(std::move(write));
    if (!*writer_) {
      nn_set_output(s_, nullptr, nullptr);
      return;
    }
    nn_set_output(
        s_,
        [](void* context, int stream, const char* text, size_t n) {
          (*static_cast<std::function<void(int, const std::string&)>*>(context))(stream, std::string(text, n));
        },
        writer_.get());
  }

  void registerFunction(const std::string& name, HostFunction fn) {
    functions_.push_back(std::move(fn));
    check(nn_register_function(s_, name.c_str(), &State::trampoline, &functions_.back()));
  }

 private:
  static nn_status trampoline(void* context, nn_state* state, nn_value* const* args, size_t nargs,
                              nn_value** result) {
    StateRef ref(state);
    try {
      std::vector<Value> in;
      for (size_t i = 0; i < nargs; ++i) in.emplace_back(nn_value_copy(args[i]));
      *result = (*static_cast<HostFunction*>(context))(ref, in).release();
      return NN_OK;
    } catch (const Error& e) {
      nn_raise(state, e.type().c_str(), e.what());
    } catch (const std::exception& e) {
      nn_raise(state, "RuntimeError", e.what());
    } catch (...) {
      nn_raise(state, "RuntimeError", "a host function threw");
    }
    return NN_ERROR;
  }

  std::unique_ptr<std::function<void(int, const std::string&)>> writer_;
  std::list<HostFunction> functions_;  // list: their addresses are the callbacks' contexts
};

}  // namespace nn::api
