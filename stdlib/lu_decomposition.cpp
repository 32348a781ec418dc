// PyTorch's LU functions and triangular solve: lu(A, pivot=True,
// get_infos=False) (torch.lu's (LU, pivots), with info: the 1-based place
// of U's first zero on the diagonal, 0 where there is none),
// lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True)
// ((P, L, U), A = P L U), lu_solve(b, LU_data, LU_pivots) (X with A X = b)
// and triangular_solve(b, A, upper=True, transpose=False,
// unitriangular=False) ((solution, cloned_coefficient)), functions and
// methods. Composed of the LU ops (lu_factor, lu_pivots, lu_permutation),
// the triangular solve op, triangles and slices, run where a tape sees
// them, so they differentiate as those ops do on every device. The linalg
// module's LU functions (stdlib/lib/linalg.nn) are built on these.
#include <algorithm>
#include <cstdint>

#include "ir/builtins.h"
#include "runtime/linalg.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"
#include "stdlib/op_call.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

// The matrices argument [..., m, n] (square ones for `square`).
const Tensor& matricesOf(CallContext& c, const Value& v, const char* what, bool square) {
  const Tensor& t = tensorArg(c, v, what);
  if (t.ndim() < 2 || (square && t.dim(t.ndim() - 1) != t.dim(t.ndim() - 2)))
    fail(c.loc,
         c.name + "(): expects " + what + " to be " +
             (square ? "square matrices [..., n, n]" : "matrices [..., m, n]") + ", not " + typeString(t),
         ErrorClass::ValueError);
  return t;
}

Value slice(int64_t start, int64_t stop) {
  return makeSlice(Value::integer(start), Value::integer(stop), Value::none());
}

// x[..., r0:r1, c0:c1].
Value block(CallContext& c, const Value& x, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  return getItemOnTape(c, x, makeTuple({Value::ellipsis(), slice(r0, r1), slice(c0, c1)}));
}

Value triangle(CallContext& c, const Value& x, bool upper, int64_t diagonal) {
  return applyOp(c, upper ? ir::Op::Triu : ir::Op::Tril, {x, Value::integer(diagonal)});
}

Value solveTriangular(CallContext& c, const Value& a, const Value& b, bool upper, bool unit) {
  return applyOp(c, ir::Op::SolveTriangular, {a, b, Value::boolean(upper), Value::boolean(true), Value::boolean(unit)});
}

Value matrixTranspose(CallContext& c, const Value& x) {
  return applyOp(c, ir::Op::Transpose, {x, intsTuple({-2, -1})});
}

// P [..., m, m] (of dtype dt) of the row exchanges `pivots` of m rows.
Value permutationMatrix(CallContext& c, const Value& pivots, int64_t m, DType dt) {
  Value perm = applyOp(c, ir::Op::LuPermutation, {pivots, Value::integer(m), Value::boolean(false)});
  return applyOp(c, ir::Op::AsType,
                 {applyOp(c, ir::Op::OneHot, {perm, Value::integer(m)}), Value::dtype(static_cast<int>(dt))});
}

// The 1-based place of the first zero on the diagonal of each packed
// factorisation lu [..., m, n], 0 where there is none (i32 [...]): its
// diagonal is a strided slice of the matrix flattened.
Value firstZeroPivot(CallContext& c, const Value& lu) {
  const Tensor& t = tensorOf(lu);
  int64_t m = t.dim(t.ndim() - 2), n = t.dim(t.ndim() - 1), k = std::min(m, n);
  std::vector<int64_t> flat(t.shape().begin(), t.shape().end() - 2);
  flat.push_back(m * n);
  Value diagonal = getItemOnTape(
      c, reshaped(c, lu, flat),
      makeTuple({Value::ellipsis(), makeSlice(Value::integer(0), Value::integer(k == 0 ? 0 : (k - 1) * (n + 1) + 1),
                                              Value::integer(n + 1))}));
  Value i32 = Value::dtype(static_cast<int>(DType::I32)), last = intsTuple({-1}), no = Value::boolean(false);
  Value zero = applyOp(c, ir::Op::AsType, {binary(c, ir::Op::Eq, diagonal, Value::real(0.0)), i32});
  Value place = applyOp(c, ir::Op::Sum, {zero, last, no});  // k = 0: none
  if (k > 0) {
    Value first = applyOp(c, ir::Op::ArgMax, {zero, last, no});
    place = binary(c, ir::Op::Mul, binary(c, ir::Op::Add, first, Value::integer(1)),
                   applyOp(c, ir::Op::Max, {zero, last, no}));
  }
  return applyOp(c, ir::Op::AsType, {place, i32});
}

// lu(A, pivot=True, get_infos=False): (LU, pivots), with info too.
Value bLu(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 3);
  Value yes = Value::boolean(true), no = Value::boolean(false);
  Value a = argument(c, args, 0, "input", nullptr), pivot = argument(c, args, 1, "pivot", &yes),
        infos = argument(c, args, 2, "get_infos", &no);
  c.checkKeywordsUsed("lu");
  const Tensor& t = matricesOf(c, a, "input", false);
  if (!isFloating(t.dtype()))
    fail(c.loc, "lu(): expects a floating-point tensor, not " + typeString(t), ErrorClass::TypeError);
  flagArg(c, pivot, "pivot");
  // One factorisation gives both, each recorded as its op for a tape.
  auto [luTensor, pivotTensor] = luFactor(t, pivot.asBool(), ir::Op::LuFactor, c.loc);
  Value lu = recordedOp(c, ir::Op::LuFactor, {a, pivot}, std::move(luTensor));
  Value pivots = recordedOp(c, ir::Op::LuPivots, {a, pivot}, std::move(pivotTensor));
  if (!flagArg(c, infos, "get_infos")) return makeTuple({lu, pivots});
  return makeNamedTuple({lu, pivots, firstZeroPivot(c, lu)}, {"LU", "pivots", "info"});
}

// lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
// (P, L, U), L [..., m, k] unit lower and U [..., k, n] upper triangular,
// k = min(m, n); the parts not asked for empty.
Value bLuUnpack(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 4);
  Value yes = Value::boolean(true);
  Value lu = argument(c, args, 0, "LU_data", nullptr), pivots = argument(c, args, 1, "LU_pivots", nullptr),
        data = argument(c, args, 2, "unpack_data", &yes), unpackPivots = argument(c, args, 3, "unpack_pivots", &yes);
  c.checkKeywordsUsed("lu_unpack");
  const Tensor& t = matricesOf(c, lu, "LU_data", false);
  const Tensor& p = tensorArg(c, pivots, "LU_pivots");
  int64_t m = t.dim(t.ndim() - 2), n = t.dim(t.ndim() - 1), k = std::min(m, n);
  Shape expected(t.shape().begin(), t.shape().end() - 2);
  expected.push_back(k);
  if (p.shape() != expected)
    fail(c.loc,
         "lu_unpack(): expects LU_pivots of shape " + shapeString(expected) + " for LU_data " + typeString(t) +
             ", not " + typeString(p),
         ErrorClass::ValueError);
  if (!isFloating(t.dtype()))
    fail(c.loc, "lu_unpack(): expects a floating-point LU_data, not " + typeString(t), ErrorClass::TypeError);
  Value empty = makeTensorValue(Tensor::empty(t.dtype(), Shape{0}, t.device()));
  Value pm = flagArg(c, unpackPivots, "unpack_pivots") ? permutationMatrix(c, pivots, m, t.dtype()) : empty;
  if (!flagArg(c, data, "unpack_data")) return makeNamedTuple({pm, empty, empty}, {"P", "L", "U"});
  Value identity = applyOp(
      c, ir::Op::Eye,
      {Value::integer(m), Value::integer(k), Value::dtype(static_cast<int>(t.dtype())), Value::str(t.device().name())});
  Value l = binary(c, ir::Op::Add, triangle(c, block(c, lu, 0, m, 0, k), false, -1), identity);
  Value u = triangle(c, block(c, lu, 0, k, 0, n), true, 0);
  return makeNamedTuple({pm, l, u}, {"P", "L", "U"});
}

// lu_solve(b, LU_data, LU_pivots): X with A X = b, A = P L U: X = U^-1
// L^-1 P^T b.
Value bLuSolve(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 3);
  Value b = argument(c, args, 0, "input", nullptr), lu = argument(c, args, 1, "LU_data", nullptr),
        pivots = argument(c, args, 2, "LU_pivots", nullptr);
  c.checkKeywordsUsed("lu_solve");
  const Tensor& t = matricesOf(c, lu, "LU_data", true);
  matricesOf(c, b, "input", false);
  tensorArg(c, pivots, "LU_pivots");
  if (!isFloating(t.dtype()))
    fail(c.loc, "lu_solve(): expects a floating-point LU_data, not " + typeString(t), ErrorClass::TypeError);
  // P^T b: row r is row order[r] of b, b and the order broadcast to one
  // batch shape.
  const Tensor& bt = tensorOf(b);
  int64_t n = t.dim(t.ndim() - 1);
  if (bt.dim(bt.ndim() - 2) != n)
    fail(c.loc,
         "lu_solve(): expects input [..., " + std::to_string(n) + ", k] for LU_data " + typeString(t) + ", not " +
             typeString(bt),
         ErrorClass::ValueError);
  Value order = applyOp(c, ir::Op::LuPermutation, {pivots, Value::integer(n), Value::boolean(true)});
  Shape shape = broadcastShapes(Shape(t.shape().begin(), t.shape().end() - 2),
                                Shape(bt.shape().begin(), bt.shape().end() - 2), c.loc,
                                "lu_solve(): the batch dims of LU_data, " + typeString(t) + ", and of input, " +
                                    typeString(bt) + ", do not broadcast");
  shape.push_back(bt.dim(bt.ndim() - 2)), shape.push_back(bt.dim(bt.ndim() - 1));
  std::vector<int64_t> dims(shape.begin(), shape.end());
  Value rows =
      applyOp(c, ir::Op::BroadcastTo, {applyOp(c, ir::Op::Unsqueeze, {order, Value::integer(-1)}), intsTuple(dims)});
  Value pb =
      applyOp(c, ir::Op::Gather, {applyOp(c, ir::Op::BroadcastTo, {b, intsTuple(dims)}), Value::integer(-2), rows});
  Value y = solveTriangular(c, lu, pb, false, true);
  return solveTriangular(c, lu, y, true, false);
}

// triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
// X with T X = b, or T^T X = b with transpose, T A's upper (lower)
// triangle; and A itself (PyTorch's clone: tensors are values here).
Value bTriangularSolve(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 5);
  Value yes = Value::boolean(true), no = Value::boolean(false);
  Value b = argument(c, args, 0, "input", nullptr), a = argument(c, args, 1, "A", nullptr),
        upper = argument(c, args, 2, "upper", &yes), transpose = argument(c, args, 3, "transpose", &no),
        unit = argument(c, args, 4, "unitriangular", &no);
  c.checkKeywordsUsed("triangular_solve");
  tensorArg(c, b, "input");
  tensorArg(c, a, "A");
  bool flipped = flagArg(c, transpose, "transpose");
  Value x = solveTriangular(c, flipped ? matrixTranspose(c, a) : a, b, flagArg(c, upper, "upper") != flipped,
                            flagArg(c, unit, "unitriangular"));
  return makeNamedTuple({x, a}, {"solution", "cloned_coefficient"});
}

// _solve(A, B): X with A X = B, B [..., n, k] (linalg.solve's matrix case).
Value bSolve(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 2, 2);
  tensorArg(c, args[0], "A");
  tensorArg(c, args[1], "B");
  return applyOp(c, ir::Op::Solve, {args[0], args[1]});
}

}  // namespace

BuiltinFn luDecompositionMethod(const std::string& name) {
  if (name == "lu") return bLu;
  if (name == "lu_solve") return bLuSolve;
  if (name == "triangular_solve") return bTriangularSolve;
  return nullptr;
}

void addLuDecomposition(BuiltinTable& table) {
  table[ir::builtinInfo(ir::Builtin::Lu).name] = bLu;
  table[ir::builtinInfo(ir::Builtin::LuUnpack).name] = bLuUnpack;
  table[ir::builtinInfo(ir::Builtin::LuSolve).name] = bLuSolve;
  table[ir::builtinInfo(ir::Builtin::TriangularSolve).name] = bTriangularSolve;
  table[ir::builtinInfo(ir::Builtin::Solve).name] = bSolve;
}

}  // namespace nn::stdlib
