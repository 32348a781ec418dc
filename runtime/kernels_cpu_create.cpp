// The CPU's kernels of the creation and random ops: ramps (arange,
// linspace), the identity (eye), the random fills (rand, randn, randint)
// and dropout's masked scaling. Random kernels draw from the interpreter
// state's generator one element after another, in row-major order, so a
// seeded program gives the same numbers whatever the dtype's kernel.
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
      // arithmetic does) instead of being undefined.
      for (int64_t i = 0; i < n; ++i)
        o[i] = static_cast<int64_t>(static_cast<uint64_t>(r.intStart) +
                                    static_cast<uint64_t>(i) * static_cast<uint64_t>(r.intStep));
      return;
    }
  }
  for (int64_t i = 0; i < n; ++i) o[i] = convertValue<double, T>(r.start + static_cast<double>(i) * r.step);
  if (r.last && n > 1) o[n - 1] = convertValue<double, T>(*r.last);
}

template <class T>
void eyeKernel(Tensor& out) {
  T* o = out.data<T>();
  int64_t n = out.dim(0), m = out.dim(1);
  std::fill(o, o + n * m, T(0));
  for (int64_t i = 0; i < std::min(n, m); ++i) o[i * m + i] = T(1);
}

template <class T>
void uniformKernel(RandomGenerator& rng, Tensor& out) {
  T* o = out.data<T>();
  for (int64_t i = 0, n = out.numel(); i < n; ++i) {
    if constexpr (std::is_same_v<T, float>) o[i] = rng.uniformF32();
    else o[i] = rng.uniformF64();
  }
}

template <class T>
void normalKernel(RandomGenerator& rng, Tensor& out) {
  T* o = out.data<T>();
  for (int64_t i = 0, n = out.numel(); i < n; ++i) o[i] = static_cast<T>(rng.normal());
}

template <class T>
void randintKernel(RandomGenerator& rng, int64_t low, uint64_t range, Tensor& out) {
  T* o = out.data<T>();
  for (int64_t i = 0, n = out.numel(); i < n; ++i)
    o[i] = static_cast<T>(static_cast<int64_t>(static_cast<uint64_t>(low) + rng.below(range)));
}

template <class T>
void randpermKernel(RandomGenerator& rng, Tensor& out) {
  T* o = out.data<T>();
  int64_t n = out.numel();
  for (int64_t i = 0; i < n; ++i) o[i] = static_cast<T>(i);
  for (int64_t i = n - 1; i > 0; --i) std::swap(o[i], o[rng.below(static_cast<uint64_t>(i) + 1)]);
}

template <class T>
void dropoutKernel(const Tensor& x, double p, RandomGenerator& rng, Tensor& out) {
  const T* in = x.data<T>();
  T* o = out.data<T>();
  double scale = p < 1 ? 1.0 / (1.0 - p) : 0.0;
  for (int64_t i = 0, n = out.numel(); i < n; ++i) {
    bool keep = rng.uniformF64() >= p;
    o[i] = keep ? static_cast<T>(in[i] * scale) : T(0);
  }
}

}  // namespace

void registerCpuCreateKernels(KernelTable& t) {
  forEachDType([&](auto type, DType d) {
    using T = decltype(type);
    t.add<ir::Op::Arange>(d, rampKernel<T>);
    t.add<ir::Op::Linspace>(d, rampKernel<T>);
    t.add<ir::Op::Eye>(d, eyeKernel<T>);
  });
  forFloatDTypes([&](auto type, DType d) {
    using T = decltype(type);
    t.add<ir::Op::Rand>(d, uniformKernel<T>);
    t.add<ir::Op::Randn>(d, normalKernel<T>);
    t.add<ir::Op::Dropout>(d, dropoutKernel<T>);
  });
  t.add<ir::Op::Randint>(DType::I32, randintKernel<int32_t>);
  t.add<ir::Op::Randint>(DType::I64, randintKernel<int64_t>);
  t.add<ir::Op::Randperm>(DType::I32, randpermKernel<int32_t>);
  t.add<ir::Op::Randperm>(DType::I64, randpermKernel<int64_t>);
  t.add<ir::Op::Randperm>(DType::F32, randpermKernel<float>);
  t.add<ir::Op::Randperm>(DType::F64, randpermKernel<double>);
}

}  // namespace nn::rt
