// PyTorch's diagonals: diagonal(input, offset=0, dim1=0, dim2=1), the
// elements of a diagonal of two dims (the new last dim), and
// diag_embed(input, offset=0, dim1=-2, dim2=-1) and diagflat(input,
// offset=0), tensors with the input's last dim (diagflat: all of it,
// flattened) on a diagonal of two new dims and zeros elsewhere, and
// diagonal_scatter(input, src, offset=0, dim1=0, dim2=1), input with a
// diagonal replaced. Composed of ops on the tape (a strided slice of the
// two dims flattened, or an assignment to it; a where with the identity's
// mask, a pad for the offset, a permute to the asked dims),
// so they differentiate and run on any device; a NaN stays on its
// diagonal place.
#include <algorithm>

#include "ir/builtins.h"
#include "runtime/scalar_ops.h"
#include "runtime/tape.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"
#include "stdlib/op_call.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

int64_t offsetArg(CallContext& c, const Value& v) {
  if (!v.isIntLike()) fail(c.loc, c.name + "(): offset must be an int, not " + typeName(v), ErrorClass::TypeError);
  return v.asInt();
}

// x [..., n] with its last dim on the `offset`-th diagonal of two new last
// dims [..., n + |offset|, n + |offset|].
Value embedLast(CallContext& c, const Value& x, int64_t offset) {
  const Tensor& t = tensorOf(x);
  int64_t n = t.ndim() == 0 ? 1 : t.dim(t.ndim() - 1);
  Value column = applyOp(c, ir::Op::Unsqueeze, {x, Value::integer(-1)});
  Value mask = applyOp(
      c, ir::Op::Eye,
      {Value::integer(n), Value::none(), Value::dtype(static_cast<int>(DType::Bool)), Value::str(t.device().name())});
  Value zero = Value::integer(0);
  if (isFloating(t.dtype())) zero = Value::real(0.0);
  if (t.dtype() == DType::Bool) zero = Value::boolean(false);
  Value square = where(c, mask, column, zero);
  if (offset == 0) return square;
  int64_t k = offset < 0 ? -offset : offset;
  // Above the diagonal: k columns in front, k rows after; below: the other way.
  std::vector<int64_t> widths = offset > 0 ? std::vector<int64_t>{k, 0, 0, k} : std::vector<int64_t>{0, k, k, 0};
  return applyOp(c, ir::Op::Pad, {square, intsTuple(widths), Value::str("constant"), Value::real(0.0)});
}

Value bDiagEmbed(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 4);
  Value zero = Value::integer(0), before = Value::integer(-2), last = Value::integer(-1);
  Value x = argument(c, args, 0, "input", nullptr), offsetV = argument(c, args, 1, "offset", &zero),
        dim1V = argument(c, args, 2, "dim1", &before), dim2V = argument(c, args, 3, "dim2", &last);
  c.checkKeywordsUsed("diag_embed");
  const Tensor& t = tensorArg(c, x, "input");
  if (t.ndim() == 0) fail(c.loc, "diag_embed(): expects a tensor with at least 1 dimension, got " + typeString(t));
  int64_t rank = t.ndim() + 1;
  int64_t dim1 = dimArg(c, dim1V, rank, "dim1"), dim2 = dimArg(c, dim2V, rank, "dim2");
  if (dim1 == dim2)
    fail(c.loc, "diag_embed(): dim1 and dim2 must differ, both are " + std::to_string(dim1), ErrorClass::ValueError);
  Value out = embedLast(c, x, offsetArg(c, offsetV));
  if (dim1 == rank - 2 && dim2 == rank - 1) return out;
  // The plane's rows go to dim1 and its columns to dim2, the batch dims in
  // order around them.
  std::vector<int64_t> perm(static_cast<size_t>(rank), -1);
  perm[static_cast<size_t>(dim1)] = rank - 2;
  perm[static_cast<size_t>(dim2)] = rank - 1;
  int64_t next = 0;
  for (int64_t& p : perm)
    if (p < 0) p = next++;
  return applyOp(c, ir::Op::Permute, {out, intsTuple(perm)});
}

// diagonal: dim1 and dim2 moved last and flattened together, then every
// (columns + 1)-th element from the diagonal's first.
// Where a diagonal of dims dim1 and dim2 of x lies: x with those two dims
// moved last and flattened (`flat`, a reshape of `moved`), and the strided
// slice of that last dim that is the diagonal; `perm` moved them.
struct DiagonalPlace {
  std::vector<int64_t> perm, movedShape, flatShape;
  Value along;
};

DiagonalPlace diagonalPlace(CallContext& c, const Tensor& t, const Value& offsetV, const Value& dim1V,
                            const Value& dim2V) {
  if (t.ndim() < 2) fail(c.loc, c.name + "(): expects a tensor with at least 2 dimensions, got " + typeString(t));
  int64_t rank = t.ndim(), offset = offsetArg(c, offsetV);
  int64_t dim1 = dimArg(c, dim1V, rank, "dim1"), dim2 = dimArg(c, dim2V, rank, "dim2");
  if (dim1 == dim2)
    fail(c.loc, c.name + "(): dim1 and dim2 must differ, both are " + std::to_string(dim1), ErrorClass::ValueError);
  DiagonalPlace p;
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim1 && d != dim2) p.perm.push_back(d), p.flatShape.push_back(t.dim(static_cast<int>(d)));
  p.perm.push_back(dim1), p.perm.push_back(dim2);
  int64_t rows = t.dim(static_cast<int>(dim1)), columns = t.dim(static_cast<int>(dim2));
  int64_t length = offset >= 0 ? std::min(rows, columns - offset) : std::min(rows + offset, columns);
  length = std::max<int64_t>(length, 0);
  p.movedShape = p.flatShape;
  p.movedShape.push_back(rows), p.movedShape.push_back(columns);
  p.flatShape.push_back(rows * columns);
  int64_t first = offset >= 0 ? offset : -offset * columns;
  p.along = length == 0 ? makeSlice(Value::integer(0), Value::integer(0), Value::none())
                        : makeSlice(Value::integer(first), Value::integer(first + (length - 1) * (columns + 1) + 1),
                                    Value::integer(columns + 1));
  return p;
}

Value bDiagonal(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 4);
  Value zero = Value::integer(0), one = Value::integer(1);
  Value x = argument(c, args, 0, "input", nullptr), offsetV = argument(c, args, 1, "offset", &zero),
        dim1V = argument(c, args, 2, "dim1", &zero), dim2V = argument(c, args, 3, "dim2", &one);
  c.checkKeywordsUsed("diagonal");
  DiagonalPlace p = diagonalPlace(c, tensorArg(c, x, "input"), offsetV, dim1V, dim2V);
  Value flat = reshaped(c, applyOp(c, ir::Op::Permute, {x, intsTuple(p.perm)}), p.flatShape);
  return indexAlong(c, flat, static_cast<int64_t>(p.flatShape.size()) - 1, p.along);
}

// diagonal_scatter(input, src, offset=0, dim1=0, dim2=1): input with that
// diagonal replaced by src (of the diagonal's shape): a functional
// assignment to the diagonal's slice of the two dims flattened, on the
// tape as that assignment is, so both get gradients.
Value bDiagonalScatter(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 5);
  Value zero = Value::integer(0), one = Value::integer(1);
  Value x = argument(c, args, 0, "input", nullptr), src = argument(c, args, 1, "src", nullptr),
        offsetV = argument(c, args, 2, "offset", &zero), dim1V = argument(c, args, 3, "dim1", &zero),
        dim2V = argument(c, args, 4, "dim2", &one);
  c.checkKeywordsUsed("diagonal_scatter");
  const Tensor& t = tensorArg(c, x, "input");
  tensorArg(c, src, "src");
  DiagonalPlace p = diagonalPlace(c, t, offsetV, dim1V, dim2V);
  Value flat = reshaped(c, applyOp(c, ir::Op::Permute, {x, intsTuple(p.perm)}), p.flatShape);
  std::vector<Value> items(p.flatShape.size() - 1, makeSlice(Value::none(), Value::none(), Value::none()));
  items.push_back(p.along);
  Value key = makeTuple(std::move(items));
  Value current = getItem(flat, key, c.loc);
  const Tensor& diagonal = tensorOf(current);
  if (tensorOf(src).shape() != diagonal.shape())
    fail(c.loc,
         "diagonal_scatter(): src " + typeString(tensorOf(src)) + " must have the diagonal's shape " +
             shapeString(diagonal.shape()),
         ErrorClass::ValueError);
  Value written = setItem(flat, key, src, c.loc);
  if (Tape* tape = c.interp.tape()) tape->recordOp(ir::Op::SetItem, c.loc, {flat, key, src}, written);
  std::vector<int64_t> back(p.perm.size());
  for (size_t d = 0; d < p.perm.size(); ++d) back[static_cast<size_t>(p.perm[d])] = static_cast<int64_t>(d);
  return applyOp(c, ir::Op::Permute, {reshaped(c, written, p.movedShape), intsTuple(back)});
}

Value bDiagflat(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value zero = Value::integer(0);
  Value x = argument(c, args, 0, "input", nullptr), offsetV = argument(c, args, 1, "offset", &zero);
  c.checkKeywordsUsed("diagflat");
  const Tensor& t = tensorArg(c, x, "input");
  return embedLast(c, reshaped(c, x, {t.numel()}), offsetArg(c, offsetV));
}

}  // namespace

BuiltinFn diagonalEmbeddingMethod(const std::string& name) {
  if (name == "diag_embed") return bDiagEmbed;
  if (name == "diagflat") return bDiagflat;
  if (name == "diagonal") return bDiagonal;
  if (name == "diagonal_scatter") return bDiagonalScatter;
  return nullptr;
}

void addDiagonalEmbeddings(BuiltinTable& table) {
  table[ir::builtinInfo(ir::Builtin::DiagEmbed).name] = bDiagEmbed;
  table[ir::builtinInfo(ir::Builtin::Diagflat).name] = bDiagflat;
  table[ir::builtinInfo(ir::Builtin::Diagonal).name] = bDiagonal;
  table[ir::builtinInfo(ir::Builtin::DiagonalScatter).name] = bDiagonalScatter;
}

}  // namespace nn::stdlib
