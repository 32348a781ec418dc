// The CPU's kernels of max and average pooling, of their gradient
// (pool2d_grad) and of max pooling's indices, for f32 and f64: one pass
// over each [H, W] plane, planes in parallel. Plain loops rather than
// oneDNN: its NCHW pooling is a generic implementation about 20x slower
// than these on the CNN benchmark's shapes, and the gradient needs the
// windows' maxima found again, which oneDNN does only from a workspace the
// forward kernel would have to keep.
// Max pooling follows PyTorch: a window's maximum is its first largest
// element, and a NaN wins (the last one in the window); padding never
// wins; dilated windows take every dil-th row and column. Average pooling
// divides by PyTorch's divisor (divisorOf). With ceil_mode the last
// windows are clipped at the plane's edge like the padded ones. Shapes
// arrive checked (nn_conv.cpp).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "runtime/kernels.h"
#include "runtime/nn_ops.h"

namespace nn::rt {

namespace {

// The taps of a window starting at `start` (k taps, `dil` apart) that fall
// inside [0, n): `count` of them from `first`.
void tapsInside(int64_t start, int64_t k, int64_t dil, int64_t n, int64_t& first, int64_t& count) {
  int64_t skip = start < 0 ? (-start + dil - 1) / dil : 0;
  int64_t end = n - start <= 0 ? 0 : (n - start + dil - 1) / dil;
  end = end < k ? end : k;
  first = start + skip * dil, count = end > skip ? end - skip : 0;
}

// The window of output (oh, ow) within the plane: rows r0 + i dilH for
// i < nr, columns c0 + j dilW for j < nc (with dilation 1, the window
// clipped to the plane). A dilated window may have no tap inside.
struct Window {
  int64_t r0, nr, c0, nc;
  Window(int64_t oh, int64_t ow, int64_t H, int64_t W, const PoolParams& p) {
    tapsInside(oh * p.strideH - p.padH, p.kH, p.dilH, H, r0, nr);
    tapsInside(ow * p.strideW - p.padW, p.kW, p.dilW, W, c0, nc);
  }
};

// Average pooling's divisor of window (oh, ow), PyTorch's: divisor_override,
// or the window's area within the padded plane (count_include_pad: kH * kW
// but for a ceil_mode window past the padding), or within the plane.
int64_t divisorOf(int64_t oh, int64_t ow, int64_t H, int64_t W, const PoolParams& p) {
  if (p.divisor != 0) return p.divisor;
  int64_t h0 = oh * p.strideH - p.padH, w0 = ow * p.strideW - p.padW;
  int64_t h1 = std::min(h0 + p.kH, H + p.padH), w1 = std::min(w0 + p.kW, W + p.padW);
  if (!p.countPadding) {
    h0 = std::max<int64_t>(h0, 0), w0 = std::max<int64_t>(w0, 0);
    h1 = std::min(h1, H), w1 = std::min(w1, W);
  }
  return (h1 - h0) * (w1 - w0);
}

// The factor average pooling scales window (oh, ow)'s sum by: 1 / (kH * kW)
// for every window unless an option makes the divisors differ.
template <class T>
struct Shares {
  Shares(int64_t H, int64_t W, const PoolParams& p)
      : H(H), W(W), p(p), uniform(p.divisor == 0 && p.countPadding && !p.ceilMode),
        share(T(1) / static_cast<T>(p.kH * p.kW)) {}
  T operator()(int64_t oh, int64_t ow) const {
    return uniform ? share : T(1) / static_cast<T>(divisorOf(oh, ow, H, W, p));
  }
  int64_t H, W;
  const PoolParams& p;
  bool uniform;
  T share;
};

// The flat index in the plane of the window's maximum (PyTorch's choice),
// or -1 for a window with no tap in the plane (PyTorch's -inf, and no
// gradient).
template <class T>
int64_t argmax(const T* x, int64_t W, const Window& win, const PoolParams& p) {
  if (win.nr == 0 || win.nc == 0) return -1;
  int64_t best = win.r0 * W + win.c0;
  T m = x[best];
  for (int64_t i = 0; i < win.nr; ++i)
    for (int64_t j = 0; j < win.nc; ++j) {
      int64_t at = (win.r0 + i * p.dilH) * W + win.c0 + j * p.dilW;
      T v = x[at];
      if (v > m || std::isnan(v)) m = v, best = at;
    }
  return best;
}

// The windows of output row `oh` whose columns lie inside the plane,
// [lo, hi), swept a window row and column at a time across the whole
// output row, so the inner loop runs over outputs without branches and
// vectorises. Max: m[ow] the maximum and at[ow] its flat index (when
// WithIndex); average: m[ow] the sum. The rows' taps are rows.r0.. (a
// max window's may be none: -inf, index -1).
template <class T, bool IsMax, bool WithIndex>
void sweepRow(const T* x, int64_t W, const PoolParams& p, const Window& rows, int64_t lo, int64_t hi, T* m,
              int64_t* at) {
  if (IsMax && rows.nr == 0) {
    for (int64_t ow = lo; ow < hi; ++ow) {
      m[ow] = -std::numeric_limits<T>::infinity();
      if (WithIndex) at[ow] = -1;
    }
    return;
  }
  for (int64_t ow = lo; ow < hi; ++ow) {
    int64_t i = rows.r0 * W + ow * p.strideW - p.padW;
    m[ow] = IsMax ? x[i] : T(0);
    if (WithIndex) at[ow] = i;
  }
  const int64_t stride = p.strideW;
  for (int64_t r = 0; r < rows.nr; ++r)
    for (int64_t kw = 0; kw < p.kW; ++kw) {
      if (IsMax && r == 0 && kw == 0) continue;
      int64_t base = (rows.r0 + r * p.dilH) * W + kw * p.dilW - p.padW;
      const T* in = x + base;
      for (int64_t ow = lo; ow < hi; ++ow) {
        T v = in[ow * stride], mv = m[ow];
        if (!IsMax) {
          m[ow] = mv + v;
          continue;
        }
        // Masks rather than branches: on random data each comparison
        // goes either way half the time.
        bool take = (v > mv) | (v != v);
        m[ow] = take ? v : mv;
        if (WithIndex) at[ow] ^= (at[ow] ^ (base + ow * stride)) & -static_cast<int64_t>(take);
      }
    }
}

// The output columns whose windows lie inside the plane at the sides.
std::pair<int64_t, int64_t> interiorColumns(int64_t W, int64_t OW, const PoolParams& p) {
  int64_t lo = (p.padW + p.strideW - 1) / p.strideW;
  int64_t reach = W + p.padW - (p.kW - 1) * p.dilW - 1;
  int64_t hi = reach < 0 ? 0 : reach / p.strideW + 1;
  hi = hi < OW ? hi : OW;
  return {lo < hi ? lo : hi, hi};
}

template <class T, bool IsMax>
void poolPlane(const T* x, T* y, int64_t H, int64_t W, int64_t OH, int64_t OW, const PoolParams& p) {
  Shares<T> share(H, W, p);
  auto [lo, hi] = interiorColumns(W, OW, p);
  for (int64_t oh = 0; oh < OH; ++oh) {
    T* row = y + oh * OW;
    sweepRow<T, IsMax, false>(x, W, p, Window(oh, lo, H, W, p), lo, hi, row, nullptr);
    for (int64_t ow = 0; ow < OW; ++ow) {
      if (ow == lo) ow = hi;  // the interior is done
      if (ow >= OW) break;
      Window win(oh, ow, H, W, p);
      if (IsMax) {
        int64_t at = argmax(x, W, win, p);
        row[ow] = at < 0 ? -std::numeric_limits<T>::infinity() : x[at];
        continue;
      }
      T sum = 0;
      for (int64_t i = 0; i < win.nr; ++i)
        for (int64_t j = 0; j < win.nc; ++j) sum += x[(win.r0 + i) * W + win.c0 + j];
      row[ow] = sum;
    }
    if (!IsMax)
      for (int64_t ow = 0; ow < OW; ++ow) row[ow] *= share(oh, ow);
  }
}

template <class T, bool IsMax>
void poolGradPlane(const T* g, const T* x, T* dx, int64_t H, int64_t W, int64_t OH, int64_t OW, const PoolParams& p) {
  Shares<T> share(H, W, p);
  auto [lo, hi] = interiorColumns(W, OW, p);
  std::vector<T> m(static_cast<size_t>(OW));
  std::vector<int64_t> at(static_cast<size_t>(OW));
  for (int64_t oh = 0; oh < OH; ++oh) {
    const T* grow = g + oh * OW;
    Window rows(oh, lo, H, W, p);
    if (IsMax) {
      sweepRow<T, true, true>(x, W, p, rows, lo, hi, m.data(), at.data());
      if (rows.nr > 0)
        for (int64_t ow = lo; ow < hi; ++ow) dx[at[ow]] += grow[ow];
    } else {
      // Each window's share of g, then, within one window row and column,
      // the windows touch distinct elements.
      for (int64_t ow = lo; ow < hi; ++ow) m[ow] = grow[ow] * share(oh, ow);
      for (int64_t r = 0; r < rows.nr; ++r)
        for (int64_t kw = 0; kw < p.kW; ++kw) {
          T* out = dx + (rows.r0 + r) * W + kw - p.padW;
          for (int64_t ow = lo; ow < hi; ++ow) out[ow * p.strideW] += m[ow];
        }
    }
    for (int64_t ow = 0; ow < OW; ++ow) {
      if (ow == lo) ow = hi;  // the interior is done
      if (ow >= OW) break;
      Window win(oh, ow, H, W, p);
      if (IsMax) {
        int64_t best = argmax(x, W, win, p);
        if (best >= 0) dx[best] += grow[ow];
        continue;
      }
      T gv = grow[ow] * share(oh, ow);
      for (int64_t i = 0; i < win.nr; ++i)
        for (int64_t j = 0; j < win.nc; ++j) dx[(win.r0 + i) * W + win.c0 + j] += gv;
    }
  }
}

// Each window's argmax (the flat index in the plane) into `at` [OH, OW].
template <class T>
void maxIndicesPlane(const T* x, int64_t* at, int64_t H, int64_t W, int64_t OH, int64_t OW, const PoolParams& p) {
  auto [lo, hi] = interiorColumns(W, OW, p);
  std::vector<T> m(static_cast<size_t>(OW));
  for (int64_t oh = 0; oh < OH; ++oh) {
    int64_t* row = at + oh * OW;
    sweepRow<T, true, true>(x, W, p, Window(oh, lo, H, W, p), lo, hi, m.data(), row);
    for (int64_t ow = 0; ow < OW; ++ow) {
      if (ow == lo) ow = hi;  // the interior is done
      if (ow >= OW) break;
      row[ow] = argmax(x, W, Window(oh, ow, H, W, p), p);
    }
  }
}

// Max pooling's commonest case: 2x2 windows at stride 2 without padding,
// which tile the plane. The window of output (oh, ow) is columns 2ow,
// 2ow+1 of rows 2oh, 2oh+1, scanned in that order as argmax does, each
// element taking the maximum when it is larger or NaN. Selects instead of
// branches, so that a row's windows vectorise.
bool tiles2x2(const PoolParams& p) {
  return p.kH == 2 && p.kW == 2 && p.strideH == 2 && p.strideW == 2 && p.padH == 0 && p.padW == 0 && p.dilH == 1 &&
         p.dilW == 1 && !p.ceilMode;
}

template <class T>
inline bool takes(T v, T m) {
  return (v > m) | (v != v);
}

template <class T>
void maxPlane2x2(const T* x, T* y, int64_t W, int64_t OH, int64_t OW) {
  for (int64_t oh = 0; oh < OH; ++oh) {
    const T *r0 = x + 2 * oh * W, *r1 = r0 + W;
    T* row = y + oh * OW;
#pragma omp simd
    for (int64_t ow = 0; ow < OW; ++ow) {
      T m = r0[2 * ow], b = r0[2 * ow + 1], c = r1[2 * ow], d = r1[2 * ow + 1];
      m = takes(b, m) ? b : m;
      m = takes(c, m) ? c : m;
      row[ow] = takes(d, m) ? d : m;
    }
  }
}

// Writes the whole of dx's plane: each window's gradient to its winner (the
// last element that took the maximum), zero to the rest of the window and
// to a last row or column no window covers. Each element's share is
// carried as a value, which the compiler vectorises where it would not
// combine the takes' masks.
template <class T>
void maxGradPlane2x2(const T* g, const T* x, T* dx, int64_t H, int64_t W, int64_t OH, int64_t OW) {
  for (int64_t oh = 0; oh < OH; ++oh) {
    const T *r0 = x + 2 * oh * W, *r1 = r0 + W, *grow = g + oh * OW;
    T *d0 = dx + 2 * oh * W, *d1 = d0 + W;
#pragma omp simd
    for (int64_t ow = 0; ow < OW; ++ow) {
      T m = r0[2 * ow], b = r0[2 * ow + 1], c = r1[2 * ow], d = r1[2 * ow + 1];
      T gv = grow[ow], ga = gv, gb = 0, gc = 0, gd = 0;
      bool t = takes(b, m);
      m = t ? b : m, gb = t ? gv : gb, ga = t ? T(0) : ga;
      t = takes(c, m);
      m = t ? c : m, gc = t ? gv : gc, gb = t ? T(0) : gb, ga = t ? T(0) : ga;
      t = takes(d, m);
      gd = t ? gv : gd, gc = t ? T(0) : gc, gb = t ? T(0) : gb, ga = t ? T(0) : ga;
      d0[2 * ow] = ga, d0[2 * ow + 1] = gb, d1[2 * ow] = gc, d1[2 * ow + 1] = gd;
    }
    for (int64_t iw = 2 * OW; iw < W; ++iw) d0[iw] = d1[iw] = T(0);
  }
  std::memset(dx + 2 * OH * W, 0, static_cast<size_t>((H - 2 * OH) * W) * sizeof(T));
}

// Runs plane(i) for every [H, W] plane of x [N, C, H, W]; planes are
// disjoint, so they run in parallel above the threshold.
template <class F>
void eachPlane(const Tensor& x, F plane) {
  int64_t planes = x.dim(0) * x.dim(1);
  if (x.numel() >= kParallelThreshold && planes > 1) {
#pragma omp parallel for
    for (int64_t i = 0; i < planes; ++i) plane(i);
  } else {
    for (int64_t i = 0; i < planes; ++i) plane(i);
  }
}

template <class T, bool IsMax>
void pool(const Tensor& x, const PoolParams& p, Tensor& out) {
  int64_t H = x.dim(2), W = x.dim(3), OH = out.dim(2), OW = out.dim(3);
  const T* in = x.data<T>();
  T* o = out.data<T>();
  if (IsMax && tiles2x2(p)) {
    eachPlane(x, [&](int64_t i) { maxPlane2x2<T>(in + i * H * W, o + i * OH * OW, W, OH, OW); });
    return;
  }
  eachPlane(x, [&](int64_t i) { poolPlane<T, IsMax>(in + i * H * W, o + i * OH * OW, H, W, OH, OW, p); });
}

template <class T>
void maxIndices(const Tensor& x, const PoolParams& p, Tensor& out) {
  int64_t H = x.dim(2), W = x.dim(3), OH = out.dim(2), OW = out.dim(3);
  const T* in = x.data<T>();
  int64_t* o = out.data<int64_t>();
  eachPlane(x, [&](int64_t i) { maxIndicesPlane<T>(in + i * H * W, o + i * OH * OW, H, W, OH, OW, p); });
}

template <class T>
void poolGrad(const Tensor& g, const Tensor& x, const PoolParams& p, bool isMax, Tensor& dx) {
  int64_t H = x.dim(2), W = x.dim(3), OH = g.dim(2), OW = g.dim(3);
  const T *gd = g.data<T>(), *xd = x.data<T>();
  T* o = dx.data<T>();
  if (isMax && tiles2x2(p)) {
    eachPlane(x, [&](int64_t i) { maxGradPlane2x2<T>(gd + i * OH * OW, xd + i * H * W, o + i * H * W, H, W, OH, OW); });
    return;
  }
  eachPlane(x, [&](int64_t i) {
    std::memset(o + i * H * W, 0, static_cast<size_t>(H * W) * sizeof(T));
    if (isMax)
      poolGradPlane<T, true>(gd + i * OH * OW, xd + i * H * W, o + i * H * W, H, W, OH, OW, p);
    else
      poolGradPlane<T, false>(gd + i * OH * OW, xd + i * H * W, o + i * H * W, H, W, OH, OW, p);
  });
}

}  // namespace

void pool2dLoop(const Tensor& x, const PoolParams& p, bool isMax, Tensor& out) {
  if (out.dtype() == DType::F64)
    isMax ? pool<double, true>(x, p, out) : pool<double, false>(x, p, out);
  else
    isMax ? pool<float, true>(x, p, out) : pool<float, false>(x, p, out);
}

void pool2dGradLoop(const Tensor& g, const Tensor& x, const PoolParams& p, bool isMax, Tensor& dx) {
  if (dx.dtype() == DType::F64)
    poolGrad<double>(g, x, p, isMax, dx);
  else
    poolGrad<float>(g, x, p, isMax, dx);
}

void registerCpuPoolKernels(KernelTable& r) {
  using ir::Op;
  r.add<Op::MaxPool2d>(DType::F32, pool<float, true>);
  r.add<Op::MaxPool2d>(DType::F64, pool<double, true>);
  r.add<Op::AvgPool2d>(DType::F32, pool<float, false>);
  r.add<Op::AvgPool2d>(DType::F64, pool<double, false>);
  r.add<Op::MaxPool2dIndices>(DType::F32, maxIndices<float>);
  r.add<Op::MaxPool2dIndices>(DType::F64, maxIndices<double>);
  r.add<Op::Pool2dGrad>(DType::F32, pool2dGradLoop);
  r.add<Op::Pool2dGrad>(DType::F64, pool2dGradLoop);
}

}  // namespace nn::rt
