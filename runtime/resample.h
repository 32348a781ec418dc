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

// The output element that reads taps a (a row) and b (a column) of one
// plane `w` elements wide. A dimension that is not linear reads one source
// row or column, so an infinity there stays one (no 0 * inf).
// (Modes fixed at compile time, for a loop that keeps them fixed.)
template <bool RowsLinear, bool ColsLinear, class T>
NN_HOST_DEVICE T blendedIn(const T* plane, int64_t w, const Tap& a, const Tap& b) {
  if constexpr (!RowsLinear && !ColsLinear) {
    return plane[a.i0 * w + b.i0];
  } else {
    auto along = [&](int64_t y) {
      double left = static_cast<double>(plane[y * w + b.i0]);
      if constexpr (ColsLinear) return left * (1.0 - b.w1) + static_cast<double>(plane[y * w + b.i1]) * b.w1;
      else return left;
    };
    double top = along(a.i0);
    if constexpr (RowsLinear) return static_cast<T>(top * (1.0 - a.w1) + along(a.i1) * a.w1);
    else return static_cast<T>(top);
  }
}

template <class T>
NN_HOST_DEVICE T blended(const T* plane, int64_t w, const Tap& a, const Tap& b, bool rowsLinear, bool colsLinear) {
  if (rowsLinear) return colsLinear ? blendedIn<true, true>(plane, w, a, b) : blendedIn<true, false>(plane, w, a, b);
  return colsLinear ? blendedIn<false, true>(plane, w, a, b) : blendedIn<false, false>(plane, w, a, b);
}

// Output element (oy, ox) of one [rows.in, cols.in] plane resampled to
// [rows.out, cols.out].
template <class T>
NN_HOST_DEVICE T resampled(const T* plane, const Resample& rows, const Resample& cols, int64_t oy, int64_t ox) {
  return blended(plane, cols.in, tapOf(rows, oy), tapOf(cols, ox), rows.linear, cols.linear);
}

// The gradient g of the output element that read taps a and b of a plane
// `w` elements wide, handed to add(source offset in the plane, share) for
// each source element it read: the transpose of blended(), so a source
// read twice (at an edge) gets both shares.
template <class Add>
NN_HOST_DEVICE void spreadBack(double g, int64_t w, const Tap& a, const Tap& b, bool rowsLinear, bool colsLinear,
                               Add& add) {
  double wy0 = rowsLinear ? 1.0 - a.w1 : 1.0, wx0 = colsLinear ? 1.0 - b.w1 : 1.0;
  add(a.i0 * w + b.i0, g * wy0 * wx0);
  if (colsLinear) add(a.i0 * w + b.i1, g * wy0 * b.w1);
  if (rowsLinear) {
    add(a.i1 * w + b.i0, g * a.w1 * wx0);
    if (colsLinear) add(a.i1 * w + b.i1, g * a.w1 * b.w1);
  }
}

}  // namespace nn::rt
