// What the CUDA plugin's kernel files share with its device
// (cuda_device.cpp): the compute stream a tensor's kernels run on, CUDA
// error checks, opening the CUDA libraries loaded on first use (cuBLAS,
// cuDNN), and the cuDNN kernels' registration (cudnn_kernels.cpp).
#pragma once

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <string>

namespace nn::rt {
class KernelTable;
class Tensor;
}  // namespace nn::rt

namespace nn::rt::cuda {

// Throws a std::runtime_error naming `what` unless e is cudaSuccess.
void check(cudaError_t e, const char* what);

// The compute stream of the CUDA device that holds t, with that GPU made
// current on the calling thread.
cudaStream_t computeStream(const Tensor& t);

// Opens a CUDA library by its soname (RTLD_LOCAL), or returns null and
// says why in `why`.
void* openLibrary(const std::string& soname, std::string& why);

// f = the address of `symbol` in lib; false, with `why` naming it, when lib
// lacks it.
template <class F>
bool bindSymbol(void* lib, F& f, const char* symbol, const std::string& soname, std::string& why) {
  f = reinterpret_cast<F>(dlsym(lib, symbol));
  if (!f) why = soname + " lacks " + symbol;
  return f != nullptr;
}

// conv2d and its gradients, max and average pooling and their gradient,
// batch_norm: f32 kernels through cuDNN, opened at their first use.
void registerDnnKernels(KernelTable& t);

}  // namespace nn::rt::cuda
