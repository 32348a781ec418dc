// The method tables of strs, lists, dicts and tuples (stdlib/methods.cpp
// looks a receiver's method up in them; str_methods.cpp defines the strs'),
// and the argument check their functions share.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "runtime/interpreter.h"

namespace nn::stdlib {

// A method by name; its function gets the receiver as its first argument.
// `keywords` are those it takes (rt::BuiltinObj's form: "" none). A class
// method (dict.fromkeys) ignores its receiver, so the type itself may be
// the receiver: dict.fromkeys(keys) is {}.fromkeys(keys).
// A kind has a few dozen at most, so a scan comparing lengths first finds
// one faster than a tree or a hash would.
struct HostMethod {
  std::string_view name;
  rt::BuiltinFn fn;
  const char* keywords = "";
  bool classMethod = false;
};

const std::vector<HostMethod>& strMethods();

// v as a str, or a TypeError naming `what` ("prefix must be str, not int").
const std::string& strArg(rt::CallContext& c, const rt::Value& v, const char* what);

}  // namespace nn::stdlib
