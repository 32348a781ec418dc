// What an op's reverse-mode gradient rule (its vector-Jacobian product)
// sees and does: given the forward node, its operands and result as values
// of the block the backward pass is built in, and the adjoint (the
// gradient of the final output with respect to the node's result), the
// rule appends ops computing the adjoint of each operand that needs one.
// ops.def names each op's rule; the rules are in gradient_rules.cpp. The
// same rules serve graph mode (passes/reverse_mode.h, over the compiled
// function) and eager mode (runtime/tape.h, over the ops a call ran), so
// the two modes differentiate alike. Emitted ops are typed at once by
// their rules and located at the forward op, so a shape error of the
// backward pass is reported at the forward op's source line.
#pragma once

#include <functional>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "ir/ir.h"

namespace nn::ir {

struct GradientBuilder {
  GradientBuilder(Block& into, const Node& forward, std::vector<Value*> operands,
                  std::function<Value*()> result, Value* adjoint, std::vector<bool> wanted);

  const Node& forward;            // op and attributes
  std::vector<Value*> operands;   // the forward operands, in the backward's block
  // The forward result, in the backward's block (asked for only by the
  // rules that use it, so the tape keeps no other result for the backward).
  Value* result() { return result_ ? result_ : (result_ = resultOf_()); }
  Value* adjoint;                 // d(output)/d(result)
  std::vector<bool> wanted;       // per operand: whether its adjoint is needed
  std::vector<Value*> grads;      // out: per operand, its adjoint (null: none)

  // Appends `op` on `in` with attributes `attrs`, typed by its rule.
  Value* emit(Op op, std::vector<Value*> in, std::vector<std::pair<std::string, Attr>> attrs = {});
  Value* constant(double v);
  Value* literal(Attr v);  // an int, bool, str or None constant
  // Shorthands for the arithmetic the rules are written in.
  Value* add(Value* a, Value* b) { return emit(Op::Add, {a, b}); }
  Value* sub(Value* a, Value* b) { return emit(Op::Sub, {a, b}); }
  Value* mul(Value* a, Value* b) { return emit(Op::Mul, {a, b}); }
  Value* div(Value* a, Value* b) { return emit(Op::Div, {a, b}); }
  Value* neg(Value* a) { return emit(Op::Neg, {a}); }
  Value* unsqueeze(Value* a, int64_t axis) { return emit(Op::Unsqueeze, {a}, {{"axis", axis}}); }
  // `g` summed over the dimensions broadcasting added to `like`'s shape
  // (a gradient flowing back through a broadcast), of like's shape.
  Value* sumTo(Value* g, Value* like) { return emit(Op::SumTo, {g, like}); }
  // The forward op's attribute `name` (null when absent); a numeric one
  // (an int or a float) as a double, `dflt` when absent or not a number.
  const Attr* attr(const char* name) const { return forward.attr(name); }
  // The forward op's attributes `names` (those it has), to pass on to the
  // ops the rule emits.
  std::vector<std::pair<std::string, Attr>> attrs(std::initializer_list<const char*> names) const;
  double number(const char* name, double dflt) const;
  // An int or a str attribute, `dflt` when absent or of another kind.
  int64_t integer(const char* name, int64_t dflt) const;
  std::string text(const char* name, const char* dflt) const;
  // Operand i's rank from its type; fails (not supported) when unknown.
  size_t rankOf(size_t i) const;

 private:
  std::function<Value*()> resultOf_;
  Value* result_ = nullptr;
  Block& into_;
};

// Rules that are not an op's own: no gradient flows (integer-valued ops
// such as comparisons, floor and argmax: zero, as in PyTorch).
void ZeroGradient(GradientBuilder& b);

}  // namespace nn::ir
