// What the CUDA plugin's kernel files share with its device
// (cuda_device.cpp): the compute stream a tensor's kernels run on, CUDA
// error checks, opening the CUDA libraries loaded on first use (cuBLAS,
// cuDNN), and the cuDNN kernels' registration (cudnn_kernels.cpp).
#pragma once

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstddef>
#include <string>

namespace nn::rt {
class KernelTable;
class Tensor;
}  // namespace nn::rt

namespace nn::rt::cuda {

// Throws a std::runtime_error naming `what` unless e is cudaSuccess.
void check(cudaError_t e, const char* what);

// Throws, naming `what`, when the kernel launch just made did not start (no
// kernel image for this GPU, a bad launch configuration). CUDA keeps such
// an error for whichever call asks next, so unchecked, the output would
// silently hold whatever its memory held before.
void launched(const char* what);

// Stream-ordered scratch memory: `bytes` allocated on stream s
// (std::bad_alloc when the GPU has no room), freed on s when it goes, so
// after the work queued on s before that.
class Scratch {
 public:
  Scratch(size_t bytes, cudaStream_t s);
  ~Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(p_);
  }
  size_t size() const { return size_; }

 private:
  cudaStream_t stream_;
  size_t size_;
  void* p_ = nullptr;
};

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
