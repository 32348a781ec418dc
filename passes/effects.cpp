// Effect and failure predicates shared by the passes (see effects.h). They
// read the op table's traits and builtins.def's effect classes; no builtin
// is recognised by its name here.
#include "passes/effects.h"

#include "ir/annotation_check.h"
#include "ir/builtins.h"

namespace nn::passes {

using ir::Op;
using ir::TypeKind;

namespace {

bool opHasEffect(Op op) { return ir::hasTrait(op, ir::EFFECT) || ir::hasTrait(op, ir::RANDOM); }

bool callHasEffect(const ir::Node& n) {
  if (std::optional<Op> op = ir::calledOp(n)) return opHasEffect(*op);
  std::optional<ir::Builtin> b = ir::calledFunction(n);
  // A user function, a host application's function (host_function: what
  // it does is not known), or a callee that is not known.
  if (!b) return true;
  switch (ir::builtinInfo(*b).effect) {
    case ir::Effect::None: return false;
    case ir::Effect::CallsArgs:
    case ir::Effect::CallsKey:
      return callsAnArgument(n, ir::builtinInfo(*b).effect, [](const ir::Value* v) { return mayBeCallable(v->type()); });
    default: return true;
  }
}

bool knownShapeTensor(const ir::Type& t) { return t.dtype && t.hasStaticShape(); }

bool isNumberType(const ir::Type& t) {
  return t.kind == TypeKind::Float || t.kind == TypeKind::Int || t.kind == TypeKind::Bool;
}

}  // namespace

namespace {
// Whether a node of n's blocks (if/loop bodies) satisfies `pred`.
template <class Pred>
bool anyInBlocks(const ir::Node& n, Pred pred) {
  for (size_t i = 0; i < n.numBlocks(); ++i)
    for (const auto& inner : n.block(i)->nodes())
      if (pred(*inner)) return true;
  return false;
}

// mayRaise of a node holding blocks, asking `inner` about the nested nodes.
template <class Inner>
bool blockMayRaise(const ir::Node& n, Inner inner) {
  if (n.op() == Op::Loop) return true;
  for (size_t i = 0; i < n.numBlocks(); ++i)
    for (const auto& m : n.block(i)->nodes())
      if (!ir::hasTrait(m->op(), ir::TERM) && inner(*m)) return true;
  // An if's condition is truth-tested: a tensor of several elements raises.
  return n.op() == Op::If && n.operand(0)->type().kind != TypeKind::Bool;
}

// The memo's answer for n, computed once.
template <class Compute>
bool remembered(std::unordered_map<const ir::Node*, bool>& memo, const ir::Node& n, Compute compute) {
  auto it = memo.find(&n);
  if (it != memo.end()) return it->second;
  bool r = compute();
  memo.emplace(&n, r);
  return r;
}
}  // namespace

bool EffectMemo::hasEffect(const ir::Node& n) {
  if (n.numBlocks() == 0) return passes::hasEffect(n);
  return remembered(effect_, n, [&] {
    return opHasEffect(n.op()) || anyInBlocks(n, [&](const ir::Node& m) { return hasEffect(m); });
  });
}

bool EffectMemo::isBarrier(const ir::Node& n) {
  if (n.numBlocks() == 0) return passes::isBarrier(n);
  return remembered(barrier_, n, [&] { return anyInBlocks(n, [&](const ir::Node& m) { return isBarrier(m); }); });
}

bool EffectMemo::mayRaise(const ir::Node& n) {
  if (n.numBlocks() == 0) return passes::mayRaise(n);
  return remembered(raise_, n, [&] { return blockMayRaise(n, [&](const ir::Node& m) { return mayRaise(m); }); });
}

bool hasEffect(const ir::Node& n) {
  if (n.op() == Op::Call) return callHasEffect(n);
  return opHasEffect(n.op()) || anyInBlocks(n, hasEffect);
}

bool isBarrier(const ir::Node& n) {
  if (n.op() == Op::Call) {
    std::optional<ir::Builtin> b = ir::calledFunction(n);
    return b && (ir::builtinInfo(*b).effect == ir::Effect::Clock || ir::builtinInfo(*b).effect == ir::Effect::Wait);
  }
  return anyInBlocks(n, isBarrier);
}

bool mayRaise(const ir::Node& n) {
  switch (n.op()) {
    case Op::Const: case Op::Undef: case Op::Builtin: case Op::HostFunction: case Op::SelfClosure: case Op::MakeClosure:
    case Op::MakeTuple: case Op::MakeList: case Op::MakeDict: case Op::MakeSlice: case Op::Is: case Op::IsNot:
    case Op::SavedItem:  // its index is an iteration the forward loop ran
    case Op::IterLen:    // of an `iter`'s result, which is always a sequence
      return false;
    default: break;
  }
  if (n.numBlocks() > 0 || n.op() == Op::Loop) return blockMayRaise(n, [](const ir::Node& m) { return mayRaise(m); });
  // An annotation check whose operand types prove it passes.
  if (n.op() == Op::CheckArgs || n.op() == Op::CheckResult) return ir::checkCall(n).verdict != ir::Verdict::Pass;
  // A for loop's view of a list, tuple, dict or str (any other iterable
  // may not be one).
  if (n.op() == Op::Iter) {
    TypeKind k = n.operand(0)->type().kind;
    return k != TypeKind::List && k != TypeKind::Tuple && k != TypeKind::Dict && k != TypeKind::Str;
  }
  // A tensor's method: looking it up makes a bound method and cannot fail.
  if (n.op() == Op::GetAttr) {
    if (!n.operand(0)->type().isTensor()) return true;
    if (ir::methodOp(n.strAttr("name")) || ir::isTensorOwnMethod(n.strAttr("name"))) return false;
    return !(ir::tensorAttributeOp(n.strAttr("name")) && knownShapeTensor(n.result(0)->type()));
  }
  // A tensor op (or a call of its builtin) whose shape rule fully
  // determined the result already checked what the runtime would check,
  // unless the op can fail on values (RAISES).
  bool call = n.op() == Op::Call;
  std::optional<Op> op = call ? ir::calledOp(n) : std::optional<Op>(n.op());
  if (call || (ir::isTensorOp(n.op()) && !ir::hasTrait(n.op(), ir::ELEM))) {
    if (!op || ir::hasTrait(*op, ir::RAISES) || !knownShapeTensor(n.result(0)->type())) return true;
    for (size_t i = call ? 1 : 0; i < n.operands().size(); ++i) {
      ir::TypeKind k = n.operand(i)->type().kind;
      if (k != TypeKind::Tensor && k != TypeKind::Int && k != TypeKind::List && k != TypeKind::Tuple &&
          (call || k != TypeKind::None))
        return true;
    }
    return false;
  }
  if (!ir::hasTrait(n.op(), ir::ELEM) && n.op() != Op::MatMul) return true;
  // Elementwise ops on tensors of known dtype and shape: type inference
  // already proved the shapes compatible, and float kernels do not raise.
  bool tensor = false;
  for (const ir::Value* v : n.operands()) {
    const ir::Type& t = v->type();
    if (t.isTensor()) {
      if (!knownShapeTensor(t)) return true;
      tensor = true;
    } else if (!isNumberType(t)) {
      return true;
    }
  }
  if (!tensor) {
    // Python numbers: comparisons never raise; + - * on floats never raise
    // (on ints they may overflow 64 bits).
    Op op = n.op();
    if (op == Op::Lt || op == Op::Le || op == Op::Gt || op == Op::Ge || op == Op::Eq || op == Op::Ne) return false;
    bool floats = true;
    for (const ir::Value* v : n.operands()) floats &= v->type().kind == TypeKind::Float;
    return !(floats && (op == Op::Add || op == Op::Sub || op == Op::Mul || op == Op::Neg || op == Op::Pos));
  }
  const ir::Type& r = n.result(0)->type();
  // Integer division, modulo and fmod by a zero element raise; bit ops on float
  // tensors and `-` on bool tensors are type errors.
  if (!r.isTensor() || !r.dtype) return true;
  switch (n.op()) {
    case Op::FloorDiv: case Op::Mod: case Op::Fmod: return !ir::isFloating(*r.dtype);
    case Op::BitAnd: case Op::BitOr: case Op::BitXor: case Op::LShift: case Op::RShift: case Op::Invert:
    case Op::Pow: return true;
    case Op::Neg: case Op::Pos: return n.operand(0)->type().dtype == ir::DType::Bool;
    default: return false;
  }
}

}  // namespace nn::passes
