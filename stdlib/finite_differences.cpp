// PyTorch's gradient(input, *, spacing=1, dim=None, edge_order=1): the
// derivative of the samples of a function along each asked dim (all, or
// an int or a list of them), a tuple of one tensor per dim. Inside, the
// second-order central difference; at the ends one-sided differences of
// edge_order 1 or 2. Samples are unit apart, `spacing` apart (a number,
// or one per dim), or at the coordinates given (a 1-d tensor per dim),
// where the differences weigh each neighbour by the gaps to it (NumPy's
// and PyTorch's formulas). Composed of slices and arithmetic on the tape,
// so it differentiates and runs on any device; integers give f32.
#include <string>

#include "ir/builtins.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"
#include "stdlib/op_call.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

// The samples' positions along one dim: a step or coordinates.
struct Spacing {
  double step = 1;
  Value coordinates;  // a 1-d tensor, or none
};

Value sliceAlong(CallContext& c, const Value& x, int64_t dim, int64_t start, int64_t stop) {
  return indexAlong(c, x, dim, makeSlice(Value::integer(start), Value::integer(stop), Value::none()));
}

Value add(CallContext& c, const Value& a, const Value& b) { return binary(c, ir::Op::Add, a, b); }
Value sub(CallContext& c, const Value& a, const Value& b) { return binary(c, ir::Op::Sub, a, b); }
Value mul(CallContext& c, const Value& a, const Value& b) { return binary(c, ir::Op::Mul, a, b); }
Value div(CallContext& c, const Value& a, const Value& b) { return binary(c, ir::Op::Div, a, b); }
Value neg(CallContext& c, const Value& a) { return binary(c, ir::Op::Mul, a, Value::real(-1)); }

// The derivative of f along dim with samples `s` apart (or at s's
// coordinates): [first, interior..., last] joined along dim.
Value alongDim(CallContext& c, const Value& f, int64_t dim, int64_t rank, const Spacing& s, int64_t edgeOrder) {
  int64_t n = tensorOf(f).dim(static_cast<int>(dim));
  auto at = [&](int64_t start, int64_t stop) { return sliceAlong(c, f, dim, start, stop); };
  Value first, interior, last;
  if (s.coordinates.is(Kind::None)) {
    Value h = Value::real(s.step), twoH = Value::real(2 * s.step);
    interior = div(c, sub(c, at(2, n), at(0, n - 2)), twoH);
    if (edgeOrder == 1) {
      first = div(c, sub(c, at(1, 2), at(0, 1)), h);
      last = div(c, sub(c, at(n - 1, n), at(n - 2, n - 1)), h);
    } else {
      first =
          div(c, sub(c, sub(c, mul(c, at(1, 2), Value::real(4)), mul(c, at(0, 1), Value::real(3))), at(2, 3)), twoH);
      last = div(c,
                 add(c, sub(c, mul(c, at(n - 1, n), Value::real(3)), mul(c, at(n - 2, n - 1), Value::real(4))),
                     at(n - 3, n - 2)),
                 twoH);
    }
  } else {
    // The coordinates' gaps, as columns along dim.
    std::vector<int64_t> column(static_cast<size_t>(rank), 1);
    column[static_cast<size_t>(dim)] = -1;
    auto gaps = [&](int64_t start, int64_t stop) {
      Value x = s.coordinates;
      Value d = sub(c, sliceAlong(c, x, 0, start + 1, stop + 1), sliceAlong(c, x, 0, start, stop));
      return reshaped(c, d, column);
    };
    Value hl = gaps(0, n - 2), hr = gaps(1, n - 1), sum = add(c, hl, hr);
    // a f[i-1] + b f[i] + c f[i+1], a = -hr / (hl (hl + hr)), b = (hr - hl)
    // / (hl hr), c = hl / (hr (hl + hr)).
    Value a = div(c, neg(c, hr), mul(c, hl, sum));
    Value b = div(c, sub(c, hr, hl), mul(c, hl, hr));
    Value cc = div(c, hl, mul(c, hr, sum));
    interior = add(c, add(c, mul(c, a, at(0, n - 2)), mul(c, b, at(1, n - 1))), mul(c, cc, at(2, n)));
    Value d1 = gaps(0, 1), dn = gaps(n - 2, n - 1);
    if (edgeOrder == 1) {
      first = div(c, sub(c, at(1, 2), at(0, 1)), d1);
      last = div(c, sub(c, at(n - 1, n), at(n - 2, n - 1)), dn);
    } else {
      // The parabola through the first (last) three samples.
      Value d2 = gaps(1, 2), s12 = add(c, d1, d2);
      Value fa = div(c, neg(c, add(c, mul(c, d1, Value::real(2)), d2)), mul(c, d1, s12));
      Value fb = div(c, s12, mul(c, d1, d2));
      Value fc = div(c, neg(c, d1), mul(c, d2, s12));
      first = add(c, add(c, mul(c, fa, at(0, 1)), mul(c, fb, at(1, 2))), mul(c, fc, at(2, 3)));
      Value e1 = gaps(n - 3, n - 2), s2 = add(c, e1, dn);
      Value la = div(c, dn, mul(c, e1, s2));
      Value lb = div(c, neg(c, s2), mul(c, e1, dn));
      Value lc = div(c, add(c, mul(c, dn, Value::real(2)), e1), mul(c, dn, s2));
      last = add(c, add(c, mul(c, la, at(n - 3, n - 2)), mul(c, lb, at(n - 2, n - 1))), mul(c, lc, at(n - 1, n)));
    }
  }
  return applyOp(c, ir::Op::Concat, {makeTuple({first, interior, last}), Value::integer(dim)});
}

Value bGradient(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 1);
  Value one = Value::integer(1), none = Value::none();
  Value x = argument(c, args, 0, "input", nullptr);
  const Value* spacingKw = c.kw("spacing");
  const Value* dimKw = c.kw("dim");
  const Value* edgeKw = c.kw("edge_order");
  c.checkKeywordsUsed("gradient");
  const Tensor& t = tensorArg(c, x, "input");
  int64_t rank = t.ndim();
  if (rank == 0)
    fail(c.loc, "gradient(): expects a tensor with at least 1 dimension, not " + typeString(t), ErrorClass::ValueError);
  Value edgeV = edgeKw ? *edgeKw : one;
  if (!edgeV.isIntLike() || (edgeV.asInt() != 1 && edgeV.asInt() != 2))
    fail(c.loc, "gradient(): edge_order must be 1 or 2, not " + repr(edgeV), ErrorClass::ValueError);
  int64_t edgeOrder = edgeV.asInt();
  std::vector<int64_t> dims;
  Value dimV = dimKw ? *dimKw : none;
  if (dimV.is(Kind::None)) {
    for (int64_t d = 0; d < rank; ++d) dims.push_back(d);
  } else if (dimV.is(Kind::List) || dimV.is(Kind::Tuple)) {
    for (const Value& d : dimV.as<SeqObj>().items) dims.push_back(dimArg(c, d, rank, "dim"));
  } else {
    dims.push_back(dimArg(c, dimV, rank, "dim"));
  }
  for (size_t i = 0; i < dims.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (dims[i] == dims[j])
        fail(c.loc, "gradient(): dim " + std::to_string(dims[i]) + " appears twice", ErrorClass::ValueError);
  // One spacing for every dim, or one per dim asked for.
  std::vector<Spacing> spacings(dims.size());
  Value spacingV = spacingKw ? *spacingKw : one;
  auto spacingOf = [&](const Value& v, int64_t dim) {
    Spacing s;
    if (v.isNumber() && !v.is(Kind::Bool)) {
      s.step = v.asFloat();
      return s;
    }
    if (!v.is(Kind::Tensor) || tensorOf(v).ndim() > 1)
      fail(c.loc,
           "gradient(): spacing must be a number, a 1-d tensor of coordinates, or a list of them, not " +
               (v.is(Kind::Tensor) ? typeString(tensorOf(v)) : std::string(typeName(v))),
           ErrorClass::TypeError);
    const Tensor& coordinates = tensorOf(v);
    if (coordinates.ndim() == 0) {  // a 0-d tensor is a step
      s.step = readableOnHost(astype(coordinates, DType::F64), c.loc).data<double>()[0];
      return s;
    }
    if (coordinates.dim(0) != t.dim(static_cast<int>(dim)))
      fail(c.loc,
           "gradient(): the coordinates " + typeString(coordinates) + " must have dim " + std::to_string(dim) +
               "'s size, " + std::to_string(t.dim(static_cast<int>(dim))),
           ErrorClass::ValueError);
    s.coordinates = isFloating(coordinates.dtype()) ? v : makeTensorValue(astype(coordinates, DType::F32));
    return s;
  };
  if (spacingV.is(Kind::List) || spacingV.is(Kind::Tuple)) {
    const std::vector<Value>& items = spacingV.as<SeqObj>().items;
    if (items.size() != dims.size())
      fail(c.loc,
           "gradient(): spacing has " + std::to_string(items.size()) + " entries for " + std::to_string(dims.size()) +
               " dims",
           ErrorClass::ValueError);
    for (size_t i = 0; i < dims.size(); ++i) spacings[i] = spacingOf(items[i], dims[i]);
  } else {
    for (size_t i = 0; i < dims.size(); ++i) spacings[i] = spacingOf(spacingV, dims[i]);
  }
  Value f = isFloating(t.dtype()) ? x : makeTensorValue(astype(t, DType::F32));
  std::vector<Value> out;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (t.dim(static_cast<int>(dims[i])) < edgeOrder + 1)
      fail(c.loc,
           "gradient(): each dim must have at least edge_order + 1 = " + std::to_string(edgeOrder + 1) +
               " samples, not " + typeString(t),
           ErrorClass::ValueError);
    out.push_back(alongDim(c, f, dims[i], rank, spacings[i], edgeOrder));
  }
  return makeTuple(std::move(out));
}

}  // namespace

void addFiniteDifferences(BuiltinTable& table) { table[ir::builtinInfo(ir::Builtin::Gradient).name] = bGradient; }

}  // namespace nn::stdlib
