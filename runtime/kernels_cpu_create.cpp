// The CPU's kernels of the creation ops: ramps (arange, linspace) and the
// identity (eye); the random ones are kernels_cpu_random.cpp's.
#include "runtime/kernel_loops.h"

namespace nn::rt {

namespace {

template <class T>
void rampKernel(const Ramp& r, Tensor& out) {
  T* o = out.data<T>();
  int64_t n = out.numel();
  if constexpr (std::is_same_v<T, int64_t>) {
    if (r.exact) {
      // In uint64, so that a ramp leaving the i64 range wraps (as i64
      // arithmetic does) instead of being undefined; stepped as an
      // induction (a vector add: x86 has no packed 64-bit multiply before
      // AVX-512), to the same values.
      forEachSpan(n, [&](int64_t begin, int64_t end) {
        uint64_t step = static_cast<uint64_t>(r.intStep);
        uint64_t v = static_cast<uint64_t>(r.intStart) + static_cast<uint64_t>(begin) * step;
        for (int64_t i = begin; i < end; ++i, v += step) o[i] = static_cast<int64_t>(v);
      });
      return;
    }
  }
  // i as double(begin) + double(j), j an int32 within the span: the same
  // exact integer, but converted packed (x86 has no packed int64 to double
  // before AVX-512), so the loop vectorises.
  forEachSpan(n, [&](int64_t begin, int64_t end) {
    double base = static_cast<double>(begin);
    T* out = o + begin;
    for (int32_t j = 0, len = static_cast<int32_t>(end - begin); j < len; ++j)
      out[j] = convertValue<double, T>(r.start + (base + static_cast<double>(j)) * r.step);
  });
  if (r.last && n > 1) o[n - 1] = convertValue<double, T>(*r.last);
}

template <class T>
void eyeKernel(Tensor& out) {
  T* o = out.data<T>();
  int64_t n = out.dim(0), m = out.dim(1);
  std::fill(o, o + n * m, T(0));
  for (int64_t i = 0; i < std::min(n, m); ++i) o[i * m + i] = T(1);
}

}  // namespace

void registerCpuCreateKernels(KernelTable& t) {
  forEachDType([&](auto type, DType d) {
    using T = decltype(type);
    t.add<ir::Op::Arange>(d, rampKernel<T>);
    t.add<ir::Op::Linspace>(d, rampKernel<T>);
    t.add<ir::Op::Eye>(d, eyeKernel<T>);
  });
}

}  // namespace nn::rt
