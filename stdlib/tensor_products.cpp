// PyTorch's named products, compositions of matmul and nn's other ops:
// mm, bmm, mv, dot and vdot, inner, tensordot, trace, and the fused forms
// beta * input + alpha * product (addmm, addmv, addr, baddbmm, addbmm),
// with PyTorch's checks of ranks and sizes. Each runs its ops where a tape
// sees them, so it differentiates as they do, in every mode; the ones
// PyTorch also has as tensor methods are methods too (x.bmm(y), ...).
#include <algorithm>

#include "ir/builtins.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"
#include "stdlib/op_call.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

// Argument `at` (or keyword `name`) as a tensor of rank `rank` (-1: any).
Value tensorOfRank(CallContext& c, const std::vector<Value>& args, size_t at, const char* name, int rank) {
  Value v = argument(c, args, at, name, nullptr);
  if (!v.is(Kind::Tensor))
    fail(c.loc, c.name + "(): " + name + " must be a Tensor, not " + typeName(v), ErrorClass::TypeError);
  if (rank >= 0 && tensorOf(v).ndim() != rank)
    fail(c.loc,
         c.name + "(): " + name + " must be a " + std::to_string(rank) + "-d tensor, not " + typeString(tensorOf(v)),
         ErrorClass::ValueError);
  return v;
}

void sameSize(CallContext& c, const Value& a, int da, const Value& b, int db) {
  const Tensor &x = tensorOf(a), &y = tensorOf(b);
  if (x.dim(da) != y.dim(db))
    fail(c.loc,
         c.name + "(): the sizes of " + typeString(x) + " and " + typeString(y) + " do not match (" +
             std::to_string(x.dim(da)) + " and " + std::to_string(y.dim(db)) + ")",
         ErrorClass::ValueError);
}

Value matmul(CallContext& c, const Value& a, const Value& b) { return binary(c, ir::Op::MatMul, a, b); }

// bmm(a, b): batched products of 3-d tensors with the same batch size.
Value bBmm(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value a = tensorOfRank(c, args, 0, "input", 3), b = tensorOfRank(c, args, 1, "mat2", 3);
  c.checkKeywordsUsed("bmm");
  sameSize(c, a, 0, b, 0);
  sameSize(c, a, 2, b, 1);
  return matmul(c, a, b);
}

// mm(a, b): the product of two 2-d tensors.
Value bMm(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value a = tensorOfRank(c, args, 0, "input", 2), b = tensorOfRank(c, args, 1, "mat2", 2);
  c.checkKeywordsUsed("mm");
  sameSize(c, a, 1, b, 0);
  return matmul(c, a, b);
}

// mv(m, v): a 2-d tensor times a 1-d one.
Value bMv(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value m = tensorOfRank(c, args, 0, "input", 2), v = tensorOfRank(c, args, 1, "vec", 1);
  c.checkKeywordsUsed("mv");
  sameSize(c, m, 1, v, 0);
  return matmul(c, m, v);
}

// dot(a, b) (and vdot, the same for real tensors): the 0-d sum of the
// products of two 1-d tensors of one size and dtype.
Value bDot(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value a = tensorOfRank(c, args, 0, "input", 1), b = tensorOfRank(c, args, 1, "other", 1);
  c.checkKeywordsUsed(c.name.c_str());
  sameSize(c, a, 0, b, 0);
  if (tensorOf(a).dtype() != tensorOf(b).dtype())
    fail(c.loc,
         c.name + "(): expects both vectors to have the same dtype, not " + typeString(tensorOf(a)) + " and " +
             typeString(tensorOf(b)),
         ErrorClass::TypeError);
  return matmul(c, a, b);
}

// tensordot's contraction: the dims `da` of a with the dims `db` of b
// (pairwise of one size), the free dims of a then of b left, as a matmul
// of a permuted and reshaped to [free, contracted] and b to [contracted,
// free].
Value contract(CallContext& c, const Value& a, const Value& b, const std::vector<int64_t>& da,
               const std::vector<int64_t>& db) {
  const Tensor &x = tensorOf(a), &y = tensorOf(b);
  if (da.size() != db.size())
    fail(c.loc, c.name + "(): both dims lists must have the same length", ErrorClass::ValueError);
  std::vector<int64_t> na, nb;
  for (size_t i = 0; i < da.size(); ++i) {
    int64_t p = normalizeAxis(da[i], x.ndim(), c.loc, c.name.c_str());
    int64_t q = normalizeAxis(db[i], y.ndim(), c.loc, c.name.c_str());
    if (std::find(na.begin(), na.end(), p) != na.end() || std::find(nb.begin(), nb.end(), q) != nb.end())
      fail(c.loc, c.name + "(): a dim is contracted twice", ErrorClass::ValueError);
    sameSize(c, a, static_cast<int>(p), b, static_cast<int>(q));
    na.push_back(p);
    nb.push_back(q);
  }
  std::vector<int64_t> permA, permB, outShape;
  int64_t freeA = 1, freeB = 1, inner = 1;
  for (int64_t d = 0; d < x.ndim(); ++d)
    if (std::find(na.begin(), na.end(), d) == na.end()) {
      permA.push_back(d);
      outShape.push_back(x.dim(static_cast<int>(d)));
      freeA *= x.dim(static_cast<int>(d));
    }
  for (int64_t d : na) {
    permA.push_back(d);
    inner *= x.dim(static_cast<int>(d));
  }
  permB = nb;
  for (int64_t d = 0; d < y.ndim(); ++d)
    if (std::find(nb.begin(), nb.end(), d) == nb.end()) {
      permB.push_back(d);
      outShape.push_back(y.dim(static_cast<int>(d)));
      freeB *= y.dim(static_cast<int>(d));
    }
  Value left =
      applyOp(c, ir::Op::Reshape, {applyOp(c, ir::Op::Permute, {a, intsTuple(permA)}), intsTuple({freeA, inner})});
  Value right =
      applyOp(c, ir::Op::Reshape, {applyOp(c, ir::Op::Permute, {b, intsTuple(permB)}), intsTuple({inner, freeB})});
  return applyOp(c, ir::Op::Reshape, {matmul(c, left, right), intsTuple(outShape)});
}

// The ints of a dims list (an int or a sequence of ints).
std::vector<int64_t> dimList(CallContext& c, const Value& v) {
  if (v.isIntLike()) return {v.asInt()};
  std::vector<int64_t> out;
  if (v.is(Kind::List) || v.is(Kind::Tuple))
    for (const Value& item : v.as<SeqObj>().items) {
      if (!item.isIntLike()) fail(c.loc, c.name + "(): dims must be ints", ErrorClass::TypeError);
      out.push_back(item.asInt());
    }
  else
    fail(c.loc, c.name + "(): dims must be an int or a pair of lists of ints, not " + typeName(v),
         ErrorClass::TypeError);
  return out;
}

// tensordot(a, b, dims=2): the sum over the last `dims` dims of a and the
// first of b, or over the dims of the pair of lists dims = (da, db).
Value bTensordot(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 3);
  Value two = Value::integer(2);
  Value a = tensorOfRank(c, args, 0, "a", -1), b = tensorOfRank(c, args, 1, "b", -1);
  Value dims = argument(c, args, 2, "dims", &two);
  c.checkKeywordsUsed("tensordot");
  std::vector<int64_t> da, db;
  if (dims.isIntLike()) {
    int64_t n = dims.asInt();
    if (n < 0 || n > tensorOf(a).ndim() || n > tensorOf(b).ndim())
      fail(c.loc, "tensordot(): dims must be between 0 and the ranks of a and b, not " + std::to_string(n),
           ErrorClass::ValueError);
    for (int64_t i = 0; i < n; ++i) {
      da.push_back(tensorOf(a).ndim() - n + i);
      db.push_back(i);
    }
  } else {
    if (!(dims.is(Kind::List) || dims.is(Kind::Tuple)) || dims.as<SeqObj>().items.size() != 2)
      fail(c.loc, std::string("tensordot(): dims must be an int or a pair of lists of ints, not ") + typeName(dims),
           ErrorClass::TypeError);
    da = dimList(c, dims.as<SeqObj>().items[0]);
    db = dimList(c, dims.as<SeqObj>().items[1]);
  }
  return contract(c, a, b, da, db);
}

// inner(a, b): the sum over the last dims (a 0-d operand multiplies).
Value bInner(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value a = tensorOfRank(c, args, 0, "input", -1), b = tensorOfRank(c, args, 1, "other", -1);
  c.checkKeywordsUsed("inner");
  if (tensorOf(a).ndim() == 0 || tensorOf(b).ndim() == 0) return binary(c, ir::Op::Mul, a, b);
  return contract(c, a, b, {-1}, {-1});
}

// trace(x): the sum of a 2-d tensor's main diagonal.
Value bTrace(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 1);
  Value x = tensorOfRank(c, args, 0, "input", 2);
  c.checkKeywordsUsed("trace");
  Value diagonal = applyOp(c, ir::Op::Diag, {x, Value::integer(0)});
  return applyOp(c, ir::Op::Sum, {diagonal, Value::none(), Value::boolean(false)});
}

// beta * input + alpha * product, PyTorch's fused forms: with beta 0,
// input is not read (its NaNs do not spread); alpha 1 and beta 1 add no
// multiplications.
Value scaledSum(CallContext& c, const Value& input, const Value& product) {
  Value one = Value::integer(1);
  Value beta = argument(c, {}, 0, "beta", &one), alpha = argument(c, {}, 0, "alpha", &one);
  c.checkKeywordsUsed(c.name.c_str());
  for (const Value* v : {&beta, &alpha})
    if (!v->isNumber())
      fail(c.loc, c.name + "(): beta and alpha must be numbers, not " + typeName(*v), ErrorClass::TypeError);
  Value scaled = alpha.asFloat() == 1.0 ? product : binary(c, ir::Op::Mul, alpha, product);
  if (beta.asFloat() == 0.0) {
    Shape shape = broadcastShapes(
        tensorOf(input).shape(), tensorOf(scaled).shape(), c.loc,
        c.name + "(): input " + typeString(tensorOf(input)) + " does not broadcast to " + typeString(tensorOf(scaled)));
    return shape == tensorOf(scaled).shape() ? scaled : applyOp(c, ir::Op::BroadcastTo, {scaled, intsTuple(shape)});
  }
  Value base = beta.asFloat() == 1.0 ? input : binary(c, ir::Op::Mul, beta, input);
  return binary(c, ir::Op::Add, base, scaled);
}

// addmm(input, mat1, mat2, beta=1, alpha=1): beta * input + alpha * (mat1 @ mat2).
Value bAddmm(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 3);
  Value input = tensorOfRank(c, args, 0, "input", -1), m1 = tensorOfRank(c, args, 1, "mat1", 2),
        m2 = tensorOfRank(c, args, 2, "mat2", 2);
  sameSize(c, m1, 1, m2, 0);
  return scaledSum(c, input, matmul(c, m1, m2));
}

// addmv(input, mat, vec, beta=1, alpha=1): beta * input + alpha * (mat @ vec).
Value bAddmv(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 3);
  Value input = tensorOfRank(c, args, 0, "input", -1), m = tensorOfRank(c, args, 1, "mat", 2),
        v = tensorOfRank(c, args, 2, "vec", 1);
  sameSize(c, m, 1, v, 0);
  return scaledSum(c, input, matmul(c, m, v));
}

// addr(input, vec1, vec2, beta=1, alpha=1): beta * input + alpha * outer(vec1, vec2).
Value bAddr(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 3);
  Value input = tensorOfRank(c, args, 0, "input", -1), v1 = tensorOfRank(c, args, 1, "vec1", 1),
        v2 = tensorOfRank(c, args, 2, "vec2", 1);
  return scaledSum(c, input, applyOp(c, ir::Op::Outer, {v1, v2}));
}

// baddbmm(input, batch1, batch2, beta=1, alpha=1): beta * input + alpha *
// bmm(batch1, batch2); addbmm: the same with the batch's products summed.
Value batchProducts(CallContext& c, std::vector<Value>& args, bool summed) {
  atMost(c, args, 3);
  Value input = tensorOfRank(c, args, 0, "input", -1), b1 = tensorOfRank(c, args, 1, "batch1", 3),
        b2 = tensorOfRank(c, args, 2, "batch2", 3);
  sameSize(c, b1, 0, b2, 0);
  sameSize(c, b1, 2, b2, 1);
  Value product = matmul(c, b1, b2);
  if (summed) product = applyOp(c, ir::Op::Sum, {product, intsTuple({0}), Value::boolean(false)});
  return scaledSum(c, input, product);
}
Value bBaddbmm(CallContext& c, std::vector<Value>& args) { return batchProducts(c, args, false); }
Value bAddbmm(CallContext& c, std::vector<Value>& args) { return batchProducts(c, args, true); }

}  // namespace

BuiltinFn tensorProductMethod(const std::string& name) {
  if (name == "bmm") return bBmm;
  if (name == "mm") return bMm;
  if (name == "mv") return bMv;
  if (name == "dot" || name == "vdot") return bDot;
  if (name == "inner") return bInner;
  if (name == "trace") return bTrace;
  if (name == "addmm") return bAddmm;
  if (name == "addmv") return bAddmv;
  if (name == "addr") return bAddr;
  if (name == "baddbmm") return bBaddbmm;
  if (name == "addbmm") return bAddbmm;
  return nullptr;
}

void addTensorProducts(BuiltinTable& table) {
  using ir::Builtin;
  for (Builtin b : {Builtin::Bmm, Builtin::Mm, Builtin::Mv, Builtin::Dot, Builtin::Vdot, Builtin::Inner, Builtin::Trace,
                    Builtin::Addmm, Builtin::Addmv, Builtin::Addr, Builtin::Baddbmm, Builtin::Addbmm})
    table[ir::builtinInfo(b).name] = tensorProductMethod(ir::builtinInfo(b).name);
  table[ir::builtinInfo(Builtin::Tensordot).name] = bTensordot;
}

}  // namespace nn::stdlib
