// Linear algebra and neural-network ops: matmul (NumPy semantics incl.
// batching and broadcast batch dimensions), linear (PyTorch's layout: w is
// [out, in]), softmax / log_softmax, one_hot and the losses. f32 runs on
// oneDNN (onednn.cpp); other dtypes on reference loops.
#pragma once

#include "runtime/tensor.h"
#include "support/diagnostics.h"

namespace nn::rt {

Tensor matmul(const Tensor& a, const Tensor& b, SourceLoc loc);
Tensor linear(const Tensor& x, const Tensor& w, const Tensor* bias, SourceLoc loc);
Tensor softmax(const Tensor& x, int64_t axis, bool log, SourceLoc loc);
Tensor oneHot(const Tensor& labels, int64_t n, SourceLoc loc);
Tensor crossEntropy(const Tensor& logits, const Tensor& labels, SourceLoc loc);
Tensor mseLoss(const Tensor& a, const Tensor& b, SourceLoc loc);
Tensor binaryCrossEntropy(const Tensor& p, const Tensor& y, SourceLoc loc);

struct ConvParams {
  int64_t strideH = 1, strideW = 1, padH = 0, padW = 0, dilH = 1, dilW = 1, groups = 1;
};
struct PoolParams {
  int64_t kH = 1, kW = 1, strideH = 1, strideW = 1, padH = 0, padW = 0;
};

// NCHW; w is [OC, IC/groups, KH, KW].
Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor* bias, const ConvParams& p, SourceLoc loc);
Tensor pool2d(const Tensor& x, const PoolParams& p, bool isMax, SourceLoc loc);
// Inference batch norm over axis 1 with running statistics.
Tensor batchNorm(const Tensor& x, const Tensor& mean, const Tensor& var, const Tensor* gamma, const Tensor* beta,
                 double eps, SourceLoc loc);
// Normalises over the last axis; gamma/beta have the size of that axis.
Tensor layerNorm(const Tensor& x, const Tensor* gamma, const Tensor* beta, double eps, SourceLoc loc);

// The plain loops used for non-f32 types and as test oracles.
Tensor conv2dReference(const Tensor& x, const Tensor& w, const Tensor* bias, const ConvParams& p, SourceLoc loc);
Tensor pool2dReference(const Tensor& x, const PoolParams& p, bool isMax, SourceLoc loc);
Tensor matmulReference(const Tensor& a, const Tensor& b, SourceLoc loc);

// oneDNN entry points (onednn.cpp): shapes already checked, f32, out
// allocated contiguous.
void onednnMatmul(const Tensor& a, const Tensor& b, Tensor& out);
void onednnSoftmax(const Tensor& x, int axis, bool log, Tensor& out);
void onednnConv2d(const Tensor& x, const Tensor& w, const Tensor* bias, const ConvParams& p, Tensor& out);
void onednnPool2d(const Tensor& x, const PoolParams& p, bool isMax, Tensor& out);
void onednnBatchNorm(const Tensor& x, const Tensor& mean, const Tensor& var, const Tensor* gamma,
                     const Tensor* beta, float eps, Tensor& out);
void onednnLayerNorm(const Tensor& x, const Tensor* gamma, const Tensor* beta, float eps, Tensor& out);
size_t onednnCachedPrimitives();

}  // namespace nn::rt
