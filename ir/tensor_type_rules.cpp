// Type and shape rules for ops on tensors, mirroring the runtime's
// semantics (runtime/tensor_ops.cpp, nn_ops.cpp): PyTorch promotion, NumPy
// broadcasting, matmul's batch broadcasting. A mismatch that the runtime
// would report is reported here, at compile time, with the same message.
//
// Dimensions: a known size, a symbol, or unknown. Broadcasting a known 1
// against anything gives the other; two equal dims give that dim; a known
// size > 1 against a symbol or an unknown gives the known size (the other
// must be 1 or equal at run time, which the kernel checks); two different
// symbols give unknown.
#include "ir/type_rules.h"
#include "support/diagnostics.h"

namespace nn::ir {
namespace {

bool isScalarNumber(const Type& t) {
  return t.kind == TypeKind::Int || t.kind == TypeKind::Float || t.kind == TypeKind::Bool;
}

std::optional<ScalarKind> scalarKind(const Type& t) {
  switch (t.kind) {
    case TypeKind::Bool: return ScalarKind::Bool;
    case TypeKind::Int: return ScalarKind::Int;
    case TypeKind::Float: return ScalarKind::Float;
    default: return std::nullopt;
  }
}

// The shape a Python scalar broadcasts as.
std::optional<DimList> shapeOf(const Type& t) {
  if (t.isTensor()) return t.shape;
  return DimList{};
}

Dim broadcastDim(const Dim& a, const Dim& b, bool& ok) {
  if (a == b) return a;
  if (a.isKnown() && a.size == 1) return b;
  if (b.isKnown() && b.size == 1) return a;
  if (a.isKnown() && b.isKnown()) {
    ok = false;
    return a;
  }
  if (a.isKnown()) return a;
  if (b.isKnown()) return b;
  return Dim::unknown();
}

// Broadcast shape of a and b; nullopt when a rank is unknown; sets ok=false
// on a definite mismatch.
std::optional<DimList> broadcast(const std::optional<DimList>& a, const std::optional<DimList>& b, bool& ok) {
  if (!a || !b) return std::nullopt;
  size_t rank = std::max(a->size(), b->size());
  DimList out(rank);
  for (size_t i = 0; i < rank; ++i) {
    Dim x = i < a->size() ? (*a)[a->size() - 1 - i] : Dim::known(1);
    Dim y = i < b->size() ? (*b)[b->size() - 1 - i] : Dim::known(1);
    out[rank - 1 - i] = broadcastDim(x, y, ok);
  }
  return out;
}

// "f32[2, 3]" as the runtime prints tensor types; scalars by kind.
std::string describe(const Type& t) { return t.str(); }

Type elementwiseBinary(const Node& n, const Type& a, const Type& b) {
  Op op = n.op();
  bool ta = a.isTensor(), tb = b.isTensor();
  if ((!ta && !isScalarNumber(a)) || (!tb && !isScalarNumber(b))) return Type::any();
  std::optional<DType> common;
  if (ta && tb) {
    if (a.dtype && b.dtype) common = promote(*a.dtype, *b.dtype);
  } else {
    const Type& t = ta ? a : b;
    if (t.dtype) common = promoteWithScalar(*t.dtype, *scalarKind(ta ? b : a));
  }
  std::optional<DType> result = common;
  if (common && !isComparison(op)) result = binaryComputeType(op, *common);
  if (isComparison(op) || op == Op::LogicalAnd || op == Op::LogicalOr) result = DType::Bool;
  bool ok = true;
  std::optional<DimList> shape = broadcast(shapeOf(a), shapeOf(b), ok);
  if (!ok)
    fail(n.loc(), std::string("shape mismatch in ") + opInfo(op).name + ": " + describe(a) + " " + opSymbol(op) + " " +
                      describe(b));
  return Type::tensor(result, shape);
}

Type matmulType(const Node& n, const Type& a, const Type& b) {
  if (!a.isTensor() || !b.isTensor()) return Type::any();
  std::optional<DType> dt;
  if (a.dtype && b.dtype) dt = promote(*a.dtype, *b.dtype);
  if (!a.shape || !b.shape) return Type::tensor(dt);
  std::string what = "shape mismatch in matmul: " + describe(a) + " @ " + describe(b);
  DimList x = *a.shape, y = *b.shape;
  if (x.empty() || y.empty())
    fail(n.loc(), "matmul needs tensors of at least one dimension: " + describe(a) + " @ " + describe(b));
  bool aVec = x.size() == 1, bVec = y.size() == 1;
  if (aVec) x.insert(x.begin(), Dim::known(1));
  if (bVec) y.push_back(Dim::known(1));
  const Dim& k1 = x.back();
  const Dim& k2 = y[y.size() - 2];
  if (k1.isKnown() && k2.isKnown() && k1.size != k2.size) fail(n.loc(), what);
  bool ok = true;
  DimList xb(x.begin(), x.end() - 2), yb(y.begin(), y.end() - 2);
  DimList out = *broadcast(xb, yb, ok);
  if (!ok) fail(n.loc(), what);
  if (!aVec) out.push_back(x[x.size() - 2]);
  if (!bVec) out.push_back(y.back());
  return Type::tensor(dt, out);
}

Type elementwiseUnary(const Node& n, const Type& a) {
  if (!a.isTensor()) return Type::any();
  Op op = n.op();
  std::optional<DType> dt = a.dtype;
  if (dt) {
    if (unaryGivesBool(op)) dt = DType::Bool;
    else if (computesInFloat(op) && !isFloating(*dt)) dt = DType::F32;
    else if (*dt == DType::Bool && op != Op::Invert) dt = DType::I64;
  } else if (unaryGivesBool(op)) {
    dt = DType::Bool;
  }
  return Type::tensor(dt, a.shape);
}

}  // namespace

Type join(const Type& a, const Type& b) {
  if (a == b) return a;
  if (!a.isTensor() || !b.isTensor()) return Type::any();
  std::optional<DType> dt = a.dtype == b.dtype ? a.dtype : std::nullopt;
  std::optional<DimList> shape;
  if (a.shape && b.shape && a.shape->size() == b.shape->size()) {
    shape = *a.shape;
    for (size_t i = 0; i < shape->size(); ++i)
      if ((*a.shape)[i] != (*b.shape)[i]) (*shape)[i] = Dim::unknown();
  }
  return Type::tensor(dt, shape);
}

std::optional<Type> tensorResultType(const Node& n) {
  const auto& ops = n.operands();
  bool anyTensor = false;
  for (const Value* v : ops) anyTensor |= v->type().isTensor();
  if (!anyTensor) return std::nullopt;
  Op op = n.op();
  if (op == Op::MatMul) return matmulType(n, ops[0]->type(), ops[1]->type());
  if (op == Op::Where) {
    // where(cond, x, y): x and y promote; all three broadcast (worded as
    // the runtime words it, so both modes say the same).
    // A mismatch is reported here only when all three types are known;
    // else the runtime reports it when it runs.
    bool ok = true;
    auto shape = broadcast(shapeOf(ops[0]->type()), broadcast(shapeOf(ops[1]->type()), shapeOf(ops[2]->type()), ok), ok);
    if (!ok) {
      bool known = true;
      for (const Value* v : ops) known = known && v->type().isTensor() && v->type().dtype && v->type().hasStaticShape();
      if (!known) return Type::any();
      fail(n.loc(), "shape mismatch in where: " + describe(ops[0]->type()) + ", " + describe(ops[1]->type()) + ", " +
                        describe(ops[2]->type()));
    }
    Type xy = elementwiseBinary(n, ops[1]->type(), ops[2]->type());
    return Type::tensor(xy.dtype, shape);
  }
  if (!hasTrait(op, ELEM)) return std::nullopt;
  if (ops.size() == 2) return elementwiseBinary(n, ops[0]->type(), ops[1]->type());
  if (ops.size() == 1) return elementwiseUnary(n, ops[0]->type());
  return std::nullopt;
}

}  // namespace nn::ir
