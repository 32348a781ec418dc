// Which nodes a loop's native glue computes itself or runs with one direct
// call (glue_emitter.h emits them; glue_codegen.cpp says how values live
// in registers and slots): scalar constants, arithmetic, comparisons and
// float math, float() of a number or a one-element tensor, len() and `in`
// of values in slots, and a loop's items, appends, unpacks, indexing, item
// stores and scalar stores. No LLVM here: what the glue takes is decided
// from the IR alone.
#pragma once

#include "ir/builtins.h"
#include "ir/ir.h"

namespace nn::rt::jit::glue {

using ir::Op;
using ir::TypeKind;

inline bool isScalar(const ir::Type& t) { return t.kind == TypeKind::Int || t.kind == TypeKind::Float || t.kind == TypeKind::Bool; }

inline bool nativeConst(const ir::Node& n) {
  if (n.op() != Op::Const || !isScalar(n.result(0)->type())) return false;
  const ir::Attr* a = n.attr("value");
  return a && (std::holds_alternative<int64_t>(*a) || std::holds_alternative<double>(*a) ||
               std::holds_alternative<bool>(*a));
}

// `float(t)` of a tensor t typed with one element (0-d, as `sum(x)` is):
// the glue reads the element (a tensor of another shape at run time is
// called back, and raises as the builtin does).
inline bool floatOfItem(const ir::Node& n) {
  if (n.op() != Op::Call || n.operands().size() != 2 || ir::calledFunction(n) != ir::Builtin::Float ||
      !n.strListAttr("kw").empty() || n.result(0)->type().kind != TypeKind::Float)
    return false;
  const ir::Type& t = n.operand(1)->type();
  if (!t.isTensor() || !t.hasStaticShape()) return false;
  for (const ir::Dim& d : *t.shape)
    if (d.size != 1) return false;
  return true;
}

// A loop's item at an int index (iter_item): the glue reads a list's,
// tuple's or range's item with one direct call (GlueApi::iterItem) and
// calls the node back for other iterables.
inline bool directItem(const ir::Node& n) { return n.op() == Op::IterItem && n.operand(1)->type().kind == TypeKind::Int; }

// A store_global of a scalar: from its register, with one direct call.
inline bool directStore(const ir::Node& n) { return n.op() == Op::StoreGlobal && isScalar(n.operand(0)->type()); }

// A comprehension's (or bind-methods' list.append's) list_append: one
// direct call (GlueApi::listAppend), the node called back where it declines.
// Its operands live in slots, as a called-back node's do.
inline bool directAppend(const ir::Node& n) { return n.op() == Op::ListAppend && n.attrs().empty(); }

// `a, b = pair` (and a for loop's `for a, b in pairs`) without a starred
// target: one direct call (GlueApi::unpack), the node called back where it
// declines. Its operand and results live in slots, as a called-back node's.
inline bool directUnpack(const ir::Node& n) { return n.op() == Op::Unpack && n.intAttr("star", -1) < 0; }

// `xs[i]` (and `d[k]`) with one index, not one that takes its item
// (passes/take_items.cpp): one direct call (GlueApi::getItem) for a list's
// or tuple's item or a dict's value, the node called back where it
// declines. Its operands and result live in slots, as a called-back
// node's.
inline bool directGetItem(const ir::Node& n) {
  return n.op() == Op::GetItem && n.operands().size() == 2 && n.attrs().empty();
}

// `xs[i] = v` and `d[k] = v` (no write-back through a view): one direct
// call (GlueApi::setItem) for a list's item or a dict's value at a key it
// holds, the node called back where it declines (a new key, a value that
// may close a cycle, a tensor). Its operands and result live in slots.
inline bool directSetItem(const ir::Node& n) {
  return n.op() == Op::SetItem && n.operands().size() == 3 && n.attrs().empty();
}

// `float(x)` of a Python number.
inline bool floatOfNumber(const ir::Node& n) {
  if (n.op() != Op::Call || n.operands().size() != 2 || ir::calledFunction(n) != ir::Builtin::Float ||
      !n.strListAttr("kw").empty() || n.result(0)->type().kind != TypeKind::Float)
    return false;
  return isScalar(n.operand(1)->type());
}

// `len(x)` of a value that lives in a slot (not one typed as a number,
// which has no length): an int in a register, measured by one direct call
// (GlueApi::length), the node called back where x has no length.
inline bool lengthOfValue(const ir::Node& n) {
  return n.op() == Op::Call && n.operands().size() == 2 && ir::calledFunction(n) == ir::Builtin::Len &&
         n.strListAttr("kw").empty() && n.result(0)->type().kind == TypeKind::Int && !isScalar(n.operand(1)->type());
}

// `x in c` and `x not in c` of values in slots (neither typed as a
// number, which may live in a register): a bool in a register, found by
// one direct call (GlueApi::contains) for a str in a dict or str, the node
// called back for anything else.
inline bool containsValue(const ir::Node& n) {
  return (n.op() == Op::In || n.op() == Op::NotIn) && n.operands().size() == 2 && n.numResults() == 1 &&
         n.result(0)->type().kind == TypeKind::Bool && !isScalar(n.operand(0)->type()) &&
         !isScalar(n.operand(1)->type());
}

// Whether the glue computes node n itself (no blocks: ifs and loops are
// decided by `structured`).
inline bool nativeScalar(const ir::Node& n) {
  if (n.numBlocks() != 0 || n.numResults() != 1) return false;
  if (n.op() == Op::Const) return nativeConst(n);
  if (n.op() == Op::Call) return floatOfItem(n) || floatOfNumber(n) || lengthOfValue(n);
  if (n.op() == Op::IterLen) return n.result(0)->type().kind == TypeKind::Int;
  if (n.op() == Op::In || n.op() == Op::NotIn) return containsValue(n);
  auto kind = [&](size_t i) { return n.operand(i)->type().kind; };
  TypeKind r = n.result(0)->type().kind;
  switch (n.op()) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul: {
      bool ii = kind(0) == TypeKind::Int && kind(1) == TypeKind::Int;
      bool numeric = (kind(0) == TypeKind::Int || kind(0) == TypeKind::Float) &&
                     (kind(1) == TypeKind::Int || kind(1) == TypeKind::Float);
      return numeric && r == (ii ? TypeKind::Int : TypeKind::Float);
    }
    case Op::FloorDiv:
    case Op::Mod: return kind(0) == TypeKind::Int && kind(1) == TypeKind::Int && r == TypeKind::Int;
    case Op::Div:
      return (kind(0) == TypeKind::Float || kind(0) == TypeKind::Int) &&
             (kind(1) == TypeKind::Float || kind(1) == TypeKind::Int) && r == TypeKind::Float &&
             (kind(0) == TypeKind::Float || kind(1) == TypeKind::Float);
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge:
    case Op::Eq:
    case Op::Ne:
      return r == TypeKind::Bool && kind(0) == kind(1) && (kind(0) == TypeKind::Int || kind(0) == TypeKind::Float);
    case Op::Not: return kind(0) == TypeKind::Bool && r == TypeKind::Bool;
    case Op::Neg: return (kind(0) == TypeKind::Int || kind(0) == TypeKind::Float) && r == kind(0);
    // A float's math (float_unary.def): what the f64 kernels and a Python
    // float's math compute, with the same libm calls (the fused kernels'
    // code: ElementwiseEmitter::floatMath), and the tests of its class.
#define FLOAT_UNARY(OPNAME, EXPR) case Op::OPNAME:
#define FLOAT_TEST(OPNAME, EXPR)
#include "runtime/float_unary.def"
#undef FLOAT_UNARY
#undef FLOAT_TEST
      return n.operands().size() == 1 && kind(0) == TypeKind::Float && r == TypeKind::Float;
    case Op::IsNan:
    case Op::IsInf:
    case Op::IsFinite: return kind(0) == TypeKind::Float && r == TypeKind::Bool;
    default: return false;
  }
}

}  // namespace nn::rt::jit::glue
