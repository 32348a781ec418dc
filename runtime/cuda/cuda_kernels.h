// The CUDA plugin's device code as the host side calls it: plain launches
// on a stream, declared with host types only, so that cuda_device.cpp is
// compiled by the host compiler and only cuda_kernels.cu by nvcc.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace nn::rt::cuda {

// An operand as a kernel walks it: shape and element strides (stride 0
// where it is broadcast), row-major, at most kMaxRank dimensions.
inline constexpr int kMaxRank = 8;
struct Strided {
  int rank = 0;
  int64_t shape[kMaxRank] = {};
  int64_t stride[kMaxRank] = {};
};

enum class Binary : int { Add, Sub, Mul, Div, Maximum, Minimum };
enum class Unary : int { Neg, Exp, Log, Sqrt, Tanh, Sigmoid, Relu, Abs };

// out (contiguous, n elements, out's shape `at`) = a op b, read through
// their strides.
void binary(Binary op, const float* a, const Strided& sa, const float* b, const Strided& sb, float* out,
            const Strided& at, int64_t n, cudaStream_t s);
// out (contiguous) = op(a) read through a's strides.
void unary(Unary op, const float* a, const Strided& sa, float* out, const Strided& at, int64_t n, cudaStream_t s);
// n elements of out = value.
void fill(float* out, int64_t n, float value, cudaStream_t s);
// out[i] (i < outputs) = the sum (or mean) of in's run i of `run` elements
// in each of `outer` blocks of outputs * run (kernels.h's Sum).
void sum(const float* in, int64_t outer, int64_t outputs, int64_t run, float* out, bool mean, cudaStream_t s);

}  // namespace nn::rt::cuda
