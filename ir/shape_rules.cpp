// The tensor ops' shape rules (see shape_rules.h) and the typing of calls
// of builtins: a call of a tensor op's builtin is typed by the op's rule, a
// call of another builtin by the result kind builtins.def declares.
#include "ir/shape_rules.h"

#include "ir/builtins.h"
#include "ir/op_signature.h"
#include "ir/type_rules.h"
#include "support/diagnostics.h"

namespace nn::ir {
namespace {

const Node* defOf(const Value* v) { return v->def(); }

std::optional<int64_t> constInt(const Value* v) {
  const Node* d = defOf(v);
  if (!d || d->op() != Op::Const) return std::nullopt;
  if (auto* i = std::get_if<int64_t>(d->attr("value"))) return *i;
  return std::nullopt;
}

// A shape from arguments [from, to): one list/tuple of ints or several
// ints; an int that is not a constant is an unknown dim. nullopt when the
// arguments are not of that form.
std::optional<std::vector<std::optional<int64_t>>> shapeArgs(const Node& n, size_t from, size_t to) {
  std::vector<const Value*> dims;
  for (size_t i = from; i < to; ++i) dims.push_back(n.operand(i));
  if (dims.size() == 1) {
    const Node* d = defOf(dims[0]);
    if (d && (d->op() == Op::MakeList || d->op() == Op::MakeTuple)) dims.assign(d->operands().begin(), d->operands().end());
  }
  std::vector<std::optional<int64_t>> out;
  for (const Value* v : dims) {
    if (v->type().kind != TypeKind::Int) return std::nullopt;
    out.push_back(constInt(v));
  }
  return out;
}

// The dtype named by a `dtype=` keyword, f32 when absent; nullopt when it
// is not a literal dtype name.
std::optional<DType> dtypeKeyword(const Node& n, size_t nargs, bool& present) {
  const auto& kw = n.strListAttr("kw");
  present = false;
  for (size_t k = 0; k < kw.size(); ++k) {
    if (kw[k] != "dtype") continue;
    present = true;
    const Node* d = defOf(n.operand(1 + nargs + k));
    if (d && d->op() == Op::Builtin) return dtypeFromName(d->strAttr("name"));
    return std::nullopt;
  }
  return DType::F32;
}

Type creation(const Node& n, size_t nargs) {
  bool present;
  std::optional<DType> dt = dtypeKeyword(n, nargs, present);
  if (n.strListAttr("kw").size() > (present ? 1u : 0u)) return Type::any();
  auto dims = shapeArgs(n, 1, 1 + nargs);
  if (!dims) return Type::tensor(dt);
  DimList shape;
  for (const auto& d : *dims) {
    if (d && *d < 0) return Type::tensor(dt);  // the runtime reports it
    shape.push_back(d ? Dim::known(*d) : Dim::unknown());
  }
  return Type::tensor(dt, shape);
}

Type reshapeType(const Node& n, size_t nargs) {
  const Type& x = n.operand(1)->type();
  if (!x.isTensor() || nargs < 2 || !n.strListAttr("kw").empty()) return Type::any();
  auto dims = shapeArgs(n, 2, 1 + nargs);
  if (!dims) return Type::tensor(x.dtype);
  DimList shape;
  int64_t known = 1, inferAt = -1;
  bool allKnown = true;
  for (size_t i = 0; i < dims->size(); ++i) {
    const auto& d = (*dims)[i];
    if (!d) {
      allKnown = false;
      shape.push_back(Dim::unknown());
    } else if (*d == -1 && inferAt < 0) {
      inferAt = static_cast<int64_t>(i);
      shape.push_back(Dim::unknown());
    } else if (*d < 0) {
      return Type::tensor(x.dtype);  // the runtime reports it
    } else {
      known *= *d;
      shape.push_back(Dim::known(*d));
    }
  }
  std::optional<int64_t> numel = 1;
  if (x.shape)
    for (const Dim& d : *x.shape) numel = numel && d.isKnown() ? std::optional<int64_t>(*numel * d.size) : std::nullopt;
  else
    numel.reset();
  if (allKnown && numel) {
    bool ok = inferAt >= 0 ? known != 0 && *numel % known == 0 : known == *numel;
    if (!ok) {
      std::string target = "[";
      for (size_t i = 0; i < dims->size(); ++i) target += (i ? ", " : "") + std::to_string(*(*dims)[i]);
      fail(n.loc(), "cannot reshape " + x.str() + " into shape " + target + "]");
    }
    if (inferAt >= 0) shape[inferAt] = Dim::known(*numel / known);
  }
  return Type::tensor(x.dtype, shape);
}

Type reversed(const Type& x) {
  if (!x.shape) return Type::tensor(x.dtype);
  return Type::tensor(x.dtype, DimList(x.shape->rbegin(), x.shape->rend()));
}

// The argument for parameter `name` of the called op: positional or by
// keyword; null when absent.
const Value* argument(const Node& n, Op op, const char* name) {
  int param = signatureOf(op).find(name);
  const auto& kw = n.strListAttr("kw");
  size_t nargs = n.operands().size() - 1 - kw.size();
  if (param >= 0 && static_cast<size_t>(param) < nargs) return n.operand(1 + param);
  for (size_t k = 0; k < kw.size(); ++k)
    if (kw[k] == name) return n.operand(1 + nargs + k);
  return nullptr;
}

size_t positionalCount(const Node& n) { return n.operands().size() - 1 - n.strListAttr("kw").size(); }

// A constant bool argument (false when absent).
std::optional<bool> constBool(const Value* v) {
  if (!v) return false;
  const Node* d = defOf(v);
  if (!d || d->op() != Op::Const) return std::nullopt;
  if (auto* b = std::get_if<bool>(d->attr("value"))) return *b;
  return std::nullopt;
}

std::optional<DType> floatingOr(const Type& x, std::optional<DType> otherwise) {
  if (x.dtype && isFloating(*x.dtype)) return x.dtype;
  return otherwise;
}

// The rule of a language op (matmul, pow, neg, +) applied to the call's
// positional arguments as its operands.
std::optional<Type> asOp(const Node& n, Op op) {
  size_t nargs = positionalCount(n);
  const OpInfo& info = opInfo(op);
  if (!n.strListAttr("kw").empty() || static_cast<int>(nargs) < info.minOperands ||
      (info.maxOperands >= 0 && static_cast<int>(nargs) > info.maxOperands))
    return std::nullopt;
  Node probe(op, n.loc());
  for (size_t i = 0; i < nargs; ++i) probe.addOperand(n.operand(1 + i));
  probe.addResult(Type::any());
  return tensorResultType(probe);
}

// x.sum(), x.max(), ... without arguments.
std::optional<Type> methodCallType(const Node& n, const Node& getattr) {
  const Type& x = getattr.operand(0)->type();
  std::optional<Op> op = methodOp(getattr.strAttr("name"));
  if (!x.isTensor() || n.operands().size() != 1 || !op || !hasTrait(*op, REDUCE)) return std::nullopt;
  return shape_rules::fullReduction(*op, x);
}

}  // namespace

namespace shape_rules {

std::optional<Type> Untyped(const Node&, Op) { return std::nullopt; }

std::optional<Type> Elementwise(const Node& n, Op op) { return asOp(n, op); }

std::optional<Type> Creation(const Node& n, Op) { return creation(n, positionalCount(n)); }

std::optional<Type> Like(const Node& n, Op) {
  if (positionalCount(n) != 1 || !n.strListAttr("kw").empty() || !n.operand(1)->type().isTensor())
    return std::nullopt;
  return n.operand(1)->type();
}

Type fullReduction(Op op, const Type& x) {
  // argmax/argmin give indices, all/any bools; the rest keep a floating
  // dtype (integer sums widen, means become floats: left open).
  std::optional<DType> dt = op == Op::ArgMax || op == Op::ArgMin ? std::optional<DType>(DType::I64)
                            : op == Op::All || op == Op::Any     ? std::optional<DType>(DType::Bool)
                                                                 : floatingOr(x, std::nullopt);
  return Type::tensor(dt, DimList{});
}

std::optional<Type> Reduce(const Node& n, Op op) {
  const Value* xv = argument(n, op, "x");
  if (!xv || !xv->type().isTensor()) return std::nullopt;
  const Type& x = xv->type();
  const Value* axis = argument(n, op, "axis");
  const Value* keepdims = argument(n, op, "keepdims");
  // Only the parameters of the signature (max(a, b) of two tensors is
  // elementwise: not this rule).
  size_t given = (axis ? 1 : 0) + (keepdims ? 1 : 0) + (argument(n, op, "ddof") ? 1 : 0) + 1;
  if (given != n.operands().size() - 1) return std::nullopt;
  Type whole = fullReduction(op, x);
  if (!axis || axis->type().kind == TypeKind::None) return keepdims ? Type::tensor(whole.dtype) : whole;
  if (axis->type().kind == TypeKind::Tuple || axis->type().kind == TypeKind::List) return Type::tensor(whole.dtype);
  if (axis->type().kind != TypeKind::Int) return std::nullopt;
  std::optional<bool> keep = constBool(keepdims);
  std::optional<int64_t> a = constInt(axis);
  if (!x.shape || !a || !keep) return Type::tensor(whole.dtype);
  int64_t rank = static_cast<int64_t>(x.shape->size());
  int64_t k = *a < 0 ? *a + rank : *a;
  if (k < 0 || k >= rank) return Type::tensor(whole.dtype);  // the runtime reports it
  DimList dims = *x.shape;
  if (*keep) dims[k] = Dim::known(1);
  else dims.erase(dims.begin() + k);
  return Type::tensor(whole.dtype, dims);
}

std::optional<Type> Reshape(const Node& n, Op) { return reshapeType(n, positionalCount(n)); }

std::optional<Type> Transpose(const Node& n, Op) {
  if (positionalCount(n) != 1 || !n.strListAttr("kw").empty() || !n.operand(1)->type().isTensor())
    return std::nullopt;
  return reversed(n.operand(1)->type());
}

std::optional<Type> Flatten(const Node& n, Op) {
  if (positionalCount(n) != 1 || !n.strListAttr("kw").empty() || !n.operand(1)->type().isTensor())
    return std::nullopt;
  const Type& x = n.operand(1)->type();
  std::optional<int64_t> numel = 1;
  if (x.shape)
    for (const Dim& d : *x.shape) numel = numel && d.isKnown() ? std::optional<int64_t>(*numel * d.size) : std::nullopt;
  return Type::tensor(x.dtype, DimList{x.shape && numel ? Dim::known(*numel) : Dim::unknown()});
}

// linear(x, w, b=None) = x @ w.T + b, with the errors matmul and + give.
std::optional<Type> Linear(const Node& n, Op op) {
  const Value* x = argument(n, op, "x");
  const Value* w = argument(n, op, "w");
  const Value* b = argument(n, op, "b");
  if (!x || !w || !x->type().isTensor() || !w->type().isTensor()) return std::nullopt;
  const Type& wt = w->type();
  if (wt.shape && wt.shape->size() != 2) fail(n.loc(), "linear: weight must be 2-D [out, in], got " + wt.str());
  Value transposed(reversed(wt), nullptr, nullptr);
  Node mm(Op::MatMul, n.loc());
  mm.addOperand(const_cast<Value*>(x));
  mm.addOperand(&transposed);
  auto y = tensorResultType(mm);
  if (!y || !b || b->type().kind == TypeKind::None) return y;
  Value product(*y, nullptr, nullptr);
  Node add(Op::Add, n.loc());
  add.addOperand(&product);
  add.addOperand(const_cast<Value*>(b));
  add.addResult(Type::any());
  return tensorResultType(add);
}

std::optional<Type> Softmax(const Node& n, Op op) {
  const Value* x = argument(n, op, "x");
  if (!x || !x->type().isTensor()) return std::nullopt;
  return Type::tensor(floatingOr(x->type(), DType::F32), x->type().shape);
}

std::optional<Type> Loss(const Node& n, Op) {
  if (positionalCount(n) != 2 || !n.operand(1)->type().isTensor()) return std::nullopt;
  return Type::tensor(floatingOr(n.operand(1)->type(), std::nullopt), DimList{});
}

}  // namespace shape_rules

std::optional<Type> builtinCallType(const Node& n) {
  const Node* callee = defOf(n.operand(0));
  if (callee && callee->op() == Op::GetAttr) return methodCallType(n, *callee);
  if (std::optional<Op> op = calledOp(n)) {
    const OpInfo& info = opInfo(*op);
    return info.shapeRule ? info.shapeRule(n, *op) : asOp(n, *op);
  }
  if (std::optional<Builtin> b = calledFunction(n)) {
    TypeKind result = builtinInfo(*b).result;
    if (result != TypeKind::Any) return Type(result);
  }
  return std::nullopt;
}

std::optional<Type> attributeType(const Node& n) {
  const Type& x = n.operand(0)->type();
  if (!x.isTensor()) return std::nullopt;
  const std::string& name = n.strAttr("name");
  if (name == "T") return reversed(x);
  if (name == "ndim") return Type(TypeKind::Int);
  if (name == "shape") return Type(TypeKind::Tuple);
  return std::nullopt;
}

}  // namespace nn::ir
