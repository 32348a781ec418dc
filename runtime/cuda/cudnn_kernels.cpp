// The CUDA plugin's convolution, pooling and batch-norm kernels through
// cuDNN (cuda_device.h registerDnnKernels): conv2d (bias added after),
// its input and weight gradients, max and average pooling and their
// gradient, and batch_norm with given statistics, f32 and f64, NCHW.
//
// cuDNN is opened with dlopen at the first such kernel, as cuBLAS is when a
// device is made (loading it costs time and memory a run without
// convolutions should not pay), through its descriptor API, which every
// cuDNN 9 still carries. Each device gets a handle bound to its compute
// stream. Semantics follow the CPU kernels: cross-correlation as PyTorch's
// conv2d; FMA math only (no TF32 tensor cores, so f32 results stay f32
// ones); f64 tensors computed in double, with double scaling factors; max
// pooling propagates NaN; average pooling counts padding or not
// (count_include_pad). Workspaces are stream-ordered allocations freed
// after the launch.
#include <cudnn.h>

#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/cuda/cuda_device.h"
#include "runtime/device.h"
#include "runtime/kernels.h"
#include "runtime/tensor_ops.h"
#include "runtime/tensor.h"

namespace nn::rt::cuda {
namespace {

using cuda::check;  // the CUDA one, beside the overload below

// The cuDNN entries used, resolved from libcudnn.so.<major>; immutable
// once loaded.
class Dnn {
 public:
  static const Dnn& get() {
    static const Dnn dnn;
    if (!dnn.ok_) throw std::runtime_error("cannot load cuDNN: " + dnn.why_);
    return dnn;
  }
#define NN_DNN_ENTRIES(X)                                                                                             \
  X(cudnnGetErrorString) X(cudnnCreate) X(cudnnDestroy) X(cudnnSetStream) X(cudnnCreateTensorDescriptor)              \
  X(cudnnDestroyTensorDescriptor) X(cudnnSetTensor4dDescriptor) X(cudnnCreateFilterDescriptor)                        \
  X(cudnnDestroyFilterDescriptor) X(cudnnSetFilter4dDescriptor) X(cudnnCreateConvolutionDescriptor)                   \
  X(cudnnDestroyConvolutionDescriptor) X(cudnnSetConvolution2dDescriptor) X(cudnnSetConvolutionGroupCount)            \
  X(cudnnSetConvolutionMathType) X(cudnnGetConvolutionForwardAlgorithm_v7)                                            \
  X(cudnnGetConvolutionForwardWorkspaceSize) X(cudnnConvolutionForward)                                               \
  X(cudnnGetConvolutionBackwardDataAlgorithm_v7) X(cudnnGetConvolutionBackwardDataWorkspaceSize)                      \
  X(cudnnConvolutionBackwardData) X(cudnnGetConvolutionBackwardFilterAlgorithm_v7)                                    \
  X(cudnnGetConvolutionBackwardFilterWorkspaceSize) X(cudnnConvolutionBackwardFilter) X(cudnnAddTensor)               \
  X(cudnnCreatePoolingDescriptor) X(cudnnDestroyPoolingDescriptor) X(cudnnSetPooling2dDescriptor)                     \
  X(cudnnPoolingForward) X(cudnnPoolingBackward) X(cudnnBatchNormalizationForwardInference)
#define NN_DNN_POINTER(name) decltype(&::name) name = nullptr;
  NN_DNN_ENTRIES(NN_DNN_POINTER)
#undef NN_DNN_POINTER

 private:
  Dnn() {
    std::string name = "libcudnn.so." + std::to_string(CUDNN_MAJOR);
    void* lib = openLibrary(name, why_);
    ok_ = lib != nullptr;
#define NN_DNN_BIND(entry) ok_ = ok_ && bindSymbol(lib, entry, #entry, name, why_);
    NN_DNN_ENTRIES(NN_DNN_BIND)
#undef NN_DNN_BIND
  }
  bool ok_ = false;
  std::string why_;
};

void checkDnn(cudnnStatus_t s, const char* what) {
  if (s != CUDNN_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed: " + Dnn::get().cudnnGetErrorString(s));
}

// A device's cuDNN handle, made on its first kernel, on its compute stream.
struct DnnState final : KernelState {
  ~DnnState() override {
    if (handle) Dnn::get().cudnnDestroy(handle);
  }
  cudnnHandle_t of(const Tensor& t) {
    cudaStream_t stream = computeStream(t);
    std::call_once(made, [&] {
      checkDnn(Dnn::get().cudnnCreate(&handle), "cudnnCreate");
      checkDnn(Dnn::get().cudnnSetStream(handle, stream), "cudnnSetStream");
    });
    return handle;
  }
  std::once_flag made;
  cudnnHandle_t handle = nullptr;
};

cudnnHandle_t handleFor(const Tensor& t) { return t.device().kernelState<DnnState>().of(t); }

// cuDNN's element type of t (f32 or f64).
cudnnDataType_t dataType(const Tensor& t) { return t.dtype() == DType::F64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT; }

// cuDNN's scaling factors 1 and 0 for t's data: doubles for double data,
// floats otherwise.
const double kOneF64 = 1.0, kZeroF64 = 0.0;
const float kOneF32 = 1.0f, kZeroF32 = 0.0f;
const void* one(const Tensor& t) { return t.dtype() == DType::F64 ? static_cast<const void*>(&kOneF64) : &kOneF32; }
const void* zero(const Tensor& t) { return t.dtype() == DType::F64 ? static_cast<const void*>(&kZeroF64) : &kZeroF32; }

// Descriptors that free themselves.
struct TensorDesc {
  // An NCHW tensor of t's shape and type; [N, C, ...] folds its trailing
  // axes into H (W = 1), [C] is [1, C, 1, 1].
  explicit TensorDesc(const Tensor& t) {
    checkDnn(Dnn::get().cudnnCreateTensorDescriptor(&d), "cudnnCreateTensorDescriptor");
    int n = 1, c = 1, h = 1, w = 1;
    const Shape& s = t.shape();
    if (s.size() == 1) c = static_cast<int>(s[0]);
    if (s.size() >= 2) n = static_cast<int>(s[0]), c = static_cast<int>(s[1]);
    if (s.size() == 4) h = static_cast<int>(s[2]), w = static_cast<int>(s[3]);
    if (s.size() == 3 || s.size() > 4)
      for (size_t i = 2; i < s.size(); ++i) h *= static_cast<int>(s[i]);
    checkDnn(Dnn::get().cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, dataType(t), n, c, h, w),
          "cudnnSetTensor4dDescriptor");
  }
  ~TensorDesc() { Dnn::get().cudnnDestroyTensorDescriptor(d); }
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;
  cudnnTensorDescriptor_t d = nullptr;
};

struct FilterDesc {
  explicit FilterDesc(const Tensor& w) {
    checkDnn(Dnn::get().cudnnCreateFilterDescriptor(&d), "cudnnCreateFilterDescriptor");
    checkDnn(Dnn::get().cudnnSetFilter4dDescriptor(d, dataType(w), CUDNN_TENSOR_NCHW, static_cast<int>(w.dim(0)),
                                                static_cast<int>(w.dim(1)), static_cast<int>(w.dim(2)),
                                                static_cast<int>(w.dim(3))),
          "cudnnSetFilter4dDescriptor");
  }
  ~FilterDesc() { Dnn::get().cudnnDestroyFilterDescriptor(d); }
  FilterDesc(const FilterDesc&) = delete;
  FilterDesc& operator=(const FilterDesc&) = delete;
  cudnnFilterDescriptor_t d = nullptr;
};

struct ConvDesc {
  // Computing in `type`, the data's.
  ConvDesc(const ConvParams& p, cudnnDataType_t type) {
    const Dnn& dnn = Dnn::get();
    checkDnn(dnn.cudnnCreateConvolutionDescriptor(&d), "cudnnCreateConvolutionDescriptor");
    checkDnn(dnn.cudnnSetConvolution2dDescriptor(d, static_cast<int>(p.padH), static_cast<int>(p.padW),
                                              static_cast<int>(p.strideH), static_cast<int>(p.strideW),
                                              static_cast<int>(p.dilH), static_cast<int>(p.dilW),
                                              CUDNN_CROSS_CORRELATION, type),
          "cudnnSetConvolution2dDescriptor");
    checkDnn(dnn.cudnnSetConvolutionGroupCount(d, static_cast<int>(p.groups)), "cudnnSetConvolutionGroupCount");
    checkDnn(dnn.cudnnSetConvolutionMathType(d, CUDNN_FMA_MATH), "cudnnSetConvolutionMathType");
  }
  ~ConvDesc() { Dnn::get().cudnnDestroyConvolutionDescriptor(d); }
  ConvDesc(const ConvDesc&) = delete;
  ConvDesc& operator=(const ConvDesc&) = delete;
  cudnnConvolutionDescriptor_t d = nullptr;
};

// cuDNN pools whole windows only (its output size is the floor's), without
// dilation or a divisor of one's own: those options are a located error on
// a CUDA device (runKernel), not a silent fallback to the CPU.
struct PoolDesc {
  PoolDesc(const PoolParams& p, bool isMax) {
    if (p.ceilMode || p.dilH != 1 || p.dilW != 1 || p.divisor != 0)
      throw std::runtime_error(
          "pooling with ceil_mode, dilation or divisor_override is not supported on CUDA devices; pool on the CPU "
          "(x.to(\"cpu\"))");
    const Dnn& dnn = Dnn::get();
    checkDnn(dnn.cudnnCreatePoolingDescriptor(&d), "cudnnCreatePoolingDescriptor");
    cudnnPoolingMode_t mode = isMax           ? CUDNN_POOLING_MAX_DETERMINISTIC
                              : p.countPadding ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                               : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
    checkDnn(dnn.cudnnSetPooling2dDescriptor(
              d, mode,
              CUDNN_PROPAGATE_NAN, static_cast<int>(p.kH), static_cast<int>(p.kW), static_cast<int>(p.padH),
              static_cast<int>(p.padW), static_cast<int>(p.strideH), static_cast<int>(p.strideW)),
          "cudnnSetPooling2dDescriptor");
  }
  ~PoolDesc() { Dnn::get().cudnnDestroyPoolingDescriptor(d); }
  PoolDesc(const PoolDesc&) = delete;
  PoolDesc& operator=(const PoolDesc&) = delete;
  cudnnPoolingDescriptor_t d = nullptr;
};

const void* in(const Tensor& t) { return t.deviceBytes(); }
void* out(Tensor& t) { return t.deviceBytes(); }

constexpr int kAlgorithms = 8;

// One convolution pass (forward, data or filter gradient) as cuDNN runs
// each: `query` ranks its algorithms (a _v7 query filling Perf records),
// the first that can run is taken, `size` says its workspace, and `run`
// runs it with that workspace.
template <class Perf, class Query, class Size, class Run>
void convolve(const char* what, cudaStream_t stream, Query query, Size size, Run run) {
  std::vector<Perf> perf(kAlgorithms);
  int found = 0;
  checkDnn(query(perf.data(), &found), what);
  int i = 0;
  while (i < found && perf[static_cast<size_t>(i)].status != CUDNN_STATUS_SUCCESS) ++i;
  if (i == found) throw std::runtime_error(std::string(what) + ": cuDNN has no algorithm for these shapes");
  auto algo = perf[static_cast<size_t>(i)].algo;
  size_t bytes = 0;
  checkDnn(size(algo, &bytes), what);
  Scratch ws(bytes, stream);
  checkDnn(run(algo, ws), what);
}

void conv2d(const Tensor& x, const Tensor& w, const Tensor* bias, const ConvParams& p, Tensor& o) {
  const Dnn& dnn = Dnn::get();
  cudnnHandle_t h = handleFor(o);
  TensorDesc xd(x), od(o);
  FilterDesc wd(w);
  ConvDesc cd(p, dataType(o));
  convolve<cudnnConvolutionFwdAlgoPerf_t>(
      "conv2d", computeStream(o),
      [&](auto* perf, int* found) {
        return dnn.cudnnGetConvolutionForwardAlgorithm_v7(h, xd.d, wd.d, cd.d, od.d, kAlgorithms, found, perf);
      },
      [&](auto algo, size_t* bytes) {
        return dnn.cudnnGetConvolutionForwardWorkspaceSize(h, xd.d, wd.d, cd.d, od.d, algo, bytes);
      },
      [&](auto algo, Scratch& ws) {
        return dnn.cudnnConvolutionForward(h, one(o), xd.d, in(x), wd.d, in(w), cd.d, algo, ws.as<void>(), ws.size(),
                                           zero(o), od.d, out(o));
      });
  if (bias) {
    TensorDesc bd(*bias);  // [OC] as [1, OC, 1, 1], broadcast over the rest
    checkDnn(dnn.cudnnAddTensor(h, one(o), bd.d, in(*bias), one(o), od.d, out(o)), "cudnnAddTensor");
  }
}

void conv2dGradInput(const Tensor& g, const Tensor& w, const ConvParams& p, Tensor& dx) {
  const Dnn& dnn = Dnn::get();
  cudnnHandle_t h = handleFor(dx);
  TensorDesc gd(g), dxd(dx);
  FilterDesc wd(w);
  ConvDesc cd(p, dataType(dx));
  convolve<cudnnConvolutionBwdDataAlgoPerf_t>(
      "conv2d gradient", computeStream(dx),
      [&](auto* perf, int* found) {
        return dnn.cudnnGetConvolutionBackwardDataAlgorithm_v7(h, wd.d, gd.d, cd.d, dxd.d, kAlgorithms, found, perf);
      },
      [&](auto algo, size_t* bytes) {
        return dnn.cudnnGetConvolutionBackwardDataWorkspaceSize(h, wd.d, gd.d, cd.d, dxd.d, algo, bytes);
      },
      [&](auto algo, Scratch& ws) {
        return dnn.cudnnConvolutionBackwardData(h, one(dx), wd.d, in(w), gd.d, in(g), cd.d, algo, ws.as<void>(),
                                                ws.size(), zero(dx), dxd.d, out(dx));
      });
}

void conv2dGradWeight(const Tensor& g, const Tensor& x, const ConvParams& p, Tensor& dw) {
  const Dnn& dnn = Dnn::get();
  cudnnHandle_t h = handleFor(dw);
  TensorDesc gd(g), xd(x);
  FilterDesc dwd(dw);
  ConvDesc cd(p, dataType(dw));
  convolve<cudnnConvolutionBwdFilterAlgoPerf_t>(
      "conv2d weight gradient", computeStream(dw),
      [&](auto* perf, int* found) {
        return dnn.cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, xd.d, gd.d, cd.d, dwd.d, kAlgorithms, found, perf);
      },
      [&](auto algo, size_t* bytes) {
        return dnn.cudnnGetConvolutionBackwardFilterWorkspaceSize(h, xd.d, gd.d, cd.d, dwd.d, algo, bytes);
      },
      [&](auto algo, Scratch& ws) {
        return dnn.cudnnConvolutionBackwardFilter(h, one(dw), xd.d, in(x), gd.d, in(g), cd.d, algo, ws.as<void>(),
                                                  ws.size(), zero(dw), dwd.d, out(dw));
      });
}

template <bool IsMax>
void pool2d(const Tensor& x, const PoolParams& p, Tensor& o) {
  const Dnn& dnn = Dnn::get();
  cudnnHandle_t h = handleFor(o);
  TensorDesc xd(x), od(o);
  PoolDesc pd(p, IsMax);
  checkDnn(dnn.cudnnPoolingForward(h, pd.d, one(o), xd.d, in(x), zero(o), od.d, out(o)), "cudnnPoolingForward");
}

// cuDNN's backward pass reads the forward's output too: made again here
// (into scratch memory) rather than kept from the forward.
void pool2dGrad(const Tensor& g, const Tensor& x, const PoolParams& p, bool isMax, Tensor& dx) {
  const Dnn& dnn = Dnn::get();
  cudnnHandle_t h = handleFor(dx);
  cudaStream_t stream = computeStream(dx);
  TensorDesc xd(x), gd(g), dxd(dx);
  PoolDesc pd(p, isMax);
  Scratch y(static_cast<size_t>(g.numel()) * dtypeSize(g.dtype()), stream);
  checkDnn(dnn.cudnnPoolingForward(h, pd.d, one(dx), xd.d, in(x), zero(dx), gd.d, y.as<void>()), "cudnnPoolingForward");
  checkDnn(dnn.cudnnPoolingBackward(h, pd.d, one(dx), gd.d, y.as<void>(), gd.d, in(g), xd.d, in(x), zero(dx), dxd.d,
                                 out(dx)),
        "cudnnPoolingBackward");
}

// y = (x - mean) / sqrt(var + eps) * gamma + beta per channel; missing
// gamma and beta are ones and zeros made for the call.
void batchNorm(const Tensor& x, const Tensor& mean, const Tensor& var, const Tensor* gamma, const Tensor* beta,
               double eps, Tensor& o) {
  if (eps < CUDNN_BN_MIN_EPSILON)
    throw std::runtime_error("batch_norm on cuda needs eps >= " + std::to_string(CUDNN_BN_MIN_EPSILON));
  const Dnn& dnn = Dnn::get();
  cudnnHandle_t h = handleFor(o);
  Tensor ones = gamma ? *gamma : fullLike(mean.dtype(), mean.shape(), 1.0, o.device());
  Tensor zeros = beta ? *beta : Tensor::zeros(mean.dtype(), mean.shape(), o.device());
  TensorDesc xd(x), od(o), cd(mean);
  checkDnn(dnn.cudnnBatchNormalizationForwardInference(h, CUDNN_BATCHNORM_SPATIAL, one(o), zero(o), xd.d, in(x), od.d,
                                                    out(o), cd.d, in(ones), in(zeros), in(mean), in(var), eps),
        "cudnnBatchNormalizationForwardInference");
}

}  // namespace

void registerDnnKernels(KernelTable& t) {
  using ir::Op;
  for (DType d : {DType::F32, DType::F64}) {
    t.add<Op::Conv2d>(d, conv2d);
    t.add<Op::Conv2dGradInput>(d, conv2dGradInput);
    t.add<Op::Conv2dGradWeight>(d, conv2dGradWeight);
    t.add<Op::MaxPool2d>(d, pool2d<true>);
    t.add<Op::AvgPool2d>(d, pool2d<false>);
    t.add<Op::Pool2dGrad>(d, pool2dGrad);
    t.add<Op::BatchNorm>(d, batchNorm);
  }
}

}  // namespace nn::rt::cuda
