// PyTorch's linear algebra functions beyond the ops (inverse, det,
// cholesky, eigvalsh): slogdet ((sign, log|det|), each an op of its own),
// logdet (NaN for a negative determinant), eigh ((eigenvalues,
// eigenvectors), each an op), svd (torch.svd's (U, S, V), each an op), qr
// ((Q, R), each an op) and matrix_power (by squaring, of the
// inverse for a negative power), compositions run where a tape sees them,
// so they differentiate as their ops do, in every mode; methods too.
#include <cstdint>
#include <limits>

#include "ir/builtins.h"
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

// A builtin of one matrix argument whose answer is the pair of ops First
// and Second of it: slogdet's (sign, logabsdet), eigh's (eigenvalues,
// eigenvectors).
template <ir::Op First, ir::Op Second>
Value bOpPair(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 1);
  Value a = matricesArg(c, args);
  c.checkKeywordsUsed(c.name.c_str());
  return makeTuple({applyOp(c, First, {a}), applyOp(c, Second, {a})});
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
// reduced unless some is False; without compute_uv, U and V are zeros.
Value bSvd(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 3);
  Value yes = Value::boolean(true);
  Value a = matricesArg(c, args), some = argument(c, args, 1, "some", &yes),
        computeUv = argument(c, args, 2, "compute_uv", &yes);
  c.checkKeywordsUsed("svd");
  Value full = Value::boolean(!truthy(some, c.loc));
  Value s = applyOp(c, ir::Op::Svdvals, {a});
  Value u = applyOp(c, ir::Op::SvdU, {a, full});
  Value v = applyOp(c, ir::Op::Transpose, {applyOp(c, ir::Op::SvdVh, {a, full}), intsTuple({-2, -1})});
  if (!truthy(computeUv, c.loc)) {
    u = applyOp(c, ir::Op::ZerosLike, {u, Value::none()});
    v = applyOp(c, ir::Op::ZerosLike, {v, Value::none()});
  }
  return makeTuple({u, s, v});
}

// qr(A, some=True): torch.qr's (Q, R), reduced unless some is False.
Value bQr(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value yes = Value::boolean(true);
  Value a = matricesArg(c, args), some = argument(c, args, 1, "some", &yes);
  c.checkKeywordsUsed("qr");
  Value complete = Value::boolean(!truthy(some, c.loc));
  return makeTuple({applyOp(c, ir::Op::QrQ, {a, complete}), applyOp(c, ir::Op::QrR, {a, complete})});
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

}  // namespace

BuiltinFn tensorLinalgMethod(const std::string& name) {
  if (name == "slogdet") return bOpPair<ir::Op::DetSign, ir::Op::LogAbsDet>;
  if (name == "logdet") return bLogdet;
  if (name == "matrix_power") return bMatrixPower;
  // eigh(A): the eigenvalues and eigenvectors (columns) of each symmetric
  // matrix, read from its lower triangle, as PyTorch's.
  if (name == "eigh") return bOpPair<ir::Op::Eigvalsh, ir::Op::EighVectors>;
  if (name == "svd") return bSvd;
  if (name == "qr") return bQr;
  return nullptr;
}

void addTensorLinalg(BuiltinTable& table) {
  using ir::Builtin;
  for (Builtin b : {Builtin::Slogdet, Builtin::Logdet, Builtin::MatrixPower, Builtin::Eigh, Builtin::Svd, Builtin::Qr})
    table[ir::builtinInfo(b).name] = tensorLinalgMethod(ir::builtinInfo(b).name);
}

}  // namespace nn::stdlib
