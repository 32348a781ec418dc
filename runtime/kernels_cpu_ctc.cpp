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

namespace nn::rt {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// log(exp(a) + exp(b)), exact when either is -inf.
double logPlus(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  double high = a > b ? a : b;
  return high + std::log1p(std::exp(-std::fabs(a - b)));
}

// One batch element's alignment lattice: log_probs' entries for it, its
// extended target and the forward (and backward) variables.
template <class T>
struct Lattice {
  const T* lp;  // log_probs [T, N, C]
  int64_t batch, classes, n, steps, length;
  const CtcLabels& labels;
  std::vector<double> alpha, beta;

  int64_t label(int64_t s) const {
    return s % 2 == 0 ? labels.blank : labels.labels[static_cast<size_t>(labels.starts[static_cast<size_t>(n)] + s / 2)];
  }
  double logProb(int64_t t, int64_t c) const { return static_cast<double>(lp[(t * batch + n) * classes + c]); }
  // Whether s - 2 leads to s: two different labels with a blank between.
  bool skips(int64_t s) const { return s >= 2 && label(s) != labels.blank && label(s) != label(s - 2); }
  double& at(std::vector<double>& v, int64_t t, int64_t s) { return v[static_cast<size_t>(t * length + s)]; }

  double forward() {
    alpha.assign(static_cast<size_t>(steps * length), kNegInf);
    at(alpha, 0, 0) = logProb(0, labels.blank);
    if (length > 1) at(alpha, 0, 1) = logProb(0, label(1));
    for (int64_t t = 1; t < steps; ++t)
      for (int64_t s = 0; s < length; ++s) {
        double a = at(alpha, t - 1, s);
        if (s >= 1) a = logPlus(a, at(alpha, t - 1, s - 1));
        if (skips(s)) a = logPlus(a, at(alpha, t - 1, s - 2));
        at(alpha, t, s) = a == kNegInf ? kNegInf : a + logProb(t, label(s));
      }
    double last = at(alpha, steps - 1, length - 1);
    return -(length > 1 ? logPlus(last, at(alpha, steps - 1, length - 2)) : last);
  }

  // grad[t, n, :] for t < steps, given the forward's nll.
  void gradient(double nll, double weight, T* grad) {
    beta.assign(static_cast<size_t>(steps * length), kNegInf);
    at(beta, steps - 1, length - 1) = logProb(steps - 1, label(length - 1));
    if (length > 1) at(beta, steps - 1, length - 2) = logProb(steps - 1, label(length - 2));
    for (int64_t t = steps - 2; t >= 0; --t)
      for (int64_t s = 0; s < length; ++s) {
        double b = at(beta, t + 1, s);
        if (s + 1 < length) b = logPlus(b, at(beta, t + 1, s + 1));
        if (s + 2 < length && skips(s + 2)) b = logPlus(b, at(beta, t + 1, s + 2));
        at(beta, t, s) = b == kNegInf ? kNegInf : b + logProb(t, label(s));
      }
    std::vector<double> byClass(static_cast<size_t>(classes));
    for (int64_t t = 0; t < steps; ++t) {
      byClass.assign(static_cast<size_t>(classes), kNegInf);
      for (int64_t s = 0; s < length; ++s) {
        double& c = byClass[static_cast<size_t>(label(s))];
        c = logPlus(c, at(alpha, t, s) + at(beta, t, s));
      }
      T* row = grad + (t * batch + n) * classes;
      for (int64_t c = 0; c < classes; ++c)
        row[c] = static_cast<T>(-std::exp(byClass[static_cast<size_t>(c)] + nll - logProb(t, c)) * weight + 0.0);
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
    Lattice<T> lattice{logProbs.data<T>(), batch, classes, n, inputLength, 2 * targetLength + 1, labels, {}, {}};
    double loss = inputLength == 0 ? (targetLength == 0 ? 0.0 : std::numeric_limits<double>::infinity())
                                   : lattice.forward();
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
