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

// The plain loops used for non-f32 types and as test oracles.
Tensor matmulReference(const Tensor& a, const Tensor& b, SourceLoc loc);

// oneDNN entry points (onednn.cpp): shapes already checked, f32, out
// allocated contiguous.
void onednnMatmul(const Tensor& a, const Tensor& b, Tensor& out);
void onednnSoftmax(const Tensor& x, int axis, bool log, Tensor& out);
size_t onednnCachedPrimitives();

}  // namespace nn::rt
