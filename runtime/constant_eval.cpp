// Constant evaluation for fold-constants (see constant_eval.h).
#include "runtime/constant_eval.h"

#include <cctype>
#include <cmath>

#include "passes/passes.h"
#include "runtime/value_op.h"

namespace nn::rt {
namespace {

// CPython's peephole limit: a folded string stays small, so the IR (and
// the compile time and memory it costs) stays proportional to the program
// text. `"ab" * 10**12` in a branch never taken must not be built while
// compiling; at run time it is a located out-of-memory error.
constexpr size_t kMaxFoldedLength = 4096;

size_t lengthOf(const ir::Attr& a) {
  if (auto* s = std::get_if<std::string>(&a)) return s->size();
  if (auto* l = std::get_if<ir::Ints>(&a)) return l->size();
  return 32;  // a number's text
}

// Whether a width or precision in a format string or spec (a run of
// digits) asks for more than the limit.
bool asksForWide(const std::string& format) {
  size_t run = 0;
  for (char c : format) {
    if (!std::isdigit(static_cast<unsigned char>(c))) run = 0;
    else if (run = run * 10 + static_cast<size_t>(c - '0'); run > kMaxFoldedLength) return true;
  }
  return false;
}

// Whether evaluating n could build a string or sequence beyond the limit.
bool mayGrowTooLong(const ir::Node& n, const std::vector<ir::Attr>& operands) {
  switch (n.op()) {
    case ir::Op::Mul: {
      if (operands.size() != 2) return false;
      for (int side = 0; side < 2; ++side) {
        const ir::Attr& seq = operands[side];
        const int64_t* times = std::get_if<int64_t>(&operands[1 - side]);
        if (!times || *times <= 0 || !(std::holds_alternative<std::string>(seq) || std::holds_alternative<ir::Ints>(seq)))
          continue;
        size_t unit = lengthOf(seq);
        if (unit > 0 && static_cast<uint64_t>(*times) > kMaxFoldedLength / unit) return true;
      }
      return false;
    }
    case ir::Op::Add: case ir::Op::StrConcat: {
      size_t total = 0;
      for (const ir::Attr& a : operands) total += lengthOf(a);
      return total > kMaxFoldedLength;
    }
    case ir::Op::Format: {
      if (lengthOf(operands.at(0)) > kMaxFoldedLength) return true;
      if (operands.size() < 2) return asksForWide(n.strAttr("spec"));
      auto* spec = std::get_if<std::string>(&operands[1]);
      return !spec || asksForWide(*spec);
    }
    case ir::Op::Mod:
      if (auto* format = operands.empty() ? nullptr : std::get_if<std::string>(&operands[0]))
        return format->find('*') != std::string::npos || asksForWide(*format);
      return false;
    default: return false;
  }
}

std::optional<ir::Attr> evaluator(const ir::Node& n, const std::vector<ir::Attr>& operands) {
  if (!isValueOp(n.op()) || mayGrowTooLong(n, operands)) return std::nullopt;
  std::vector<Value> in;
  for (const ir::Attr& a : operands) in.push_back(attrValue(a));
  std::vector<const Value*> ptrs;
  for (const Value& v : in) ptrs.push_back(&v);
  try {
    return literalAttr(runValueOp(n, ptrs.data(), 0));
  } catch (...) {
    // Raises (or runs out of memory) at run time, at its own location.
    return std::nullopt;
  }
}

}  // namespace

passes::ConstantEvaluator constantEvaluator() { return evaluator; }

std::optional<ir::Attr> literalAttr(const Value& v) {
  switch (v.kind()) {
    case Kind::Int: return ir::Attr(v.asInt());
    case Kind::Float:
      if (std::isnan(v.asFloat())) return std::nullopt;
      return ir::Attr(v.asFloat());
    case Kind::Bool: return ir::Attr(v.asBool());
    case Kind::Str: return ir::Attr(v.asStr());
    case Kind::None: return ir::Attr(ir::NoneAttr{});
    default: return std::nullopt;
  }
}

}  // namespace nn::rt
