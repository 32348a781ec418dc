// Keys' cubic convolution (A = -0.75), as PyTorch's bicubic resampling
// and sampling define it: the weights of the four taps around a point t
// past the second (0 <= t < 1), and their slopes in t negated (PyTorch's
// get_cubic_upsample_coefficients and get_cubic_coefficients_grad). Shared
// by interpolate (resample.h) and grid_sample (grid_sampling.h), on the
// host and in the CUDA plugin.
#pragma once

#include "runtime/host_device.h"

namespace nn::rt {

template <class T>
NN_HOST_DEVICE void cubicWeights(T t, T* w) {
  const T a = T(-0.75);
  auto inner = [a](T x) { return ((a + T(2)) * x - (a + T(3))) * x * x + T(1); };
  auto outer = [a](T x) { return ((a * x - T(5) * a) * x + T(8) * a) * x - T(4) * a; };
  w[0] = outer(t + T(1));
  w[1] = inner(t);
  w[2] = inner(T(1) - t);
  w[3] = outer(T(2) - t);
}

template <class T>
NN_HOST_DEVICE void cubicNegatedSlopes(T t, T* d) {
  const T a = T(-0.75);
  T x = T(-1) - t;
  d[0] = (T(-3) * a * x - T(10) * a) * x - T(8) * a;
  x = -t;
  d[1] = (T(-3) * (a + T(2)) * x - T(2) * (a + T(3))) * x;
  x = T(1) - t;
  d[2] = (T(3) * (a + T(2)) * x - T(2) * (a + T(3))) * x;
  x = T(2) - t;
  d[3] = (T(3) * a * x - T(10) * a) * x + T(8) * a;
}

}  // namespace nn::rt
