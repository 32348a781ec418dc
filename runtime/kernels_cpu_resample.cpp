// The CPU's kernels of interpolate and of its gradient: each plane (an
// [N, C] entry) resampled by resample.h's per-element functions, the
// planes in parallel when the work is large. The gradient adds each
// output's shares into its plane of the f64 dx serially within the plane,
// so its sums are the same on every run.
#include <vector>

#include "runtime/kernel_loops.h"

namespace nn::rt {

namespace {

// The taps of every output position of one dimension, computed once per
// call rather than once per element.
std::vector<Tap> tapsOf(const Resample& r) {
  std::vector<Tap> taps(static_cast<size_t>(r.out));
  for (int64_t o = 0; o < r.out; ++o) taps[static_cast<size_t>(o)] = tapOf(r, o);
  return taps;
}

template <bool RowsLinear, bool ColsLinear, class T>
void resamplePlanes(const T* in, const Resample& rows, const Resample& cols, int64_t planes, bool parallel, T* o) {
  int64_t inPlane = rows.in * cols.in, outPlane = rows.out * cols.out;
  std::vector<Tap> rowTaps = tapsOf(rows), colTaps = tapsOf(cols);
  forEachLine(planes, parallel, [&](int64_t p) {
    const T* src = in + p * inPlane;
    T* dst = o + p * outPlane;
    for (int64_t oy = 0; oy < rows.out; ++oy) {
      const Tap& a = rowTaps[static_cast<size_t>(oy)];
      T* line = dst + oy * cols.out;
      for (int64_t ox = 0; ox < cols.out; ++ox)
        line[ox] = blendedIn<RowsLinear, ColsLinear>(src, cols.in, a, colTaps[static_cast<size_t>(ox)]);
    }
  });
}

template <class T>
void interpolateKernel(const Tensor& x, const Resample& rows, const Resample& cols, Tensor& out) {
  int64_t inPlane = rows.in * cols.in;
  int64_t planes = inPlane ? x.numel() / inPlane : 0;
  bool parallel = out.numel() >= kParallelThreshold;
  const T* in = x.data<T>();
  T* o = out.data<T>();
  if (rows.linear && cols.linear) resamplePlanes<true, true>(in, rows, cols, planes, parallel, o);
  else if (cols.linear) resamplePlanes<false, true>(in, rows, cols, planes, parallel, o);
  else if (rows.linear) resamplePlanes<true, false>(in, rows, cols, planes, parallel, o);
  else resamplePlanes<false, false>(in, rows, cols, planes, parallel, o);
}

template <class T>
void interpolateGradKernel(const Tensor& g, const Resample& rows, const Resample& cols, Tensor& dx) {
  const T* in = g.data<T>();
  double* o = dx.data<double>();
  int64_t inPlane = rows.in * cols.in, outPlane = rows.out * cols.out;
  int64_t planes = outPlane ? g.numel() / outPlane : 0;
  std::vector<Tap> rowTaps = tapsOf(rows), colTaps = tapsOf(cols);
  forEachLine(planes, g.numel() >= kParallelThreshold, [&](int64_t p) {
    const T* src = in + p * outPlane;
    double* dst = o + p * inPlane;
    auto add = [dst](int64_t at, double share) { dst[at] += share; };
    for (int64_t oy = 0; oy < rows.out; ++oy) {
      const Tap& a = rowTaps[static_cast<size_t>(oy)];
      for (int64_t ox = 0; ox < cols.out; ++ox)
        spreadBack(static_cast<double>(src[oy * cols.out + ox]), cols.in, a, colTaps[static_cast<size_t>(ox)],
                   rows.linear, cols.linear, add);
    }
  });
}

}  // namespace

void registerCpuResampleKernels(KernelTable& t) {
  forEachDType([&](auto type, DType d) {
    using T = decltype(type);
    t.add<ir::Op::Interpolate>(d, interpolateKernel<T>);
    if constexpr (std::is_floating_point_v<T>) t.add<ir::Op::InterpolateGrad>(d, interpolateGradKernel<T>);
  });
}

}  // namespace nn::rt
