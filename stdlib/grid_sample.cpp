// The implementations of grid_sample and of its two gradients: the
// arguments checked (the input's and the grid's types by the function the
// shape rule checks them with at compile time) and turned into the kernels' GridSampling
// (runtime/grid_sampling.h), then one kernel of the input's device.
#include <initializer_list>
#include <string>
#include <utility>

#include "ir/shape_rules.h"
#include "runtime/compile_cache.h"
#include "runtime/dispatch.h"
#include "runtime/tensor_ops.h"
#include "stdlib/op_call.h"

namespace nn::stdlib {

using namespace nn::rt;
using ir::Op;

namespace {

// The call's input and grid, checked, and its sampling rules.
struct GridCall {
  Tensor input, grid;
  GridSampling sampling;
};

// The value of the string parameter `param` among `names`.
template <class E>
E choice(OpCall& c, const char* param, std::initializer_list<std::pair<const char*, E>> names) {
  const std::string& given = c.text(param);
  std::string listed;
  size_t i = 0;
  for (const auto& [name, value] : names) {
    if (given == name) return value;
    ++i;
    listed += std::string(i == 1 ? "" : i == names.size() ? " or " : ", ") + name;
  }
  c.fail("invalid " + std::string(param) + " '" + given + "' (" + listed + ")");
}

GridCall gridCallOf(OpCall& c) {
  const Tensor& x = c.tensor("input");
  const Tensor& grid = c.tensor("grid");
  using ir::shape_rules::gridSampleMismatch;
  if (std::optional<std::string> wrong = gridSampleMismatch(staticType(c["input"]), staticType(c["grid"])))
    c.fail(*wrong);
  if (x.dim(2) == 0 || x.dim(3) == 0) c.fail("cannot sample an input without pixels " + typeString(x));
  if (&x.device() != &grid.device())
    c.fail("the input is on " + x.device().name() + " and the grid on " + grid.device().name());
  GridSampling s;
  s.h = x.dim(2);
  s.w = x.dim(3);
  s.mode = choice<GridMode>(
      c, "mode", {{"bilinear", GridMode::Bilinear}, {"nearest", GridMode::Nearest}, {"bicubic", GridMode::Bicubic}});
  s.padding = choice<GridPadding>(
      c, "padding_mode",
      {{"zeros", GridPadding::Zeros}, {"border", GridPadding::Border}, {"reflection", GridPadding::Reflection}});
  s.alignCorners = c.flag("align_corners");
  return {contiguousOnItsDevice(x, c.loc), contiguousOnItsDevice(grid, c.loc), s};
}

}  // namespace

Value gridSampleOp(OpCall& c) {
  GridCall call = gridCallOf(c);
  const Tensor& x = call.input;
  Tensor out = Tensor::empty(x.dtype(), {x.dim(0), x.dim(1), call.grid.dim(1), call.grid.dim(2)}, x.device());
  if (out.numel() > 0) launch<Op::GridSample>(x.device(), x.dtype(), c.loc, x, call.grid, call.sampling, out);
  return makeTensorValue(out);
}

// The input's gradient is summed in f64 and given the input's dtype; the
// grid's is 0 where no channel reads it (and always for nearest).
Value gridSampleGradOp(OpCall& c) {
  GridCall call = gridCallOf(c);
  const Tensor& x = call.input;
  const Tensor& g = c.tensor("g");
  Shape shape{x.dim(0), x.dim(1), call.grid.dim(1), call.grid.dim(2)};
  if (g.shape() != shape || g.dtype() != x.dtype())
    c.fail("the gradient " + typeString(g) + " is not of grid_sample's result type " + dtypeName(x.dtype()) +
           shapeString(shape));
  if (&g.device() != &x.device()) c.fail("the gradient and the input are on different devices");
  bool wantInput = c.op == Op::GridSampleGradInput;
  Tensor result = wantInput ? Tensor::zeros(DType::F64, x.shape(), x.device())
                            : Tensor::zeros(x.dtype(), call.grid.shape(), x.device());
  if (g.numel() > 0)
    launch<Op::GridSampleGradInput>(x.device(), x.dtype(), c.loc, contiguousOnItsDevice(g, c.loc), x, call.grid,
                                    call.sampling, wantInput ? &result : nullptr, wantInput ? nullptr : &result);
  return makeTensorValue(wantInput ? astype(result, x.dtype()) : result);
}

}  // namespace nn::stdlib
