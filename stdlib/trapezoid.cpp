// PyTorch's trapezoid(y, x=None, *, dx=None, dim=-1) (trapz its other
// name) and cumulative_trapezoid: the trapezoidal rule's integral of y
// along dim, its total or running sums, with samples spaced dx apart (1 by
// default) or at the points x (1-d along dim, or of y's shape). Composed
// of ops on the tape, so they differentiate in y and x and run on any
// device.
#include "ir/builtins.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"
#include "stdlib/op_call.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

// v's elements 1.. (from) or ..n-1 (to) along dim.
Value shifted(CallContext& c, const Value& v, int64_t dim, bool from) {
  int64_t n = tensorOf(v).dim(static_cast<int>(dim));
  Value slice = from ? makeSlice(Value::integer(1), Value::integer(n), Value::none())
                     : makeSlice(Value::integer(0), Value::integer(n - 1), Value::none());
  return indexAlong(c, v, dim, slice);
}

struct Areas {
  Value each;  // null where the samples are evenly spaced
  int64_t dim;
  Value y, spacing;
};

// Each interval's area along dim: (y[i] + y[i + 1]) / 2 times its width.
Areas areas(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 2);
  Value none = Value::none(), last = Value::integer(-1);
  Value y = argument(c, args, 0, "y", nullptr), x = argument(c, args, 1, "x", &none);
  const Value* dxKw = c.kw("dx");
  const Value* dimKw = c.kw("dim");
  c.checkKeywordsUsed(c.name.c_str());
  const Tensor& t = tensorArg(c, y, "y");
  if (t.ndim() == 0) fail(c.loc, c.name + "(): y must have at least 1 dimension, not " + typeString(t));
  int64_t dim = dimArg(c, dimKw ? *dimKw : last, t.ndim(), "dim");
  if (!x.is(Kind::None) && dxKw)
    fail(c.loc, c.name + "(): takes the points x or the spacing dx, not both", ErrorClass::TypeError);
  Value widths = dxKw ? *dxKw : Value::real(1.0);
  if (dxKw && !dxKw->isNumber())
    fail(c.loc, c.name + "(): dx must be a number, not " + typeName(*dxKw), ErrorClass::TypeError);
  if (x.is(Kind::None)) return {Value::none(), dim, y, widths};
  Value sums = binary(c, ir::Op::Add, shifted(c, y, dim, true), shifted(c, y, dim, false));
  if (x.is(Kind::Tensor)) {
    const Tensor& p = tensorOf(x);
    int64_t n = t.dim(static_cast<int>(dim));
    if (p.ndim() == 1) {
      if (p.dim(0) != n)
        fail(c.loc, c.name + "(): x " + typeString(p) + " must have y's size along dim, " + std::to_string(n),
             ErrorClass::ValueError);
      // Laid along dim, to broadcast over y's other dims.
      std::vector<int64_t> along(static_cast<size_t>(t.ndim()), 1);
      along[static_cast<size_t>(dim)] = n;
      Value points = reshaped(c, x, along);
      widths = binary(c, ir::Op::Sub, shifted(c, points, dim, true), shifted(c, points, dim, false));
    } else if (p.shape() == t.shape()) {
      widths = binary(c, ir::Op::Sub, shifted(c, x, dim, true), shifted(c, x, dim, false));
    } else {
      fail(c.loc, c.name + "(): x " + typeString(p) + " must be 1-d or have y's shape " + shapeString(t.shape()),
           ErrorClass::ValueError);
    }
  } else {
    fail(c.loc, c.name + "(): x must be a tensor (the spacing goes in dx=), not " + typeName(x), ErrorClass::TypeError);
  }
  Value scaled = binary(c, ir::Op::Mul, sums, widths);
  return {binary(c, ir::Op::Mul, scaled, Value::real(0.5)), dim, y, widths};
}

// Evenly spaced samples' intervals' areas: (y[i] + y[i + 1]) * dx / 2.
Value evenAreas(CallContext& c, const Areas& a) {
  Value sums = binary(c, ir::Op::Add, shifted(c, a.y, a.dim, true), shifted(c, a.y, a.dim, false));
  return binary(c, ir::Op::Mul, sums, Value::real(a.spacing.asFloat() / 2));
}

// With evenly spaced samples, as PyTorch's: (sum(y) - (y[0] + y[-1]) / 2)
// dx, one pass over y.
Value bTrapezoid(CallContext& c, std::vector<Value>& args) {
  Areas a = areas(c, args);
  if (!a.each.is(Kind::None)) return applyOp(c, ir::Op::Sum, {a.each, intsTuple({a.dim}), Value::boolean(false)});
  Value total = applyOp(c, ir::Op::Sum, {a.y, intsTuple({a.dim}), Value::boolean(false)});
  int64_t n = tensorOf(a.y).dim(static_cast<int>(a.dim));
  if (n > 0) {
    Value ends = binary(c, ir::Op::Add, indexAlong(c, a.y, a.dim, Value::integer(0)),
                        indexAlong(c, a.y, a.dim, Value::integer(n - 1)));
    total = binary(c, ir::Op::Sub, total, binary(c, ir::Op::Mul, ends, Value::real(0.5)));
  }
  return binary(c, ir::Op::Mul, total, a.spacing);
}

Value bCumulativeTrapezoid(CallContext& c, std::vector<Value>& args) {
  Areas a = areas(c, args);
  Value each = a.each.is(Kind::None) ? evenAreas(c, a) : a.each;
  return applyOp(c, ir::Op::CumSum, {each, Value::integer(a.dim), Value::boolean(false)});
}

}  // namespace

void addTrapezoids(BuiltinTable& table) {
  table[ir::builtinInfo(ir::Builtin::Trapezoid).name] = bTrapezoid;
  table[ir::builtinInfo(ir::Builtin::Trapz).name] = bTrapezoid;
  table[ir::builtinInfo(ir::Builtin::CumulativeTrapezoid).name] = bCumulativeTrapezoid;
}

}  // namespace nn::stdlib
