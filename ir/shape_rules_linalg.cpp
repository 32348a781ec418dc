// The shape rules of the linear algebra ops (see shape_rules.h): the
// operand matrices [..., m, n] (square ones where the op says so), the
// factors of the decompositions, the LU factorisation's pivots and
// permutation, and the triangular solve's batch broadcasting. A mismatch is
// failed with the runtime's words and error class (runtime/linalg.cpp), so
// eager and graph mode report it alike and `except` catches it alike.
#include <algorithm>
#include <string>

#include "ir/shape_rules.h"
#include "ir/type_rules.h"
#include "support/diagnostics.h"

namespace nn::ir::shape_rules {
namespace {

// x [..., m, n] of a linear algebra op: rank 2 or more, and square where
// the shape says so for `square` (the runtime's words).
std::optional<Type> matrixOperand(const OpArgs& a, bool square, const char* operand = "x") {
  std::optional<Type> x = tensorOperand(a, operand);
  if (!x || !x->shape) return x;
  const DimList& d = *x->shape;
  std::string name = linearAlgebraName(a.op());
  if (d.size() < 2)
    fail(a.loc(),
         name + ": expects a matrix or a batch of matrices " + (square ? "[..., n, n]" : "[..., m, n]") + ", not " +
             x->str(),
         ErrorClass::ValueError);
  const Dim &rows = d[d.size() - 2], &cols = d.back();
  if (square && rows.isKnown() && cols.isKnown() && rows.size != cols.size)
    fail(a.loc(), name + ": expects square matrices [..., n, n], not " + x->str(), ErrorClass::ValueError);
  return x;
}

// x's dtype, its batch dims (all but the last two) and then the dims
// `last(m, n)` makes of its last two; x's dtype alone where its shape is
// unknown.
template <class F>
std::optional<Type> perMatrix(const std::optional<Type>& x, F last) {
  if (!x) return std::nullopt;
  if (!x->shape) return Type::tensor(x->dtype);
  const DimList& d = *x->shape;
  DimList out(d.begin(), d.end() - 2);
  for (const Dim& e : last(d[d.size() - 2], d.back())) out.push_back(e);
  return Type::tensor(x->dtype, out);
}

Dim smaller(const Dim& a, const Dim& b) {
  if (a.isKnown() && b.isKnown()) return Dim::known(std::min(a.size, b.size));
  return Dim::unknown();
}

// A factor of a decomposition x = L R of x [..., m, n]: L [..., m, k]
// (`left`) or R [..., k, n], k = inner(flag, m, n) for the bool attribute
// `flag` (x's dtype alone while the flag is not known).
template <class Inner>
std::optional<Type> decompositionFactor(const OpArgs& a, const char* flag, bool left, Inner inner) {
  std::optional<Type> x = matrixOperand(a, false);
  std::optional<bool> given = a.boolAttr(flag);
  if (x && !given) return Type::tensor(x->dtype);
  return perMatrix(x, [&](const Dim& m, const Dim& n) {
    Dim k = inner(*given, m, n);
    return left ? DimList{m, k} : DimList{k, n};
  });
}

// The batch dims of a and b (all but their last two) broadcast together,
// NumPy's way; a proven mismatch fails at a's op.
DimList batchBroadcast(const OpArgs& a, const Type& x, const Type& y) {
  const DimList &xd = *x.shape, &yd = *y.shape;
  size_t xn = xd.size() - 2, yn = yd.size() - 2, n = std::max(xn, yn);
  DimList out(n, Dim::unknown());
  for (size_t i = 0; i < n; ++i) {
    const Dim* p = i < xn ? &xd[xn - 1 - i] : nullptr;
    const Dim* q = i < yn ? &yd[yn - 1 - i] : nullptr;
    Dim& o = out[n - 1 - i];
    if (!p || !q) {
      o = p ? *p : *q;
    } else if (p->isKnown() && q->isKnown()) {
      if (p->size != q->size && p->size != 1 && q->size != 1)
        fail(a.loc(),
             std::string(linearAlgebraName(a.op())) + ": the batch dims of " + x.str() + " and " + y.str() +
                 " do not broadcast",
             ErrorClass::ValueError);
      o = p->size == 1 ? *q : *p;
    } else if (p->isKnown() && p->size != 1) {
      o = *p;
    } else if (q->isKnown() && q->size != 1) {
      o = *q;
    } else if (!p->isKnown() && !q->isKnown() && *p == *q) {
      o = *p;
    }
  }
  return out;
}

}  // namespace

std::optional<Type> SquareMatrices(const OpArgs& a) { return matrixOperand(a, true); }

std::optional<Type> Determinants(const OpArgs& a) {
  return perMatrix(matrixOperand(a, true), [](const Dim&, const Dim&) { return DimList{}; });
}

std::optional<Type> Eigenvalues(const OpArgs& a) {
  return perMatrix(matrixOperand(a, true), [](const Dim&, const Dim& n) { return DimList{n}; });
}

std::optional<Type> SingularValues(const OpArgs& a) {
  return perMatrix(matrixOperand(a, false), [](const Dim& m, const Dim& n) { return DimList{smaller(m, n)}; });
}

std::optional<Type> SingularVectors(const OpArgs& a) {
  bool u = a.op() == Op::SvdU;
  return decompositionFactor(a, "full_matrices", u,
                             [u](bool full, const Dim& m, const Dim& n) { return full ? (u ? m : n) : smaller(m, n); });
}

std::optional<Type> QrFactor(const OpArgs& a) {
  return decompositionFactor(a, "complete", a.op() == Op::QrQ,
                             [](bool complete, const Dim& m, const Dim& n) { return complete ? m : smaller(m, n); });
}

std::optional<Type> Matrices(const OpArgs& a) { return matrixOperand(a, false); }

std::optional<Type> LuPivots(const OpArgs& a) {
  std::optional<Type> x =
      perMatrix(matrixOperand(a, false), [](const Dim& m, const Dim& n) { return DimList{smaller(m, n)}; });
  if (x) x->dtype = DType::I32;
  return x;
}

std::optional<Type> LuPermutation(const OpArgs& a) {
  std::optional<Type> pivots = tensorOperand(a, "pivots");
  std::optional<int64_t> rows = a.intAttr("rows");
  if (!pivots || !pivots->shape || !rows) return Type::tensor(DType::I64);
  if (pivots->shape->empty() || (pivots->dtype && !isIntegral(*pivots->dtype)))
    fail(a.loc(), "lu_unpack: expects integer pivots [..., k], not " + pivots->str(), ErrorClass::TypeError);
  DimList d(pivots->shape->begin(), pivots->shape->end() - 1);
  d.push_back(Dim::known(*rows));
  return Type::tensor(DType::I64, d);
}

namespace {

// a [..., n, n] and b [..., n, k] (left) or [..., k, n]: b's last two dims
// after the broadcast batch dims, the dtype both promote to.
std::optional<Type> solved(const OpArgs& a, std::optional<bool> left) {
  std::optional<Type> t = matrixOperand(a, true, "a");
  std::optional<Type> b = tensorOperand(a, "b");
  if (!t || !b) return std::nullopt;
  std::optional<DType> dt;
  if (t->dtype && b->dtype) dt = promote(*t->dtype, *b->dtype);
  if (!t->shape || !b->shape || !left) return Type::tensor(dt);
  const DimList &td = *t->shape, &bd = *b->shape;
  std::string name = linearAlgebraName(a.op());
  if (bd.size() < 2)
    fail(a.loc(),
         name + ": expects B to be a matrix or a batch of matrices " +
             std::string(*left ? "[..., n, k]" : "[..., k, n]") + ", not " + b->str(),
         ErrorClass::ValueError);
  const Dim &n = td.back(), &side = *left ? bd[bd.size() - 2] : bd.back();
  if (n.isKnown() && side.isKnown() && n.size != side.size)
    fail(a.loc(),
         name + ": A " + t->str() + " and B " + b->str() + " do not fit: B's " + (*left ? "rows" : "columns") +
             " must be A's side",
         ErrorClass::ValueError);
  DimList out = batchBroadcast(a, *t, *b);
  out.push_back(bd[bd.size() - 2]);
  out.push_back(bd.back());
  return Type::tensor(dt, out);
}

}  // namespace

std::optional<Type> SolveTriangular(const OpArgs& a) { return solved(a, a.boolAttr("left")); }
std::optional<Type> Solve(const OpArgs& a) { return solved(a, true); }

const char* linearAlgebraName(Op op) {
  switch (op) {
    case Op::DetSign:
    case Op::LogAbsDet:
      return "slogdet";
    case Op::Cofactor:
    case Op::CofactorGrad:
      return "det";
    case Op::EighVectors:
      return "eigh";
    case Op::SvdU:
    case Op::SvdVh:
      return "svd";
    case Op::QrQ:
    case Op::QrR:
      return "qr";
    case Op::Solve:
      return "linalg.solve";
    case Op::LdlFactor:
    case Op::LdlPivots:
      return "linalg.ldl_factor";
    case Op::LdlSolve:
      return "linalg.ldl_solve";
    default:
      return opInfo(op).name;
  }
}

}  // namespace nn::ir::shape_rules
