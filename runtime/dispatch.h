// The one way an op reaches a kernel: by the device its operands live on,
// then by op and dtype, through that device's KernelTable (kernels.h).
// Front ends (matmul, conv2d, reductions, copies, ...) check shapes and
// attributes, allocate the result on the device and call launch<op>; the
// kernel only computes. An op the device has no kernel for, and a library
// exception inside a kernel (oneDNN, a plugin's), become located errors.
#pragma once

#include <exception>
#include <new>
#include <utility>

#include "runtime/device.h"
#include "support/diagnostics.h"

namespace nn::rt {

namespace detail {
[[noreturn]] void noKernel(ir::Op op, DType t, const Device& device, SourceLoc loc);
[[noreturn]] void kernelFailed(ir::Op op, const Device& device, const std::exception& e, SourceLoc loc);
}  // namespace detail

// Runs op O's kernel for dtype `t` on `device`; returns what the kernel
// returns (the losses report a bad label or probability that way).
template <ir::Op O, class... Args>
decltype(auto) launch(const Device& device, DType t, SourceLoc loc, Args&&... args) {
  typename KernelFor<O>::Fn kernel = device.kernels().template get<O>(t);
  if (!kernel) detail::noKernel(O, t, device, loc);
  try {
    return kernel(std::forward<Args>(args)...);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const NnError&) {
    throw;
  } catch (const std::exception& e) {
    detail::kernelFailed(O, device, e, loc);
  }
}

}  // namespace nn::rt
