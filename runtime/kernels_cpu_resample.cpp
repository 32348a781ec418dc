// The CPU's kernels of interpolate and of its gradient: each plane (an
// [N, C] entry) resampled by resample.h's per-element functions, the
// planes in parallel when the work is large. The gradient adds each
// output's shares into its plane of the f64 dx serially within the plane,
// so its sums are the same on every run.
#include "runtime/kernel_loops.h"

namespace nn::rt {

namespace {

template <class T>
void interpolateKernel(const Tensor& x, const Resample& rows, const Resample& cols, Tensor& out) {
  const T* in = x.data<T>();
  T* o = out.data<T>();
  int64_t inPlane = rows.in * cols.in, outPlane = rows.out * cols.out;
  int64_t planes = inPlane ? x.numel() / inPlane : 0;
  forEachLine(planes, out.numel() >= kParallelThreshold, [&](int64_t p) {
    const T* src = in + p * inPlane;
    T* dst = o + p * outPlane;
    for (int64_t oy = 0; oy < rows.out; ++oy)
      for (int64_t ox = 0; ox < cols.out; ++ox) dst[oy * cols.out + ox] = resampled(src, rows, cols, oy, ox);
  });
}

template <class T>
void interpolateGradKernel(const Tensor& g, const Resample& rows, const Resample& cols, Tensor& dx) {
  const T* in = g.data<T>();
  double* o = dx.data<double>();
  int64_t inPlane = rows.in * cols.in, outPlane = rows.out * cols.out;
  int64_t planes = outPlane ? g.numel() / outPlane : 0;
  forEachLine(planes, g.numel() >= kParallelThreshold, [&](int64_t p) {
    const T* src = in + p * outPlane;
    double* dst = o + p * inPlane;
    auto add = [dst](int64_t at, double share) { dst[at] += share; };
    for (int64_t oy = 0; oy < rows.out; ++oy)
      for (int64_t ox = 0; ox < cols.out; ++ox)
        spreadBack(static_cast<double>(src[oy * cols.out + ox]), rows, cols, oy, ox, add);
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
