// The CUDA plugin's indexing and line-wise kernels (cuda_kernels.h):
// indexing reads and writes through element offsets resolved on the host,
// gather, scatter, scatter_add and scatter_reduce along an axis, the scans
// and the stable sort (one thread per line, in the CPU's order), the
// triangles, layer norm (one block per row), the binary cross entropy (one
// block, so its sum is the same on every run), interpolate and its
// gradient (resample.h), grid_sample, and max pooling's indices.
#include <cstdint>
#include <type_traits>

#include "runtime/cuda/cuda_kernels.h"
#include "runtime/cuda/cuda_loops.cuh"
#include "runtime/cuda/element_math.h"

namespace nn::rt::cuda {
namespace {

// Indexing: offsets are element offsets from the storage's start.
template <class T>
__global__ void takeKernel(const T* base, const int64_t* offsets, int64_t n, int64_t run, T* out) {
  GRID_STRIDE(i, n * run) out[i] = base[offsets[i / run] + i % run];
}

template <class T>
__global__ void putKernel(const T* values, Strided sv, Strided at, const int64_t* offsets, int64_t n, T* base) {
  GRID_STRIDE(i, n) base[offsets[i]] = values[offsetOf(i, at, sv)];
}

// The offset in x (through its strides) that index element i selects
// along `axis`: the index's own coordinates elsewhere (checked in range).
__device__ int64_t selectedOffset(int64_t i, const int64_t* index, const Strided& si, const Strided& sx, int axis) {
  int64_t k = index[offsetOf(i, si, si)];
  if (k < 0) k += sx.shape[axis];
  int64_t off = 0;
  for (int d = si.rank - 1; d >= 0; --d) {
    int64_t c = i % si.shape[d];
    i /= si.shape[d];
    off += (d == axis ? k : c) * sx.stride[d];
  }
  return off;
}

template <class T>
__global__ void gatherKernel(const T* x, Strided sx, int axis, const int64_t* index, Strided si, T* out, int64_t n) {
  GRID_STRIDE(i, n) out[i] = x[selectedOffset(i, index, si, sx, axis)];
}

// T: double, or unsigned long long for i64 (two's complement addition
// wraps around as the CPU's does); S: src's element type, T or float into
// double (each term widened as it is added).
template <class T, class S>
__global__ void scatterAddKernel(int axis, const int64_t* index, Strided si, const S* src, Strided ss, T* out,
                                 Strided so, int64_t n) {
  GRID_STRIDE(i, n) atomicAdd(out + selectedOffset(i, index, si, so, axis), static_cast<T>(src[offsetOf(i, si, ss)]));
}

// scatter and scatter_reduce: one thread per line of index elements that
// differ only along the axis (`lines` of `along`, `inner` apart in index
// order), each combining its line into out in order, so that of two
// writes to one place the later stays and a reduction runs in the CPU's
// order. Reduce: whether to write (scatter) or take scatter_reduce's step.
template <class T, bool Reduce>
__global__ void scatterKernel(int axis, const int64_t* index, Strided si, const T* src, Strided ss, T* out,
                              Strided so, int64_t lines, int64_t along, int64_t inner, ScatterReduction r) {
  GRID_STRIDE(line, lines) {
    int64_t first = line / inner * along * inner + line % inner;
    for (int64_t j = 0; j < along; ++j) {
      int64_t i = first + j * inner;
      T& to = out[selectedOffset(i, index, si, so, axis)];
      T v = src[offsetOf(i, si, ss)];
      if constexpr (Reduce) to = scatterStep(r, to, v);
      else to = v;
    }
  }
}

// interpolate: one thread per output element of `n` (planes of
// [rows.out, cols.out]); its gradient adds each output's shares into its
// plane of dx.
template <class T>
__global__ void interpolateKernel(const T* x, Resample rows, Resample cols, T* out, int64_t n) {
  GRID_STRIDE(i, n) {
    int64_t ox = i % cols.out, oy = (i / cols.out) % rows.out, plane = i / (cols.out * rows.out);
    out[i] = resampled(x + plane * rows.in * cols.in, rows, cols, oy, ox);
  }
}

struct AtomicShare {
  double* plane;
  __device__ void operator()(int64_t at, double share) const { atomicAdd(plane + at, share); }
};

template <class T>
__global__ void interpolateGradKernel(const T* g, Resample rows, Resample cols, double* dx, int64_t n) {
  GRID_STRIDE(i, n) {
    int64_t ox = i % cols.out, oy = (i / cols.out) % rows.out, plane = i / (cols.out * rows.out);
    AtomicShare add{dx + plane * rows.in * cols.in};
    spreadBack(static_cast<double>(g[i]), cols.in, tapOf(rows, oy), tapOf(cols, ox), add);
  }
}

// grid_sample: one thread per output element ([N, C] planes of
// `positions` elements) computing its taps (grid_sampling.h); the input's
// gradient adds each element's shares into its plane of dx; the grid's
// takes one thread per grid position, the channels summed in double.
// The taps of output element i and its [N, C] plane.
template <class T>
__device__ int64_t outputTaps(const T* grid, const GridSampling& s, int64_t channels, int64_t positions, int64_t i,
                              GridTap<T>* taps) {
  int64_t plane = i / positions;
  const T* at = grid + (plane / channels * positions + i % positions) * 2;
  T slopeX, slopeY;
  gridTaps(s, at[0], at[1], taps, slopeX, slopeY);
  return plane;
}

template <class T>
__global__ void gridSampleKernel(const T* x, const T* grid, GridSampling s, int64_t channels, int64_t positions, T* out,
                                 int64_t n) {
  GRID_STRIDE(i, n) {
    GridTap<T> taps[kMaxGridTaps];
    int64_t plane = outputTaps(grid, s, channels, positions, i, taps);
    out[i] = gridSampled(x + plane * s.h * s.w, taps, gridTapCount(s.mode));
  }
}

template <class T>
__global__ void gridSampleGradInputKernel(const T* g, const T* grid, GridSampling s, int64_t channels,
                                          int64_t positions, double* dx, int64_t n) {
  GRID_STRIDE(i, n) {
    GridTap<T> taps[kMaxGridTaps];
    double* d = dx + outputTaps(grid, s, channels, positions, i, taps) * s.h * s.w;
    for (int k = 0; k < gridTapCount(s.mode); ++k)
      if (taps[k].at >= 0) atomicAdd(d + taps[k].at, static_cast<double>(g[i] * taps[k].weight));
  }
}

template <class T>
__global__ void gridSampleGradGridKernel(const T* g, const T* x, const T* grid, GridSampling s, int64_t channels,
                                         int64_t positions, T* dgrid, int64_t n) {
  GRID_STRIDE(i, n) {
    int64_t b = i / positions;
    gridSlopeSums(s, x + b * channels * s.h * s.w, g + b * channels * positions + i % positions, channels, positions,
                  grid[i * 2], grid[i * 2 + 1], dgrid + i * 2);
  }
}

// The sum of every thread's v over the block, returned to all of them,
// through the block's `partial` (kThreads entries); blockDim.x is kThreads.
__device__ double blockTotal(double* partial, double v) {
  partial[threadIdx.x] = v;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  double total = partial[0];
  __syncthreads();
  return total;
}

// Scans along lines of `len` elements `inner` apart, one thread per line,
// in the CPU kernel's order: floats accumulate in double, integers wrap.
template <class T, ScanKind K>
__global__ void scanKernel(const T* in, int64_t lines, int64_t len, int64_t inner, bool reverse, T* out) {
  using Acc = typename std::conditional<std::is_floating_point<T>::value, double, T>::type;
  GRID_STRIDE(l, lines) {
    int64_t first = (l / inner) * len * inner + l % inner;
    Acc acc = scanStart<K, Acc>();
    for (int64_t k = 0; k < len; ++k) {
      int64_t i = first + (reverse ? len - 1 - k : k) * inner;
      acc = scanned<K>(acc, in[i]);
      out[i] = static_cast<T>(acc);
    }
  }
}

template <class T>
__global__ void triangleKernel(const T* in, int64_t rows, int64_t cols, int64_t diagonal, bool upper, T* out,
                               int64_t n) {
  GRID_STRIDE(at, n) {
    int64_t j = at % cols, i = (at / cols) % rows;
    bool keep = upper ? j - i >= diagonal : j - i <= diagonal;
    out[at] = keep ? in[at] : T(0);
  }
}

// One thread per line: a bottom-up merge sort of the line's positions in
// `order` (with `scratch`, len entries each per line), stable as the CPU's
// std::stable_sort: a later element moves ahead only when strictly before.
template <class T>
__global__ void sortKernel(const T* in, int64_t lines, int64_t len, int64_t inner, bool descending, int64_t* order,
                           int64_t* scratch, T* values, int64_t* indices) {
  GRID_STRIDE(l, lines) {
    int64_t first = (l / inner) * len * inner + l % inner;
    int64_t* a = order + l * len;
    int64_t* b = scratch + l * len;
    for (int64_t k = 0; k < len; ++k) a[k] = k;
    for (int64_t width = 1; width < len; width *= 2) {
      for (int64_t lo = 0; lo < len; lo += 2 * width) {
        int64_t mid = lo + width < len ? lo + width : len, hi = lo + 2 * width < len ? lo + 2 * width : len;
        int64_t i = lo, j = mid, k = lo;
        while (i < mid && j < hi)
          b[k++] = before(in[first + a[j] * inner], in[first + a[i] * inner], descending) ? a[j++] : a[i++];
        while (i < mid) b[k++] = a[i++];
        while (j < hi) b[k++] = a[j++];
      }
      int64_t* t = a;
      a = b;
      b = t;
    }
    for (int64_t k = 0; k < len; ++k) {
      values[first + k * inner] = in[first + a[k] * inner];
      indices[first + k * inner] = a[k];
    }
  }
}

// A block's row of D: its mean, then sqrt(biased variance + eps), in
// double, as the CPU's f64 loop.
template <class T>
__device__ double rowMean(const T* row, int64_t D, double* partial) {
  double s = 0.0;
  for (int64_t j = threadIdx.x; j < D; j += blockDim.x) s += row[j];
  return blockTotal(partial, s) / static_cast<double>(D);
}

template <class T>
__device__ double rowDeviation(const T* row, int64_t D, double mean, double eps, double* partial) {
  double v = 0.0;
  for (int64_t j = threadIdx.x; j < D; j += blockDim.x) v += (row[j] - mean) * (row[j] - mean);
  return sqrt(blockTotal(partial, v) / static_cast<double>(D) + eps);
}

// One block per row of D.
template <class T>
__global__ void layerNormKernel(const T* x, int64_t D, const T* gamma, const T* beta, double eps, T* out) {
  __shared__ double partial[kThreads];
  const T* row = x + blockIdx.x * D;
  T* o = out + blockIdx.x * D;
  double mean = rowMean(row, D, partial);
  double scale = rowDeviation(row, D, mean, eps, partial);
  for (int64_t j = threadIdx.x; j < D; j += blockDim.x) {
    double r = (row[j] - mean) / scale;
    if (gamma) r *= gamma[j];
    if (beta) r += beta[j];
    o[j] = static_cast<T>(r);
  }
}

// One block per row of D: layer_norm's gradient, the row's statistics
// and the sums of g' = g gamma and g' (x - mean) in double, as the CPU's
// loop.
template <class T>
__global__ void layerNormGradKernel(const T* g, const T* x, int64_t D, const T* gamma, double eps, T* out) {
  __shared__ double partial[kThreads];
  const T* row = x + blockIdx.x * D;
  const T* grow = g + blockIdx.x * D;
  T* o = out + blockIdx.x * D;
  double mean = rowMean(row, D, partial);
  double rstd = 1.0 / rowDeviation(row, D, mean, eps, partial);
  double sg = 0.0, sgc = 0.0;
  for (int64_t j = threadIdx.x; j < D; j += blockDim.x) {
    double h = gamma ? static_cast<double>(grow[j]) * gamma[j] : static_cast<double>(grow[j]);
    sg += h;
    sgc += h * (row[j] - mean);
  }
  sg = blockTotal(partial, sg);
  sgc = blockTotal(partial, sgc);
  double along = -rstd * rstd * rstd * sgc / static_cast<double>(D), mh = sg / static_cast<double>(D);
  for (int64_t j = threadIdx.x; j < D; j += blockDim.x) {
    double h = gamma ? static_cast<double>(grow[j]) * gamma[j] : static_cast<double>(grow[j]);
    o[j] = static_cast<T>(rstd * (h - mh) + along * (row[j] - mean));
  }
}

// One block: the mean binary cross entropy, logs clamped at -100; *bad set
// when a probability is outside [0, 1].
template <class T>
__global__ void bceKernel(const T* p, const T* y, int64_t n, T* out, int* bad) {
  __shared__ double partial[kThreads];
  double acc = 0.0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    double pi = p[i], yi = y[i];
    if (pi < 0 || pi > 1) *bad = 1;  // NaN goes on, as on the CPU
    // Clamped as std::max(log, -100.0) does on the CPU: a NaN stays NaN.
    double lp = log(pi), lq = log1p(-pi);
    if (lp < -100.0) lp = -100.0;
    if (lq < -100.0) lq = -100.0;
    acc -= yi * lp + (1 - yi) * lq;
  }
  double total = blockTotal(partial, acc);
  if (threadIdx.x == 0) *out = static_cast<T>(n ? total / static_cast<double>(n) : NAN);
}

// Uploads n host offsets into `at` (of n int64 entries) on stream s.
void uploadOffsets(const int64_t* offsets, int64_t n, const Scratch& at, cudaStream_t s) {
  // From pageable memory: the call returns once the host buffer is read.
  cudaMemcpyAsync(at.as<int64_t>(), offsets, static_cast<size_t>(n) * sizeof(int64_t), cudaMemcpyHostToDevice, s);
}

}  // namespace

void take(Elem type, const void* base, const int64_t* offsets, int64_t n, int64_t run, void* out, cudaStream_t s) {
  if (n <= 0 || run <= 0) return;
  Scratch at(static_cast<size_t>(n) * sizeof(int64_t), s);
  uploadOffsets(offsets, n, at, s);
  withElem(type, [&](auto e) {
    using T = decltype(e);
    takeKernel<T><<<blocksFor(n * run), kThreads, 0, s>>>(static_cast<const T*>(base), at.as<int64_t>(), n, run,
                                                           static_cast<T*>(out));
  });
  launched("indexing kernel");
}

void put(Elem type, const void* values, const Strided& sv, const Strided& at, const int64_t* offsets, int64_t n,
         void* base, cudaStream_t s) {
  if (n <= 0) return;
  Scratch where(static_cast<size_t>(n) * sizeof(int64_t), s);
  uploadOffsets(offsets, n, where, s);
  withElem(type, [&](auto e) {
    using T = decltype(e);
    putKernel<T><<<blocksFor(n), kThreads, 0, s>>>(static_cast<const T*>(values), sv, at, where.as<int64_t>(), n,
                                                    static_cast<T*>(base));
  });
  launched("indexing kernel");
}

void gather(Elem type, const void* x, const Strided& sx, int axis, const int64_t* index, const Strided& si, void* out,
            int64_t n, cudaStream_t s) {
  if (n <= 0) return;
  withElem(type, [&](auto e) {
    using T = decltype(e);
    gatherKernel<T><<<blocksFor(n), kThreads, 0, s>>>(static_cast<const T*>(x), sx, axis, index, si,
                                                       static_cast<T*>(out), n);
  });
  launched("gather kernel");
}

void scatterAdd(Elem type, int axis, const int64_t* index, const Strided& si, Elem srcType, const void* src,
                const Strided& ss, void* out, const Strided& so, int64_t n, cudaStream_t s) {
  if (n <= 0) return;
  if (type == Elem::F64 && srcType == Elem::F32)
    scatterAddKernel<<<blocksFor(n), kThreads, 0, s>>>(axis, index, si, static_cast<const float*>(src), ss,
                                                       static_cast<double*>(out), so, n);
  else if (type == Elem::F64)
    scatterAddKernel<<<blocksFor(n), kThreads, 0, s>>>(axis, index, si, static_cast<const double*>(src), ss,
                                                       static_cast<double*>(out), so, n);
  else
    scatterAddKernel<<<blocksFor(n), kThreads, 0, s>>>(axis, index, si, static_cast<const unsigned long long*>(src),
                                                       ss, static_cast<unsigned long long*>(out), so, n);
  launched("scatter_add kernel");
}

void scatter(Elem type, int axis, const int64_t* index, const Strided& si, const void* src, const Strided& ss,
             void* out, const Strided& so, int64_t along, int64_t inner, int64_t n, cudaStream_t s) {
  if (n <= 0) return;
  int64_t lines = n / along;
  withElem(type, [&](auto e) {
    using T = decltype(e);
    scatterKernel<T, false><<<blocksFor(lines), kThreads, 0, s>>>(
        axis, index, si, static_cast<const T*>(src), ss, static_cast<T*>(out), so, lines, along, inner,
        ScatterReduction::Prod);
  });
  launched("scatter kernel");
}

void scatterReduce(Elem type, int axis, const int64_t* index, const Strided& si, const void* src, const Strided& ss,
                   void* out, const Strided& so, int64_t along, int64_t inner, int64_t n, ScatterReduction r,
                   cudaStream_t s) {
  if (n <= 0) return;
  int64_t lines = n / along;
  auto launch = [&](auto e) {
    using T = decltype(e);
    scatterKernel<T, true><<<blocksFor(lines), kThreads, 0, s>>>(axis, index, si, static_cast<const T*>(src), ss,
                                                                 static_cast<T*>(out), so, lines, along, inner, r);
  };
  if (type == Elem::F64) launch(double{});
  else launch(int64_t{});
  launched("scatter_reduce kernel");
}

void scan(Elem type, const void* in, int64_t lines, int64_t len, int64_t inner, bool reverse, ScanKind kind, void* out,
          cudaStream_t s) {
  if (lines <= 0 || len <= 0) return;
  withElem(type, [&](auto e) {
    using T = decltype(e);
    auto run = [&](auto kernel) {
      kernel<<<blocksFor(lines), kThreads, 0, s>>>(static_cast<const T*>(in), lines, len, inner, reverse,
                                                   static_cast<T*>(out));
    };
    if constexpr (std::is_floating_point<T>::value) {
      if (kind == ScanKind::LogSumExp) return run(scanKernel<T, ScanKind::LogSumExp>);
    }
    if constexpr (!std::is_same<T, bool>::value) {
      if (kind == ScanKind::Product) run(scanKernel<T, ScanKind::Product>);
      else if (kind == ScanKind::Sum) run(scanKernel<T, ScanKind::Sum>);
    }
  });
  launched("scan kernel");
}

void sort(Elem type, const void* in, int64_t lines, int64_t len, int64_t inner, bool descending, void* values,
          int64_t* indices, cudaStream_t s) {
  if (lines <= 0 || len <= 0) return;
  size_t bytes = static_cast<size_t>(lines) * static_cast<size_t>(len) * sizeof(int64_t);
  Scratch positions(2 * bytes, s);
  int64_t* order = positions.as<int64_t>();
  int64_t* scratch = order + lines * len;
  withElem(type, [&](auto e) {
    using T = decltype(e);
    sortKernel<T><<<blocksFor(lines), kThreads, 0, s>>>(static_cast<const T*>(in), lines, len, inner, descending,
                                                         order, scratch, static_cast<T*>(values), indices);
  });
  launched("sort kernel");
}

void triangle(Elem type, const void* in, int64_t rows, int64_t cols, int64_t diagonal, bool upper, void* out,
              int64_t n, cudaStream_t s) {
  if (n <= 0) return;
  withElem(type, [&](auto e) {
    using T = decltype(e);
    triangleKernel<T><<<blocksFor(n), kThreads, 0, s>>>(static_cast<const T*>(in), rows, cols, diagonal, upper,
                                                         static_cast<T*>(out), n);
  });
  launched("triangle kernel");
}

void layerNorm(Elem type, const void* x, int64_t rows, int64_t D, const void* gamma, const void* beta, double eps,
               void* out, cudaStream_t s) {
  if (rows <= 0 || D <= 0) return;
  if (type == Elem::F64)
    layerNormKernel<double><<<static_cast<unsigned>(rows), kThreads, 0, s>>>(
        static_cast<const double*>(x), D, static_cast<const double*>(gamma), static_cast<const double*>(beta), eps,
        static_cast<double*>(out));
  else
    layerNormKernel<float><<<static_cast<unsigned>(rows), kThreads, 0, s>>>(
        static_cast<const float*>(x), D, static_cast<const float*>(gamma), static_cast<const float*>(beta), eps,
        static_cast<float*>(out));
  launched("layer_norm kernel");
}

void layerNormGrad(Elem type, const void* g, const void* x, int64_t rows, int64_t D, const void* gamma, double eps,
                   void* out, cudaStream_t s) {
  if (rows <= 0 || D <= 0) return;
  auto run = [&](auto e) {
    using T = decltype(e);
    layerNormGradKernel<T><<<static_cast<unsigned>(rows), kThreads, 0, s>>>(
        static_cast<const T*>(g), static_cast<const T*>(x), D, static_cast<const T*>(gamma), eps, static_cast<T*>(out));
  };
  if (type == Elem::F64) run(double());
  else run(float());
  launched("layer_norm_grad kernel");
}

void interpolate(Elem type, const void* x, const Resample& rows, const Resample& cols, void* out, int64_t n,
                 cudaStream_t s) {
  if (n <= 0) return;
  withElem(type, [&](auto e) {
    using T = decltype(e);
    interpolateKernel<T><<<blocksFor(n), kThreads, 0, s>>>(static_cast<const T*>(x), rows, cols,
                                                            static_cast<T*>(out), n);
  });
  launched("interpolate kernel");
}

void interpolateGrad(Elem type, const void* g, const Resample& rows, const Resample& cols, double* dx, int64_t n,
                     cudaStream_t s) {
  if (n <= 0) return;
  if (type == Elem::F64)
    interpolateGradKernel<double><<<blocksFor(n), kThreads, 0, s>>>(static_cast<const double*>(g), rows, cols, dx, n);
  else
    interpolateGradKernel<float><<<blocksFor(n), kThreads, 0, s>>>(static_cast<const float*>(g), rows, cols, dx, n);
  launched("interpolate_grad kernel");
}

void gridSample(Elem type, const void* x, const void* grid, const GridSampling& s, int64_t channels,
                int64_t positions, void* out, int64_t n, cudaStream_t st) {
  if (n <= 0) return;
  if (type == Elem::F64)
    gridSampleKernel<double><<<blocksFor(n), kThreads, 0, st>>>(static_cast<const double*>(x),
                                                               static_cast<const double*>(grid), s, channels,
                                                               positions, static_cast<double*>(out), n);
  else
    gridSampleKernel<float><<<blocksFor(n), kThreads, 0, st>>>(static_cast<const float*>(x),
                                                              static_cast<const float*>(grid), s, channels, positions,
                                                              static_cast<float*>(out), n);
  launched("grid_sample kernel");
}

void gridSampleGrad(Elem type, const void* g, const void* x, const void* grid, const GridSampling& s, int64_t batch,
                    int64_t channels, int64_t positions, double* dx, void* dgrid, cudaStream_t st) {
  int64_t n = batch * channels * positions;
  if (n <= 0) return;
  withElem(type, [&](auto e) {
    using T = decltype(e);
    if constexpr (std::is_floating_point_v<T>) {
      if (dx)
        gridSampleGradInputKernel<T><<<blocksFor(n), kThreads, 0, st>>>(
            static_cast<const T*>(g), static_cast<const T*>(grid), s, channels, positions, dx, n);
      if (dgrid)
        gridSampleGradGridKernel<T><<<blocksFor(batch * positions), kThreads, 0, st>>>(
            static_cast<const T*>(g), static_cast<const T*>(x), static_cast<const T*>(grid), s, channels, positions,
            static_cast<T*>(dgrid), batch * positions);
    }
  });
  launched("grid_sample gradient kernel");
}

template <class T>
__global__ void maxPoolIndicesKernel(const T* x, PoolWindows p, int64_t* out, int64_t n) {
  GRID_STRIDE(i, n) {
    int64_t ow = i % p.outW, oh = i / p.outW % p.outH, plane = i / (p.outW * p.outH);
    const T* in = x + plane * p.h * p.w;
    int64_t r0 = oh * p.strideH - p.padH, c0 = ow * p.strideW - p.padW, best = -1;
    T m = T(0);
    for (int64_t a = 0; a < p.kH; ++a) {
      int64_t r = r0 + a * p.dilH;
      if (r < 0 || r >= p.h) continue;
      for (int64_t b = 0; b < p.kW; ++b) {
        int64_t c = c0 + b * p.dilW;
        if (c < 0 || c >= p.w) continue;
        T v = in[r * p.w + c];
        if (best < 0 || v > m || v != v) m = v, best = r * p.w + c;
      }
    }
    out[i] = best;
  }
}

void maxPoolIndices(Elem type, const void* x, const PoolWindows& p, int64_t* out, int64_t n, cudaStream_t s) {
  if (n <= 0) return;
  if (type == Elem::F64)
    maxPoolIndicesKernel<double><<<blocksFor(n), kThreads, 0, s>>>(static_cast<const double*>(x), p, out, n);
  else
    maxPoolIndicesKernel<float><<<blocksFor(n), kThreads, 0, s>>>(static_cast<const float*>(x), p, out, n);
  launched("max_pool2d_indices kernel");
}

bool binaryCrossEntropy(Elem type, const void* p, const void* y, int64_t n, void* out, cudaStream_t s) {
  Scratch bad(sizeof(int), s);
  cudaMemsetAsync(bad.as<int>(), 0, sizeof(int), s);
  if (type == Elem::F64)
    bceKernel<double><<<1, kThreads, 0, s>>>(static_cast<const double*>(p), static_cast<const double*>(y), n,
                                             static_cast<double*>(out), bad.as<int>());
  else
    bceKernel<float><<<1, kThreads, 0, s>>>(static_cast<const float*>(p), static_cast<const float*>(y), n,
                                            static_cast<float*>(out), bad.as<int>());
  launched("binary_cross_entropy kernel");
  return readBack(bad.as<int>(), s) == 0;
}

}  // namespace nn::rt::cuda
