// The CUDA plugin's elementwise, fill and sum kernels (cuda_kernels.h):
// grid-stride loops over the output, each operand read through its
// strides, so broadcast operands need no copy. Float math as the CPU
// kernels do it where CUDA has the same function (relu keeps NaN and gives
// +0.0; maximum and minimum propagate NaN, as PyTorch's).
#include "runtime/cuda/cuda_kernels.h"

namespace nn::rt::cuda {
namespace {

constexpr int kThreads = 256;

int blocksFor(int64_t n) {
  int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<int>(b < 4096 ? (b > 0 ? b : 1) : 4096);
}

__device__ int64_t offsetOf(int64_t i, const Strided& at, const Strided& operand) {
  int64_t off = 0;
  for (int d = at.rank - 1; d >= 0; --d) {
    int64_t k = i % at.shape[d];
    i /= at.shape[d];
    off += k * operand.stride[d];
  }
  return off;
}

__device__ float applyBinary(Binary op, float x, float y) {
  switch (op) {
    case Binary::Add: return x + y;
    case Binary::Sub: return x - y;
    case Binary::Mul: return x * y;
    case Binary::Div: return x / y;
    case Binary::Maximum: return (x != x || y != y) ? x + y : (x > y ? x : y);
    case Binary::Minimum: return (x != x || y != y) ? x + y : (x < y ? x : y);
  }
  return 0.0f;
}

__device__ float applyUnary(Unary op, float x) {
  switch (op) {
    case Unary::Neg: return -x;
    case Unary::Exp: return expf(x);
    case Unary::Log: return logf(x);
    case Unary::Sqrt: return sqrtf(x);
    case Unary::Tanh: return tanhf(x);
    case Unary::Sigmoid: return 1.0f / (1.0f + expf(-x));
    case Unary::Relu: return x > 0.0f ? x : (x != x ? x : 0.0f);
    case Unary::Abs: return fabsf(x);
  }
  return 0.0f;
}

__global__ void binaryKernel(Binary op, const float* a, Strided sa, const float* b, Strided sb, float* out, Strided at,
                             int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x)
    out[i] = applyBinary(op, a[offsetOf(i, at, sa)], b[offsetOf(i, at, sb)]);
}

__global__ void unaryKernel(Unary op, const float* a, Strided sa, float* out, Strided at, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x)
    out[i] = applyUnary(op, a[offsetOf(i, at, sa)]);
}

__global__ void fillKernel(float* out, int64_t n, float value) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(blockDim.x) * gridDim.x)
    out[i] = value;
}

// One block per output element: its threads add strided shares of its
// outer * run values (in double, as the CPU kernel accumulates), then a
// tree in shared memory.
__global__ void sumKernel(const float* in, int64_t outer, int64_t outputs, int64_t run, float* out, bool mean) {
  __shared__ double partial[kThreads];
  int64_t o = blockIdx.x;
  int64_t total = outer * run;
  double acc = 0.0;
  for (int64_t k = threadIdx.x; k < total; k += blockDim.x) {
    int64_t block = k / run, j = k % run;
    acc += in[(block * outputs + o) * run + j];
  }
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[o] = static_cast<float>(mean ? partial[0] / static_cast<double>(total) : partial[0]);
}

}  // namespace

void binary(Binary op, const float* a, const Strided& sa, const float* b, const Strided& sb, float* out,
            const Strided& at, int64_t n, cudaStream_t s) {
  binaryKernel<<<blocksFor(n), kThreads, 0, s>>>(op, a, sa, b, sb, out, at, n);
}

void unary(Unary op, const float* a, const Strided& sa, float* out, const Strided& at, int64_t n, cudaStream_t s) {
  unaryKernel<<<blocksFor(n), kThreads, 0, s>>>(op, a, sa, out, at, n);
}

void fill(float* out, int64_t n, float value, cudaStream_t s) { fillKernel<<<blocksFor(n), kThreads, 0, s>>>(out, n, value); }

void sum(const float* in, int64_t outer, int64_t outputs, int64_t run, float* out, bool mean, cudaStream_t s) {
  if (outputs > 0) sumKernel<<<static_cast<unsigned>(outputs), kThreads, 0, s>>>(in, outer, outputs, run, out, mean);
}

}  // namespace nn::rt::cuda
