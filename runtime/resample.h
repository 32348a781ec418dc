// What interpolate computes for one output element, and where that
// element's gradient goes, as PyTorch's resampling defines them: for an
// output position o the source coordinate is floor(o * scale) (nearest),
// (o + 0.5) * scale - 0.5 clamped at 0 (linear modes), or o * scale with
// align_corners, where scale is in / out (1 / scale_factor when that was
// given; (in - 1) / (out - 1) with align_corners). Linear modes weigh the
// two neighbours of that coordinate, in double, rounded once. The CPU's
// kernels (kernels_cpu_resample.cpp) and the CUDA plugin's compile these
// same functions, so both devices resample alike.
#pragma once

#include <cmath>
#include <cstdint>

#include "runtime/host_device.h"

namespace nn::rt {

// One spatial dimension's resampling: `in` source positions to `out`.
struct Resample {
  int64_t in = 1, out = 1;
  double scale = 1.0;  // source positions per output position
  bool linear = false, alignCorners = false;
};

// The source positions output position o reads, and the second's weight.
struct Tap {
  int64_t i0, i1;
  double w1;
};

NN_HOST_DEVICE inline Tap tapOf(const Resample& r, int64_t o) {
  if (!r.linear) {
    auto i = static_cast<int64_t>(std::floor(static_cast<double>(o) * r.scale));
    i = i < r.in - 1 ? i : r.in - 1;
    return {i, i, 0.0};
  }
  double src = r.alignCorners ? static_cast<double>(o) * r.scale : (static_cast<double>(o) + 0.5) * r.scale - 0.5;
  src = src > 0.0 ? src : 0.0;
  auto i0 = static_cast<int64_t>(std::floor(src));
  i0 = i0 < r.in - 1 ? i0 : r.in - 1;
  return {i0, i0 + 1 < r.in ? i0 + 1 : r.in - 1, src - static_cast<double>(i0)};
}

// Output element (oy, ox) of one [rows.in, cols.in] plane resampled to
// [rows.out, cols.out]. A dimension that is not linear reads one source
// row or column, so an infinity there stays one (no 0 * inf).
template <class T>
NN_HOST_DEVICE T resampled(const T* plane, const Resample& rows, const Resample& cols, int64_t oy, int64_t ox) {
  Tap a = tapOf(rows, oy), b = tapOf(cols, ox);
  int64_t w = cols.in;
  if (!rows.linear && !cols.linear) return plane[a.i0 * w + b.i0];
  auto along = [&](int64_t y) {
    double left = static_cast<double>(plane[y * w + b.i0]);
    return cols.linear ? left * (1.0 - b.w1) + static_cast<double>(plane[y * w + b.i1]) * b.w1 : left;
  };
  double top = along(a.i0);
  return static_cast<T>(rows.linear ? top * (1.0 - a.w1) + along(a.i1) * a.w1 : top);
}

// The gradient g of output element (oy, ox), handed to add(source offset
// in the plane, share) for each source element it read: the transpose of
// resampled(), so a source read twice (at an edge) gets both shares.
template <class Add>
NN_HOST_DEVICE void spreadBack(double g, const Resample& rows, const Resample& cols, int64_t oy, int64_t ox, Add& add) {
  Tap a = tapOf(rows, oy), b = tapOf(cols, ox);
  int64_t w = cols.in;
  double wy0 = rows.linear ? 1.0 - a.w1 : 1.0, wx0 = cols.linear ? 1.0 - b.w1 : 1.0;
  add(a.i0 * w + b.i0, g * wy0 * wx0);
  if (cols.linear) add(a.i0 * w + b.i1, g * wy0 * b.w1);
  if (rows.linear) {
    add(a.i1 * w + b.i0, g * a.w1 * wx0);
    if (cols.linear) add(a.i1 * w + b.i1, g * a.w1 * b.w1);
  }
}

}  // namespace nn::rt
