// The host-made kernels (see host_made_kernels.h).
#include "runtime/host_made_kernels.h"

#include <initializer_list>
#include <stdexcept>
#include <vector>

#include "runtime/device.h"
#include "runtime/tensor.h"

namespace nn::rt {

using ir::Op;

namespace {

// A contiguous host tensor of out's dtype and shape, on out's device's host.
Tensor hostLike(const Tensor& out) {
  Device* host = out.device().host();
  if (!host) throw std::logic_error("device '" + out.device().name() + "' has no host to make values on");
  return Tensor::empty(out.dtype(), out.shape(), *host);
}

// Copies `made` (contiguous, on the host) into out (contiguous, of its
// shape and dtype) with out's device's transfer.
void moveIn(const Tensor& made, Tensor& out) {
  out.device().copyFromHost(out.deviceBytes(), made.bytes(), static_cast<size_t>(made.numel()) * dtypeSize(made.dtype()));
}

template <Op O>
void ramp(const Ramp& r, Tensor& out) {
  Tensor made = hostLike(out);
  cpuKernels().get<O>(out.dtype())(r, made);
  moveIn(made, out);
}

void eye(Tensor& out) {
  Tensor made = hostLike(out);
  cpuKernels().get<Op::Eye>(out.dtype())(made);
  moveIn(made, out);
}

// rand, randn, randperm: one signature.
template <Op O>
void drawn(RandomGenerator& rng, Tensor& out) {
  Tensor made = hostLike(out);
  cpuKernels().get<O>(out.dtype())(rng, made);
  moveIn(made, out);
}

void randint(RandomGenerator& rng, int64_t low, uint64_t range, Tensor& out) {
  Tensor made = hostLike(out);
  cpuKernels().get<Op::Randint>(out.dtype())(rng, low, range, made);
  moveIn(made, out);
}

// x (contiguous, out's shape and dtype) goes to the host and comes back
// dropped, so the draws and the arithmetic are the CPU's.
void dropout(const Tensor& x, double p, RandomGenerator& rng, Tensor& out) {
  Tensor hostX = hostLike(out);
  x.device().copyToHost(hostX.bytes(), x.deviceBytes(), static_cast<size_t>(x.numel()) * dtypeSize(x.dtype()));
  Tensor made = hostLike(out);
  cpuKernels().get<Op::Dropout>(out.dtype())(hostX, p, rng, made);
  moveIn(made, out);
}

// x (contiguous) as a host tensor, read with its device's transfer.
Tensor onHost(const Tensor& x, const Tensor& like) {
  Device* host = like.device().host();
  if (!host) throw std::logic_error("device '" + like.device().name() + "' has no host to compute on");
  Tensor h = Tensor::empty(x.dtype(), x.shape(), *host);
  x.device().copyToHost(h.bytes(), x.deviceBytes(), static_cast<size_t>(x.numel()) * dtypeSize(x.dtype()));
  return h;
}

// The outputs given (out), made on the host (made) and moved in.
struct HostOutputs {
  std::vector<Tensor*> out;
  std::vector<Tensor> made;
  explicit HostOutputs(std::initializer_list<Tensor*> outputs) : out(outputs) {
    for (Tensor* t : out) made.push_back(t ? hostLike(*t) : Tensor());
  }
  Tensor* at(size_t i) { return out[i] ? &made[i] : nullptr; }
  void moveAllIn() {
    for (size_t i = 0; i < out.size(); ++i)
      if (out[i]) moveIn(made[i], *out[i]);
  }
};

// The linear algebra ops: LAPACK's on the host (a GPU's own solver is not
// used yet), x copied out and the result back.
void inverse(const Tensor& x, Tensor& out, SourceLoc loc) {
  Tensor made = hostLike(out);
  cpuKernels().get<Op::Inverse>(out.dtype())(onHost(x, out), made, loc);
  moveIn(made, out);
}

void determinant(const Tensor& x, Tensor* value, Tensor* sign, Tensor* logAbs) {
  HostOutputs h{value, sign, logAbs};
  const Tensor& any = value ? *value : sign ? *sign : *logAbs;
  cpuKernels().get<Op::Det>(any.dtype())(onHost(x, any), h.at(0), h.at(1), h.at(2));
  h.moveAllIn();
}

void cofactor(const Tensor& x, const Tensor* g, Tensor& out, SourceLoc loc) {
  Tensor made = hostLike(out), hostG = g ? onHost(*g, out) : Tensor();
  cpuKernels().get<Op::Cofactor>(out.dtype())(onHost(x, out), g ? &hostG : nullptr, made, loc);
  moveIn(made, out);
}

void cholesky(const Tensor& x, bool upper, Tensor& out, SourceLoc loc) {
  Tensor made = hostLike(out);
  cpuKernels().get<Op::Cholesky>(out.dtype())(onHost(x, out), upper, made, loc);
  moveIn(made, out);
}

void symmetricEigen(const Tensor& x, Tensor* values, Tensor* vectors, SourceLoc loc) {
  HostOutputs h{values, vectors};
  const Tensor& any = values ? *values : *vectors;
  cpuKernels().get<Op::Eigvalsh>(any.dtype())(onHost(x, any), h.at(0), h.at(1), loc);
  h.moveAllIn();
}

void singular(const Tensor& x, bool full, Tensor* values, Tensor* u, Tensor* vh, SourceLoc loc) {
  HostOutputs h{values, u, vh};
  const Tensor& any = values ? *values : u ? *u : *vh;
  cpuKernels().get<Op::Svdvals>(any.dtype())(onHost(x, any), full, h.at(0), h.at(1), h.at(2), loc);
  h.moveAllIn();
}

void qrFactor(const Tensor& x, bool complete, Tensor* q, Tensor* r) {
  HostOutputs h{q, r};
  const Tensor& any = q ? *q : *r;
  cpuKernels().get<Op::QrQ>(any.dtype())(onHost(x, any), complete, h.at(0), h.at(1));
  h.moveAllIn();
}

void luFactor(const Tensor& x, bool pivot, Tensor& lu, Tensor& pivots) {
  Tensor madeLu = hostLike(lu), madePivots = hostLike(pivots);
  cpuKernels().get<Op::LuFactor>(lu.dtype())(onHost(x, lu), pivot, madeLu, madePivots);
  moveIn(madeLu, lu);
  moveIn(madePivots, pivots);
}

void ldlFactor(const Tensor& x, Tensor& ld, Tensor& pivots) {
  Tensor madeLd = hostLike(ld), madePivots = hostLike(pivots);
  cpuKernels().get<Op::LdlFactor>(ld.dtype())(onHost(x, ld), madeLd, madePivots);
  moveIn(madeLd, ld);
  moveIn(madePivots, pivots);
}

void ldlSolve(const Tensor& ld, const Tensor& pivots, const Tensor& b, Tensor& out, SourceLoc loc) {
  Tensor made = hostLike(out);
  cpuKernels().get<Op::LdlSolve>(out.dtype())(onHost(ld, out), onHost(pivots, out), onHost(b, out), made, loc);
  moveIn(made, out);
}

void luPermutation(const Tensor& pivots, bool inverse, Tensor& perm, SourceLoc loc) {
  Tensor made = hostLike(perm);
  cpuKernels().get<Op::LuPermutation>(pivots.dtype())(onHost(pivots, perm), inverse, made, loc);
  moveIn(made, perm);
}

void solveTriangular(const Tensor& a, const Tensor& b, bool upper, bool left, bool unit, Tensor& out) {
  Tensor made = hostLike(out);
  cpuKernels().get<Op::SolveTriangular>(out.dtype())(onHost(a, out), onHost(b, out), upper, left, unit, made);
  moveIn(made, out);
}

void solve(const Tensor& a, const Tensor& b, Tensor& out, SourceLoc loc) {
  Tensor made = hostLike(out);
  cpuKernels().get<Op::Solve>(out.dtype())(onHost(a, out), onHost(b, out), made, loc);
  moveIn(made, out);
}

// ctc_loss's alpha-beta recursion: serial along time, on the host.
void ctcLoss(const Tensor& logProbs, const CtcLabels& labels, Tensor& nll, Tensor* grad) {
  Tensor madeNll = hostLike(nll), madeGrad = grad ? hostLike(*grad) : Tensor();
  cpuKernels().get<Op::CtcLoss>(logProbs.dtype())(onHost(logProbs, nll), labels, madeNll, grad ? &madeGrad : nullptr);
  moveIn(madeNll, nll);
  if (grad) moveIn(madeGrad, *grad);
}

template <Op O>
void addWhereMissing(KernelTable& t, typename KernelFor<O>::Fn k) {
  for (size_t i = 0; i < kNumDTypes; ++i) {
    DType d = static_cast<DType>(i);
    if (cpuKernels().has(O, d) && !t.has(O, d)) t.add<O>(d, k);
  }
}

}  // namespace

void addHostMadeKernels(KernelTable& t) {
  addWhereMissing<Op::Arange>(t, ramp<Op::Arange>);
  addWhereMissing<Op::Linspace>(t, ramp<Op::Linspace>);
  addWhereMissing<Op::Eye>(t, eye);
  addWhereMissing<Op::Rand>(t, drawn<Op::Rand>);
  addWhereMissing<Op::Randn>(t, drawn<Op::Randn>);
  addWhereMissing<Op::Randperm>(t, drawn<Op::Randperm>);
  addWhereMissing<Op::Randint>(t, randint);
  addWhereMissing<Op::Dropout>(t, dropout);
  addWhereMissing<Op::Inverse>(t, inverse);
  addWhereMissing<Op::Det>(t, determinant);
  addWhereMissing<Op::Cofactor>(t, cofactor);
  addWhereMissing<Op::Cholesky>(t, cholesky);
  addWhereMissing<Op::Eigvalsh>(t, symmetricEigen);
  addWhereMissing<Op::Svdvals>(t, singular);
  addWhereMissing<Op::QrQ>(t, qrFactor);
  addWhereMissing<Op::LuFactor>(t, luFactor);
  addWhereMissing<Op::LuPermutation>(t, luPermutation);
  addWhereMissing<Op::LdlFactor>(t, ldlFactor);
  addWhereMissing<Op::LdlSolve>(t, ldlSolve);
  addWhereMissing<Op::SolveTriangular>(t, solveTriangular);
  addWhereMissing<Op::Solve>(t, solve);
  addWhereMissing<Op::CtcLoss>(t, ctcLoss);
}

}  // namespace nn::rt
