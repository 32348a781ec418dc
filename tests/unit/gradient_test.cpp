// Every gradient rule against central finite differences, generated over
// the rule table: each op with a rule of its own has at least one case
// here (checked), and each case runs in eager and in graph mode. A case
// differentiates sum(EXPR * w) for random f64 inputs and a random weight
// w of EXPR's shape, with respect to every input, and compares each
// element with (f(x + h) - f(x - h)) / 2h, h = 1e-6: the difference must be
// below 1e-6 * (1 + |numeric|) (the truncation error is O(h^2) and the
// rounding error O(1e-16 / h)). The ops gradient rules emit themselves
// (sum_to, broadcast_like, reshape_like, reduce_grad, index_grad_add) are
// checked the same way through second derivatives.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ir/gradient.h"
#include "ir/ir.h"
#include "stdlib/state.h"

namespace {

struct Case {
  const char* op;                   // the op whose rule it checks
  const char* expr;                 // over a, b, c
  std::vector<const char*> inputs;  // nn expressions, made f64 by the test
  bool second = false;              // differentiate grad(expr) once more
};

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"add", "a + b", {"randn(3, 4)", "randn(4)"}},
      {"sub", "a - b", {"randn(3, 4)", "randn(3, 1)"}},
      {"mul", "a * b", {"randn(2, 3)", "randn(2, 3)"}},
      {"div", "a / b", {"randn(3, 4)", "rand(4) + 1.0"}},
      {"pow", "a ** b", {"rand(4) + 0.5", "randn(4)"}},
      {"pow", "a ** 3", {"randn(5)"}},
      {"mod", "a % b", {"rand(4) * 3.0 + 0.1", "rand(4) * 0.5 + 1.3"}},
      {"matmul", "a @ b", {"randn(2, 3, 4)", "randn(4, 5)"}},
      {"matmul", "a.transpose(0, 2) @ b", {"randn(3, 2, 4, 4)", "randn(4, 5)"}},
      {"matmul", "a @ b", {"randn(4)", "randn(2, 4, 3)"}},
      {"matmul", "a @ b", {"randn(3, 4)", "randn(4)"}},
      {"matmul", "a @ b", {"randn(4)", "randn(4)"}},
      {"neg", "-a", {"randn(3)"}},
      {"pos", "+a", {"randn(3)"}},
      {"getattr", "a.T * b", {"randn(3, 4)", "randn(4, 3)"}},
      {"exp", "exp(a)", {"randn(5)"}},
      {"log", "log(a)", {"rand(5) + 0.5"}},
      {"sqrt", "sqrt(a)", {"rand(5) + 0.5"}},
      {"rsqrt", "rsqrt(a)", {"rand(5) + 0.5"}},
      {"abs", "abs(a)", {"randn(5)"}},
      {"sin", "sin(a)", {"randn(5)"}},
      {"cos", "cos(a)", {"randn(5)"}},
      {"tanh", "tanh(a)", {"randn(5)"}},
      {"sigmoid", "sigmoid(a)", {"randn(5)"}},
      {"relu", "relu(a)", {"randn(6)"}},
      {"silu", "silu(a)", {"randn(5)"}},
      {"softplus", "softplus(a)", {"randn(5)"}},
      {"log1p", "log1p(a)", {"rand(5)"}},
      {"expm1", "a.expm1()", {"randn(5)"}},
      {"tan", "tan(a)", {"rand(5) - 0.5"}},
      {"atan", "atan(a) * a.atan()", {"randn(5) * 3.0"}},
      {"reciprocal", "reciprocal(a)", {"rand(5) + 0.5"}},
      {"log2", "log2(a) + a.log10()", {"rand(5) + 0.5"}},
      {"log10", "log10(a)", {"rand(5) + 0.5"}},
      {"sinh", "sinh(a) * a.cosh()", {"randn(5)"}},
      {"cosh", "cosh(a)", {"randn(5)"}},
      {"asin", "asin(a) + a.acos() * 2.0", {"rand(5) * 1.6 - 0.8"}},
      {"acos", "acos(a)", {"rand(5) * 1.6 - 0.8"}},
      {"square", "square(a) * a.square()", {"randn(5)"}},
      {"acosh", "acosh(a) * a.arccosh()", {"rand(5) + 1.5"}},
      {"asinh", "asinh(a)", {"randn(5) * 2.0"}},
      {"atanh", "atanh(a) + a.arctanh()", {"rand(5) * 1.6 - 0.8"}},
      {"exp2", "exp2(a)", {"randn(5)"}},
      {"erfc", "erfc(a) * a.erfc()", {"randn(5)"}},
      {"erfinv", "erfinv(a)", {"rand(5) * 1.6 - 0.8"}},
      {"lgamma", "lgamma(a)", {"rand(5) * 4.0 + 0.2"}},
      {"lgamma", "lgamma(a)", {"rand(5) * 4.0 + 0.2"}, true},
      {"digamma", "digamma(a)", {"rand(5) * 4.0 + 0.2"}},
      {"digamma", "digamma(a) + digamma(a - 3.0)", {"rand(5) * 0.8 + 0.1"}, true},
      {"polygamma", "polygamma(2, a) * b", {"rand(3, 4) * 4.0 + 0.5", "randn(4)"}},
      {"polygamma", "polygamma(1, a)", {"rand(5) * 4.0 + 0.5"}, true},
      {"zeta", "zeta(3.5, a) * b + zeta(2, a + 1.0)", {"rand(3, 4) * 4.0 + 0.2", "randn(4)"}},
      {"zeta", "zeta(2.5, a)", {"rand(5) * 4.0 + 0.2"}, true},
      {"gammainc", "gammainc(2.5, a) * b + igamma(0.7, a)", {"rand(3, 4) * 4.0 + 0.2", "randn(4)"}},
      {"gammainc", "gammainc(30.0, a)", {"rand(5) * 20.0 + 20.0"}, true},
      {"gammaincc", "gammaincc(1.5, a) + igammac(40.0, a * 10.0)", {"rand(5) * 4.0 + 0.2"}},
      {"gammaincc", "gammaincc(0.5, a)", {"rand(5) * 4.0 + 0.2"}, true},
      {"i0", "i0(a) * a.i0()", {"randn(5) * 3.0"}},
      {"i0", "i0(a)", {"randn(5) * 3.0"}, true},
      {"i0e", "i0e(a)", {"randn(5) * 3.0"}},
      {"i0e", "i0e(a)", {"randn(5) * 3.0"}, true},
      {"i1", "i1(a)", {"randn(5) * 3.0"}},
      {"i1", "i1(a)", {"randn(5) * 3.0"}, true},
      {"i1e", "i1e(a)", {"randn(5) * 3.0"}},
      {"i1e", "i1e(a)", {"randn(5) * 3.0"}, true},
      {"k0", "k0(a)", {"rand(5) * 4.0 + 0.2"}},
      {"k0", "k0(a)", {"rand(5) * 4.0 + 0.2"}, true},
      {"k1", "k1(a)", {"rand(5) * 4.0 + 0.2"}},
      {"k1", "k1(a)", {"rand(5) * 4.0 + 0.2"}, true},
      {"k0e", "k0e(a)", {"rand(5) * 30.0 + 0.2"}},
      {"k0e", "k0e(a)", {"rand(5) * 4.0 + 0.2"}, true},
      {"k1e", "k1e(a)", {"rand(5) * 30.0 + 0.2"}},
      {"k1e", "k1e(a)", {"rand(5) * 4.0 + 0.2"}, true},
      {"erfcx", "erfcx(a)", {"randn(5) * 2.0"}},
      {"erfcx", "erfcx(a)", {"randn(5) * 2.0"}, true},
      {"ndtri", "ndtri(a)", {"rand(5) * 0.9 + 0.05"}},
      {"ndtri", "ndtri(a)", {"rand(5) * 0.9 + 0.05"}, true},
      {"log_ndtr", "log_ndtr(a)", {"randn(5) * 4.0"}},
      {"log_ndtr", "log_ndtr(a)", {"randn(5) * 4.0"}, true},
      {"bessel_j0", "bessel_j0(a)", {"randn(5) * 4.0"}},
      {"bessel_j1", "bessel_j1(a)", {"randn(5) * 4.0"}},
      {"bessel_j1", "bessel_j1(a)", {"randn(5) * 4.0"}, true},
      {"bessel_y0", "bessel_y0(a)", {"rand(5) * 6.0 + 0.3"}},
      {"bessel_y1", "bessel_y1(a)", {"rand(5) * 6.0 + 0.3"}},
      {"bessel_y1", "bessel_y1(a) + bessel_y0(a)", {"rand(5) * 6.0 + 0.3"}, true},
      {"where", "where(a > 0.0, a * b, b)", {"randn(6)", "randn(6)"}},
      {"maximum", "maximum(a, b)", {"randn(3, 4)", "randn(4)"}},
      {"minimum", "minimum(a, b)", {"randn(3, 4)", "randn(3, 1)"}},
      {"inverse", "inverse(a) * b", {"randn(2, 3, 3) + eye(3) * 3.0", "randn(3, 3)"}},
      {"det", "det(a) * a.det()", {"randn(2, 3, 3) + eye(3) * 2.0"}},
      // det's rule emits cofactor, whose rule emits cofactor_grad; at a
      // singular matrix too.
      {"cofactor", "det(a)", {"randn(2, 3, 3)"}, true},
      {"cofactor", "det(a) * 2.0", {"stack([randn(3, 3), ones(3, 3)])"}, true},
      {"log_abs_det", "slogdet(a)[1] + logdet(a @ a.T)", {"randn(3, 3) + eye(3) * 2.0"}},
      {"cholesky", "cholesky(a @ a.T + eye(3)) * b + cholesky(a @ a.T + eye(3), upper=True)",
       {"randn(3, 3)", "randn(3, 3)"}},
      // Symmetric, well-separated eigenvalues; the vectors squared, whose
      // signs LAPACK chooses.
      {"eigvalsh", "eigvalsh(a + a.T + diag(tensor([0.0, 3.0, 6.0]))) * b", {"randn(3, 3) * 0.3", "randn(3)"}},
      {"eigh_vectors", "eigh(a + a.T + diag(tensor([0.0, 3.0, 6.0])))[1] ** 2 * b", {"randn(3, 3) * 0.3", "randn(3, 3)"}},
      {"svdvals", "svdvals(a) * b", {"randn(2, 3, 4)", "randn(3)"}},
      {"svd_u", "svd(a)[0] ** 2 * b", {"randn(4, 3)", "randn(4, 3)"}},
      {"svd_vh", "svd(a)[2] ** 2 * b", {"randn(3, 4)", "randn(4, 3)"}},
      {"qr_q", "qr(a)[0] * b", {"randn(4, 3)", "randn(4, 3)"}},
      {"qr_r", "qr(a)[1] * b", {"randn(2, 4, 3)", "randn(3, 3)"}},
      // Square, wide and tall matrices, with pivoting and without; the
      // rule's triangular solves (both sides) through second derivatives.
      {"lu_factor", "lu(a)[0] * b", {"randn(2, 3, 3)", "randn(3, 3)"}, true},
      {"lu_factor", "lu(a)[0] * b", {"randn(3, 5)", "randn(3, 5)"}, true},
      {"lu_factor", "lu(a)[0] * b", {"randn(5, 3)", "randn(5, 3)"}, true},
      {"lu_factor", "lu(a, pivot=False)[0] * b", {"randn(3, 4) + eye(3, 4) * 3.0", "randn(3, 4)"}},
      {"solve_triangular", "triangular_solve(b, a)[0]", {"randn(2, 3, 3) + eye(3) * 3.0", "randn(3, 2)"}, true},
      {"solve_triangular", "triangular_solve(b, a, upper=False, transpose=True, unitriangular=True)[0]",
       {"randn(3, 3)", "randn(2, 3, 4)"}},
      // linalg.solve's op; batch dims broadcast either way.
      {"solve", "_solve(a, b)", {"randn(2, 3, 3) + eye(3) * 3.0", "randn(3, 2)"}, true},
      {"solve", "_solve(a, b)", {"randn(3, 3) + eye(3) * 3.0", "randn(2, 3, 4)"}},
      // ldl_solve's in b alone (an indefinite A with 2 x 2 pivots and a
      // definite one, b broadcast over them).
      {"ldl_solve", "ldl_solve(*ldl_factor(eye(3) * 2.0 - 1.0), a)", {"randn(3, 2)"}, true},
      {"ldl_solve", "ldl_solve(*ldl_factor(stack([eye(3) * 2.0 - 1.0, eye(3) + 1.0])), a)", {"randn(3, 2)"}},
      {"atan2", "atan2(a, b)", {"randn(3, 4)", "randn(4)"}},
      {"hypot", "hypot(a, b) * a.hypot(2.0)", {"randn(3, 4)", "randn(3, 1) + 2.0"}},
      // b's sign kept away from 0, where copysign jumps.
      {"copysign", "copysign(a, b)", {"randn(5)", "rand(5) * 2.0 + 0.5"}},
      {"copysign", "copysign(a, -1.0) * a", {"randn(5)"}},
      // Inputs kept away from the powers of two, where the mantissa jumps.
      {"frexp_mantissa", "frexp(a)[0] * a", {"rand(5) * 0.4 + 0.55"}},
      {"frexp_mantissa", "frexp(a * 40.0)[0] ** 2", {"-(rand(2, 3) * 0.2 + 0.85)"}, true},
      // Quotients kept off the integers, where fmod jumps.
      {"fmod", "fmod(a, b) * a.fmod(-1.5)", {"rand(4) * 0.2 + 2.3", "rand(4) * 0.1 + 1.3"}},
      {"sum", "a.sum(axis=1)", {"randn(3, 4)"}},
      {"sum", "a.sum() * a", {"randn(3)"}},
      {"mean", "a.mean(axis=0, keepdims=True)", {"randn(3, 4)"}},
      {"reshape", "a.reshape(6, 2)", {"randn(3, 4)"}},
      {"flatten", "flatten(a)", {"randn(3, 4)"}},
      {"squeeze", "squeeze(a, 1)", {"randn(3, 1, 4)"}},
      {"unsqueeze", "unsqueeze(a, 0)", {"randn(3, 4)"}},
      {"transpose", "transpose(a, 1, 2, 0)", {"randn(2, 3, 4)"}},
      {"transpose", "a.transpose(0, 2) * b", {"randn(2, 3, 4)", "randn(4, 3, 2)"}},
      {"permute", "a.permute(2, 0, 1) * b", {"randn(2, 3, 4)", "randn(4, 2, 3)"}},
      {"cumsum", "cumsum(a, 1) * b", {"randn(2, 3)", "randn(2, 3)"}},
      {"cumsum", "cumsum(a, dim=0, reverse=True) * b", {"randn(3, 2)", "randn(3, 2)"}},
      {"cumsum", "cumsum(a) * b", {"randn(2, 3)", "randn(6)"}},
      {"logcumsumexp", "logcumsumexp(a, 1) * b + a.logcumsumexp(0, reverse=True)",
       {"randn(2, 3) * 3.0", "randn(2, 3)"}},
      {"cumprod", "cumprod(a, 1) * b", {"randn(2, 3)", "randn(2, 3)"}},
      {"cumprod", "cumprod(a, axis=0, reverse=True) * b", {"randn(3, 2)", "randn(3, 2)"}},
      {"cumprod", "cumprod(a) * b", {"randn(2, 3) * tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])", "randn(6)"}},
      {"interpolate", "interpolate(a, size=(5, 7), mode=\"bilinear\") * b", {"randn(1, 2, 3, 4)", "randn(1, 2, 5, 7)"}},
      {"interpolate", "interpolate(a, size=4, mode=\"linear\", align_corners=True) * b", {"randn(2, 1, 6)", "randn(2, 1, 4)"}},
      {"interpolate", "interpolate(a, scale_factor=1.5) * b", {"randn(1, 1, 2, 4)", "randn(1, 1, 3, 6)"}},
      {"interpolate", "interpolate(a, size=(5, 2), mode=\"bicubic\") * b", {"randn(1, 2, 3, 4)", "randn(1, 2, 5, 2)"}},
      {"interpolate", "interpolate(a, scale_factor=1.4, mode=\"nearest-exact\") * b",
       {"randn(1, 1, 3, 4)", "randn(1, 1, 4, 5)"}},
      {"interpolate_grad", "interpolate(a, size=(4, 5), mode=\"bilinear\") * interpolate(a, size=(4, 5), mode=\"bilinear\")",
       {"randn(1, 1, 3, 3)"}, true},
      // Grid points away from the pixel lines, where bilinear's slopes jump.
      {"grid_sample", "grid_sample(a, b) * c",
       {"randn(1, 2, 3, 4)", "rand(1, 2, 3, 2) * 1.6 - 0.8", "randn(1, 2, 2, 3)"}},
      {"grid_sample", "grid_sample(a, b, \"bicubic\", \"border\", True) * c + grid_sample(a, b, \"nearest\")",
       {"randn(2, 1, 3, 4)", "rand(2, 3, 2, 2) * 2.4 - 1.2", "randn(2, 1, 3, 2)"}},
      {"grid_sample", "grid_sample(a, b, \"bilinear\", \"reflection\") * c",
       {"randn(1, 1, 3, 3)", "rand(1, 2, 2, 2) * 2.4 - 1.2", "randn(1, 1, 2, 2)"}},
      {"grid_sample_grad_input", "grid_sample(a, tensor([[[[0.3, -0.7], [0.9, 0.1]]]], dtype=a.dtype)) ** 2",
       {"randn(1, 2, 3, 3)"}, true},
      // Unnormalised log_probs: the rule's derivative is the true one.
      {"ctc_loss", "ctc_loss(a, tensor([[1, 2], [2, 2]]), tensor([4, 3]), tensor([2, 2])) * 2.0", {"randn(4, 2, 3)"}},
      {"ctc_loss", "ctc_loss(a, tensor([1, 1, 2]), tensor([4, 2]), tensor([2, 1]), blank=2, reduction=\"none\") * b",
       {"randn(4, 2, 3)", "randn(2)"}},
      {"tril", "tril(a, 1) * b", {"randn(3, 4)", "randn(3, 4)"}},
      {"triu", "triu(a, -1) * b", {"randn(2, 3, 4)", "randn(2, 3, 4)"}},
      {"masked_fill", "masked_fill(a, b > 0.0, 2.0) * b", {"randn(3, 4)", "randn(3, 4)"}},
      {"outer", "outer(a, b)", {"randn(3)", "randn(4)"}},
      {"flatten", "flatten(a, 1) * b", {"randn(2, 3, 4)", "randn(2, 12)"}},
      {"expand", "expand(a, 3, 4)", {"randn(1, 4)"}},
      {"broadcast_to", "broadcast_to(a, 2, 3, 4)", {"randn(3, 1)"}},
      {"astype", "a.astype(f64) * a", {"randn(4)"}},
      {"to", "(a.to('cpu:1') * b.to('cpu:1')).to('cpu')", {"randn(3)", "randn(3)"}},
      {"copy_like", "(a.to('cpu:1') * a.to('cpu:1') * a.to('cpu:1')).to('cpu')", {"randn(3)"}, true},
      // a with device block's entry (the prelude's on_device)
      {"place", "on_device(a, b) * a", {"randn(3)", "randn(3)"}},
      {"place", "on_device(a, a)", {"randn(3)"}, true},
      {"linear", "linear(a, b, c)", {"randn(5, 3)", "randn(4, 3)", "randn(4)"}},
      {"linear", "linear(a, b)", {"randn(2, 5, 3)", "randn(4, 3)"}},
      {"linear", "linear(a.transpose(0, 1), b, c)", {"randn(5, 2, 3)", "randn(4, 3)", "randn(4)"}},
      {"softmax", "softmax(a, axis=1)", {"randn(3, 4)"}},
      {"log_softmax", "log_softmax(a, axis=0)", {"randn(3, 4)"}},
      {"mse_loss", "mse_loss(a, b)", {"randn(3, 4)", "randn(3, 4)"}},
      {"cross_entropy", "cross_entropy(a, tensor([2, 0, 1]))", {"randn(3, 4)"}},
      {"cross_entropy_grad", "cross_entropy(a * b, tensor([1, 0, 2]))", {"randn(3, 4)", "randn(3, 4)"}, true},
      {"cross_entropy_grad", "cross_entropy(a * b, tensor([1, -100, 2]))", {"randn(3, 4)", "randn(3, 4)"}, true},
      // The cases the rule writes in ops: weights, smoothing, no reduction,
      // a class dim among more, class probabilities (their gradient too).
      {"cross_entropy", "cross_entropy(a, tensor([2, 0, 3]), weight=tensor([0.5, 1.0, 2.0, 1.5], dtype=f64), label_smoothing=0.2)", {"randn(3, 4)"}},
      {"cross_entropy", "cross_entropy(a, tensor([[2, 0], [-100, 1]]), reduction='none', label_smoothing=0.1)", {"randn(2, 3, 2)"}},
      {"cross_entropy", "cross_entropy(a, softmax(b, axis=1), weight=tensor([0.5, 1.0, 2.0], dtype=f64), label_smoothing=0.3)", {"randn(2, 3, 2)", "randn(2, 3, 2)"}},
      {"cross_entropy", "cross_entropy(a, b, reduction='sum')", {"randn(4)", "rand(4)"}},
      {"binary_cross_entropy", "binary_cross_entropy(a, b)", {"rand(5) * 0.8 + 0.1", "rand(5)"}},
      {"binary_cross_entropy", "binary_cross_entropy(a, b, weight=tensor([0.5, 2.0, 1.0], dtype=f64), reduction='none')", {"rand(2, 3) * 0.8 + 0.1", "rand(2, 3)"}},
      {"mse_loss", "mse_loss(a, b, reduction='sum') + mse_loss(b, a, reduction='none').sum()", {"randn(3, 4)", "randn(4)"}},
      {"clip", "clip(a, -0.5, 0.5)", {"randn(6)"}},
      {"clip", "clip(a, b, None)", {"randn(6)", "randn(6)"}},
      {"prod", "a.prod(axis=1)", {"rand(3, 4) + 0.5"}},
      {"max", "a.max(axis=0)", {"randn(3, 4)"}},
      {"max", "a.max() * a", {"randn(5)"}},
      {"min", "a.min(axis=1, keepdims=True)", {"randn(3, 4)"}},
      {"var", "a.var(axis=1)", {"randn(3, 4)"}},
      {"std", "a.std(ddof=1)", {"randn(5)"}},
      {"logsumexp", "logsumexp(a, axis=1)", {"randn(3, 4)"}},
      {"layer_norm", "layer_norm(a, (5,), b, c)", {"randn(3, 5)", "randn(5)", "randn(5)"}},
      {"layer_norm", "layer_norm(a, (2, 3), b, c)", {"randn(4, 2, 3)", "randn(2, 3)", "randn(2, 3)"}},
      // layer_norm's rule emits layer_norm_grad: its own rule, through second derivatives.
      {"layer_norm_grad", "layer_norm(a, (5,), b, c)", {"randn(3, 5)", "randn(5)", "randn(5)"}, true},
      {"layer_norm_grad", "layer_norm(a * b, (2, 3))", {"randn(4, 2, 3)", "randn(4, 2, 3)"}, true},
      {"norm", "norm(a)", {"randn(3, 4)"}},
      {"norm", "norm(a, 1.0, 1)", {"randn(3, 4)"}},
      {"norm", "norm(a, 3.0, 0, True)", {"randn(3, 4)"}},
      {"norm", "norm(a, inf, 1)", {"randn(3, 4)"}},
      {"embedding", "embedding(tensor([[0, 2], [1, 2]]), a)", {"randn(3, 4)"}},
      {"repeat", "a.repeat(2, 1, 3)", {"randn(2, 3)"}},
      {"flip", "flip(a, 0, -1) * b", {"randn(2, 3)", "randn(2, 3)"}},
      {"roll", "a.roll((1, -2), (1, 0)) * b", {"randn(3, 4)", "randn(3, 4)"}},
      {"roll", "roll(a, 5) * b", {"randn(2, 3)", "randn(2, 3)"}},
      {"diag", "diag(a)", {"randn(4)"}},
      {"diag", "diag(a, -2)", {"randn(3)"}},
      {"diag", "diag(a, -1)", {"randn(3, 5)"}},
      {"diag", "diag(a, 2)", {"randn(2, 5)"}},
      {"diag", "diag(a, 1)", {"randn(4, 2)"}},
      {"conv1d", "conv1d(a, b, c, 2, 1)", {"randn(2, 3, 9)", "randn(4, 3, 3)", "randn(4)"}},
      {"layer_norm", "layer_norm(a)", {"randn(2, 3, 4)"}},
      {"dropout", "dropout(a, 0.0) * a", {"randn(5)"}},
      {"getitem", "a[1:, ::2] * a[0, 1]", {"randn(3, 4)"}},
      {"getitem", "a[tensor([0, 2, 0])].sum(axis=0) + a[tensor([True, False, True])].sum(axis=0)", {"randn(3, 2)"}},
      {"setitem", "set_row(a, b)", {"randn(3, 4)", "randn(4)"}},
      {"concat", "concat([a, b * 2.0, a], axis=1)", {"randn(2, 3)", "randn(2, 1)"}},
      {"stack", "stack((a, b), axis=1)", {"randn(2, 3)", "randn(2, 3)"}},
      {"make_list", "concat([a, b])", {"randn(2)", "randn(3)"}},
      {"make_tuple", "stack((a, a * b))", {"randn(3)", "randn(3)"}},
      // split, chunk, unpacking and iteration take pieces out as x[...]
      {"getitem", "split(a, [1, 2], axis=1)[1] * chunk(a, 3, axis=1)[0]", {"randn(2, 3)"}},
      {"getitem", "rows(a)", {"randn(3, 2)"}},
      // rows' for loop over a tensor: graph mode differentiates the loop.
      {"iter", "rows(a)", {"randn(3, 4)"}},
      {"iter_item", "rows(a) * a[0]", {"randn(3, 2)"}},
      {"conv2d", "conv2d(a, b, c, padding=1)", {"randn(2, 3, 5, 4)", "randn(4, 3, 3, 3)", "randn(4)"}},
      {"conv2d", "conv2d(a, b)", {"randn(1, 2, 4, 4)", "randn(3, 2, 2, 3)"}},
      {"conv2d", "conv2d(a, b, c, stride=2, padding=(1, 2))", {"randn(2, 2, 5, 6)", "randn(3, 2, 3, 2)", "randn(3)"}},
      {"conv2d", "conv2d(a, b, dilation=2, groups=2)", {"randn(1, 4, 6, 5)", "randn(6, 2, 2, 2)"}},
      {"max_pool2d", "max_pool2d(a, 2)", {"randn(2, 3, 4, 6)"}},
      {"max_pool2d", "max_pool2d(a, 3, stride=2, padding=1)", {"randn(1, 2, 5, 6)"}},
      {"avg_pool2d", "avg_pool2d(a, (2, 3))", {"randn(1, 2, 4, 6)"}},
      {"avg_pool2d", "avg_pool2d(a, 3, stride=(1, 2), padding=1)", {"randn(1, 2, 5, 4)"}},
      {"max_pool2d", "max_pool2d(a, (3, 2), (2, 3), 1, dilation=(1, 2), ceil_mode=True)", {"randn(1, 2, 5, 7)"}},
      {"avg_pool2d", "avg_pool2d(a, 3, 2, 1, ceil_mode=True, count_include_pad=False)", {"randn(1, 2, 5, 7)"}},
      {"avg_pool2d", "avg_pool2d(a, (2, 3), 2, 1, ceil_mode=True, divisor_override=4)", {"randn(1, 2, 5, 7)"}},
      {"gelu", "gelu(a)", {"randn(8) * 2.0"}},
      // gelu's rule emits gelu_grad: its own rule, through second derivatives.
      {"gelu_grad", "gelu(a) * a", {"randn(8) * 2.0"}, true},
      {"silu_grad", "silu(a) * a", {"randn(8) * 2.0"}, true},
      {"erf", "erf(a)", {"randn(6)"}},
      {"pad", "pad(a * a, (1, 2, 0, 1))", {"randn(2, 3)"}},
      {"pad", "pad(a * a, (0, 1))", {"randn(2, 3)"}},
      {"pad", "pad(a, (1, 2), mode='circular') * pad(a, (2, 1), mode='replicate')", {"randn(2, 3)"}},
      // pad's other modes emit pad_grad: its own rule, through second derivatives.
      {"pad_grad", "pad(a * a, (1, 2, 2, 0), mode='reflect')", {"randn(2, 3, 4)"}, true},
      {"gather", "gather(a * a, 1, tensor([[0, 0, 2], [1, 2, 1]]))", {"randn(2, 3)"}},
      // sort's and topk's values are gathers of x (passes/gather_sorted.cpp)
      {"gather", "sort(a * b, axis=0)[0] * topk(a, 3, axis=1, largest=False)[0].sum()", {"randn(4, 3)", "randn(4, 3)"}},
      {"gather", "sorted_pair(a)", {"randn(5)"}, true},
      {"scatter_add", "scatter_add(a * a, 0, tensor([[1, 0, 1], [0, 0, 1]]), b * b)", {"randn(2, 3)", "randn(2, 3)"}},
      // A src larger than the index; scatter's writes over an earlier one.
      {"scatter_add", "scatter_add(a * a, 1, tensor([[1, 0], [0, 2]]), b * b)", {"randn(2, 3)", "randn(3, 3)"}},
      {"scatter", "scatter(a * a, 0, tensor([[1, 0, 1], [0, 0, 1]]), b * b)", {"randn(2, 3)", "randn(2, 3)"}},
      {"scatter", "scatter(a * a, 0, tensor([[1, 1, 0], [0, 1, 0]]), b * b)", {"randn(3, 3)", "randn(3, 4)"}},
      {"scatter", "scatter(a, 1, tensor([[2], [0]]), 0.5) * a", {"randn(2, 3)"}},
      // scatter_reduce: every reduction, with and without x's elements, a
      // src larger than the index.
      {"scatter_reduce", "scatter_reduce(a * a, 0, tensor([[1, 0, 1], [0, 0, 1]]), b * b + 0.5, 'prod')", {"randn(2, 3)", "randn(2, 3)"}},
      {"scatter_reduce", "scatter_reduce(a, 1, tensor([[1, 0], [0, 0]]), b, 'prod', include_self=False)", {"randn(2, 3)", "randn(3, 3)"}},
      {"scatter_reduce", "scatter_reduce(a, 0, tensor([[1, 0, 1], [0, 0, 1]]), b, 'mean')", {"randn(2, 3)", "randn(2, 3)"}},
      {"scatter_reduce", "scatter_reduce(a, 0, tensor([[1, 0, 1], [0, 0, 1]]), b, 'amax', include_self=False)", {"randn(2, 3)", "randn(2, 3)"}},
      {"scatter_reduce", "scatter_reduce(a, 1, tensor([[2, 2], [0, 1]]), b, 'amin')", {"randn(2, 3)", "randn(2, 2)"}},
      {"scatter_reduce", "scatter_reduce(a, 1, tensor([[2, 2], [0, 1]]), b, 'sum', include_self=False)", {"randn(2, 3)", "randn(2, 2)"}},
      {"scatter_reduce", "scatter_reduce(a, 0, tensor([[1, 0, 1], [0, 0, 1]]), b, 'prod')", {"randn(2, 3)", "randn(2, 3)"}, true},
      {"batch_norm", "batch_norm(a, b, c * c + 0.5)", {"randn(4, 3, 2, 2)", "randn(3)", "randn(3)"}},
      // Training mode: the batch's statistics, gamma and beta.
      {"batch_norm", "batch_norm(a, a.mean(axis=(0, 2, 3)), a.var(axis=(0, 2, 3)), b, c)",
       {"randn(4, 3, 2, 2)", "randn(3)", "randn(3)"}},
      {"batch_norm", "batch_norm(a * a, b, c * c + 0.5, b, c)", {"randn(5, 3)", "randn(3)", "randn(3)"}},
      // Integer-valued ops pass no gradient: only the other factor's.
      {"floor", "floor(a) * a", {"randn(5) * 3.0"}},
      {"gt", "(a > 0.0) * a", {"randn(5)"}},
      // The ops the rules emit, through second derivatives.
      {"sum_to", "(a + b) * (a + b)", {"randn(3, 4)", "randn(4)"}, true},
      {"broadcast_like", "(a * b) * b", {"randn(3, 4)", "randn(4)"}, true},
      {"reshape_like", "a.reshape(4, 3) * a.reshape(4, 3)", {"randn(3, 4)"}, true},
      {"reduce_grad", "a.sum(axis=0) * a.mean()", {"randn(3, 4)"}, true},
      {"index_grad", "a[tensor([1, 1, 0])] * a[tensor([1, 1, 0])]", {"randn(3, 2)"}, true},
      // Two reads of a: the second adjoint is added at its selection.
      {"index_grad_add", "a[0] * a[1:3] * a[2]", {"randn(3, 2)"}, true},
      {"index_grad_add", "a[tensor([1, 1, 0])] * a[0]", {"randn(3, 2)"}, true},
      {"conv2d_grad_input", "conv2d(a, b, stride=2, padding=1) * conv2d(a, b, stride=2, padding=1)",
       {"randn(1, 2, 5, 4)", "randn(3, 2, 3, 3)"}, true},
      // grad(first) differentiates with respect to a: here the weight.
      {"conv2d_grad_weight", "conv2d(b, a, groups=2) * conv2d(b * b, a, groups=2)",
       {"randn(2, 2, 2, 2)", "randn(2, 4, 4, 3)"}, true},
      {"pool2d_grad", "avg_pool2d(a, 2, stride=1) * avg_pool2d(a, 2, stride=1)", {"randn(1, 2, 3, 4)"}, true},
      {"pool2d_grad", "max_pool2d(a, 2) * max_pool2d(a, 2)", {"randn(2, 2, 4, 4)"}, true},
      {"pool2d_grad", "max_pool2d(a, 2, ceil_mode=True) * max_pool2d(a, 2, ceil_mode=True)", {"randn(1, 2, 5, 7)"},
       true},
      {"pool2d_grad", "avg_pool2d(a, 3, 2, 1, ceil_mode=True, count_include_pad=False) ** 2", {"randn(1, 2, 5, 7)"},
       true},
  };
  return all;
}

// The nn program checking one case: prints "ok" or what differs.
std::string program(const Case& c) {
  static const char* names[] = {"a", "b", "c"};
  size_t n = c.inputs.size();
  std::string params, args;
  for (size_t i = 0; i < n; ++i) {
    params += std::string(i ? ", " : "") + names[i];
    args += std::string(i ? ", " : "") + "xs[" + std::to_string(i) + "]";
  }
  std::ostringstream p;
  p << "seed(7)\n";
  p << "def set_row(x, row):\n    x[1] = row * 2.0\n    return x * x\n";
  p << "def sorted_pair(x):\n    v, i = sort(x * x, descending=True)\n    return v * x\n";
  p << "def on_device(x, y):\n    with device('cpu:1'):\n        return (x * y * 1.5).to('cpu')\n";
  p << "def rows(x):\n    r0, r1, r2 = x\n    total = r0 * r1 + r2\n    for r in x:\n        total = total * r\n    return total\n";
  p << "xs = [";
  for (size_t i = 0; i < n; ++i) p << (i ? ", " : "") << "(" << c.inputs[i] << ").astype(f64)";
  p << "]\n";
  p << "def expr(" << params << "):\n    return " << c.expr << "\n";
  p << "w = randn(expr(" << args << ").shape).astype(f64)\n";
  p << "def obj(" << params << "):\n    return (expr(" << params << ") * w).sum()\n";
  if (c.second) {
    // The function under test becomes the gradient of obj, weighted again.
    p << "v = randn(xs[0].shape).astype(f64)\n";
    p << "def first(" << params << "):\n    return obj(" << params << ")\n";
    p << "def obj2(" << params << "):\n    return (grad(first)(" << params << ") * v).sum()\n";
  }
  std::string f = c.second ? "obj2" : "obj";
  p << "def call(xs):\n    return " << f << "(" << args << ")\n";
  p << "argnums = tuple(range(" << n << "))\n";
  p << "gs = grad(" << f << ", argnums=argnums)(" << args << ")\n";
  p << "worst = 0.0\n";
  p << "for i in range(" << n << "):\n";
  p << "    x = xs[i]\n";
  p << "    count = x.reshape(-1).shape[0]\n";
  p << "    numeric = []\n";
  p << "    for k in range(count):\n";
  p << "        e = one_hot(tensor([k]), count).astype(f64).reshape(x.shape) * 1e-06\n";
  p << "        up = list(xs)\n";
  p << "        up[i] = x + e\n";
  p << "        down = list(xs)\n";
  p << "        down[i] = x - e\n";
  p << "        numeric.append((float(call(up)) - float(call(down))) / 2e-06)\n";
  p << "    got = gs[i].reshape(-1).tolist()\n";
  p << "    for k in range(count):\n";
  p << "        worst = max(worst, abs(got[k] - numeric[k]) / (1.0 + abs(numeric[k])))\n";
  p << "print('ok' if worst < 1e-06 else 'worst relative difference ' + str(worst))\n";
  return p.str();
}

std::string runGradcheck(const std::string& code, nn::ExecMode mode) {
  std::ostringstream out, err;
  nn::StateOptions opts;
  opts.mode = mode;
  opts.cpuDevices = 2;  // the copies' rules move values between cpu and cpu:1
  nn::State state(opts, out, err);
  nn::Status st = state.runString(code, "gradcheck.nn");
  if (!st.ok()) state.render(st.error(), err);
  return out.str() + err.str();
}

TEST(Gradients, EveryRuleAgreesWithFiniteDifferences) {
  for (const Case& c : cases())
    for (nn::ExecMode mode : {nn::ExecMode::Eager, nn::ExecMode::Graph}) {
      std::string code = program(c);
      EXPECT_EQ(runGradcheck(code, mode), "ok\n")
          << c.op << ": " << c.expr << (mode == nn::ExecMode::Eager ? " (eager)" : " (graph)") << "\n" << code;
    }
}

// An op with a rule of its own and no case above fails here.
TEST(Gradients, EveryRuleHasAFiniteDifferenceCase) {
  std::set<std::string> covered;
  for (const Case& c : cases()) covered.insert(c.op);
  for (size_t i = 0; i < nn::ir::kNumOps; ++i) {
    const nn::ir::OpInfo& info = nn::ir::opInfo(static_cast<nn::ir::Op>(i));
    if (info.gradient == &nn::ir::NoGradient || info.gradient == &nn::ir::ZeroGradient) continue;
    EXPECT_TRUE(covered.count(info.name)) << "no finite-difference case for the gradient rule of " << info.name;
  }
}

}  // namespace

namespace {

// A training loop keeps flat memory: the tape and the backward pass hold
// nothing once a step's gradients are returned, including the values a
// loop's backward read back from what its forward saved per iteration.
TEST(Gradients, TrainingLoopMemoryIsFlat) {
  const char* losses[] = {
      "def loss(p, x, y):\n"
      "    return mse_loss(tanh(x @ p['w'] + p['b']), y)\n",
      // Graph mode differentiates this one's loop as IR.
      "def loss(p, x, y):\n"
      "    h = x @ p['w'] + p['b']\n"
      "    i = 0\n"
      "    while i < 3:\n"
      "        h = tanh(h) * 1.5\n"
      "        i = i + 1\n"
      "    return mse_loss(h, y)\n",
  };
  for (const char* loss : losses)
    for (nn::ExecMode mode : {nn::ExecMode::Eager, nn::ExecMode::Graph}) {
      std::ostringstream out, err;
      nn::StateOptions opts;
      opts.mode = mode;
      nn::State state(opts, out, err);
      nn::Status st = state.replInput(
          std::string("seed(0)\n"
                      "x = randn(32, 8)\n"
                      "y = randn(32, 1)\n"
                      "params = {'w': randn(8, 1) * 0.1, 'b': zeros(1)}\n") +
          loss +
          "def step(p):\n"
          "    g = grad(loss)(p, x, y)\n"
          "    return {'w': p['w'] - 0.1 * g['w'], 'b': p['b'] - 0.1 * g['b']}\n"
          "for i in range(10):\n"
          "    params = step(params)\n");
      ASSERT_TRUE(st.ok()) << st.error().message;
      const auto& allocator = state.interpreter().context().cpu().allocator();
      size_t after10 = allocator.liveBytes();
      st = state.replInput("for i in range(500):\n    params = step(params)\n");
      ASSERT_TRUE(st.ok()) << st.error().message;
      EXPECT_EQ(allocator.liveBytes(), after10) << loss;
    }
}

}  // namespace
