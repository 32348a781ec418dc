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
enum class Compare : int { Lt, Le, Gt, Ge, Eq, Ne };
// The runtime's dtype codes, in its order (runtime/dtype.h).
enum class Elem : int { Bool, I32, I64, F32, F64 };
enum class Unary : int { Neg, Exp, Log, Sqrt, Tanh, Sigmoid, Relu, Abs };

// out (contiguous, n elements, out's shape `at`) = a op b, read through
// their strides.
void binary(Binary op, const float* a, const Strided& sa, const float* b, const Strided& sb, float* out,
            const Strided& at, int64_t n, cudaStream_t s);
// out (contiguous) = op(a) read through a's strides.
void unary(Unary op, const float* a, const Strided& sa, float* out, const Strided& at, int64_t n, cudaStream_t s);
// n elements of out (of dtype `type`) = value, converted as astype does.
void fill(Elem type, void* out, int64_t n, double value, cudaStream_t s);
// out (bool, contiguous) = a cmp b (f32), read through their strides; a
// NaN compares unequal to everything.
void compare(Compare op, const float* a, const Strided& sa, const float* b, const Strided& sb, bool* out,
             const Strided& at, int64_t n, cudaStream_t s);
// out (contiguous) = cond ? x : y, each read through its strides.
void where(const bool* cond, const Strided& sc, const float* x, const Strided& sx, const float* y, const Strided& sy,
           float* out, const Strided& at, int64_t n, cudaStream_t s);
// dst (of dtype `to`, through `sd`) = src (of dtype `from`, through `ss`)
// converted as the CPU's astype: to bool, non-zero; float to integer
// truncating, NaN as 0 and saturating.
void convert(Elem from, const void* src, const Strided& ss, Elem to, void* dst, const Strided& sd, int64_t n,
             cudaStream_t s);
// (log_)softmax of contiguous x seen as [outer, n, inner] along n: a row
// holding a NaN is NaN throughout, as PyTorch's.
void softmax(const float* x, int64_t outer, int64_t n, int64_t inner, float* out, bool log, cudaStream_t s);
// out (0-d) = -mean over i < rows of logProbs[i, labels[i]] (NaN for no
// rows), summed in double; false with `bad` = the first label outside
// [0, classes). Waits for the stream.
bool crossEntropy(const float* logProbs, const int64_t* labels, int64_t rows, int64_t classes, float* out,
                  int64_t& bad, cudaStream_t s);
// out [m, classes] (i64) = one-hot rows of labels (i32 or i64: `wide`);
// false with `bad` = the first label outside [0, classes). Waits for the
// stream.
bool oneHot(const void* labels, bool wide, int64_t m, int64_t classes, int64_t* out, int64_t& bad, cudaStream_t s);
// out[i] (i < outputs) = the sum (or mean) of in's run i of `run` elements
// in each of `outer` blocks of outputs * run (kernels.h's Sum).
void sum(const float* in, int64_t outer, int64_t outputs, int64_t run, float* out, bool mean, cudaStream_t s);

}  // namespace nn::rt::cuda
