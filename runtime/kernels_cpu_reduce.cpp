// The CPU's reduction kernels (sum, mean, prod, max, min, argmax, argmin,
// all, any): each output reduces one contiguous run of the input (the
// front end in tensor_reduce.cpp permutes the reduced axes last), and for
// sum and mean also the same run of several leading blocks, in tight
// typed loops, split across cores over the outputs when there are many, or
// over the run when there is a single output. Floats accumulate in double,
// summed in sum_order.h's order, and integers in int64; max/min propagate
// NaN as NumPy does.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "runtime/device.h"
#include "runtime/kernel_loops.h"
#include "runtime/kernels.h"
#include "runtime/sum_order.h"
#include "runtime/tensor_ops.h"

namespace nn::rt {

namespace {

struct Result {
  double value = 0;   // sums, products, extrema of floats
  int64_t ivalue = 0; // integer sums/products/extrema, arg indices, all/any
};

// The first i < n with d[i] == v, which is there: 16 elements tested at
// once (vectorised), then one by one within the block that has it.
template <class T>
int64_t firstEqual(const T* d, int64_t n, T v) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    int hit = 0;
#pragma omp simd reduction(| : hit)
    for (int k = 0; k < 16; ++k) hit |= d[i + k] == v;
    if (hit) break;
  }
  while (d[i] != v) ++i;
  return i;
}

// The element a scan from the front keeps as the largest (smallest) of
// n > 0, and its index when `index`: the first NaN, else the first of the
// largest, where only +0 and -0 are equal with other bits (max of [-0.0,
// 0.0] is -0.0). The JIT's folds scan so (jit/reduction_codegen.cpp). Found
// without the scan's branch per element: the extremum of lanes of running
// extrema (vectorised; NaNs counted), then, where the index or a zero's
// sign is wanted, the first element equal to it, or the first NaN.
template <class T, bool Max>
int64_t extremumOf(const T* d, int64_t n, bool index, T& value) {
  T m = d[0];
  int64_t nans = 0;
  if constexpr (Max) {
#pragma omp simd reduction(max : m) reduction(+ : nans)
    for (int64_t i = 0; i < n; ++i) {
      m = d[i] > m ? d[i] : m;
      if constexpr (std::is_floating_point_v<T>) nans += d[i] != d[i];
    }
  } else {
#pragma omp simd reduction(min : m) reduction(+ : nans)
    for (int64_t i = 0; i < n; ++i) {
      m = d[i] < m ? d[i] : m;
      if constexpr (std::is_floating_point_v<T>) nans += d[i] != d[i];
    }
  }
  int64_t i = 0;
  if (nans) {
    while (d[i] == d[i]) ++i;
  } else if (index || (std::is_floating_point_v<T> && m == T(0))) {
    i = firstEqual(d, n, m);
  } else {
    value = m;
    return -1;
  }
  value = d[i];
  return i;
}

template <class T>
Result reduceRun(const T* d, int64_t n, Reduction r) {
  Result res;
  constexpr bool isFloat = std::is_floating_point_v<T>;
  switch (r) {
    case Reduction::Sum:
    case Reduction::Mean: {
      if constexpr (isFloat) {
        // The order fused kernels add in too (sum_order.h).
        res.value = runSum(d, n);
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
        auto times = [](double a, double b) { return a * b; };
        res.value = laneFold(d, n, 1.0, times, times);
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
      bool arg = r == Reduction::ArgMax || r == Reduction::ArgMin;
      T value;
      int64_t best = isMax ? extremumOf<T, true>(d, n, arg, value) : extremumOf<T, false>(d, n, arg, value);
      // The int value of a float extremum is never read (and NaN has none).
      if (arg) res.ivalue = best;
      else if constexpr (!isFloat) res.ivalue = static_cast<int64_t>(value);
      res.value = static_cast<double>(value);
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

// Sums a long single run on all cores: a float run's chunks in parallel,
// added in order (sum_order.h's order, whatever the number of threads).
template <class T>
Result parallelSum(const T* d, int64_t n) {
  Result res;
  if constexpr (std::is_floating_point_v<T>) {
    res.value = sumOfChunks(n, true, [&](int64_t begin, int64_t end) { return chunkSum(d + begin, end - begin); });
  } else {
    int64_t acc = 0;
#pragma omp parallel for simd reduction(+ : acc)
    for (int64_t i = 0; i < n; ++i) acc += d[i];
    res.ivalue = acc;
  }
  return res;
}

// max, min, argmax or argmin of a long single run on all cores: each
// thread's share gives the scan's answer over it (extremumOf), and the
// answers combine in share order as the scan goes: the first NaN stays,
// else a later answer only replaces a smaller (larger) one.
template <class T>
Result parallelExtremum(const T* d, int64_t n, Reduction r) {
  bool isMax = r == Reduction::Max || r == Reduction::ArgMax;
  int most = omp_get_max_threads(), used = 1;
  std::vector<int64_t> found(static_cast<size_t>(most), -1);
#pragma omp parallel num_threads(most)
  {
    int nt = omp_get_num_threads(), t = omp_get_thread_num();
    if (t == 0) used = nt;
    int64_t lo = n * t / nt, hi = n * (t + 1) / nt;
    T value;
    if (lo < hi)
      found[t] = lo + (isMax ? extremumOf<T, true>(d + lo, hi - lo, true, value)
                             : extremumOf<T, false>(d + lo, hi - lo, true, value));
  }
  int64_t best = -1;
  for (int t = 0; t < used; ++t) {
    int64_t i = found[t];
    if (i < 0) continue;
    if (best >= 0 && d[best] != d[best]) break;
    if (best < 0 || d[i] != d[i] || (isMax ? d[i] > d[best] : d[i] < d[best])) best = i;
  }
  Result res;
  if (r == Reduction::ArgMax || r == Reduction::ArgMin) res.ivalue = best;
  else if constexpr (!std::is_floating_point_v<T>) res.ivalue = static_cast<int64_t>(d[best]);
  res.value = static_cast<double>(d[best]);
  return res;
}

template <class T>
void reduceAll(const T* d, int64_t outCount, int64_t run, Reduction r, std::vector<Result>& out) {
  bool sum = r == Reduction::Sum || r == Reduction::Mean;
  bool extremum = r == Reduction::Max || r == Reduction::Min || r == Reduction::ArgMax || r == Reduction::ArgMin;
  if (outCount == 1 && run >= kParallelThreshold && sum) {
    out[0] = parallelSum(d, run);
    return;
  }
  if (outCount == 1 && run >= kParallelThreshold && extremum) {
    out[0] = parallelExtremum(d, run, r);
    return;
  }
  if (outCount >= 2 && outCount * run >= kParallelThreshold) {
#pragma omp parallel for
    for (int64_t o = 0; o < outCount; ++o) out[o] = reduceRun(d + o * run, run, r);
    return;
  }
  for (int64_t o = 0; o < outCount; ++o) out[o] = reduceRun(d + o * run, run, r);
}

// Writes output o: `value` for a float result, `ivalue` for an integer
// or bool one.
void store(Tensor& out, int64_t o, double value, int64_t ivalue) {
  switch (out.dtype()) {
    case DType::Bool: out.data<bool>()[o] = ivalue != 0; break;
    case DType::I32: out.data<int32_t>()[o] = static_cast<int32_t>(ivalue); break;
    case DType::I64: out.data<int64_t>()[o] = ivalue; break;
    case DType::F32: out.data<float>()[o] = static_cast<float>(value); break;
    case DType::F64: out.data<double>()[o] = value; break;
  }
}

template <Reduction R, class T>
void reduceKernel(const Tensor& in, int64_t run, Tensor& out) {
  int64_t outCount = out.numel();
  std::vector<Result> results(static_cast<size_t>(outCount));
  reduceAll(storedData<T>(in), outCount, run, R, results);
  constexpr bool intAcc = !std::is_floating_point_v<T>;
  for (int64_t o = 0; o < outCount; ++o) {
    const Result& res = results[o];
    double value = intAcc ? static_cast<double>(res.ivalue) : res.value;
    if constexpr (R == Reduction::Mean) value = run ? value / static_cast<double>(run) : std::nan("");
    store(out, o, value, res.ivalue);
  }
}

// Adds to acc[k - k0], for k in [k0, k1), the sums of run k of blocks
// [a0, a1): with run 1 a row at a time, so the inner loop is contiguous.
template <class T, class Acc>
void accumulateBlocks(const T* d, int64_t count, int64_t run, int64_t a0, int64_t a1, int64_t k0, int64_t k1,
                      Acc* acc) {
  for (int64_t a = a0; a < a1; ++a) {
    const T* block = d + a * count * run;
    if (run == 1) {
#pragma omp simd
      for (int64_t k = k0; k < k1; ++k) acc[k - k0] += block[k];
    } else {
      for (int64_t k = k0; k < k1; ++k) {
        if constexpr (std::is_floating_point_v<Acc>) {
          acc[k - k0] += runSum(block + k * run, run);
        } else {
          Acc s = 0;
#pragma omp simd reduction(+ : s)
          for (int64_t i = 0; i < run; ++i) s += block[k * run + i];
          acc[k - k0] += s;
        }
      }
    }
  }
}

// The sums of the `count` columns of `outer` rows (d[a * count + k]) into
// sums[k], each in sum_order.h's order over its column (the bits runSum
// gives that column copied out): per chunk of kSumChunk rows, sixteen lanes
// of rows (row a into lane a % 16, a tile of columns at once: vectorised
// across them), the lanes added pairwise, then the chunk's last rows in
// order; the chunks' sums added in order. Tasks are a tile of columns in
// one chunk, on all cores when `parallel` (any split gives the same bits).
template <class T>
void columnSums(const T* d, int64_t outer, int64_t count, bool parallel, double* sums) {
  constexpr int64_t kTile = kColumnTile;
  int64_t tiles = (count + kTile - 1) / kTile, chunks = (outer + kSumChunk - 1) / kSumChunk;
  std::vector<double> partial(static_cast<size_t>(chunks * count));
  forEachLine(tiles * chunks, parallel, [&](int64_t task) {
    int64_t k0 = task % tiles * kTile, width = std::min(kTile, count - k0);
    int64_t a0 = task / tiles * kSumChunk, a1 = std::min(outer, a0 + kSumChunk);
    columnTileSums(d + k0, count, a0, a1, width, partial.data() + a0 / kSumChunk * count + k0);
  });
  std::fill_n(sums, count, 0.0);
  for (int64_t c = 0; c < chunks; ++c)
    for (int64_t k = 0; k < count; ++k) sums[k] += partial[static_cast<size_t>(c * count + k)];
}

// Sum or mean over `outer` blocks of out.numel() runs (KernelFor<Sum>):
// a single output is one run (reduceKernel); float outputs of one element
// per block are columns (columnSums: each in sum_order.h's order); others
// add their blocks' runs (each run's sum in that order) in block order,
// split across cores over the outputs when there are enough of them, else
// over groups of blocks with partial sums, combined at the end.
template <Reduction R, class T>
void sumKernel(const Tensor& in, int64_t outer, int64_t run, Tensor& out) {
  // One output: its blocks are one contiguous run.
  if (outer == 1 || out.numel() == 1) return reduceKernel<R, T>(in, outer * run, out);
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
  const Stored<T>* d = storedData<T>(in);
  int64_t count = out.numel();
  std::vector<Acc> acc(static_cast<size_t>(count), Acc(0));
  bool parallel = outer * count * run >= kParallelThreshold;
  // Each output adds its blocks' runs in block order.
  auto byBlocks = [&] {
    if (parallel && count >= 1024) {
#pragma omp parallel
      {
        int nt = omp_get_num_threads(), t = omp_get_thread_num();
        int64_t k0 = count * t / nt, k1 = count * (t + 1) / nt;
        accumulateBlocks(d, count, run, 0, outer, k0, k1, acc.data() + k0);
      }
    } else if (parallel) {
      // Groups of as many blocks as kParallelThreshold elements fill, summed
      // on all cores and added in group order: the same groups, so the same
      // bits, on any number of threads (a sum too small to split, below, is
      // one group).
      int64_t per = (kParallelThreshold + count * run - 1) / (count * run);
      int64_t groups = (outer + per - 1) / per;
      std::vector<Acc> partial(static_cast<size_t>(groups * count), Acc(0));
#pragma omp parallel for schedule(static)
      for (int64_t g = 0; g < groups; ++g)
        accumulateBlocks(d, count, run, g * per, std::min(outer, (g + 1) * per), 0, count, partial.data() + g * count);
      for (int64_t g = 0; g < groups; ++g)
        for (int64_t k = 0; k < count; ++k) acc[k] += partial[g * count + k];
    } else {
      accumulateBlocks(d, count, run, 0, outer, 0, count, acc.data());
    }
  };
  if constexpr (std::is_floating_point_v<Acc>) {
    if (run == 1) columnSums(d, outer, count, parallel, acc.data());
    else byBlocks();
  } else {
    byBlocks();
  }
  double n = static_cast<double>(outer * run);
  for (int64_t k = 0; k < count; ++k) {
    double value = static_cast<double>(acc[k]);
    if constexpr (R == Reduction::Mean) value /= n;
    // Integer outputs come from integer sums; a float one may be NaN, which
    // has no int64.
    int64_t ivalue = 0;
    if constexpr (std::is_integral_v<Acc>) ivalue = static_cast<int64_t>(acc[k]);
    store(out, k, value, ivalue);
  }
}

// out[k] = sum(run k, parallel) for each of out.numel() consecutive runs
// of `run` elements from d, in out's type: the chunks of a single long run
// on all cores (parallel true), else the runs.
template <class T, class O, class Sum>
void eachRunSum(const T* d, int64_t run, Tensor& out, Sum sum) {
  O* o = out.data<O>();
  int64_t count = out.numel();
  if (count == 1 && run >= kParallelThreshold) {
    o[0] = static_cast<O>(sum(d, true));
    return;
  }
  forEachLine(count, count * run >= kParallelThreshold,
              [&](int64_t k) { o[k] = static_cast<O>(sum(d + k * run, false)); });
}

// The sum of the squared deviations of each run of `run` elements from
// the run's mean (cpuSquaredDeviations): the mean as the sum kernel makes it,
// each deviation squared in double, summed chunk by chunk in sum_order.h's
// order.
template <class T>
void squaredDeviationsKernel(const Tensor& in, int64_t run, Tensor& out) {
  eachRunSum<T, double>(in.data<T>(), run, out, [run](const T* r, bool parallel) {
    double mean = (parallel ? parallelSum(r, run).value : runSum(r, run)) / static_cast<double>(run);
    return sumOfChunks(run, parallel, [&](int64_t begin, int64_t end) {
      return chunkSquaredDeviations(r + begin, end - begin, mean);
    });
  });
}

// The sums of squares of each run of `run` elements (cpuSumsOfSquares),
// in x's type as its sum kernel stores them (a single long run in
// parallelSum's order, others in reduceRun's).
template <class T>
void sumsOfSquaresKernel(const Tensor& in, int64_t run, Tensor& out) {
  eachRunSum<T, T>(in.data<T>(), run, out, [run](const T* r, bool parallel) {
    return sumOfChunks(run, parallel,
                       [&](int64_t begin, int64_t end) { return chunkSumOfSquares(r + begin, end - begin); });
  });
}

// Max or min (isMax), and with `index` argmax or argmin, over the leading
// axis of contiguous d viewed as [outer, count]: each column scanned from
// row 0 as extremumOf scans a run (the first NaN, else the first of the
// largest, a zero's sign that of the first), with the columns as the
// vector lanes, reading the rows in place (not a transposed copy), tiles
// of kTile columns on all cores.
template <class T, bool isMax>
void leadingExtremum(const T* d, int64_t outer, int64_t count, T* values, int64_t* indices) {
  constexpr int64_t kTile = 64;
  forEachLine((count + kTile - 1) / kTile, outer * count >= kParallelThreshold, [&](int64_t tile) {
    int64_t k0 = tile * kTile, width = std::min(kTile, count - k0);
    T m[kTile];
    int64_t at[kTile] = {};
    std::copy_n(d + k0, width, m);
    for (int64_t a = 1; a < outer; ++a) {
      const T* row = d + a * count + k0;
#pragma omp simd
      for (int64_t k = 0; k < width; ++k) {
        T v = row[k];
        bool take = isMax ? v > m[k] : v < m[k];
        if constexpr (std::is_floating_point_v<T>) take = take || (v != v && m[k] == m[k]);
        m[k] = take ? v : m[k];
        at[k] = take ? a : at[k];
      }
    }
    if (indices) std::copy_n(at, width, indices + k0);
    else std::copy_n(m, width, values + k0);
  });
}

template <class T>
bool leadingExtremumOf(const Tensor& x, int64_t outer, bool isMax, bool index, Tensor& out) {
  constexpr DType dt = dtypeOf<T>();
  const KernelTable& k = x.device().kernels();
  bool ours = index ? (isMax ? k.get<ir::Op::ArgMax>(dt) == &reduceKernel<Reduction::ArgMax, T>
                             : k.get<ir::Op::ArgMin>(dt) == &reduceKernel<Reduction::ArgMin, T>)
                    : (isMax ? k.get<ir::Op::Max>(dt) == &reduceKernel<Reduction::Max, T>
                             : k.get<ir::Op::Min>(dt) == &reduceKernel<Reduction::Min, T>);
  if (!ours) return false;
  T* values = index ? nullptr : out.data<T>();
  int64_t* indices = index ? out.data<int64_t>() : nullptr;
  if (isMax) leadingExtremum<T, true>(x.data<T>(), outer, out.numel(), values, indices);
  else leadingExtremum<T, false>(x.data<T>(), outer, out.numel(), values, indices);
  return true;
}

// Sum and mean take the leading-blocks signature (KernelFor<Sum>).
template <ir::Op O, Reduction R>
void addReduction(KernelTable& t) {
  auto add = [&](DType dt, auto element) {
    using T = decltype(element);
    if constexpr (O == ir::Op::Sum || O == ir::Op::Mean) t.add<O>(dt, sumKernel<R, T>);
    else t.add<O>(dt, reduceKernel<R, T>);
  };
  add(DType::Bool, bool{});
  add(DType::I32, int32_t{});
  add(DType::I64, int64_t{});
  add(DType::F32, float{});
  add(DType::F64, double{});
}

// cpuSmallFullSum for dtype T: false unless `k`'s sum and mean of T are
// this file's kernels (a CPU device's).
template <class T>
bool smallFullSum(const KernelTable& k, const Tensor& t, int64_t n, bool mean, double& out) {
  constexpr DType dt = dtypeOf<T>();
  if (k.get<ir::Op::Sum>(dt) != &sumKernel<Reduction::Sum, T> || k.get<ir::Op::Mean>(dt) != &sumKernel<Reduction::Mean, T>)
    return false;
  double acc = runSum(t.data<T>(), n);
  double value = mean ? acc / static_cast<double>(n) : acc;
  out = static_cast<T>(value);  // the 0-d result's element, read as a double
  return true;
}

}  // namespace

bool cpuSmallFullSum(const Tensor& t, bool mean, double& out) {
  int64_t n = t.numel();
  // The kernel's sum on this thread (sum_order.h: the same bits as its
  // chunks on all cores); a long one is left to the kernel's cores.
  if (n < 2 || n >= kParallelThreshold || !t.isContiguous() || !t.device().hostMemory()) return false;
  const KernelTable& k = t.device().kernels();
  if (t.dtype() == DType::F32) return smallFullSum<float>(k, t, n, mean, out);
  if (t.dtype() == DType::F64) return smallFullSum<double>(k, t, n, mean, out);
  return false;
}

bool cpuSumsOfSquares(const Tensor& x, int64_t run, Tensor& out) {
  // The steps op by op sum with the device's kernel: this file's.
  auto ours = [&](auto element) {
    using T = decltype(element);
    return x.device().kernels().get<ir::Op::Sum>(dtypeOf<T>()) == &sumKernel<Reduction::Sum, T>;
  };
  if (!x.isContiguous() || !x.device().hostMemory() || out.dtype() != x.dtype() || run <= 0 ||
      out.numel() * run != x.numel())
    return false;
  if (x.dtype() == DType::F32 && ours(float())) sumsOfSquaresKernel<float>(x, run, out);
  else if (x.dtype() == DType::F64 && ours(double())) sumsOfSquaresKernel<double>(x, run, out);
  else return false;
  return true;
}

bool cpuSquaredDeviations(const Tensor& x, int64_t run, Tensor& out) {
  // The steps op by op sum in f64 with the device's kernel: this file's.
  if (!x.isContiguous() || !x.device().hostMemory() || out.dtype() != DType::F64 || run <= 0 ||
      x.device().kernels().get<ir::Op::Sum>(DType::F64) != &sumKernel<Reduction::Sum, double>)
    return false;
  if (x.dtype() == DType::F32) squaredDeviationsKernel<float>(x, run, out);
  else if (x.dtype() == DType::F64) squaredDeviationsKernel<double>(x, run, out);
  else return false;
  return true;
}

bool cpuLeadingExtremum(const Tensor& x, int64_t outer, bool isMax, bool index, Tensor& out) {
  // Fewer columns leave cores idle: the runs of the permuted copy are
  // scanned on all of them.
  if (!x.isContiguous() || !x.device().hostMemory() || outer < 2 || out.numel() < 16 ||
      x.numel() != outer * out.numel() || out.dtype() != (index ? DType::I64 : x.dtype()))
    return false;
  switch (x.dtype()) {
    case DType::I32: return leadingExtremumOf<int32_t>(x, outer, isMax, index, out);
    case DType::I64: return leadingExtremumOf<int64_t>(x, outer, isMax, index, out);
    case DType::F32: return leadingExtremumOf<float>(x, outer, isMax, index, out);
    case DType::F64: return leadingExtremumOf<double>(x, outer, isMax, index, out);
    default: return false;
  }
}

void registerCpuReduceKernels(KernelTable& t) {
  using ir::Op;
  addReduction<Op::Sum, Reduction::Sum>(t);
  addReduction<Op::Mean, Reduction::Mean>(t);
  addReduction<Op::Prod, Reduction::Prod>(t);
  addReduction<Op::Max, Reduction::Max>(t);
  addReduction<Op::Min, Reduction::Min>(t);
  addReduction<Op::ArgMax, Reduction::ArgMax>(t);
  addReduction<Op::ArgMin, Reduction::ArgMin>(t);
  addReduction<Op::All, Reduction::All>(t);
  addReduction<Op::Any, Reduction::Any>(t);
}

}  // namespace nn::rt
