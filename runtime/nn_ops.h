// Linear algebra and neural-network ops: matmul (NumPy semantics incl.
// batching and broadcast batch dimensions), linear (PyTorch's layout: w is
// [out, in]), softmax / log_softmax, one_hot and the losses. f32 matmul
// runs on oneDNN (onednn.cpp), f32 softmax on SLEEF's vector exp
// (kernels_cpu_softmax.cpp); other dtypes on reference loops.
#pragma once

#include <optional>
#include <string>

#include "runtime/kernels.h"
#include "runtime/tensor.h"
#include "support/diagnostics.h"

namespace nn::rt {

Tensor matmul(const Tensor& a, const Tensor& b, SourceLoc loc);
Tensor linear(const Tensor& x, const Tensor& w, const Tensor* bias, SourceLoc loc);
Tensor softmax(const Tensor& x, int64_t axis, bool log, SourceLoc loc);
Tensor oneHot(const Tensor& labels, int64_t n, SourceLoc loc);
// PyTorch's reductions of a loss (reduction="none", "mean", "sum").
enum class LossReduction { None, Mean, Sum };
std::optional<LossReduction> lossReduction(const std::string& name);
struct CrossEntropyOptions {
  const Tensor* weight = nullptr;  // [C], or none
  int64_t ignoreIndex = -100;
  LossReduction reduction = LossReduction::Mean;
  double smoothing = 0.0;
};
// PyTorch's F.cross_entropy of input [N, C, d...] (or [C]) against class
// indices or class probabilities (cross_entropy.cpp).
Tensor crossEntropy(const Tensor& input, const Tensor& target, const CrossEntropyOptions& options, SourceLoc loc);
// cross_entropy's gradient with respect to logits [N, C] for the loss's
// adjoint g (0-d), labels [N]: (softmax(logits) - one_hot(labels)) * g / M,
// M the rows not labelled ignoreIndex, which get 0.
Tensor crossEntropyGrad(const Tensor& g, const Tensor& logits, const Tensor& labels, int64_t ignoreIndex,
                        SourceLoc loc);
// (a - b) ** 2 and binary cross entropy (weight broadcast over it, or
// none), reduced.
Tensor mseLoss(const Tensor& a, const Tensor& b, LossReduction r, SourceLoc loc);
Tensor binaryCrossEntropy(const Tensor& p, const Tensor& y, const Tensor* weight, LossReduction r, SourceLoc loc);

// NCHW; w is [OC, IC/groups, KH, KW].
Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor* bias, const ConvParams& p, SourceLoc loc);
Tensor pool2d(const Tensor& x, const PoolParams& p, bool isMax, SourceLoc loc);
// The i64 flat index in its [H, W] plane of each max pooling window's
// maximum (-1 where the window is all padding).
Tensor maxPool2dIndices(const Tensor& x, const PoolParams& p, SourceLoc loc);
// The gradients g [N, OC, OH, OW] of conv2d(x, w, p) with respect to x and
// to w (x's and w's dtype: computed as conv2d computes; of x only the shape
// matters for the first), and of max or average pooling of x with respect
// to x (each window's g to its first maximum, or spread over the window).
Tensor conv2dGradInput(const Tensor& g, const Tensor& x, const Tensor& w, const ConvParams& p, SourceLoc loc);
Tensor conv2dGradWeight(const Tensor& g, const Tensor& x, const Tensor& w, const ConvParams& p, SourceLoc loc);
Tensor pool2dGrad(const Tensor& g, const Tensor& x, const PoolParams& p, bool isMax, SourceLoc loc);
// Inference batch norm over axis 1 with running statistics.
Tensor batchNorm(const Tensor& x, const Tensor& mean, const Tensor& var, const Tensor* gamma, const Tensor* beta,
                 double eps, SourceLoc loc);
// Normalises over the last axis; gamma/beta have the size of that axis.
Tensor layerNorm(const Tensor& x, const Tensor* gamma, const Tensor* beta, double eps, SourceLoc loc);
// layer_norm's gradient g with respect to x, over x's last axis (gamma [D]
// or null, as layerNorm's).
Tensor layerNormGrad(const Tensor& g, const Tensor& x, const Tensor* gamma, double eps, SourceLoc loc);
// Training-mode dropout with p in [0, 1]: zeros each element with
// probability p (draws from `rng`), scales the others by 1 / (1 - p);
// integer and bool inputs give f32.
Tensor dropout(const Tensor& x, double p, RandomGenerator& rng, SourceLoc loc);

// Every op above dispatches by its operands' device (dispatch.h); these
// run the CPU's plain loops directly, as the tests' oracles.
Tensor conv2dReference(const Tensor& x, const Tensor& w, const Tensor* bias, const ConvParams& p, SourceLoc loc);
Tensor pool2dReference(const Tensor& x, const PoolParams& p, bool isMax, SourceLoc loc);
Tensor matmulReference(const Tensor& a, const Tensor& b, SourceLoc loc);

// The CPU's loops (kernels_cpu_nn.cpp), with KernelFor's contracts:
// matmulLoop for every dtype but bool; conv2dLoop and the convolution's
// gradients for f64 (kernels_cpu_conv.cpp); pooling and its gradient for
// f32 and f64 (kernels_cpu_pool.cpp).
void matmulLoop(const Tensor& a, const Tensor& b, Tensor& out);
// The offsets in a and b of batch `batch` of out (a matmul kernel's
// operands, lifted to out's rank: a batch dimension of size 1 broadcasts).
inline void matmulBatchOffsets(const Tensor& a, const Tensor& b, const Tensor& out, int64_t batch, int64_t& offA,
                               int64_t& offB) {
  offA = offB = 0;
  for (int d = out.ndim() - 3; d >= 0; --d) {
    int64_t idx = batch % out.dim(d);
    batch /= out.dim(d);
    offA += (a.dim(d) == 1 ? 0 : idx) * a.strides()[d];
    offB += (b.dim(d) == 1 ? 0 : idx) * b.strides()[d];
  }
}
void conv2dLoop(const Tensor& x, const Tensor& w, const Tensor* bias, const ConvParams& p, Tensor& out);
void conv2dGradInputLoop(const Tensor& g, const Tensor& w, const ConvParams& p, Tensor& dx);
void conv2dGradWeightLoop(const Tensor& g, const Tensor& x, const ConvParams& p, Tensor& dw);
void pool2dLoop(const Tensor& x, const PoolParams& p, bool isMax, Tensor& out);
void pool2dGradLoop(const Tensor& g, const Tensor& x, const PoolParams& p, bool isMax, Tensor& dx);

// oneDNN entry points (onednn.cpp): shapes already checked, f32, out
// allocated contiguous.
void onednnMatmul(const Tensor& a, const Tensor& b, Tensor& out);
void onednnLinear(const Tensor& x, const Tensor& w, const Tensor* bias, Tensor& out);
void onednnConv2d(const Tensor& x, const Tensor& w, const Tensor* bias, const ConvParams& p, Tensor& out);
void onednnConv2dGradInput(const Tensor& g, const Tensor& w, const ConvParams& p, Tensor& dx);
void onednnConv2dGradWeight(const Tensor& g, const Tensor& x, const ConvParams& p, Tensor& dw);
void onednnLayerNorm(const Tensor& x, const Tensor* gamma, const Tensor* beta, float eps, Tensor& out);
// The small-problem f32 loops (kernels_cpu_small_matmul.cpp): whether they
// run a product with `rows` rows of C in all (every batch), K and N, and
// the loops themselves, with onednnMatmul's and onednnLinear's contracts.
bool smallMatmulApplies(int64_t rows, int64_t K, int64_t N);
void smallMatmulF32(const Tensor& a, const Tensor& b, Tensor& out);
void smallLinearF32(const Tensor& x, const Tensor& w, const Tensor* bias, Tensor& out);
// The oneDNN primitives `device` keeps compiled.
size_t onednnCachedPrimitives(const Device& device);

}  // namespace nn::rt
