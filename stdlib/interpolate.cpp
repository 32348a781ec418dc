// The implementations of interpolate and of its gradient: the call's size,
// scale_factor, mode and align_corners checked and turned into each
// spatial dim's resampling (runtime/resample.h), then the interpolate
// kernels of x's device (a 5-d input's planes, then its depth); mode
// "area" (PyTorch's adaptive average pooling) as one bin-average matrix
// per spatial dim applied with matmul.
#include <cmath>
#include <string>
#include <vector>

#include "runtime/dispatch.h"
#include "runtime/nn_ops.h"
#include "runtime/tensor_ops.h"
#include "stdlib/op_call.h"

namespace nn::stdlib {

using namespace nn::rt;
using ir::Op;

namespace {

// interpolate's checks and the resampling of its spatial dims (rows reads
// one source row of a 3-d input; depth is a 5-d input's first spatial dim,
// one position otherwise) from x's shape and the call's size,
// scale_factor, mode and align_corners; resample.h has the rules. For
// mode "area" only each dim's in and out count.
struct Resampling {
  Resample depth, rows, cols;
  bool area = false;
  Shape out;  // the result's shape
};

Resampling resamplingOf(OpCall& c, const Tensor& x) {
  const std::string mode = c.text("mode");
  bool alignCorners = c.flag("align_corners");
  int64_t spatial = x.ndim() - 2;
  if (spatial < 1 || spatial > 3)
    c.fail("expects a 3-d [N, C, L], 4-d [N, C, H, W] or 5-d [N, C, D, H, W] input, got " + typeString(x));
  Resampling r;
  ResampleKind kind = ResampleKind::Nearest;
  if (mode == "nearest-exact")
    kind = ResampleKind::NearestExact;
  else if ((mode == "linear" && spatial == 1) || (mode == "bilinear" && spatial == 2) ||
           (mode == "trilinear" && spatial == 3))
    kind = ResampleKind::Linear;
  else if (mode == "bicubic" && spatial == 2)
    kind = ResampleKind::Cubic;
  else if (mode == "area")
    r.area = true;
  else if (mode != "nearest")
    c.fail("mode '" + mode + "' is not supported for a " + std::to_string(x.ndim()) +
           "-d input (nearest, nearest-exact, area, and linear for 3-d, bilinear and bicubic for 4-d or trilinear for "
           "5-d inputs)");
  bool weighted = kind == ResampleKind::Linear || kind == ResampleKind::Cubic || r.area;
  if (!isFloating(x.dtype()) && weighted) c.fail("mode '" + mode + "' needs a floating tensor, not " + typeString(x));
  if (alignCorners && !(weighted && !r.area))
    c.fail("align_corners must be False for mode '" + mode + "' (it applies to the linear and cubic modes)");
  std::vector<int64_t> size = c.ints("size");
  bool scaled = !c.isNone("scale_factor");
  if (size.empty() == !scaled) c.fail("give exactly one of size and scale_factor");
  if (!scaled && size.size() != 1 && size.size() != static_cast<size_t>(spatial))
    c.fail("size must have " + std::to_string(spatial) + " entries");
  r.out = {x.dim(0), x.dim(1)};
  Resample* dims[3] = {&r.depth, &r.rows, &r.cols};
  for (int64_t d = 0; d < spatial; ++d) {
    int64_t n = x.dim(static_cast<int>(2 + d));
    if (n == 0) c.fail("cannot resize an empty input " + typeString(x));
    int64_t o = scaled             ? static_cast<int64_t>(std::floor(static_cast<double>(n) * c.number("scale_factor")))
                : size.size() == 1 ? size[0]
                                   : size[static_cast<size_t>(d)];
    if (o <= 0) c.fail("the output size must be positive, got " + std::to_string(o));
    Resample& s = *dims[3 - spatial + d];
    s.in = n;
    s.out = o;
    s.kind = kind;
    s.alignCorners = alignCorners;
    if (weighted && alignCorners)
      s.scale = o > 1 ? static_cast<double>(n - 1) / static_cast<double>(o - 1) : 0.0;
    else
      s.scale = scaled ? 1.0 / c.number("scale_factor") : static_cast<double>(n) / static_cast<double>(o);
    r.out.push_back(o);
  }
  return r;
}

// A dimension of n positions read as they are: trilinear resampling is
// separable, so a 5-d input's planes [H, W] are resampled first, then its
// depth, each [H', W'] plane one row of a [D, H' W'] one copied across.
Resample unchanged(int64_t n) {
  Resample r;
  r.in = r.out = n;
  return r;
}

// Adaptive average pooling's bins of n positions into o, as a matrix
// [o, n] of dtype dt on `device`: bin i covers [floor(i n / o),
// ceil((i + 1) n / o)), each of its positions weighted 1 / its size.
Tensor binAverages(int64_t n, int64_t o, DType dt, Device& device, SourceLoc loc) {
  Tensor bins = Tensor::zeros(DType::F64, {o, n}, hostSideOf(device));
  double* b = bins.data<double>();
  for (int64_t i = 0; i < o; ++i) {
    int64_t first = i * n / o, end = ((i + 1) * n + o - 1) / o;
    for (int64_t j = first; j < end; ++j) b[i * n + j] = 1.0 / static_cast<double>(end - first);
  }
  return copyTo(astype(bins, dt), device, loc);
}

// mode "area": t's spatial dims, from the last, each replaced by its bin
// averages [o, n] times it (their transposes [n, o], `back`, spread a
// gradient back); the other dims are batches of the products.
Tensor alongSpatialDims(const Tensor& t, const Resampling& r, bool back, SourceLoc loc) {
  const Resample* dims[3] = {&r.depth, &r.rows, &r.cols};
  int spatial = t.ndim() - 2;
  Tensor out = t;
  for (int d = t.ndim() - 1; d >= 2; --d) {
    const Resample& s = *dims[3 - spatial + d - 2];
    Tensor m = binAverages(s.in, s.out, t.dtype(), t.device(), loc);
    if (back) m = transpose(m, {1, 0}, loc);
    Shape shape = out.shape();
    int64_t n = shape[static_cast<size_t>(d)], inner = 1;
    for (size_t k = static_cast<size_t>(d) + 1; k < shape.size(); ++k) inner *= shape[k];
    int64_t outer = out.numel() / (n * inner);
    // The last dim as rows times the matrix's transpose; an inner dim as
    // the matrix times each [n, inner] block.
    Tensor product = inner == 1 ? matmul(reshape(out, {outer, n}, loc), transpose(m, {1, 0}, loc), loc)
                                : matmul(m, reshape(out, {outer, n, inner}, loc), loc);
    shape[static_cast<size_t>(d)] = m.dim(0);
    out = reshape(product, shape, loc);
  }
  return out;
}

}  // namespace

// A kernel of x's device, plane by plane: exact for nearest (any dtype),
// computed in double and rounded once for the linear modes (twice for
// trilinear: the planes', then the depth's).
Value interpolateOp(OpCall& c) {
  const Tensor& x = c.tensor("x");
  Resampling r = resamplingOf(c, x);
  if (r.area) return makeTensorValue(alongSpatialDims(x, r, false, c.loc));
  Tensor out = Tensor::empty(x.dtype(), r.out, x.device());
  if (out.numel() == 0) return makeTensorValue(out);
  Tensor in = contiguousOnItsDevice(x, c.loc);
  if (x.ndim() == 5) {
    Tensor planes = Tensor::empty(x.dtype(), {x.dim(0), x.dim(1), x.dim(2), r.rows.out, r.cols.out}, x.device());
    launch<Op::Interpolate>(x.device(), x.dtype(), c.loc, in, r.rows, r.cols, planes);
    launch<Op::Interpolate>(x.device(), x.dtype(), c.loc, planes, r.depth, unchanged(r.rows.out * r.cols.out), out);
  } else {
    launch<Op::Interpolate>(x.device(), x.dtype(), c.loc, in, r.rows, r.cols, out);
  }
  return makeTensorValue(out);
}

// interpolate's gradient: g's elements shared back onto x's shape, summed
// in f64 and given g's dtype (a 5-d input's: onto the depth, then the
// planes; area's: each bin-average matrix's transpose applied in g's
// dtype).
Value interpolateGradOp(OpCall& c) {
  const Tensor& g = c.tensor("g");
  const Tensor& x = c.tensor("x");
  Resampling r = resamplingOf(c, x);
  if (g.shape() != r.out) c.fail("the gradient " + typeString(g) + " does not have interpolate's result shape");
  if (!isFloating(g.dtype())) c.fail("expects a floating gradient, not " + typeString(g));
  if (&g.device() != &x.device()) c.fail("the gradient and x are on different devices");
  if (r.area) return makeTensorValue(alongSpatialDims(g, r, true, c.loc));
  Tensor dx = Tensor::zeros(DType::F64, x.shape(), g.device());
  if (g.numel() == 0) return makeTensorValue(astype(dx, g.dtype()));
  Tensor from = contiguousOnItsDevice(g, c.loc);
  if (x.ndim() == 5) {
    Tensor planes = Tensor::zeros(DType::F64, {x.dim(0), x.dim(1), x.dim(2), r.rows.out, r.cols.out}, g.device());
    launch<Op::InterpolateGrad>(g.device(), g.dtype(), c.loc, from, r.depth, unchanged(r.rows.out * r.cols.out),
                                planes);
    launch<Op::InterpolateGrad>(g.device(), DType::F64, c.loc, planes, r.rows, r.cols, dx);
  } else {
    launch<Op::InterpolateGrad>(g.device(), g.dtype(), c.loc, from, r.rows, r.cols, dx);
  }
  return makeTensorValue(astype(dx, g.dtype()));
}

}  // namespace nn::stdlib
