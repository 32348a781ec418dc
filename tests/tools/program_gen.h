// A generator of random well-typed nn programs for differential testing
// (difftest.cpp): scalars and tensors with broadcasting, integer and float
// arithmetic (floor division and modulo of negatives included), comparisons,
// if/while/for, early returns, break/continue, calls (with *args),
// closures, recursion, lists, tuples, dicts, strings and f-strings,
// indexing and slicing, try/except, integer tensors, reductions, and grad
// and value_and_grad through calls, if and loops. The same seed always
// gives the same program.
#pragma once

#include <cstdint>
#include <string>

struct GeneratedProgram {
  std::string text;
  bool usesTensors = false;  // false: CPython can run it too
};

GeneratedProgram generateProgram(uint64_t seed);
