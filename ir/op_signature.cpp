// Parsing of the tensor ops' signatures (see op_signature.h).
#include "ir/op_signature.h"

#include <array>
#include <stdexcept>

#include "ir/ir.h"

namespace nn::ir {
namespace {

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(' ');
  if (b == std::string_view::npos) return "";
  return std::string(s.substr(b, s.find_last_not_of(' ') - b + 1));
}

AttrType attrType(const std::string& t) {
  if (t == "int") return AttrType::Int;
  if (t == "float") return AttrType::Float;
  if (t == "bool") return AttrType::Bool;
  if (t == "str") return AttrType::Str;
  if (t == "dtype") return AttrType::DType;
  if (t == "ints") return AttrType::Ints;
  // ops.def is part of the build: a typo is a programming error.
  throw std::logic_error("ops.def: unknown attribute type '" + t + "'");
}

// A default literal of ops.def read as parameter p's value.
Attr defaultOf(const Param& p, const std::string& literal) {
  if (literal == "None") {
    if (!p.isAttr || p.optional) return NoneAttr{};
  } else if (p.isAttr) {
    switch (p.type) {
      case AttrType::Bool:
        if (literal == "True" || literal == "False") return literal == "True";
        break;
      case AttrType::Int:
      case AttrType::Ints: return static_cast<int64_t>(std::stoll(literal));
      case AttrType::Float: return std::stod(literal);
      case AttrType::Str:
        if (literal.size() >= 2 && literal.front() == '\'' && literal.back() == '\'')
          return literal.substr(1, literal.size() - 2);
        break;
      case AttrType::DType: break;
    }
  }
  throw std::logic_error("ops.def: parameter '" + p.name + "' cannot default to " + literal);
}

Signature parse(std::string_view text) {
  Signature sig;
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string part = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    if (part.empty()) continue;
    Param p;
    size_t eq = part.find('=');
    if (eq != std::string::npos) {
      p.defaultLiteral = trim(part.substr(eq + 1));
      part = trim(part.substr(0, eq));
    }
    if (part[0] == '*') {
      p.variadic = true;
      part = part.substr(1);
    }
    size_t colon = part.find(':');
    if (colon != std::string::npos) {
      std::string type = trim(part.substr(colon + 1));
      if (!type.empty() && type.back() == '?') {
        p.optional = true;
        type.pop_back();
      }
      p.isAttr = true;
      p.type = attrType(type);
      part = trim(part.substr(0, colon));
    }
    p.name = part;
    if (p.defaultLiteral) p.defaultValue = defaultOf(p, *p.defaultLiteral);
    sig.params.push_back(std::move(p));
  }
  return sig;
}

}  // namespace

int Signature::find(std::string_view name) const {
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].name == name) return static_cast<int>(i);
  return -1;
}

int Signature::findKeyword(std::string_view keyword) const {
  int i = find(keyword);
  if (i >= 0) return i;
  // PyTorch's spellings of the parameters ops.def names as NumPy does:
  // sum(x, dim=1, keepdim=True) is sum(x, axis=1, keepdims=True) in every
  // op, through this one table. var(x, unbiased=True) is ddof=1, a bool
  // being an int as in Python.
  static constexpr std::pair<std::string_view, std::string_view> kTorchSpellings[] = {
      {"dim", "axis"}, {"keepdim", "keepdims"}, {"input", "x"}, {"correction", "ddof"}, {"unbiased", "ddof"}};
  for (const auto& [torch, numpy] : kTorchSpellings)
    if (keyword == torch) return find(numpy);
  return -1;
}

ArgMatch matchArguments(const Signature& sig, size_t positional, const std::vector<std::string>& kwnames) {
  ArgMatch m;
  m.sources.resize(sig.params.size());
  auto failWith = [&](ArgMatch::Error e, const std::string& name) {
    m.error = e;
    m.name = name;
    return m;
  };
  size_t next = 0;
  for (size_t i = 0; i < sig.params.size() && next < positional; ++i) {
    if (sig.params[i].variadic) {
      m.sources[i] = {ArgSource::Rest, next};
      next = positional;
    } else {
      m.sources[i] = {ArgSource::Positional, next++};
    }
  }
  if (next < positional) return failWith(ArgMatch::Error::TooManyPositional, "");
  for (size_t k = 0; k < kwnames.size(); ++k) {
    int i = sig.findKeyword(kwnames[k]);
    // A variadic parameter by keyword takes the whole sequence, as
    // PyTorch's x.permute(dims=(1, 0)) or flip(x, dims=[0]).
    if (i < 0) return failWith(ArgMatch::Error::UnexpectedKeyword, kwnames[k]);
    if (m.sources[i].kind != ArgSource::Default) return failWith(ArgMatch::Error::DuplicateKeyword, sig.params[i].name);
    m.sources[i] = {ArgSource::Keyword, k};
  }
  for (size_t i = 0; i < sig.params.size(); ++i) {
    const Param& p = sig.params[i];
    if (m.sources[i].kind == ArgSource::Default && !p.defaultValue && !p.variadic)
      return failWith(ArgMatch::Error::MissingArgument, p.name);
  }
  return m;
}

const Signature& signatureOf(Op op) {
  // Parsed once, on first use, and only read afterwards.
  static const std::array<Signature, kNumOps> parsed = [] {
    std::array<Signature, kNumOps> all;
    for (size_t i = 0; i < kNumOps; ++i) all[i] = parse(opInfo(static_cast<Op>(i)).signature);
    return all;
  }();
  return parsed[static_cast<size_t>(op)];
}

}  // namespace nn::ir
