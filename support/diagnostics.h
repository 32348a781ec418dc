// The one diagnostics engine. Every user-visible error — lexer, parser, name
// resolution, lowering, runtime — becomes a Diagnostic, is carried as an
// NnError exception inside the implementation, and is rendered here in the
// format of language.md §8:
//
//   error: message
//     --> file.nn:12:13
//      |
//   12 |     h = x @ w1
//      |         ^^^^^^
//     called from train.nn:40:16
#pragma once

#include <exception>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "support/error_class.h"
#include "support/source.h"

namespace nn {

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string message;
  SourceLoc loc;
  std::vector<SourceLoc> callers;  // innermost call site first
  std::vector<std::pair<SourceLoc, std::string>> notes;
  // The Python exception class `except` catches it by (error_class.h).
  ErrorClass errorClass = ErrorClass::Unclassified;
  // SystemExit (exit()): the process's exit status; its message, if any,
  // is printed without a location.
  int exitStatus = 1;
  // The message of the exception `except` catches, where Python's differs
  // from the report's: a KeyError's is the missing key (str(e) shows its
  // repr, 'a'), an index error's "list index out of range" without the
  // index and length.
  std::optional<std::string> exceptionText;
};

class NnError : public std::exception {
 public:
  NnError(std::string message, SourceLoc loc) {
    diag_.message = std::move(message);
    diag_.loc = loc;
  }
  explicit NnError(Diagnostic d) : diag_(std::move(d)) {}
  const char* what() const noexcept override { return diag_.message.c_str(); }
  Diagnostic& diag() { return diag_; }
  const Diagnostic& diag() const { return diag_; }

 private:
  Diagnostic diag_;
};

// Throws an NnError: the single way the implementation reports a user error.
[[noreturn]] void fail(SourceLoc loc, std::string message);
[[noreturn]] void fail(SourceLoc loc, std::string message, ErrorClass errorClass);
[[noreturn]] void fail(SourceLoc loc, std::string message, ErrorClass errorClass, std::string exceptionText);

void renderDiagnostic(const SourceManager& sm, const Diagnostic& d, std::ostream& os);

// "file:line:col" for a location, used in traces and tests.
std::string formatLoc(const SourceManager& sm, const SourceLoc& loc);

// Python's message for a call with the wrong number of positional
// arguments: "f() takes 2 positional arguments but 3 were given" (takes:
// a count, or a range such as "from 1 to 2").
std::string positionalCountMessage(const std::string& callee, const std::string& takes, size_t given);

}  // namespace nn
