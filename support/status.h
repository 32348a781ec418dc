// The error object that an interpreter state hands back to its caller (the
// driver, the REPL, a host application), and the Status that carries it.
// Nothing thrown inside the implementation crosses a State entry point:
// every exception becomes an Error with its message, location and call
// trace, and the caller decides how to show it (State::render prints it in
// the language.md §8 format with the source line and caret).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "support/diagnostics.h"

namespace nn {

struct Error {
  std::string message;
  std::string file;  // empty when the error has no source location
  uint32_t line = 0, column = 0;
  // Where the failing code was called from, innermost first ("file:line:col").
  std::vector<std::string> trace;
  // The diagnostic it came from (locations resolve through the state's sources).
  Diagnostic diagnostic;
};

class Status {
 public:
  Status() = default;  // success
  explicit Status(Error e) : ok_(false), error_(std::move(e)) {}
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  bool ok_ = true;
  Error error_;
};

}  // namespace nn
