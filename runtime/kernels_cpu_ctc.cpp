// The CPU's kernel of the CTC loss (connectionist temporal
// classification, Graves et al. 2006) and of its gradient, as PyTorch's
// LossCTC.cpp computes them: a batch element's target l (length S) is
// extended with blanks to l' = (blank, l1, blank, ..., lS, blank); the
// forward variables alpha_t(s) (log-probability of the alignments of
// l'[0..s] ending at time t) are filled by the recursion over s, s - 1
// and, between two different labels, s - 2; the loss is -log(alpha_T-1(L
// - 1) + alpha_T-1(L - 2)). The gradient adds the backward variables beta
// and, for each class c, gives d nll / d log_probs[t, c] = -exp(log(sum of
// alpha beta over the s with l'(s) = c) + nll - log_probs[t, c]): the
// true derivative (PyTorch's adds exp(log_probs[t, c]), which only
// log_softmax's gradient cancels). All in double, the batch elements in
// parallel, each serially, so every run gives the same bits.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "runtime/kernel_loops.h"
#include "runtime/kernels.h"
#include "runtime/vector_math.h"

namespace nn::rt {

namespace {

constexpr double kInfiniteLoss = std::numeric_limits<double>::infinity(), kNegInf = -kInfiniteLoss;

// log(exp(a) + exp(b)), exact when either is -inf.
double logPlus(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  double high = a > b ? a : b;
  return high + std::log1p(std::exp(-std::fabs(a - b)));
}

// One batch element's alignment lattice: log_probs' entries for it, its
// extended target l' (with whether s - 2 leads to s: two different labels
// with a blank between) and the forward and backward variables, each row
// padded with two -inf states (before s = 0 for alpha, after the last for
// beta) so that a step reads its three predecessors as three arrays. Only
// the states that can still reach the end and be reached from the start,
// s in [length - 2 (steps - t), 2 (t + 1)), are computed; the others stay
// -inf.
template <class T>
struct Lattice {
  const T* lp;  // log_probs [T, N, C]
  int64_t batch, classes, n, steps, length, stride;
  std::vector<int64_t> label;
  std::vector<char> skips;  // length + 2 entries, 0 past the end
  std::vector<double> alpha, beta, third, sums;

  Lattice(const T* lp, int64_t batch, int64_t classes, int64_t n, int64_t steps, const CtcLabels& labels)
      : lp(lp), batch(batch), classes(classes), n(n), steps(steps) {
    auto at = static_cast<size_t>(n);
    length = 2 * labels.targetLengths[at] + 1;
    stride = length + 2;
    label.assign(static_cast<size_t>(length), labels.blank);
    skips.assign(static_cast<size_t>(length + 2), 0);
    for (int64_t s = 1; s < length; s += 2)
      label[static_cast<size_t>(s)] = labels.labels[static_cast<size_t>(labels.starts[at] + s / 2)];
    for (int64_t s = 3; s < length; s += 2)
      skips[static_cast<size_t>(s)] = label[static_cast<size_t>(s)] != label[static_cast<size_t>(s - 2)];
    third.resize(static_cast<size_t>(length));
    sums.resize(static_cast<size_t>(length));
  }
  const T* row(int64_t t) const { return lp + (t * batch + n) * classes; }
  int64_t first(int64_t t) const { return std::max<int64_t>(0, length - 2 * (steps - t)); }
  int64_t end(int64_t t) const { return std::min<int64_t>(2 * (t + 1), length); }
  // State s of row t (alpha: after the two pads; beta: before them).
  double* alphaAt(int64_t t) { return &alpha[static_cast<size_t>(t * stride + 2)]; }
  double* betaAt(int64_t t) { return &beta[static_cast<size_t>(t * stride)]; }

  // now[s] = log(exp(one[s]) + exp(two[s]) + exp(maybe[s])) + log_probs[t,
  // l'(s)] for s in [first(t), end(t)), maybe[s] counting only where
  // skip(s): one step of the forward (or backward) recursion.
  template <class Skip>
  void step(int64_t t, const double* one, const double* two, const double* maybe, Skip skip, double* now) {
    int64_t from = first(t), count = end(t) - from;
    if (count <= 0) return;  // a target too long for its input: no state is on a path
    for (int64_t k = 0; k < count; ++k) third[static_cast<size_t>(k)] = skip(from + k) ? maybe[from + k] : kNegInf;
    vmath::logSumExp3(one + from, two + from, third.data(), sums.data(), count);
    const T* r = row(t);
    for (int64_t k = 0; k < count; ++k) {
      double v = sums[static_cast<size_t>(k)];
      now[from + k] = v == kNegInf ? kNegInf : v + static_cast<double>(r[label[static_cast<size_t>(from + k)]]);
    }
  }

  double forward() {
    alpha.assign(static_cast<size_t>(steps * stride), kNegInf);
    const T* r = row(0);
    double* start = alphaAt(0);
    start[0] = static_cast<double>(r[label[0]]);
    if (length > 1) start[1] = static_cast<double>(r[label[1]]);
    for (int64_t t = 1; t < steps; ++t) {
      const double* before = alphaAt(t - 1);
      step(
          t, before, before - 1, before - 2, [&](int64_t s) { return skips[static_cast<size_t>(s)] != 0; }, alphaAt(t));
    }
    const double* last = alphaAt(steps - 1);
    return -(length > 1 ? logPlus(last[length - 1], last[length - 2]) : last[length - 1]);
  }

  // grad[t, n, :] for t < steps, given the forward's nll.
  void gradient(double nll, double weight, T* grad) {
    beta.assign(static_cast<size_t>(steps * stride), kNegInf);
    const T* r = row(steps - 1);
    double* final = betaAt(steps - 1);
    final[length - 1] = static_cast<double>(r[label[static_cast<size_t>(length - 1)]]);
    if (length > 1) final[length - 2] = static_cast<double>(r[label[static_cast<size_t>(length - 2)]]);
    for (int64_t t = steps - 2; t >= 0; --t) {
      const double* after = betaAt(t + 1);
      step(
          t, after, after + 1, after + 2, [&](int64_t s) { return skips[static_cast<size_t>(s + 2)] != 0; }, betaAt(t));
    }
    std::vector<double> byClass(static_cast<size_t>(classes));
    for (int64_t t = 0; t < steps; ++t) {
      byClass.assign(static_cast<size_t>(classes), kNegInf);
      const double* a = alphaAt(t);
      const double* b = betaAt(t);
      for (int64_t s = first(t), e = end(t); s < e; ++s) {
        double& c = byClass[static_cast<size_t>(label[static_cast<size_t>(s)])];
        c = logPlus(c, a[s] + b[s]);
      }
      r = row(t);
      T* out = grad + (t * batch + n) * classes;
      for (int64_t c = 0; c < classes; ++c) {
        double v = byClass[static_cast<size_t>(c)];
        // An impossible target (nll inf) gives NaN, as PyTorch's.
        out[c] = v == kNegInf && nll != kInfiniteLoss
                     ? T(0)
                     : static_cast<T>(-std::exp(v + nll - static_cast<double>(r[c])) * weight);
      }
    }
  }
};

template <class T>
void ctcKernel(const Tensor& logProbs, const CtcLabels& labels, Tensor& nll, Tensor* grad) {
  int64_t batch = logProbs.dim(1), classes = logProbs.dim(2);
  double* out = nll.data<double>();
  T* g = grad ? grad->data<T>() : nullptr;
  if (g) std::fill(g, g + grad->numel(), T(0));
  forEachLine(batch, batch > 1, [&](int64_t n) {
    auto at = static_cast<size_t>(n);
    int64_t inputLength = labels.inputLengths[at], targetLength = labels.targetLengths[at];
    Lattice<T> lattice(logProbs.data<T>(), batch, classes, n, inputLength, labels);
    double loss =
        inputLength == 0 ? (targetLength == 0 ? 0.0 : std::numeric_limits<double>::infinity()) : lattice.forward();
    bool zeroed = labels.zeroInfinity && std::isinf(loss);
    out[n] = zeroed ? 0.0 : loss;
    if (g && !zeroed && inputLength > 0) lattice.gradient(loss, labels.weights[at], g);
  });
}

}  // namespace

void registerCpuCtcKernels(KernelTable& t) {
  forFloatDTypes([&](auto type, DType d) { t.add<ir::Op::CtcLoss>(d, ctcKernel<decltype(type)>); });
}

}  // namespace nn::rt
