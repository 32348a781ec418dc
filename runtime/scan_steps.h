// One step of a running scan along a line (cumsum, cumprod,
// logcumsumexp), shared by the CPU's kernels (kernels_cpu_order.cpp) and
// the CUDA plugin's, so both devices scan alike. Floats accumulate in
// double, as PyTorch's CPU scans do; integers wrap on overflow, as their
// arithmetic does elsewhere.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "runtime/host_device.h"

namespace nn::rt {

enum class ScanKind : int8_t { Sum, Product, LogSumExp };

// log(exp(x) + exp(y)) as PyTorch's logcumsumexp adds an element x to the
// running y: NaN from either side, and two equal infinities give x (where
// the formula would give NaN).
template <class T>
NN_HOST_DEVICE T logAddExp(T x, T y) {
  T low = y != y ? y : (y < x ? y : x);
  T high = y != y ? y : (x < y ? y : x);
  if (low != high || std::isfinite(low)) return std::log1p(std::exp(low - high)) + high;
  return x;
}

// The running value after element v (Acc: double for floats, T for
// integers; LogSumExp only for floats).
template <ScanKind K, class Acc, class T>
NN_HOST_DEVICE Acc scanned(Acc acc, T v) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(K == ScanKind::Product ? U(acc) * U(v) : U(acc) + U(v));
  } else if constexpr (K == ScanKind::LogSumExp) {
    return logAddExp(static_cast<Acc>(v), acc);
  } else {
    return K == ScanKind::Product ? acc * v : acc + v;
  }
}

// The running value before the first element.
template <ScanKind K, class Acc>
NN_HOST_DEVICE Acc scanStart() {
  if constexpr (K == ScanKind::LogSumExp)
    return -static_cast<Acc>(INFINITY);
  else
    return K == ScanKind::Product ? Acc(1) : Acc(0);
}

}  // namespace nn::rt
