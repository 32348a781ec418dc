// Kernel dispatch in two levels, as PyTorch does: first by device, then by
// element type. Kernels are registered against IR ops (ir::Op) from the op
// table, never looked up by name. Inputs reach a kernel already broadcast to
// the output shape (stride-0 views) and converted to the kernel's dtype.
#pragma once

#include <array>

#include "ir/ir.h"
#include "runtime/tensor.h"
#include "support/diagnostics.h"

namespace nn::rt {

enum class DeviceKind : uint8_t { Cpu, Count };
constexpr size_t kNumDTypes = 5;
// Elementwise loops run on all cores from this many elements up; below it
// the fork/join cost of a parallel region exceeds the work.
constexpr int64_t kParallelThreshold = 1 << 15;
constexpr size_t kNumOps = static_cast<size_t>(ir::Op::Return) + 1;

// out[i] = op(a[i], b[i]); out is contiguous with the broadcast shape.
using BinaryKernel = void (*)(const Tensor& a, const Tensor& b, Tensor& out, SourceLoc loc);
// out[i] = op(a[i]).
using UnaryKernel = void (*)(const Tensor& a, Tensor& out, SourceLoc loc);

class KernelRegistry {
 public:
  static KernelRegistry& instance();
  void addBinary(DeviceKind d, ir::Op op, DType t, BinaryKernel k) { binary_[idx(d, op, t)] = k; }
  void addUnary(DeviceKind d, ir::Op op, DType t, UnaryKernel k) { unary_[idx(d, op, t)] = k; }
  BinaryKernel binary(DeviceKind d, ir::Op op, DType t) const { return binary_[idx(d, op, t)]; }
  UnaryKernel unary(DeviceKind d, ir::Op op, DType t) const { return unary_[idx(d, op, t)]; }

 private:
  static size_t idx(DeviceKind d, ir::Op op, DType t) {
    return (static_cast<size_t>(d) * kNumOps + static_cast<size_t>(op)) * kNumDTypes + static_cast<size_t>(t);
  }
  static constexpr size_t kSize = static_cast<size_t>(DeviceKind::Count) * kNumOps * kNumDTypes;
  std::array<BinaryKernel, kSize> binary_{};
  std::array<UnaryKernel, kSize> unary_{};
};

// Registers the CPU kernels of the arithmetic ops (kernels_cpu_elementwise.cpp)
// and of the tensor math ops (kernels_cpu_math.cpp).
void registerCpuElementwiseKernels(KernelRegistry& r);
void registerCpuMathKernels(KernelRegistry& r);

}  // namespace nn::rt
