// Reductions over axes. The tensor is permuted so that the kept axes come
// first and the reduced ones last (a copy only when that is not already its
// layout), so every output element reduces one contiguous run of memory:
// tight typed loops, split across cores over the outputs when there are
// many, or over the run when there is a single output. Floats accumulate in
// double and integers in int64; max/min propagate NaN as NumPy does.
#include <cmath>
#include <limits>

#include "runtime/kernels.h"
#include "runtime/tensor_ops.h"

namespace nn::rt {

namespace {

struct Result {
  double value = 0;   // sums, products, extrema of floats
  int64_t ivalue = 0; // integer sums/products/extrema, arg indices, all/any
};

template <class T>
Result reduceRun(const T* d, int64_t n, Reduction r) {
  Result res;
  constexpr bool isFloat = std::is_floating_point_v<T>;
  switch (r) {
    case Reduction::Sum:
    case Reduction::Mean: {
      if constexpr (isFloat) {
        double acc = 0;
#pragma omp simd reduction(+ : acc)
        for (int64_t i = 0; i < n; ++i) acc += d[i];
        res.value = acc;
      } else {
        int64_t acc = 0;
#pragma omp simd reduction(+ : acc)
        for (int64_t i = 0; i < n; ++i) acc += d[i];
        res.ivalue = acc;
      }
      break;
    }
    case Reduction::Prod: {
      if constexpr (isFloat) {
        double acc = 1;
        for (int64_t i = 0; i < n; ++i) acc *= d[i];
        res.value = acc;
      } else {
        int64_t acc = 1;
        for (int64_t i = 0; i < n; ++i) acc *= d[i];
        res.ivalue = acc;
      }
      break;
    }
    case Reduction::Max:
    case Reduction::Min:
    case Reduction::ArgMax:
    case Reduction::ArgMin: {
      bool isMax = r == Reduction::Max || r == Reduction::ArgMax;
      int64_t best = 0;
      for (int64_t i = 1; i < n; ++i) {
        if constexpr (isFloat) {
          if (std::isnan(d[best])) break;  // NaN wins and stays
          if (std::isnan(d[i]) || (isMax ? d[i] > d[best] : d[i] < d[best])) best = i;
        } else {
          if (isMax ? d[i] > d[best] : d[i] < d[best]) best = i;
        }
      }
      res.ivalue = r == Reduction::ArgMax || r == Reduction::ArgMin ? best : static_cast<int64_t>(d[best]);
      res.value = static_cast<double>(d[best]);
      break;
    }
    case Reduction::All: {
      bool all = true;
      for (int64_t i = 0; i < n && all; ++i) all = d[i] != T(0);
      res.ivalue = all;
      break;
    }
    case Reduction::Any: {
      bool any = false;
      for (int64_t i = 0; i < n && !any; ++i) any = d[i] != T(0);
      res.ivalue = any;
      break;
    }
  }
  return res;
}

// Sums a long single run on all cores.
template <class T>
Result parallelSum(const T* d, int64_t n) {
  Result res;
  if constexpr (std::is_floating_point_v<T>) {
    double acc = 0;
#pragma omp parallel for simd reduction(+ : acc)
    for (int64_t i = 0; i < n; ++i) acc += d[i];
    res.value = acc;
  } else {
    int64_t acc = 0;
#pragma omp parallel for simd reduction(+ : acc)
    for (int64_t i = 0; i < n; ++i) acc += d[i];
    res.ivalue = acc;
  }
  return res;
}

template <class T>
void reduceAll(const Tensor& p, int64_t outCount, int64_t run, Reduction r, std::vector<Result>& out) {
  const T* d = p.data<T>();
  bool sum = r == Reduction::Sum || r == Reduction::Mean;
  if (outCount == 1 && run >= kParallelThreshold && sum) {
    out[0] = parallelSum(d, run);
    return;
  }
  if (outCount >= 2 && outCount * run >= kParallelThreshold) {
#pragma omp parallel for
    for (int64_t o = 0; o < outCount; ++o) out[o] = reduceRun(d + o * run, run, r);
    return;
  }
  for (int64_t o = 0; o < outCount; ++o) out[o] = reduceRun(d + o * run, run, r);
}

}  // namespace

Tensor reduce(const Tensor& t, Reduction r, std::vector<int64_t> axes, bool keepdims, SourceLoc loc,
              const char* name) {
  int nd = t.ndim();
  std::vector<bool> reduced(nd, axes.empty());
  for (int64_t a : axes) {
    int64_t k = a < 0 ? a + nd : a;
    if (k < 0 || k >= nd)
      fail(loc, std::string(name) + ": axis " + std::to_string(a) + " is out of bounds for " + typeString(t));
    if (reduced[k]) fail(loc, std::string(name) + ": duplicate axis " + std::to_string(a));
    reduced[k] = true;
  }
  bool argReduce = r == Reduction::ArgMax || r == Reduction::ArgMin;
  if (argReduce && axes.size() > 1) fail(loc, std::string(name) + " takes a single axis");
  Shape outShape;
  std::vector<int64_t> perm, keptPerm;
  int64_t run = 1, outCount = 1;
  for (int d = 0; d < nd; ++d) {
    if (reduced[d]) {
      run *= t.dim(d);
      if (keepdims) outShape.push_back(1);
    } else {
      outShape.push_back(t.dim(d));
      outCount *= t.dim(d);
      keptPerm.push_back(d);
    }
  }
  perm = keptPerm;
  for (int d = 0; d < nd; ++d)
    if (reduced[d]) perm.push_back(d);
  if (run == 0 && (r == Reduction::Max || r == Reduction::Min || argReduce))
    fail(loc, std::string(name) + " of an empty tensor");
  DType outType = t.dtype();
  switch (r) {
    case Reduction::Sum:
    case Reduction::Prod: outType = isFloating(t.dtype()) ? t.dtype() : DType::I64; break;
    case Reduction::Mean: outType = isFloating(t.dtype()) ? t.dtype() : DType::F32; break;
    case Reduction::ArgMax:
    case Reduction::ArgMin: outType = DType::I64; break;
    case Reduction::All:
    case Reduction::Any: outType = DType::Bool; break;
    default: break;
  }
  Tensor p = (nd ? transpose(t, perm, loc) : t).contiguous();
  std::vector<Result> results(static_cast<size_t>(outCount));
  switch (p.dtype()) {
    case DType::Bool: reduceAll<bool>(p, outCount, run, r, results); break;
    case DType::I32: reduceAll<int32_t>(p, outCount, run, r, results); break;
    case DType::I64: reduceAll<int64_t>(p, outCount, run, r, results); break;
    case DType::F32: reduceAll<float>(p, outCount, run, r, results); break;
    case DType::F64: reduceAll<double>(p, outCount, run, r, results); break;
  }
  bool intAcc = !isFloating(t.dtype());
  Tensor out = Tensor::empty(outType, outShape, t.device());
  for (int64_t o = 0; o < outCount; ++o) {
    const Result& res = results[o];
    double value = intAcc ? static_cast<double>(res.ivalue) : res.value;
    if (r == Reduction::Mean) value /= static_cast<double>(run);
    if (run == 0 && r == Reduction::Mean) value = std::nan("");
    switch (outType) {
      case DType::Bool: out.data<bool>()[o] = res.ivalue != 0; break;
      case DType::I32: out.data<int32_t>()[o] = static_cast<int32_t>(res.ivalue); break;
      case DType::I64: out.data<int64_t>()[o] = res.ivalue; break;
      case DType::F32: out.data<float>()[o] = static_cast<float>(value); break;
      case DType::F64: out.data<double>()[o] = value; break;
    }
  }
  return out;
}

}  // namespace nn::rt
