// The one way an op reaches a kernel: by the device its operands live on,
// then by op and dtype, through that device's KernelTable (kernels.h), run
// on that device's execution queue (execution_queue.h).
// Front ends (matmul, conv2d, reductions, copies, ...) check shapes and
// attributes, allocate the result on the device and call launch<op>; the
// kernel only computes. An op the device has no kernel for, and a library
// exception inside a kernel (oneDNN, a plugin's), become located errors.
#pragma once

#include <exception>
#include <new>
#include <type_traits>
#include <utility>

#include "runtime/device.h"
#include "support/diagnostics.h"

namespace nn::rt {

namespace detail {
[[noreturn]] void noKernel(ir::Op op, DType t, const Device& device, SourceLoc loc);
[[noreturn]] void kernelFailed(ir::Op op, const Device& device, const std::exception& e, SourceLoc loc);
}  // namespace detail

// Calls `call` (one kernel call) on `device`'s execution queue: directly
// when the queue is immediate (the CPU), else through it. Returns what the
// kernel returns.
template <class F>
decltype(auto) onQueue(const Device& device, F&& call) {
  ExecutionQueue& queue = device.queue();
  if (queue.immediate()) [[likely]]
    return call();
  using Result = decltype(call());
  if constexpr (std::is_void_v<Result>) {
    queue.run(call);
  } else {
    Result result{};
    queue.run([&] { result = call(); });
    return result;
  }
}

// Runs `call` (op's kernel) on `device`'s queue: a library exception
// inside it (oneDNN's, a plugin's) becomes a located error naming the op
// and the device; out of memory and located errors pass through.
template <class F>
decltype(auto) runKernel(ir::Op op, const Device& device, SourceLoc loc, F&& call) {
  try {
    return onQueue(device, call);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const NnError&) {
    throw;
  } catch (const std::exception& e) {
    detail::kernelFailed(op, device, e, loc);
  }
}

// Runs op O's kernel for dtype `t` on `device`'s execution queue; returns
// what the kernel returns (the losses report a bad label or probability
// that way).
template <ir::Op O, class... Args>
decltype(auto) launch(const Device& device, DType t, SourceLoc loc, Args&&... args) {
  typename KernelFor<O>::Fn kernel = device.kernels().template get<O>(t);
  if (!kernel) detail::noKernel(O, t, device, loc);
  return runKernel(O, device, loc, [&]() -> decltype(auto) { return kernel(std::forward<Args>(args)...); });
}

// The elementwise ops' kernels, found by the caller in the device's table
// (KernelTable::binary/unary, since the front ends choose the compute dtype
// first), run the same way.
inline void launchBinary(ir::Op op, const Device& device, BinaryKernel k, const Tensor& a, const Tensor& b,
                         Tensor& out, SourceLoc loc) {
  runKernel(op, device, loc, [&] { k(a, b, out, loc); });
}
inline void launchUnary(ir::Op op, const Device& device, UnaryKernel k, const Tensor& a, Tensor& out, SourceLoc loc) {
  runKernel(op, device, loc, [&] { k(a, out, loc); });
}

}  // namespace nn::rt
