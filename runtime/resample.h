// What interpolate computes for one output element, and where that
// element's gradient goes, as PyTorch's resampling defines them: for an
// output position o the source coordinate is floor(o * scale) (nearest),
// floor((o + 0.5) * scale) (nearest-exact), (o + 0.5) * scale - 0.5
// (linear modes, clamped at 0; cubic unclamped), or o * scale with
// align_corners, where scale is in / out (1 / scale_factor when that was
// given; (in - 1) / (out - 1) with align_corners). Linear modes weigh the
// two neighbours of that coordinate, cubic the four around it (Keys'
// weights, indices clamped to the edge), in double, rounded once. The
// CPU's kernels (kernels_cpu_resample.cpp) and the CUDA plugin's compile
// these same functions, so both devices resample alike.
#pragma once

#include <cmath>
#include <cstdint>

#include "runtime/cubic_convolution.h"
#include "runtime/host_device.h"

namespace nn::rt {

enum class ResampleKind : int8_t { Nearest, NearestExact, Linear, Cubic };

// One spatial dimension's resampling: `in` source positions to `out`.
struct Resample {
  int64_t in = 1, out = 1;
  double scale = 1.0;  // source positions per output position
  ResampleKind kind = ResampleKind::Nearest;
  bool alignCorners = false;
};

// The source positions an output position reads along one dimension (one
// for the nearest modes, two linear, four cubic) and their weights.
struct Tap {
  int64_t at[4];
  double weight[4];
  int count;
};

NN_HOST_DEVICE inline int64_t clampedIndex(int64_t i, int64_t in) { return i < 0 ? 0 : i < in - 1 ? i : in - 1; }

NN_HOST_DEVICE inline Tap tapOf(const Resample& r, int64_t o) {
  Tap t{};
  auto position = static_cast<double>(o);
  if (r.kind == ResampleKind::Nearest || r.kind == ResampleKind::NearestExact) {
    double src = (r.kind == ResampleKind::NearestExact ? position + 0.5 : position) * r.scale;
    t.at[0] = clampedIndex(static_cast<int64_t>(std::floor(src)), r.in);
    t.weight[0] = 1.0;
    t.count = 1;
    return t;
  }
  double src = r.alignCorners ? position * r.scale : (position + 0.5) * r.scale - 0.5;
  if (r.kind == ResampleKind::Cubic) {
    double first = std::floor(src);
    cubicWeights(src - first, t.weight);
    for (int k = 0; k < 4; ++k) t.at[k] = clampedIndex(static_cast<int64_t>(first) - 1 + k, r.in);
    t.count = 4;
    return t;
  }
  src = src > 0.0 ? src : 0.0;
  int64_t i0 = clampedIndex(static_cast<int64_t>(std::floor(src)), r.in);
  double w1 = src - static_cast<double>(i0);
  t.at[0] = i0;
  t.at[1] = clampedIndex(i0 + 1, r.in);
  t.weight[0] = 1.0 - w1;
  t.weight[1] = w1;
  t.count = 2;
  return t;
}

// The output element that reads taps a (rows) and b (columns) of one
// plane `w` elements wide: Rows and Cols taps each way (0: as many as the
// tap has), the sums along each row first, as PyTorch's. One tap each way
// copies the element, so any dtype comes through exact.
template <int Rows, int Cols, class T>
NN_HOST_DEVICE T blendedIn(const T* plane, int64_t w, const Tap& a, const Tap& b) {
  if constexpr (Rows == 1 && Cols == 1) {
    return plane[a.at[0] * w + b.at[0]];
  } else {
    int rows = Rows ? Rows : a.count, cols = Cols ? Cols : b.count;
    auto along = [&](int64_t y) {
      const T* line = plane + y * w;
      double sum = static_cast<double>(line[b.at[0]]) * b.weight[0];
      for (int k = 1; k < cols; ++k) sum += static_cast<double>(line[b.at[k]]) * b.weight[k];
      return sum;
    };
    double sum = along(a.at[0]) * a.weight[0];
    for (int k = 1; k < rows; ++k) sum += along(a.at[k]) * a.weight[k];
    return static_cast<T>(sum);
  }
}

// Output element (oy, ox) of one [rows.in, cols.in] plane resampled to
// [rows.out, cols.out].
template <class T>
NN_HOST_DEVICE T resampled(const T* plane, const Resample& rows, const Resample& cols, int64_t oy, int64_t ox) {
  Tap a = tapOf(rows, oy), b = tapOf(cols, ox);
  if (a.count == 1 && b.count == 1) return blendedIn<1, 1>(plane, cols.in, a, b);
  return blendedIn<0, 0>(plane, cols.in, a, b);
}

// The gradient g of the output element that read taps a and b of a plane
// `w` elements wide, handed to add(source offset in the plane, share) for
// each source element it read: the transpose of blendedIn() (Rows and
// Cols as there), so a source read twice (at an edge) gets both shares.
template <int Rows = 0, int Cols = 0, class Add>
NN_HOST_DEVICE void spreadBack(double g, int64_t w, const Tap& a, const Tap& b, Add& add) {
  int rows = Rows ? Rows : a.count, cols = Cols ? Cols : b.count;
  for (int j = 0; j < rows; ++j)
    for (int i = 0; i < cols; ++i) add(a.at[j] * w + b.at[i], g * a.weight[j] * b.weight[i]);
}

}  // namespace nn::rt
