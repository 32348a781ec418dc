// The CUDA plugin's kernels (cuda_kernels.h): elementwise, comparisons,
// where, fills and conversions as grid-stride loops over the output, each
// operand read through its strides, so broadcast operands need no copy;
// sums, softmax and the loss as one block per output row with a tree in
// shared memory (sums accumulate in double, as the CPU's). Each element is
// computed by element_math.h, as the CPU kernels compute it.
#include "runtime/cuda/cuda_kernels.h"
#include "runtime/cuda/cuda_loops.cuh"
#include "runtime/cuda/element_math.h"

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <type_traits>

namespace nn::rt::cuda {
namespace {

template <class T>
__global__ void binaryKernel(Binary op, const T* a, Strided sa, const T* b, Strided sb, T* out, Strided at, int64_t n,
                             int* fault) {
  GRID_STRIDE(i, n)
    out[i] = applyBinary<T>(op, a[offsetOf(i, at, sa)], b[offsetOf(i, at, sb)], fault);
}

template <class T>
__global__ void unaryKernel(Unary op, const T* a, Strided sa, T* out, Strided at, int64_t n) {
  GRID_STRIDE(i, n)
    out[i] = applyUnary<T>(op, a[offsetOf(i, at, sa)]);
}

template <class T>
__global__ void predicateKernel(Predicate op, const T* a, Strided sa, bool* out, Strided at, int64_t n) {
  GRID_STRIDE(i, n) {
    out[i] = classify<T>(op, a[offsetOf(i, at, sa)]);
  }
}

template <class T>
__global__ void compareKernel(Compare op, const T* a, Strided sa, const T* b, Strided sb, bool* out, Strided at,
                              int64_t n) {
  GRID_STRIDE(i, n) out[i] = applyCompare<T>(op, a[offsetOf(i, at, sa)], b[offsetOf(i, at, sb)]);
}

template <class T>
__global__ void whereKernel(const bool* c, Strided sc, const T* x, Strided sx, const T* y, Strided sy, T* out,
                            Strided at, int64_t n) {
  GRID_STRIDE(i, n)
    out[i] = c[offsetOf(i, at, sc)] ? x[offsetOf(i, at, sx)] : y[offsetOf(i, at, sy)];
}

template <class T>
__global__ void fillKernel(T* out, int64_t n, T value) {
  GRID_STRIDE(i, n) out[i] = value;
}

template <class S, class D>
__global__ void convertKernel(const S* src, Strided ss, D* dst, Strided sd, Strided at, int64_t n) {
  GRID_STRIDE(i, n) dst[offsetOf(i, at, sd)] = convertValue<S, D>(src[offsetOf(i, at, ss)]);
}

// One block per row of `n` elements `inner` apart: the maximum (a NaN
// wins), the sum of exponentials, then each output, in double.
template <class T>
__global__ void softmaxKernel(const T* x, int64_t n, int64_t inner, T* out, bool log) {
  __shared__ double top[kThreads];
  __shared__ double total[kThreads];
  int64_t row = blockIdx.x;
  int64_t base = (row / inner) * n * inner + row % inner;
  double m = -INFINITY;
  for (int64_t k = threadIdx.x; k < n; k += blockDim.x) {
    double v = x[base + k * inner];
    m = (v > m || v != v) ? v : m;
  }
  top[threadIdx.x] = m;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) {
      double o = top[threadIdx.x + stride];
      if (o > top[threadIdx.x] || o != o) top[threadIdx.x] = o;
    }
    __syncthreads();
  }
  m = top[0];
  if (isinf(m)) m = 0.0;  // all -inf (or +inf): the arithmetic gives NaN or 0, as on the CPU
  double acc = 0.0;
  for (int64_t k = threadIdx.x; k < n; k += blockDim.x) acc += exp(static_cast<double>(x[base + k * inner]) - m);
  total[threadIdx.x] = acc;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) total[threadIdx.x] += total[threadIdx.x + stride];
    __syncthreads();
  }
  double lse = m + ::log(total[0]);
  bool nan = m != m;
  for (int64_t k = threadIdx.x; k < n; k += blockDim.x) {
    double v = x[base + k * inner];
    T r = static_cast<T>(log ? v - lse : exp(v - lse));
    out[base + k * inner] = nan ? T(NAN) : r;
  }
}

// A partial reduction: the value so far (as double, or as int64 for
// integers) and, for max and min, the index where it is.
struct Partial {
  double f;
  int64_t i;
  int64_t at;
};

// Whether partial b replaces a (max/min and their arg forms: the better
// value, a NaN first, the lower index among equals).
__device__ bool better(bool isMax, bool isFloat, const Partial& a, const Partial& b) {
  if (b.at < 0) return false;
  if (a.at < 0) return true;
  if (isFloat) {
    bool an = a.f != a.f, bn = b.f != b.f;
    if (an || bn) return bn && (!an || b.at < a.at);
    if (a.f == b.f) return b.at < a.at;
    return isMax ? b.f > a.f : b.f < a.f;
  }
  if (a.i == b.i) return b.at < a.at;
  return isMax ? b.i > a.i : b.i < a.i;
}

__device__ Partial combine(Reduce op, bool isFloat, Partial a, const Partial& b) {
  switch (op) {
    case Reduce::Prod:
      if (isFloat) a.f *= b.f;
      else a.i = static_cast<int64_t>(static_cast<uint64_t>(a.i) * static_cast<uint64_t>(b.i));
      return a;
    case Reduce::All: a.i = a.i && b.i; return a;
    case Reduce::Any: a.i = a.i || b.i; return a;
    default: {
      bool isMax = op == Reduce::Max || op == Reduce::ArgMax;
      return better(isMax, isFloat, a, b) ? b : a;
    }
  }
}

template <class T>
__global__ void reduceKernel(Reduce op, const T* x, int64_t run, Partial* out) {
  __shared__ Partial part[kThreads];
  constexpr bool isFloat = std::is_floating_point<T>::value;
  const T* row = x + blockIdx.x * run;
  Partial acc{op == Reduce::Prod ? 1.0 : 0.0, op == Reduce::Prod || op == Reduce::All ? 1 : 0, -1};
  if (op == Reduce::Prod || op == Reduce::All || op == Reduce::Any) acc.at = 0;
  for (int64_t k = threadIdx.x; k < run; k += blockDim.x) {
    T v = row[k];
    Partial p{static_cast<double>(v), static_cast<int64_t>(v), k};
    if (op == Reduce::All || op == Reduce::Any) p.i = v != T(0);
    acc = combine(op, isFloat, acc, p);
  }
  part[threadIdx.x] = acc;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) part[threadIdx.x] = combine(op, isFloat, part[threadIdx.x], part[threadIdx.x + stride]);
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = part[0];
}

// The partials written out in the result's dtype.
template <class D>
__global__ void storeKernel(Reduce op, bool isFloat, const Partial* in, int64_t n, D* out) {
  GRID_STRIDE(i, n) {
    const Partial& p = in[i];
    if (op == Reduce::ArgMax || op == Reduce::ArgMin) out[i] = static_cast<D>(p.at);
    else if (op == Reduce::All || op == Reduce::Any) out[i] = static_cast<D>(p.i != 0);
    else out[i] = isFloat ? static_cast<D>(p.f) : static_cast<D>(p.i);
  }
}

// One block: the picked log-probabilities summed in double; the first bad
// row (by index) kept in *badRow.
// Rows labelled `ignore` are left out of the sum and of the count.
template <class T>
__global__ void crossEntropyKernel(const T* lp, const int64_t* labels, int64_t rows, int64_t classes, int64_t ignore,
                                   T* out, unsigned long long* badRow) {
  __shared__ double total[kThreads];
  __shared__ int64_t counts[kThreads];
  double acc = 0.0;
  int64_t counted = 0;
  for (int64_t i = threadIdx.x; i < rows; i += blockDim.x) {
    int64_t l = labels[i];
    if (l == ignore) continue;
    if (l < 0 || l >= classes) {
      atomicMin(badRow, static_cast<unsigned long long>(i));
    } else {
      acc -= static_cast<double>(lp[i * classes + l]);
      ++counted;
    }
  }
  total[threadIdx.x] = acc;
  counts[threadIdx.x] = counted;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) {
      total[threadIdx.x] += total[threadIdx.x + stride];
      counts[threadIdx.x] += counts[threadIdx.x + stride];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = static_cast<T>(counts[0] ? total[0] / static_cast<double>(counts[0]) : NAN);
}

// One block: the rows not labelled `ignore`, into *count.
__global__ void countedRowsKernel(const int64_t* labels, int64_t rows, int64_t ignore, int64_t* count) {
  __shared__ int64_t counts[kThreads];
  int64_t counted = 0;
  for (int64_t i = threadIdx.x; i < rows; i += blockDim.x) counted += labels[i] != ignore;
  counts[threadIdx.x] = counted;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) counts[threadIdx.x] += counts[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) *count = counts[0];
}

template <class L>
__global__ void oneHotKernel(const L* labels, int64_t m, int64_t classes, int64_t* out, unsigned long long* badRow) {
  GRID_STRIDE(i, m) {
    int64_t c = static_cast<int64_t>(labels[i]);
    if (c < 0 || c >= classes) atomicMin(badRow, static_cast<unsigned long long>(i));
    else out[i * classes + c] = 1;
  }
}

// The label of the first bad row a kernel recorded in `badRow`, after
// waiting for the stream; false when there is none.
template <class L>
bool firstBad(const Scratch& badRow, const L* labels, int64_t& bad, cudaStream_t s) {
  unsigned long long row = readBack(badRow.as<unsigned long long>(), s);
  if (row == ~0ull) return false;
  bad = static_cast<int64_t>(readBack(labels + row, s));
  return true;
}

// Where a kernel records its first bad row: no row yet (all ones).
void noBadRow(const Scratch& badRow, cudaStream_t s) {
  cudaMemsetAsync(badRow.as<void>(), 0xff, sizeof(unsigned long long), s);
}

// One block per output element: its threads add strided shares of its
// outer * run values (floats in double, integers and bools in wrapping
// int64, as the CPU kernel accumulates), then a tree in shared memory; the
// result stored in D as the CPU's store() does.
template <class T, class D>
__global__ void sumKernel(const T* in, int64_t outer, int64_t outputs, int64_t run, D* out, bool mean) {
  constexpr bool isFloat = std::is_floating_point<T>::value;
  using Acc = typename std::conditional<isFloat, double, unsigned long long>::type;
  __shared__ Acc partial[kThreads];
  int64_t o = blockIdx.x;
  int64_t total = outer * run;
  Acc acc = 0;
  for (int64_t k = threadIdx.x; k < total; k += blockDim.x) {
    int64_t block = k / run, j = k % run;
    T v = in[(block * outputs + o) * run + j];
    if constexpr (isFloat) acc += v;
    else acc += static_cast<Acc>(static_cast<int64_t>(v));
  }
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x != 0) return;
  double value = isFloat ? static_cast<double>(partial[0]) : static_cast<double>(static_cast<int64_t>(partial[0]));
  if (mean) value /= static_cast<double>(total);
  int64_t ivalue = static_cast<int64_t>(partial[0]);
  if constexpr (std::is_same<D, bool>::value) out[o] = ivalue != 0;
  else if constexpr (std::is_integral<D>::value) out[o] = static_cast<D>(ivalue);
  else out[o] = static_cast<D>(value);
}

// Integer matrix products, one output element per thread, wrapping.
template <class T>
__global__ void integerMatmulKernel(const T* a, int64_t am, int64_t ak, const T* b, int64_t bk, int64_t bn, T* out,
                                    int64_t m, int64_t k, int64_t n) {
  using U = typename std::make_unsigned<T>::type;
  GRID_STRIDE(at, m * n) {
    int64_t i = at / n, j = at % n;
    U acc = 0;
    for (int64_t q = 0; q < k; ++q) acc += static_cast<U>(a[i * am + q * ak]) * static_cast<U>(b[q * bk + j * bn]);
    out[at] = static_cast<T>(acc);
  }
}

}  // namespace

bool binary(Binary op, Elem type, const void* a, const Strided& sa, const void* b, const Strided& sb, void* out,
            const Strided& at, int64_t n, cudaStream_t s) {
  bool integral = type == Elem::I32 || type == Elem::I64;
  bool mayFault = integral && (op == Binary::FloorDiv || op == Binary::Mod || op == Binary::Fmod || op == Binary::Pow);
  Scratch fault(mayFault ? sizeof(int) : 0, s);
  if (mayFault) cudaMemsetAsync(fault.as<int>(), 0, sizeof(int), s);
  withElem(type, [&](auto e) {
    using T = decltype(e);
    binaryKernel<T><<<blocksFor(n), kThreads, 0, s>>>(op, static_cast<const T*>(a), sa, static_cast<const T*>(b), sb,
                                                      static_cast<T*>(out), at, n, fault.as<int>());
  });
  launched("elementwise kernel");
  if (!mayFault) return true;
  return readBack(fault.as<int>(), s) == 0;
}

void unary(Unary op, Elem type, const void* a, const Strided& sa, void* out, const Strided& at, int64_t n,
           cudaStream_t s) {
  withElem(type, [&](auto e) {
    using T = decltype(e);
    unaryKernel<T><<<blocksFor(n), kThreads, 0, s>>>(op, static_cast<const T*>(a), sa, static_cast<T*>(out), at, n);
  });
  launched("elementwise kernel");
}

void predicate(Predicate op, Elem type, const void* a, const Strided& sa, bool* out, const Strided& at, int64_t n,
               cudaStream_t s) {
  withElem(type, [&](auto e) {
    using T = decltype(e);
    predicateKernel<T><<<blocksFor(n), kThreads, 0, s>>>(op, static_cast<const T*>(a), sa, out, at, n);
  });
  launched("elementwise kernel");
}

void fill(Elem type, void* out, int64_t n, double value, cudaStream_t s) {
  withElem(type, [&](auto t) {
    using T = decltype(t);
    T v;
    if constexpr (std::is_same<T, bool>::value) v = value != 0.0;
    else if constexpr (std::is_integral<T>::value)
      v = value != value ? T(0)
          : value >= static_cast<double>(std::numeric_limits<T>::max()) ? std::numeric_limits<T>::max()
          : value <= static_cast<double>(std::numeric_limits<T>::min()) ? std::numeric_limits<T>::min()
                                                                        : static_cast<T>(value);
    else v = static_cast<T>(value);
    fillKernel<T><<<blocksFor(n), kThreads, 0, s>>>(static_cast<T*>(out), n, v);
  });
  launched("fill kernel");
}

void compare(Compare op, Elem type, const void* a, const Strided& sa, const void* b, const Strided& sb, bool* out,
             const Strided& at, int64_t n, cudaStream_t s) {
  withElem(type, [&](auto e) {
    using T = decltype(e);
    compareKernel<T><<<blocksFor(n), kThreads, 0, s>>>(op, static_cast<const T*>(a), sa, static_cast<const T*>(b), sb,
                                                       out, at, n);
  });
  launched("comparison kernel");
}

void where(const bool* cond, const Strided& sc, Elem type, const void* x, const Strided& sx, const void* y,
           const Strided& sy, void* out, const Strided& at, int64_t n, cudaStream_t s) {
  withElem(type, [&](auto e) {
    using T = decltype(e);
    whereKernel<T><<<blocksFor(n), kThreads, 0, s>>>(cond, sc, static_cast<const T*>(x), sx, static_cast<const T*>(y),
                                                     sy, static_cast<T*>(out), at, n);
  });
  launched("where kernel");
}

void convert(Elem from, const void* src, const Strided& ss, Elem to, void* dst, const Strided& sd, int64_t n,
             cudaStream_t s) {
  withElem(from, [&](auto f) {
    using S = decltype(f);
    withElem(to, [&](auto t) {
      using D = decltype(t);
      convertKernel<S, D><<<blocksFor(n), kThreads, 0, s>>>(static_cast<const S*>(src), ss, static_cast<D*>(dst), sd,
                                                             sd, n);
    });
  });
  launched("conversion kernel");
}

void reduce(Reduce op, Elem from, const void* x, int64_t outputs, int64_t run, Elem to, void* out, cudaStream_t s) {
  if (outputs <= 0) return;
  Scratch partials(static_cast<size_t>(outputs) * sizeof(Partial), s);
  bool isFloat = from == Elem::F32 || from == Elem::F64;
  withElem(from, [&](auto e) {
    using T = decltype(e);
    reduceKernel<T><<<static_cast<unsigned>(outputs), kThreads, 0, s>>>(op, static_cast<const T*>(x), run,
                                                                        partials.as<Partial>());
  });
  launched("reduction kernel");
  withElem(to, [&](auto e) {
    using D = decltype(e);
    storeKernel<D><<<blocksFor(outputs), kThreads, 0, s>>>(op, isFloat, partials.as<Partial>(), outputs,
                                                           static_cast<D*>(out));
  });
  launched("reduction kernel");
}

void softmax(Elem type, const void* x, int64_t outer, int64_t n, int64_t inner, void* out, bool log, cudaStream_t s) {
  int64_t rows = outer * inner;
  if (rows <= 0 || n <= 0) return;
  if (type == Elem::F64)
    softmaxKernel<double><<<static_cast<unsigned>(rows), kThreads, 0, s>>>(static_cast<const double*>(x), n, inner,
                                                                           static_cast<double*>(out), log);
  else
    softmaxKernel<float><<<static_cast<unsigned>(rows), kThreads, 0, s>>>(static_cast<const float*>(x), n, inner,
                                                                          static_cast<float*>(out), log);
  launched("softmax kernel");
}

bool crossEntropy(Elem type, const void* logProbs, const int64_t* labels, int64_t rows, int64_t classes,
                  int64_t ignore, void* out, int64_t& bad, cudaStream_t s) {
  Scratch badRow(sizeof(unsigned long long), s);
  noBadRow(badRow, s);
  if (type == Elem::F64)
    crossEntropyKernel<double><<<1, kThreads, 0, s>>>(static_cast<const double*>(logProbs), labels, rows, classes,
                                                      ignore, static_cast<double*>(out),
                                                      badRow.as<unsigned long long>());
  else
    crossEntropyKernel<float><<<1, kThreads, 0, s>>>(static_cast<const float*>(logProbs), labels, rows, classes,
                                                     ignore, static_cast<float*>(out), badRow.as<unsigned long long>());
  launched("cross_entropy kernel");
  return !firstBad(badRow, labels, bad, s);
}

// cross_entropy's gradient after softmax: one thread per element; g / M in
// the element's type, as the CPU's computes it (M the rows counted); an
// ignored row 0.
template <class T>
__global__ void crossEntropyGradKernel(const T* g, const int64_t* labels, int64_t classes, int64_t ignore,
                                       const int64_t* counted, T* p, int64_t n) {
  GRID_STRIDE(i, n) {
    int64_t label = labels[i / classes];
    T v = p[i];
    if (label == i % classes) v -= T(1);
    p[i] = label == ignore ? T(0) : v * (g[0] / static_cast<T>(*counted));
  }
}

void crossEntropyGrad(Elem type, const void* g, const int64_t* labels, int64_t rows, int64_t classes, int64_t ignore,
                      void* p, cudaStream_t s) {
  int64_t n = rows * classes;
  if (n <= 0) return;
  Scratch counted(sizeof(int64_t), s);
  countedRowsKernel<<<1, kThreads, 0, s>>>(labels, rows, ignore, counted.as<int64_t>());
  launched("counted rows kernel");
  if (type == Elem::F64)
    crossEntropyGradKernel<double><<<blocksFor(n), kThreads, 0, s>>>(
        static_cast<const double*>(g), labels, classes, ignore, counted.as<int64_t>(), static_cast<double*>(p), n);
  else
    crossEntropyGradKernel<float><<<blocksFor(n), kThreads, 0, s>>>(
        static_cast<const float*>(g), labels, classes, ignore, counted.as<int64_t>(), static_cast<float*>(p), n);
  launched("cross_entropy_grad kernel");
}

bool oneHot(const void* labels, bool wide, int64_t m, int64_t classes, int64_t* out, int64_t& bad, cudaStream_t s) {
  Scratch badRow(sizeof(unsigned long long), s);
  noBadRow(badRow, s);
  auto run = [&](auto* typed) {
    if (m > 0) oneHotKernel<<<blocksFor(m), kThreads, 0, s>>>(typed, m, classes, out, badRow.as<unsigned long long>());
    launched("one_hot kernel");
    return !firstBad(badRow, typed, bad, s);
  };
  return wide ? run(static_cast<const int64_t*>(labels)) : run(static_cast<const int32_t*>(labels));
}

void sum(Elem from, const void* in, int64_t outer, int64_t outputs, int64_t run, Elem to, void* out, bool mean,
         cudaStream_t s) {
  if (outputs <= 0) return;
  withElem(from, [&](auto f) {
    using T = decltype(f);
    withElem(to, [&](auto t) {
      using D = decltype(t);
      sumKernel<T, D><<<static_cast<unsigned>(outputs), kThreads, 0, s>>>(static_cast<const T*>(in), outer, outputs,
                                                                          run, static_cast<D*>(out), mean);
    });
  });
  launched("sum kernel");
}

void integerMatmul(Elem type, const void* a, int64_t am, int64_t ak, const void* b, int64_t bk, int64_t bn, void* out,
                   int64_t m, int64_t k, int64_t n, cudaStream_t s) {
  if (m * n <= 0) return;
  if (type == Elem::I64)
    integerMatmulKernel<int64_t><<<blocksFor(m * n), kThreads, 0, s>>>(
        static_cast<const int64_t*>(a), am, ak, static_cast<const int64_t*>(b), bk, bn, static_cast<int64_t*>(out), m,
        k, n);
  else
    integerMatmulKernel<int32_t><<<blocksFor(m * n), kThreads, 0, s>>>(
        static_cast<const int32_t*>(a), am, ak, static_cast<const int32_t*>(b), bk, bn, static_cast<int32_t*>(out), m,
        k, n);
  launched("matmul kernel");
}

}  // namespace nn::rt::cuda
