// The CPU's kernels of the ops that work along one axis in order or by
// position: the scans (cumsum, cumprod), the stable sort behind sort,
// argsort and topk, and the triangles (tril, triu). A tensor is walked as
// lines along its axis (AxisLines, kernels.h), so one loop serves every
// axis without transposing.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>
#include <vector>

#include "runtime/kernel_loops.h"

namespace nn::rt {

namespace {

template <class T, bool Product>
void scanKernel(const Tensor& x, int axis, bool reverse, Tensor& out) {
  AxisLines lines(x, axis);
  const T* in = x.data<T>();
  T* o = out.data<T>();
  auto scan = [&](int64_t l) {
    int64_t first = lines.start(l);
    // Floats accumulate in double, as PyTorch's CPU scans do, so a running
    // sum of f32 values rounds once per element rather than drifting.
    using Acc = std::conditional_t<std::is_floating_point_v<T>, double, T>;
    Acc acc = Product ? Acc(1) : Acc(0);
    for (int64_t k = 0; k < lines.len; ++k) {
      int64_t i = first + (reverse ? lines.len - 1 - k : k) * lines.inner;
      if constexpr (std::is_integral_v<T>) {
        // Integers wrap on overflow, as their arithmetic does elsewhere.
        using U = std::make_unsigned_t<T>;
        acc = static_cast<T>(Product ? U(acc) * U(in[i]) : U(acc) + U(in[i]));
      } else {
        acc = Product ? acc * in[i] : acc + in[i];
      }
      o[i] = static_cast<T>(acc);
    }
  };
  forEachLine(lines.count(), x.numel() >= kParallelThreshold, scan);
}

// NaN is larger than every number (PyTorch's order): last ascending,
// first descending.
template <class T>
bool before(T a, T b, bool descending) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return descending ? std::isnan(a) && !std::isnan(b) : !std::isnan(a) && std::isnan(b);
  }
  return descending ? b < a : a < b;
}

template <class T>
void sortKernel(const Tensor& x, int axis, bool descending, Tensor& values, Tensor& indices) {
  AxisLines lines(x, axis);
  const T* in = x.data<T>();
  T* v = values.data<T>();
  int64_t* ix = indices.data<int64_t>();
  auto sortLine = [&](int64_t l) {
    thread_local std::vector<int64_t> order;  // reused line after line
    int64_t first = lines.start(l), step = lines.inner;
    order.resize(static_cast<size_t>(lines.len));
    std::iota(order.begin(), order.end(), int64_t{0});
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return before(in[first + a * step], in[first + b * step], descending);
    });
    for (int64_t k = 0; k < lines.len; ++k) {
      v[first + k * step] = in[first + order[k] * step];
      ix[first + k * step] = order[k];
    }
  };
  forEachLine(lines.count(), x.numel() >= kParallelThreshold, sortLine);
}

template <class T>
void triangleKernel(const Tensor& x, int64_t diagonal, bool upper, Tensor& out) {
  int64_t rows = x.dim(x.ndim() - 2), cols = x.dim(x.ndim() - 1);
  int64_t matrices = rows * cols == 0 ? 0 : x.numel() / (rows * cols);
  const T* in = x.data<T>();
  T* o = out.data<T>();
  for (int64_t m = 0; m < matrices; ++m)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        int64_t at = (m * rows + i) * cols + j;
        bool keep = upper ? j - i >= diagonal : j - i <= diagonal;
        o[at] = keep ? in[at] : T(0);
      }
}

}  // namespace

void registerCpuOrderKernels(KernelTable& t) {
  forEachDType([&](auto type, DType d) {
    using T = decltype(type);
    t.add<ir::Op::Sort>(d, sortKernel<T>);
    t.add<ir::Op::Tril>(d, triangleKernel<T>);
    if constexpr (!std::is_same_v<T, bool>) {
      t.add<ir::Op::CumSum>(d, scanKernel<T, false>);
      t.add<ir::Op::CumProd>(d, scanKernel<T, true>);
    }
  });
}

}  // namespace nn::rt
