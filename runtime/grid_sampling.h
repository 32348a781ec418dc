// What grid_sample computes for one output position, as PyTorch's
// GridSampler.h defines it: the grid's (x, y) in -1 .. 1 becomes a pixel
// coordinate (unnormalised with or without align_corners), brought inside
// by the padding mode (border clips, reflection reflects then clips) for
// bilinear and nearest sampling; bicubic applies the padding to each of
// its 16 taps instead. An output position reads a few input pixels (its
// taps), each with a weight and the weight's slopes along x and y, so the
// forward value, the input's gradient (the weights' transpose) and the
// grid's gradient (the slopes) come from one description. Arithmetic is
// in the tensor's dtype, as PyTorch's. A NaN or infinite coordinate reads
// nothing (0). The CPU's kernels (kernels_cpu_resample.cpp) and the
// CUDA plugin's compile these same functions.
#pragma once

#include <cmath>
#include <cstdint>

#include "runtime/cubic_convolution.h"
#include "runtime/host_device.h"

namespace nn::rt {

enum class GridMode : int8_t { Bilinear, Nearest, Bicubic };
enum class GridPadding : int8_t { Zeros, Border, Reflection };

// One grid_sample call: the input's spatial size and the sampling rules.
struct GridSampling {
  int64_t h = 1, w = 1;
  GridMode mode = GridMode::Bilinear;
  GridPadding padding = GridPadding::Zeros;
  bool alignCorners = false;
};

// A pixel an output position reads: its offset in the [h, w] plane (-1:
// outside, it reads 0), its weight, and the weight's slopes along the
// pixel coordinates x and y.
template <class T>
struct GridTap {
  int64_t at;
  T weight, slopeX, slopeY;
};

constexpr int kMaxGridTaps = 16;

NN_HOST_DEVICE inline int gridTapCount(GridMode m) {
  return m == GridMode::Nearest ? 1 : m == GridMode::Bilinear ? 4 : kMaxGridTaps;
}

// -1 .. 1 to 0 .. size - 1 (align_corners: the corner pixels' centres at
// the ends) or -0.5 .. size - 0.5 (their outer edges); `slope` its
// derivative.
template <class T>
NN_HOST_DEVICE T gridUnnormalized(T coord, int64_t size, bool alignCorners, T& slope) {
  if (alignCorners) {
    slope = static_cast<T>(size - 1) / T(2);
    return (coord + T(1)) / T(2) * static_cast<T>(size - 1);
  }
  slope = static_cast<T>(size) / T(2);
  return ((coord + T(1)) * static_cast<T>(size) - T(1)) / T(2);
}

// x clipped to [0, size - 1]; the slope 1 strictly inside, else 0.
template <class T>
NN_HOST_DEVICE T gridClipped(T x, int64_t size, T& slope) {
  T limit = static_cast<T>(size - 1);
  slope = T(0);
  if (x <= T(0)) return T(0);
  if (x >= limit) return limit;
  slope = T(1);
  return x;
}

// x reflected into [twiceLow / 2, twiceHigh / 2]; the slope +-1.
template <class T>
NN_HOST_DEVICE T gridReflected(T x, int64_t twiceLow, int64_t twiceHigh, T& slope) {
  if (twiceLow == twiceHigh) {
    slope = T(0);
    return T(0);
  }
  T low = static_cast<T>(twiceLow) / T(2), span = static_cast<T>(twiceHigh - twiceLow) / T(2);
  T sign = T(1);
  if (x < low) {
    sign = T(-1);
    x = low - x;
  } else {
    x = x - low;
  }
  T extra = std::fmod(x, span);
  // The parity of the number of flips, in T: an int could not hold it.
  bool even = std::fmod(std::floor(x / span), T(2)) == T(0);
  slope = even ? sign : -sign;
  return even ? extra + low : span - extra + low;
}

// A pixel coordinate brought inside by the padding mode (zeros: as it is).
template <class T>
NN_HOST_DEVICE T gridPadded(T x, int64_t size, const GridSampling& s, T& slope) {
  slope = T(1);
  if (s.padding == GridPadding::Border) return gridClipped(x, size, slope);
  if (s.padding != GridPadding::Reflection) return x;
  T reflectSlope, clipSlope;
  x = s.alignCorners ? gridReflected(x, 0, 2 * (size - 1), reflectSlope)
                     : gridReflected(x, -1, 2 * size - 1, reflectSlope);
  x = gridClipped(x, size, clipSlope);
  slope = reflectSlope * clipSlope;
  return x;
}

// The plane offset of pixel (x, y), truncated as PyTorch's; -1 outside.
template <class T>
NN_HOST_DEVICE int64_t gridOffset(T x, T y, const GridSampling& s) {
  x = std::trunc(x);
  y = std::trunc(y);
  if (!(x >= T(0) && x <= static_cast<T>(s.w - 1) && y >= T(0) && y <= static_cast<T>(s.h - 1))) return -1;
  return static_cast<int64_t>(y) * s.w + static_cast<int64_t>(x);
}

// The taps of the output position whose grid entry is (gx, gy), into
// taps[gridTapCount(s.mode)]; slopeX and slopeY are the pixel
// coordinates' derivatives in gx and gy (a tap's slopes times these are
// its weight's derivatives in the grid entry).
template <class T>
NN_HOST_DEVICE void gridTaps(const GridSampling& s, T gx, T gy, GridTap<T>* taps, T& slopeX, T& slopeY) {
  T ix = gridUnnormalized(gx, s.w, s.alignCorners, slopeX);
  T iy = gridUnnormalized(gy, s.h, s.alignCorners, slopeY);
  if (s.mode == GridMode::Bicubic) {
    T x0 = std::floor(ix), y0 = std::floor(iy);
    T wx[4], wy[4], dx[4], dy[4];
    cubicWeights(ix - x0, wx);
    cubicWeights(iy - y0, wy);
    cubicNegatedSlopes(ix - x0, dx);
    cubicNegatedSlopes(iy - y0, dy);
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 4; ++i) {
        T unused;
        T px = gridPadded(x0 + static_cast<T>(i - 1), s.w, s, unused);
        T py = gridPadded(y0 + static_cast<T>(j - 1), s.h, s, unused);
        taps[j * 4 + i] = {gridOffset(px, py, s), wx[i] * wy[j], -(dx[i] * wy[j]), -(dy[j] * wx[i])};
      }
    return;
  }
  T padX, padY;
  ix = gridPadded(ix, s.w, s, padX);
  iy = gridPadded(iy, s.h, s, padY);
  slopeX *= padX;
  slopeY *= padY;
  if (s.mode == GridMode::Nearest) {
    taps[0] = {gridOffset(std::nearbyint(ix), std::nearbyint(iy), s), T(1), T(0), T(0)};
    return;
  }
  T x0 = std::floor(ix), y0 = std::floor(iy), x1 = x0 + T(1), y1 = y0 + T(1);
  taps[0] = {gridOffset(x0, y0, s), (x1 - ix) * (y1 - iy), -(y1 - iy), -(x1 - ix)};
  taps[1] = {gridOffset(x1, y0, s), (ix - x0) * (y1 - iy), y1 - iy, -(ix - x0)};
  taps[2] = {gridOffset(x0, y1, s), (x1 - ix) * (iy - y0), -(iy - y0), x1 - ix};
  taps[3] = {gridOffset(x1, y1, s), (ix - x0) * (iy - y0), iy - y0, ix - x0};
}

// An output element: its taps' pixels of `plane` weighted (nearest reads
// its pixel as it is, so -0.0 stays).
template <class T>
NN_HOST_DEVICE T gridSampled(const T* plane, const GridTap<T>* taps, int count) {
  if (count == 1) return taps[0].at >= 0 ? plane[taps[0].at] : T(0);
  T sum = T(0);
  for (int k = 0; k < count; ++k)
    if (taps[k].at >= 0) sum += plane[taps[k].at] * taps[k].weight;
  return sum;
}

// The grid's gradient at one output position whose grid entry is (gx,
// gy): its taps' slopes times the input's pixels and the output's
// adjoint, summed over the channels in double, times the coordinates'
// derivatives, into d[0] and d[1]. `input` is the batch element's first
// [h, w] plane; `adjoint` its output's adjoint at this position, the next
// channel's `positions` further on.
template <class T>
NN_HOST_DEVICE void gridSlopeSums(const GridSampling& s, const T* input, const T* adjoint, int64_t channels,
                                  int64_t positions, T gx, T gy, T* d) {
  GridTap<T> taps[kMaxGridTaps];
  T slopeX, slopeY;
  gridTaps(s, gx, gy, taps, slopeX, slopeY);
  double sx = 0, sy = 0;
  for (int64_t c = 0; c < channels; ++c) {
    const T* plane = input + c * s.h * s.w;
    auto a = static_cast<double>(adjoint[c * positions]);
    for (int k = 0; k < gridTapCount(s.mode); ++k)
      if (taps[k].at >= 0) {
        double v = static_cast<double>(plane[taps[k].at]) * a;
        sx += v * static_cast<double>(taps[k].slopeX);
        sy += v * static_cast<double>(taps[k].slopeY);
      }
  }
  d[0] = static_cast<T>(sx) * slopeX;
  d[1] = static_cast<T>(sy) * slopeY;
}

}  // namespace nn::rt
