// Type and shape rules for calls of tensor builtins whose arguments make
// the result's shape known at compile time: creation from constant shapes
// (zeros(3, 4), ones([n, 4]) with n unknown gives f32[?, 4]), reshape,
// transpose and .T, matmul and linear, softmax, flatten, sum/mean (whole,
// or along a constant axis), the losses, *_like, and the conversions
// float/int/bool/len. reshape, matmul and linear on shapes that cannot fit
// fail here with the runtime's message. Anything else is `any`.
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

// A full reduction: a 0-d tensor, of the input's dtype when it is
// floating (integer sums widen, means become floats).
Type reduction(const Type& x) {
  bool floating = x.dtype && isFloating(*x.dtype);
  return Type::tensor(floating ? x.dtype : std::nullopt, DimList{});
}

// x.sum(), x.mean(), ... without arguments: a 0-d tensor.
std::optional<Type> methodCallType(const Node& n, const Node& getattr) {
  const Type& x = getattr.operand(0)->type();
  if (!x.isTensor() || n.operands().size() != 1) return std::nullopt;
  const std::string& name = getattr.strAttr("name");
  if (name == "sum" || name == "mean" || name == "max" || name == "min" || name == "prod")
    return reduction(x);
  if (name == "item") return Type::any();
  return std::nullopt;
}

// A call's argument by position, else by keyword; null when absent.
const Value* argument(const Node& n, size_t pos, const char* keyword) {
  const auto& kw = n.strListAttr("kw");
  size_t nargs = n.operands().size() - 1 - kw.size();
  if (pos < nargs) return n.operand(1 + pos);
  for (size_t k = 0; k < kw.size(); ++k)
    if (kw[k] == keyword) return n.operand(1 + nargs + k);
  return nullptr;
}

// A constant bool argument (false when absent).
std::optional<bool> constBool(const Value* v) {
  if (!v) return false;
  const Node* d = defOf(v);
  if (!d || d->op() != Op::Const) return std::nullopt;
  if (auto* b = std::get_if<bool>(d->attr("value"))) return *b;
  return std::nullopt;
}

std::optional<DType> floatingOr(const Type& x, std::optional<DType> otherwise) {
  return x.dtype && isFloating(*x.dtype) ? x.dtype : otherwise;
}

// linear(x, w, b=None) = x @ w.T + b, with the errors matmul and + give.
Type linearType(const Node& n) {
  const Value* x = argument(n, 0, "x");
  const Value* w = argument(n, 1, "w");
  const Value* b = argument(n, 2, "b");
  if (!x || !w || !x->type().isTensor() || !w->type().isTensor()) return Type::any();
  const Type& wt = w->type();
  if (wt.shape && wt.shape->size() != 2)
    fail(n.loc(), "linear: weight must be 2-D [out, in], got " + wt.str());
  Value transposed(reversed(wt), nullptr, nullptr);
  Node mm(Op::MatMul, n.loc());
  mm.addOperand(const_cast<Value*>(x));
  mm.addOperand(&transposed);
  auto y = tensorResultType(mm);
  if (!y || !b || b->type().kind == TypeKind::None) return y ? *y : Type::any();
  Value product(*y, nullptr, nullptr);
  Node add(Op::Add, n.loc());
  add.addOperand(&product);
  add.addOperand(const_cast<Value*>(b));
  add.addResult(Type::any());
  auto r = tensorResultType(add);
  return r ? *r : Type::any();
}

// sum/mean(x, axis=k, keepdims=c) with a constant axis and keepdims.
Type axisReduction(const Node& n) {
  const Type& x = argument(n, 0, "x")->type();
  std::optional<DType> dt = floatingOr(x, std::nullopt);
  const Value* axis = argument(n, 1, "axis");
  std::optional<bool> keep = constBool(argument(n, 2, "keepdims"));
  std::optional<int64_t> a = axis ? constInt(axis) : std::nullopt;
  if (!x.shape || !a || !keep) return Type::tensor(dt);
  int64_t rank = static_cast<int64_t>(x.shape->size());
  int64_t k = *a < 0 ? *a + rank : *a;
  if (k < 0 || k >= rank) return Type::tensor(dt);  // the runtime reports it
  DimList dims = *x.shape;
  if (*keep) dims[k] = Dim::known(1);
  else dims.erase(dims.begin() + k);
  return Type::tensor(dt, dims);
}

}  // namespace

std::optional<Type> builtinCallType(const Node& n) {
  const Node* callee = defOf(n.operand(0));
  if (callee && callee->op() == Op::GetAttr) return methodCallType(n, *callee);
  if (!callee || callee->op() != Op::Builtin) return std::nullopt;
  const std::string& name = callee->strAttr("name");
  size_t nargs = n.operands().size() - 1 - n.strListAttr("kw").size();
  auto argType = [&](size_t i) { return i < nargs ? n.operand(1 + i)->type() : Type::any(); };
  if (name == "zeros" || name == "ones" || name == "rand" || name == "randn") return creation(n, nargs);
  // Elementwise builtins on tensors: the rule of the op of that name.
  Op op;
  if (opFromName(name, op) && op >= Op::Exp && op <= Op::Where && n.strListAttr("kw").empty() &&
      static_cast<int>(nargs) >= opInfo(op).minOperands && static_cast<int>(nargs) <= opInfo(op).maxOperands) {
    Node probe(op, n.loc());
    for (size_t i = 0; i < nargs; ++i) probe.addOperand(n.operand(1 + i));
    probe.addResult(Type::any());
    if (auto t = tensorResultType(probe)) return *t;
  }
  if (name == "reshape") return reshapeType(n, nargs);
  if ((name == "zeros_like" || name == "ones_like") && nargs == 1 && n.strListAttr("kw").empty() &&
      argType(0).isTensor())
    return argType(0);
  if (name == "transpose" && nargs == 1 && argType(0).isTensor()) return reversed(argType(0));
  if ((name == "sum" || name == "mean") && nargs == 1 && n.strListAttr("kw").empty() && argType(0).isTensor())
    return reduction(argType(0));
  if ((name == "sum" || name == "mean") && nargs >= 1 && argType(0).isTensor()) return axisReduction(n);
  if (name == "linear") return linearType(n);
  if ((name == "softmax" || name == "log_softmax") && nargs >= 1 && argType(0).isTensor())
    return Type::tensor(floatingOr(argType(0), DType::F32), argType(0).shape);
  if (name == "flatten" && nargs == 1 && argType(0).isTensor()) {
    const Type& x = argType(0);
    std::optional<int64_t> numel = 1;
    if (x.shape)
      for (const Dim& d : *x.shape) numel = numel && d.isKnown() ? std::optional<int64_t>(*numel * d.size) : std::nullopt;
    return Type::tensor(x.dtype, DimList{x.shape && numel ? Dim::known(*numel) : Dim::unknown()});
  }
  if ((name == "mse_loss" || name == "cross_entropy") && nargs == 2 && argType(0).isTensor())
    return Type::tensor(floatingOr(argType(0), std::nullopt), DimList{});
  if (name == "matmul" && nargs == 2 && n.strListAttr("kw").empty()) {
    Node probe(Op::MatMul, n.loc());
    probe.addOperand(n.operand(1));
    probe.addOperand(n.operand(2));
    if (auto t = tensorResultType(probe)) return *t;
  }
  if (name == "float") return Type(TypeKind::Float);
  if (name == "int" || name == "len") return Type(TypeKind::Int);
  if (name == "bool") return Type(TypeKind::Bool);
  if (name == "str") return Type(TypeKind::Str);
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
