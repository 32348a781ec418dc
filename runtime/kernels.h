// Kernel dispatch in two levels, as PyTorch does: first by device (each
// Device owns a KernelTable, device.h), then by op and element type.
// Kernels are registered against IR ops (ir::Op) from the op table, never
// looked up by name. Inputs reach a kernel already broadcast to the output
// shape (stride-0 views) and converted to the kernel's dtype.
#pragma once

#include <array>

#include "ir/ir.h"
#include "runtime/tensor.h"
#include "support/diagnostics.h"

namespace nn::rt {

constexpr size_t kNumDTypes = 5;
// Elementwise loops run on all cores from this many elements up; below it
// the fork/join cost of a parallel region exceeds the work.
constexpr int64_t kParallelThreshold = 1 << 15;

// out[i] = op(a[i], b[i]); out is contiguous with the broadcast shape.
using BinaryKernel = void (*)(const Tensor& a, const Tensor& b, Tensor& out, SourceLoc loc);
// out[i] = op(a[i]).
using UnaryKernel = void (*)(const Tensor& a, Tensor& out, SourceLoc loc);

// One device's kernels, by op and dtype (null where it has none).
class KernelTable {
 public:
  void addBinary(ir::Op op, DType t, BinaryKernel k) { binary_[idx(op, t)] = k; }
  void addUnary(ir::Op op, DType t, UnaryKernel k) { unary_[idx(op, t)] = k; }
  BinaryKernel binary(ir::Op op, DType t) const { return binary_[idx(op, t)]; }
  UnaryKernel unary(ir::Op op, DType t) const { return unary_[idx(op, t)]; }

 private:
  static size_t idx(ir::Op op, DType t) { return static_cast<size_t>(op) * kNumDTypes + static_cast<size_t>(t); }
  static constexpr size_t kSize = ir::kNumOps * kNumDTypes;
  std::array<BinaryKernel, kSize> binary_{};
  std::array<UnaryKernel, kSize> unary_{};
};

// Registers the CPU kernels of the arithmetic ops (kernels_cpu_elementwise.cpp)
// and of the tensor math ops (kernels_cpu_math.cpp).
void registerCpuElementwiseKernels(KernelTable& r);
void registerCpuMathKernels(KernelTable& r);

}  // namespace nn::rt
