// The CPU's kernels of interpolate and grid_sample and of their gradients:
// interpolate resamples each plane (an [N, C] entry) by resample.h's
// per-element functions, the planes in parallel when the work is large;
// grid_sample computes each output row's taps (grid_sampling.h) once and
// reads them for every channel. The input gradients add each output's
// shares into its plane of the f64 dx serially within the plane, so their
// sums are the same on every run.
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

template <int Rows, int Cols, class T>
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
        line[ox] = blendedIn<Rows, Cols>(src, cols.in, a, colTaps[static_cast<size_t>(ox)]);
    }
  });
}

// The taps each output position of a dimension reads: 1, 2 or 4.
int tapCount(const Resample& r) {
  switch (r.kind) {
    case ResampleKind::Linear: return 2;
    case ResampleKind::Cubic: return 4;
    default: return 1;
  }
}

// f.template operator()<Rows, Cols>() with the dimensions' tap counts as
// constants, so that the loops over taps unroll.
template <class F>
void withTapCounts(const Resample& rows, const Resample& cols, F&& f) {
  auto byCols = [&]<int Rows>() {
    switch (tapCount(cols)) {
      case 1: return f.template operator()<Rows, 1>();
      case 2: return f.template operator()<Rows, 2>();
      default: return f.template operator()<Rows, 4>();
    }
  };
  switch (tapCount(rows)) {
    case 1: return byCols.template operator()<1>();
    case 2: return byCols.template operator()<2>();
    default: return byCols.template operator()<4>();
  }
}

template <class T>
void interpolateKernel(const Tensor& x, const Resample& rows, const Resample& cols, Tensor& out) {
  int64_t inPlane = rows.in * cols.in;
  int64_t planes = inPlane ? x.numel() / inPlane : 0;
  bool parallel = out.numel() >= kParallelThreshold;
  withTapCounts(rows, cols, [&]<int Rows, int Cols>() {
    resamplePlanes<Rows, Cols>(x.data<T>(), rows, cols, planes, parallel, out.data<T>());
  });
}

template <int Rows, int Cols, class T>
void spreadPlanes(const T* in, const Resample& rows, const Resample& cols, int64_t planes, bool parallel, double* o) {
  int64_t inPlane = rows.in * cols.in, outPlane = rows.out * cols.out;
  std::vector<Tap> rowTaps = tapsOf(rows), colTaps = tapsOf(cols);
  forEachLine(planes, parallel, [&](int64_t p) {
    const T* src = in + p * outPlane;
    double* dst = o + p * inPlane;
    auto add = [dst](int64_t at, double share) { dst[at] += share; };
    for (int64_t oy = 0; oy < rows.out; ++oy) {
      const Tap& a = rowTaps[static_cast<size_t>(oy)];
      for (int64_t ox = 0; ox < cols.out; ++ox)
        spreadBack<Rows, Cols>(static_cast<double>(src[oy * cols.out + ox]), cols.in, a,
                               colTaps[static_cast<size_t>(ox)], add);
    }
  });
}

template <class T>
void interpolateGradKernel(const Tensor& g, const Resample& rows, const Resample& cols, Tensor& dx) {
  int64_t outPlane = rows.out * cols.out;
  int64_t planes = outPlane ? g.numel() / outPlane : 0;
  bool parallel = g.numel() >= kParallelThreshold;
  withTapCounts(rows, cols, [&]<int Rows, int Cols>() {
    spreadPlanes<Rows, Cols>(g.data<T>(), rows, cols, planes, parallel, dx.data<double>());
  });
}

// grid_sample, row by row of the output ([n, ho] lines): the row's taps,
// then each channel's row through them.
template <class T>
void gridSampleKernel(const Tensor& x, const Tensor& grid, const GridSampling& s, Tensor& out) {
  int64_t channels = x.dim(1), rows = grid.dim(1), cols = grid.dim(2), plane = s.h * s.w;
  int count = gridTapCount(s.mode);
  const T* in = x.data<T>();
  const T* at = grid.data<T>();
  T* o = out.data<T>();
  forEachLine(x.dim(0) * rows, out.numel() >= kParallelThreshold, [&](int64_t line) {
    int64_t n = line / rows, row = line % rows;
    std::vector<GridTap<T>> taps(static_cast<size_t>(cols * count));
    T unusedX, unusedY;
    for (int64_t col = 0; col < cols; ++col) {
      const T* g = at + (line * cols + col) * 2;
      gridTaps(s, g[0], g[1], &taps[static_cast<size_t>(col * count)], unusedX, unusedY);
    }
    for (int64_t c = 0; c < channels; ++c) {
      const T* src = in + (n * channels + c) * plane;
      T* dst = o + ((n * channels + c) * rows + row) * cols;
      for (int64_t col = 0; col < cols; ++col)
        dst[col] = gridSampled(src, &taps[static_cast<size_t>(col * count)], count);
    }
  });
}

// Its gradients. dx: per batch element, every position's taps, then each
// channel's plane in parallel, serially within it. dgrid: row by row, the
// slopes' shares summed over the channels in double.
template <class T>
void gridSampleGradKernel(const Tensor& g, const Tensor& x, const Tensor& grid, const GridSampling& s, Tensor* dx,
                          Tensor* dgrid) {
  int64_t batch = x.dim(0), channels = x.dim(1), rows = grid.dim(1), cols = grid.dim(2);
  int64_t plane = s.h * s.w, positions = rows * cols;
  int count = gridTapCount(s.mode);
  bool parallel = g.numel() >= kParallelThreshold;
  const T* adjoint = g.data<T>();
  const T* in = x.data<T>();
  const T* at = grid.data<T>();
  if (dx) {
    double* d = dx->data<double>();
    std::vector<GridTap<T>> taps(static_cast<size_t>(positions * count));
    for (int64_t n = 0; n < batch; ++n) {
      forEachLine(positions, parallel, [&](int64_t p) {
        T unusedX, unusedY;
        const T* e = at + (n * positions + p) * 2;
        gridTaps(s, e[0], e[1], &taps[static_cast<size_t>(p * count)], unusedX, unusedY);
      });
      forEachLine(channels, parallel, [&](int64_t c) {
        const T* src = adjoint + (n * channels + c) * positions;
        double* dst = d + (n * channels + c) * plane;
        for (int64_t p = 0; p < positions; ++p)
          for (int k = 0; k < count; ++k) {
            const GridTap<T>& t = taps[static_cast<size_t>(p * count + k)];
            if (t.at >= 0) dst[t.at] += static_cast<double>(src[p] * t.weight);
          }
      });
    }
  }
  if (!dgrid) return;
  T* dg = dgrid->data<T>();
  forEachLine(batch * rows, parallel, [&](int64_t line) {
    int64_t n = line / rows;
    for (int64_t col = 0; col < cols; ++col) {
      int64_t q = line % rows * cols + col, p = n * positions + q;  // in [Ho, Wo], in [N, Ho, Wo]
      gridSlopeSums(s, in + n * channels * plane, adjoint + n * channels * positions + q, channels, positions,
                    at[p * 2], at[p * 2 + 1], dg + p * 2);
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
  forFloatDTypes([&](auto type, DType d) {
    using T = decltype(type);
    t.add<ir::Op::GridSample>(d, gridSampleKernel<T>);
    t.add<ir::Op::GridSampleGradInput>(d, gridSampleGradKernel<T>);
  });
}

}  // namespace nn::rt
