// The CPU's kernels of the ops that work along one axis in order or by
// position: the scans (cumsum, cumprod, logcumsumexp), the stable sort behind sort and
// argsort, topk (the first k of that order, selected before they are
// sorted), and the triangles (tril, triu). A tensor is walked as
// lines along its axis (AxisLines, kernels.h), so one loop serves every
// axis without transposing.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "runtime/kernel_loops.h"
#include "runtime/scan_steps.h"

namespace nn::rt {

namespace {

// A running sum of f32 values in double rounds once per element rather
// than drifting.
template <class T>
using ScanAcc = std::conditional_t<std::is_floating_point_v<T>, double, T>;

// Lines that lie side by side (an axis before the last: consecutive
// elements belong to consecutive lines) are scanned a block of columns at
// a time, each step reading one contiguous row of the block, where a line
// at a time would stride through memory; every line still adds its
// elements in its own order, so the bits are the same.
inline constexpr int64_t kScanColumns = 64;

template <class T, ScanKind K>
void scanKernel(const Tensor& x, int axis, bool reverse, Tensor& out) {
  AxisLines lines(x, axis);
  const T* in = x.data<T>();
  T* o = out.data<T>();
  bool parallel = x.numel() >= kParallelThreshold;
  auto row = [&](int64_t k) { return (reverse ? lines.len - 1 - k : k) * lines.inner; };
  if (lines.inner > 1) {
    int64_t blocks = (lines.inner + kScanColumns - 1) / kScanColumns;
    forEachLine(lines.outer * blocks, parallel, [&](int64_t task) {
      int64_t j0 = (task % blocks) * kScanColumns, width = std::min(kScanColumns, lines.inner - j0);
      int64_t first = (task / blocks) * lines.len * lines.inner + j0;
      ScanAcc<T> acc[kScanColumns];
      std::fill(acc, acc + width, scanStart<K, ScanAcc<T>>());
      for (int64_t k = 0; k < lines.len; ++k) {
        int64_t i = first + row(k);
        for (int64_t b = 0; b < width; ++b) {
          acc[b] = scanned<K>(acc[b], in[i + b]);
          o[i + b] = static_cast<T>(acc[b]);
        }
      }
    });
    return;
  }
  forEachLine(lines.count(), parallel, [&](int64_t l) {
    int64_t first = lines.start(l);
    ScanAcc<T> acc = scanStart<K, ScanAcc<T>>();
    for (int64_t k = 0; k < lines.len; ++k) {
      int64_t i = first + row(k);
      acc = scanned<K>(acc, in[i]);
      o[i] = static_cast<T>(acc);
    }
  });
}

// NaN is larger than every number (PyTorch's order): last ascending,
// first descending.
template <class T>
bool before(T a, T b, bool descending) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return descending ? std::isnan(a) && !std::isnan(b) : !std::isnan(a) && std::isnan(b);
  }
  return descending ? b < a : a < b;
}

// An element of a line and its position, ordered by value (before()'s
// order) and then by position: a total order, so std::sort and
// std::nth_element give the order of a stable sort.
template <class T>
struct Ranked {
  T value;
  int64_t index;
};

template <class T>
auto rankOrder(bool descending) {
  return [descending](const Ranked<T>& a, const Ranked<T>& b) {
    if (before(a.value, b.value, descending)) return true;
    if (before(b.value, a.value, descending)) return false;
    return a.index < b.index;
  };
}

// At most this many kept of a line are found in one pass (selectFew);
// more by selection, which costs a few mispredicted branches per element.
constexpr int64_t kFewKept = 16;

// Whether any of p[0, n) may rank before `last` (the last kept so far),
// all of them coming after it: only a value strictly before it (a NaN
// first descending), or anything where it is a NaN ascending. A min or
// max from `last` on, which vectorises (a NaN never replaces it).
template <class T>
bool mayEnter(const T* p, int64_t n, T last, bool descending) {
  T m = last;
  bool nan = false;
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(last)) return !descending;
  }
  if (descending) {
    for (int64_t i = 0; i < n; ++i) {
      m = p[i] > m ? p[i] : m;
      nan |= p[i] != p[i];
    }
    return nan || m > last;
  }
  for (int64_t i = 0; i < n; ++i) m = p[i] < m ? p[i] : m;
  return m < last;
}

// The `keep` first in `order` of a line of `len` elements `step` apart
// into best[0, keep), in order: one pass holding the best so far, sorted;
// an element enters only where it ranks before the last of them, which
// after the first few is rare and predicted (at worst, an ascending line's
// largest, every element shifts up to `keep` others). Once `keep` are
// held, a contiguous line is read a chunk at a time, and a chunk none of
// whose elements can enter (mayEnter) is passed over whole.
template <class T, class Order>
void selectFew(const T* line, int64_t step, int64_t len, int64_t keep, bool descending, Order order, Ranked<T>* best) {
  if (keep == 0) return;
  constexpr int64_t kChunk = 32;
  int64_t have = 0, k = 0;
  while (k < len) {
    bool chunked = step == 1 && have == keep;
    if (chunked && k + kChunk <= len && !mayEnter(line + k, kChunk, best[keep - 1].value, descending)) {
      k += kChunk;
      continue;
    }
    for (int64_t end = chunked ? std::min(len, k + kChunk) : k + 1; k < end; ++k) {
      Ranked<T> e{line[k * step], k};
      if (have == keep) {
        // Order by value alone: e comes after every element held.
        if (!before(e.value, best[keep - 1].value, descending)) continue;
        --have;
      }
      int64_t j = have++;
      for (; j > 0 && order(e, best[j - 1]); --j) best[j] = best[j - 1];
      best[j] = e;
    }
  }
}

// A line of integers spanning few values (labels, classes, counts) in the
// sorted order by counting, into line: each value's place found from the
// counts of those before it, the elements placed in their order (so equal
// ones keep it, as the stable sort does). False, and nothing done, where
// the span is too wide for counting to beat a sort.
template <class T>
bool countingSort(const T* in, int64_t step, int64_t len, bool descending, std::vector<Ranked<T>>& line) {
  if constexpr (!std::is_integral_v<T>) {
    return false;
  } else {
    if (len < 64) return false;
    T lo = in[0], hi = in[0];
    for (int64_t k = 1; k < len; ++k) lo = std::min(lo, in[k * step]), hi = std::max(hi, in[k * step]);
    uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    if (span >= static_cast<uint64_t>(2 * len)) return false;
    thread_local std::vector<int64_t> place;
    place.assign(span + 1, 0);
    auto slot = [&](T v) { return static_cast<size_t>(static_cast<uint64_t>(v) - static_cast<uint64_t>(lo)); };
    for (int64_t k = 0; k < len; ++k) ++place[slot(in[k * step])];
    int64_t at = 0;
    for (size_t i = 0; i <= span; ++i) {
      size_t s = descending ? span - i : i;
      int64_t count = place[s];
      place[s] = at;
      at += count;
    }
    line.resize(static_cast<size_t>(len));
    for (int64_t k = 0; k < len; ++k) {
      T v = in[k * step];
      line[static_cast<size_t>(place[slot(v)]++)] = {v, k};
    }
    return true;
  }
}

// The first values.dim(axis) elements of each line of x along `axis` in
// sorted order, and their positions: few in one pass (selectFew), integers
// of a narrow span by counting, else the line's elements with their
// positions, the ones kept selected (nth_element) where not all are, then
// sorted.
template <class T>
void sortLines(const Tensor& x, int axis, bool descending, Tensor& values, Tensor& indices) {
  AxisLines lines(x, axis), kept(values, axis);
  const T* in = x.data<T>();
  T* v = values.data<T>();
  int64_t* ix = indices.data<int64_t>();
  auto sortLine = [&](int64_t l) {
    thread_local std::vector<Ranked<T>> line;  // reused line after line
    int64_t first = lines.start(l), step = lines.inner;
    auto order = rankOrder<T>(descending);
    if (kept.len <= kFewKept) {
      line.resize(static_cast<size_t>(kept.len));
      selectFew(in + first, step, lines.len, kept.len, descending, order, line.data());
    } else if (!countingSort(in + first, step, lines.len, descending, line)) {
      line.resize(static_cast<size_t>(lines.len));
      for (int64_t k = 0; k < lines.len; ++k) line[static_cast<size_t>(k)] = {in[first + k * step], k};
      auto keptEnd = line.begin() + kept.len;
      if (kept.len < lines.len) std::nth_element(line.begin(), keptEnd, line.end(), order);
      std::sort(line.begin(), keptEnd, order);
    }
    int64_t out = kept.start(l);
    for (int64_t k = 0; k < kept.len; ++k) {
      v[out + k * step] = line[static_cast<size_t>(k)].value;
      ix[out + k * step] = line[static_cast<size_t>(k)].index;
    }
  };
  forEachLine(lines.count(), x.numel() >= kParallelThreshold, sortLine);
}

template <class T>
void triangleKernel(const Tensor& x, int64_t diagonal, bool upper, Tensor& out) {
  int64_t rows = x.dim(x.ndim() - 2), cols = x.dim(x.ndim() - 1);
  int64_t matrices = rows * cols == 0 ? 0 : x.numel() / (rows * cols);
  const T* in = x.data<T>();
  T* o = out.data<T>();
  for (int64_t m = 0; m < matrices; ++m)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        int64_t at = (m * rows + i) * cols + j;
        bool keep = upper ? j - i >= diagonal : j - i <= diagonal;
        o[at] = keep ? in[at] : T(0);
      }
}

}  // namespace

void registerCpuOrderKernels(KernelTable& t) {
  forEachDType([&](auto type, DType d) {
    using T = decltype(type);
    // sort keeps every element of a line, topk the first k (values' length).
    t.add<ir::Op::Sort>(d, sortLines<T>);
    t.add<ir::Op::TopK>(d, sortLines<T>);
    t.add<ir::Op::Tril>(d, triangleKernel<T>);
    if constexpr (!std::is_same_v<T, bool>) {
      t.add<ir::Op::CumSum>(d, scanKernel<T, ScanKind::Sum>);
      t.add<ir::Op::CumProd>(d, scanKernel<T, ScanKind::Product>);
    }
    if constexpr (std::is_floating_point_v<T>) t.add<ir::Op::LogCumSumExp>(d, scanKernel<T, ScanKind::LogSumExp>);
  });
}

}  // namespace nn::rt
