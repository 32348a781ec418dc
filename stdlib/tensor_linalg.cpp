// PyTorch's linear algebra functions beyond the ops (inverse, det,
// cholesky, eigvalsh): slogdet ((sign, log|det|), each an op of its own),
// logdet (NaN for a negative determinant), eigh ((eigenvalues,
// eigenvectors), each an op), svd (torch.svd's (U, S, V), each an op), qr
// ((Q, R), each an op), ldl_factor ((LD, pivots), each an op): the parts
// of one decomposition, each recorded as its op, matrix_power (by
// squaring, of the inverse for a negative power), cholesky_inverse and
// cholesky_solve (by triangular solves with the Cholesky factor),
// compositions run where a tape sees them, so they differentiate as their
// ops do, in every mode; methods too.
#include <cstdint>
#include <limits>

#include "ir/builtins.h"
#include "runtime/linalg.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"
#include "stdlib/op_call.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

Value matricesArg(CallContext& c, const std::vector<Value>& args) {
  Value a = argument(c, args, 0, "input", nullptr);
  tensorArg(c, a, "input");
  return a;
}

// slogdet(A): (sign, log|det|) of one factorisation.
Value bSlogdet(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 1);
  Value a = matricesArg(c, args);
  c.checkKeywordsUsed("slogdet");
  std::vector<Tensor> parts = determinantParts(tensorOf(a), {DetPart::Sign, DetPart::LogAbs}, ir::Op::DetSign, c.loc);
  return makeTuple({recordedOp(c, ir::Op::DetSign, {a}, std::move(parts[0])),
                    recordedOp(c, ir::Op::LogAbsDet, {a}, std::move(parts[1]))});
}

// eigh(A): the eigenvalues (ascending) and eigenvectors (columns) of each
// symmetric matrix, read from its lower triangle, as PyTorch's, of one
// decomposition.
Value bEigh(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 1);
  Value a = matricesArg(c, args);
  c.checkKeywordsUsed("eigh");
  auto [values, vectors] = symmetricEigenParts(tensorOf(a), true, true, ir::Op::EighVectors, c.loc);
  return makeTuple({recordedOp(c, ir::Op::Eigvalsh, {a}, std::move(values)),
                    recordedOp(c, ir::Op::EighVectors, {a}, std::move(vectors))});
}

// logdet(A): log(det(A)), NaN where the determinant is negative, -inf
// where it is 0.
Value bLogdet(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 1);
  Value a = matricesArg(c, args);
  c.checkKeywordsUsed("logdet");
  Value negative = binary(c, ir::Op::Lt, applyOp(c, ir::Op::DetSign, {a}), Value::integer(0));
  return where(c, negative, Value::real(std::numeric_limits<double>::quiet_NaN()), applyOp(c, ir::Op::LogAbsDet, {a}));
}

// svd(A, some=True, compute_uv=True): torch.svd's (U, S, V), V = Vh^T,
// reduced unless some is False; without compute_uv, only S is computed
// and U and V are zeros [..., m, m] and [..., n, n], as PyTorch's.
Value bSvd(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 3);
  Value yes = Value::boolean(true);
  Value a = matricesArg(c, args), some = argument(c, args, 1, "some", &yes),
        computeUv = argument(c, args, 2, "compute_uv", &yes);
  c.checkKeywordsUsed("svd");
  Value full = Value::boolean(!truthy(some, c.loc));
  const Tensor& t = tensorOf(a);
  if (!truthy(computeUv, c.loc)) {
    Value s = recordedOp(c, ir::Op::Svdvals, {a}, singularParts(t, false, true, false, ir::Op::Svdvals, c.loc).values);
    auto zeros = [&](int64_t side) {
      std::vector<int64_t> shape(t.shape().begin(), t.shape().end() - 2);
      shape.push_back(side), shape.push_back(side);
      return applyOp(c, ir::Op::Zeros,
                     {intsTuple(shape), Value::dtype(static_cast<int>(t.dtype())), Value::str(t.device().name())});
    };
    return makeTuple({zeros(t.dim(t.ndim() - 2)), s, zeros(t.dim(t.ndim() - 1))});
  }
  // One decomposition gives the three, each recorded as its op.
  SvdParts parts = singularParts(t, full.asBool(), true, true, ir::Op::SvdU, c.loc);
  Value s = recordedOp(c, ir::Op::Svdvals, {a}, std::move(parts.values));
  Value u = recordedOp(c, ir::Op::SvdU, {a, full}, std::move(parts.u));
  Value vh = recordedOp(c, ir::Op::SvdVh, {a, full}, std::move(parts.vh));
  Value v = applyOp(c, ir::Op::Transpose, {vh, intsTuple({-2, -1})});
  return makeTuple({u, s, v});
}

// qr(A, some=True): torch.qr's (Q, R), reduced unless some is False.
Value bQr(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value yes = Value::boolean(true);
  Value a = matricesArg(c, args), some = argument(c, args, 1, "some", &yes);
  c.checkKeywordsUsed("qr");
  Value complete = Value::boolean(!truthy(some, c.loc));
  auto [q, r] = qrParts(tensorOf(a), complete.asBool(), true, true, c.loc);
  return makeTuple({recordedOp(c, ir::Op::QrQ, {a, complete}, std::move(q)),
                    recordedOp(c, ir::Op::QrR, {a, complete}, std::move(r))});
}

// ldl_factor(A, hermitian=False): linalg.ldl_factor's (LD, pivots) of
// one factorisation (hermitian changes nothing for real matrices).
Value bLdlFactor(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value no = Value::boolean(false);
  Value a = matricesArg(c, args), hermitian = argument(c, args, 1, "hermitian", &no);
  c.checkKeywordsUsed("ldl_factor");
  Value flag = Value::boolean(flagArg(c, hermitian, "hermitian"));
  auto [ld, pivots] = ldlFactor(tensorOf(a), ir::Op::LdlFactor, c.loc);
  return makeTuple({recordedOp(c, ir::Op::LdlFactor, {a, flag}, std::move(ld)),
                    recordedOp(c, ir::Op::LdlPivots, {a, flag}, std::move(pivots))});
}

// matrix_power(A, n): A @ A ... (n times) by squaring; the identity for
// n = 0; the inverse's power for n < 0.
Value bMatrixPower(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value a = matricesArg(c, args), nV = argument(c, args, 1, "n", nullptr);
  c.checkKeywordsUsed("matrix_power");
  const Tensor& t = tensorOf(a);
  if (!nV.isIntLike())
    fail(c.loc, std::string("matrix_power(): n must be an int, not ") + typeName(nV), ErrorClass::TypeError);
  if (t.ndim() < 2 || t.dim(t.ndim() - 1) != t.dim(t.ndim() - 2))
    fail(c.loc, "matrix_power(): expects square matrices [..., n, n], not " + typeString(t), ErrorClass::ValueError);
  int64_t n = nV.asInt();
  if (n == 0) {
    Value eye = applyOp(c, ir::Op::Eye,
                        {Value::integer(t.dim(t.ndim() - 1)), Value::none(), Value::dtype(static_cast<int>(t.dtype())),
                         Value::str(t.device().name())});
    Shape shape = t.shape();
    return applyOp(c, ir::Op::BroadcastTo, {eye, intsTuple(std::vector<int64_t>(shape.begin(), shape.end()))});
  }
  Value base = n < 0 ? applyOp(c, ir::Op::Inverse, {a}) : a;
  uint64_t left = n < 0 ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
  Value result = Value::none();
  while (true) {
    if (left & 1) result = result.is(Kind::None) ? base : binary(c, ir::Op::MatMul, result, base);
    left >>= 1;
    if (!left) return result;
    base = binary(c, ir::Op::MatMul, base, base);
  }
}

// X with A X = B, A = L L^T (or U^T U, upper) given by its Cholesky
// factor, whose triangle alone is read: X = L^-T L^-1 B (U^-1 U^-T B), two
// triangular solves.
Value choleskySolve(CallContext& c, const Value& b, const Value& factor, bool upper) {
  auto solve = [&](const Value& a, const Value& rhs, bool upperTriangle) {
    return applyOp(c, ir::Op::SolveTriangular,
                   {a, rhs, Value::boolean(upperTriangle), Value::boolean(true), Value::boolean(false)});
  };
  Value transposed = applyOp(c, ir::Op::Transpose, {factor, intsTuple({-2, -1})});
  if (upper) return solve(factor, solve(transposed, b, false), true);
  return solve(transposed, solve(factor, b, false), true);
}

// cholesky_inverse(L, upper=False): A^-1 of A = L L^T.
Value bCholeskyInverse(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value no = Value::boolean(false);
  Value factor = matricesArg(c, args), upper = argument(c, args, 1, "upper", &no);
  c.checkKeywordsUsed("cholesky_inverse");
  const Tensor& t = tensorOf(factor);
  Value identity = applyOp(c, ir::Op::Eye,
                           {Value::integer(t.dim(t.ndim() - 1)), Value::none(),
                            Value::dtype(static_cast<int>(t.dtype())), Value::str(t.device().name())});
  return choleskySolve(c, identity, factor, flagArg(c, upper, "upper"));
}

// cholesky_solve(B, L, upper=False): X with A X = B, A = L L^T (batch
// dims broadcast).
Value bCholeskySolve(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 3);
  Value no = Value::boolean(false);
  Value b = argument(c, args, 0, "input", nullptr), factor = argument(c, args, 1, "input2", nullptr),
        upper = argument(c, args, 2, "upper", &no);
  c.checkKeywordsUsed("cholesky_solve");
  const Tensor &bt = tensorArg(c, b, "input"), &lt = tensorArg(c, factor, "input2");
  if (bt.ndim() < 2 || lt.ndim() < 2)
    fail(c.loc,
         "cholesky_solve(): expects matrices B [..., n, k] and L [..., n, n], not " + typeString(bt) + " and " +
             typeString(lt),
         ErrorClass::ValueError);
  return choleskySolve(c, b, factor, flagArg(c, upper, "upper"));
}

}  // namespace

BuiltinFn tensorLinalgMethod(const std::string& name) {
  if (name == "slogdet") return bSlogdet;
  if (name == "logdet") return bLogdet;
  if (name == "matrix_power") return bMatrixPower;
  if (name == "eigh") return bEigh;
  if (name == "svd") return bSvd;
  if (name == "qr") return bQr;
  if (name == "cholesky_inverse") return bCholeskyInverse;
  if (name == "cholesky_solve") return bCholeskySolve;
  if (name == "ldl_factor") return bLdlFactor;
  return nullptr;
}

void addTensorLinalg(BuiltinTable& table) {
  using ir::Builtin;
  for (Builtin b : {Builtin::Slogdet, Builtin::Logdet, Builtin::MatrixPower, Builtin::Eigh, Builtin::Svd, Builtin::Qr,
                    Builtin::CholeskyInverse, Builtin::CholeskySolve, Builtin::LdlFactor})
    table[ir::builtinInfo(b).name] = tensorLinalgMethod(ir::builtinInfo(b).name);
}

}  // namespace nn::stdlib
