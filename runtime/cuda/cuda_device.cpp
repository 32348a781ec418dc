// The CUDA device plugin (libnn_cuda.so, loaded by runtime/device_plugin.h):
// a device `cuda:N` per GPU the CUDA runtime reports, none where there is
// no GPU or no driver (so nn runs the same there, with CPU devices only).
// Each device has:
//   - a compute stream on which its kernels run in launch order: its queue
//     enqueues (one thread at a time) and returns at once, and wait()
//     (sync()) synchronises it;
//   - a stream-ordered caching allocator: cudaMallocAsync / cudaFreeAsync
//     on that stream from the GPU's memory pool, which keeps freed memory
//     for reuse (release threshold: never), counted for memory_stats;
//   - transfers through a pinned staging buffer on a copy stream of its
//     own, ordered with events after the compute queued before them (a
//     copy's destination may be memory that compute still uses), so that
//     compute queued meanwhile, by the other threads of a merged graph,
//     overlaps them; the calling thread waits for its copy, as PyTorch's
//     blocking .to() does;
//   - a kernel for every op and dtype the CPU has one for (checked by
//     tests/unit/cuda_coverage_test.cpp): elementwise ops with
//     broadcasting (one element as element_math.h computes it), the
//     reductions, softmax and log_softmax, cross_entropy, one_hot, integer
//     matmul, fills and conversions of every dtype (cuda_kernels.cu);
//     indexing reads and writes, gather, scatter and scatter_add, cumsum
//     cumprod and logcumsumexp, sort, tril and triu, layer_norm and binary_cross_entropy
//     (cuda_index_kernels.cu); matmul of floats (batched) and linear
//     through cuBLAS (opened when a device is made); conv2d, pooling,
//     batch_norm and their gradients through cuDNN (cudnn_kernels.cpp);
//     ramps, eye, the random ops and dropout made on the host
//     (runtime/host_made_kernels.h, added by the context). An op of
//     another plugin's device without a kernel is the runtime's located
//     "has no kernel on device" error, never a silent fallback.
// Built only where the CUDA toolkit is (architectures 80 and 90); it uses
// the runtime's headers and the symbols of the binary that loads it.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>

#include "runtime/context.h"
#include "runtime/cuda/cuda_device.h"
#include "runtime/cuda/cuda_kernels.h"
#include "runtime/device.h"
#include "runtime/device_plugin.h"
#include "runtime/tensor.h"

namespace nn::rt::cuda {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

void launched(const char* what) {
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

Scratch::Scratch(size_t bytes, cudaStream_t s) : stream_(s), size_(bytes) {
  if (bytes && cudaMallocAsync(&p_, bytes, s) != cudaSuccess) {
    cudaGetLastError();  // clear it: out of memory is a bad_alloc, located by the runtime
    throw std::bad_alloc();
  }
}

Scratch::~Scratch() {
  if (p_) cudaFreeAsync(p_, stream_);
}

void* openLibrary(const std::string& soname, std::string& why) {
  void* lib = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    why = e ? e : soname;
  }
  return lib;
}

namespace {

using cuda::check;  // the CUDA one, beside the overload below

void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + " failed (cuBLAS status " + std::to_string(s) + ")");
}

// cuBLAS, opened when the first device is made rather than linked: loading
// it costs about 80 ms and 200 MB of mappings, which a machine without a
// GPU should not pay at every start. Immutable once loaded.
class Blas {
 public:
  static const Blas& get() {
    static const Blas blas;
    if (!blas.sgemm) throw std::runtime_error("cannot load cuBLAS: " + blas.why_);
    return blas;
  }
  cublasStatus_t (*create)(cublasHandle_t*) = nullptr;
  cublasStatus_t (*destroy)(cublasHandle_t) = nullptr;
  cublasStatus_t (*setStream)(cublasHandle_t, cudaStream_t) = nullptr;
  cublasStatus_t (*sgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const float*,
                          const float*, int, const float*, int, const float*, float*, int) = nullptr;
  cublasStatus_t (*dgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const double*,
                          const double*, int, const double*, int, const double*, double*, int) = nullptr;

 private:
  Blas() {
    std::string name = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
    void* lib = openLibrary(name, why_);
    bool ok = lib && bindSymbol(lib, create, "cublasCreate_v2", name, why_) &&
              bindSymbol(lib, destroy, "cublasDestroy_v2", name, why_) &&
              bindSymbol(lib, setStream, "cublasSetStream_v2", name, why_) &&
              bindSymbol(lib, sgemm, "cublasSgemm_v2", name, why_) &&
              bindSymbol(lib, dgemm, "cublasDgemm_v2", name, why_);
    if (!ok) sgemm = nullptr;
  }
  std::string why_;
};

class CudaAllocator final : public Allocator {
 public:
  CudaAllocator(int gpu, cudaStream_t stream) : gpu_(gpu), stream_(stream) {}
  void* allocate(size_t bytes) override {
    if (injectedFailure()) throw std::bad_alloc();
    void* p = nullptr;
    cudaSetDevice(gpu_);
    if (cudaMallocAsync(&p, std::max<size_t>(bytes, 1), stream_) != cudaSuccess) {
      cudaGetLastError();  // clear it: out of memory is a bad_alloc, located by the runtime
      throw std::bad_alloc();
    }
    count(static_cast<ptrdiff_t>(bytes));
    return p;
  }
  void deallocate(void* p, size_t bytes) override {
    cudaSetDevice(gpu_);
    cudaFreeAsync(p, stream_);
    count(-static_cast<ptrdiff_t>(bytes));
  }

 private:
  int gpu_;
  cudaStream_t stream_;
};

class CudaQueue final : public ExecutionQueue {
 public:
  CudaQueue(int gpu, cudaStream_t stream) : ExecutionQueue(false), gpu_(gpu), stream_(stream) {}
  // Launches enqueue on the stream: the work runs here and returns when
  // its kernels are queued. One thread at a time (a merged graph's
  // threads may launch on one device together): cuBLAS and cuDNN handles
  // must not be used by two threads at once, and the stream's order is
  // then the order of the launches. Recursive: a kernel may launch
  // another (batch_norm fills its missing scale).
  void run(FunctionRef<void()> work) override {
    std::lock_guard<std::recursive_mutex> lock(launching_);
    cudaSetDevice(gpu_);
    work();
  }
  void wait() override {
    cudaSetDevice(gpu_);
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }

 private:
  int gpu_;
  cudaStream_t stream_;
  std::recursive_mutex launching_;
};

// What a device owns, made before the Device base that refers to it.
struct Resources {
  explicit Resources(int gpu) : gpu(gpu) {
    check(cudaSetDevice(gpu), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaStreamCreateWithFlags(&copies, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaEventCreateWithFlags(&computed, cudaEventDisableTiming), "cudaEventCreate");
    check(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming), "cudaEventCreate");
    check(cudaMallocHost(&staging, kStaging), "cudaMallocHost");
    check(Blas::get().create(&blas), "cublasCreate");
    check(Blas::get().setStream(blas, compute), "cublasSetStream");
    cudaMemPool_t pool;
    if (cudaDeviceGetDefaultMemPool(&pool, gpu) == cudaSuccess) {
      uint64_t keep = UINT64_MAX;
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    }
  }
  ~Resources() {
    cudaSetDevice(gpu);
    cudaStreamSynchronize(compute);
    cudaStreamSynchronize(copies);
    Blas::get().destroy(blas);
    cudaFreeHost(staging);
    cudaEventDestroy(computed);
    cudaEventDestroy(copied);
    cudaStreamDestroy(compute);
    cudaStreamDestroy(copies);
  }
  static constexpr size_t kStaging = 4 << 20;
  int gpu;
  cudaStream_t compute = nullptr, copies = nullptr;
  cudaEvent_t computed = nullptr, copied = nullptr;
  void* staging = nullptr;
  cublasHandle_t blas = nullptr;
  mutable std::mutex copying;  // one transfer at a time through the staging buffer
};

struct DeviceParts : Resources {
  explicit DeviceParts(int gpu) : Resources(gpu), pool(gpu, compute), launches(gpu, compute) {}
  CudaAllocator pool;
  CudaQueue launches;
};

const KernelTable& cudaKernels();

class CudaDevice final : private DeviceParts, public Device {
 public:
  explicit CudaDevice(int gpu)
      : DeviceParts(gpu), Device("cuda:" + std::to_string(gpu), /*hostMemory=*/false, pool, cudaKernels(), launches) {}

  static const CudaDevice& of(const Tensor& t) { return static_cast<const CudaDevice&>(t.device()); }
  cudaStream_t stream() const { return compute; }
  int gpuIndex() const { return gpu; }
  cublasHandle_t blasHandle() const { return blas; }

  // Takes the staging buffer and makes the copy stream wait for the
  // compute queued so far.
  std::unique_lock<std::mutex> startCopy() const {
    std::unique_lock<std::mutex> lock(copying);
    cudaSetDevice(gpu);
    check(cudaEventRecord(computed, compute), "cudaEventRecord");
    check(cudaStreamWaitEvent(copies, computed, 0), "cudaStreamWaitEvent");
    return lock;
  }

  // Host to device: chunks through the pinned buffer on the copy stream,
  // after the compute queued so far (which may still use `dst`'s memory
  // from an earlier life); the compute stream then waits for the copy.
  void copyFromHost(void* dst, const void* src, size_t bytes) const override {
    std::unique_lock<std::mutex> lock = startCopy();
    for (size_t done = 0; done < bytes; done += kStaging) {
      size_t n = std::min(kStaging, bytes - done);
      check(cudaStreamSynchronize(copies), "cudaStreamSynchronize");  // the buffer is free again
      std::memcpy(staging, static_cast<const char*>(src) + done, n);
      check(cudaMemcpyAsync(static_cast<char*>(dst) + done, staging, n, cudaMemcpyHostToDevice, copies),
            "cudaMemcpyAsync");
    }
    check(cudaEventRecord(copied, copies), "cudaEventRecord");
    check(cudaStreamWaitEvent(compute, copied, 0), "cudaStreamWaitEvent");
    check(cudaStreamSynchronize(copies), "cudaStreamSynchronize");  // the caller may free `src`
  }
  // Device to host: the copy stream waits for the compute that makes
  // `src`, then each chunk comes through the pinned buffer.
  void copyToHost(void* dst, const void* src, size_t bytes) const override {
    std::unique_lock<std::mutex> lock = startCopy();
    for (size_t done = 0; done < bytes; done += kStaging) {
      size_t n = std::min(kStaging, bytes - done);
      check(cudaMemcpyAsync(staging, static_cast<const char*>(src) + done, n, cudaMemcpyDeviceToHost, copies),
            "cudaMemcpyAsync");
      check(cudaStreamSynchronize(copies), "cudaStreamSynchronize");
      std::memcpy(static_cast<char*>(dst) + done, staging, n);
    }
  }
};

Strided stridedOf(const Tensor& t, size_t rank) {
  if (rank > static_cast<size_t>(kMaxRank)) throw std::runtime_error("more than 8 dimensions on cuda");
  Strided s;
  s.rank = static_cast<int>(rank);
  size_t lead = rank - t.shape().size();  // broadcast leading dimensions read stride 0
  for (size_t i = 0; i < t.shape().size(); ++i) {
    s.shape[lead + i] = t.shape()[i];
    s.stride[lead + i] = t.strides()[i];
  }
  for (size_t i = 0; i < lead; ++i) s.shape[i] = 1;
  return s;
}

const float* floatsIn(const Tensor& t) { return reinterpret_cast<const float*>(t.deviceBytes()); }
float* floatsOut(Tensor& t) { return reinterpret_cast<float*>(t.deviceBytes()); }

Elem elemOf(DType d) { return static_cast<Elem>(static_cast<int>(d)); }

void fillKernel(double value, Tensor& o) { fill(elemOf(o.dtype()), o.deviceBytes(), o.numel(), value, CudaDevice::of(o).stream()); }

// The walk of out's shape (out contiguous, or strided: `dst`) and the
// operands' strides along it, its dimensions merged where all allow.
template <size_t N>
struct Walk {
  Walk(const Tensor& out, std::array<const Tensor*, N> operands) {
    size_t rank = out.shape().size();
    at = stridedOf(out, rank);
    Strided* merged[N];
    for (size_t j = 0; j < N; ++j) {
      of[j] = stridedOf(*operands[j], rank);
      merged[j] = &of[j];
    }
    coalesce(at, merged, static_cast<int>(N));
  }
  Strided at;
  std::array<Strided, N> of;
};

template <Binary Op>
void binaryKernel(const Tensor& a, const Tensor& b, Tensor& o, SourceLoc loc) {
  Walk<2> w(o, {&a, &b});
  if (!binary(Op, elemOf(o.dtype()), a.deviceBytes(), w.of[0], b.deviceBytes(), w.of[1], o.deviceBytes(), w.at,
              o.numel(), CudaDevice::of(o).stream()))
    fail(loc, Op == Binary::Pow ? "integers to negative integer powers are not allowed"  // the CPU kernels' words
                                : "integer division or modulo by zero");
}

template <Unary Op>
void unaryKernel(const Tensor& a, Tensor& o, SourceLoc) {
  Walk<1> w(o, {&a});
  unary(Op, elemOf(o.dtype()), a.deviceBytes(), w.of[0], o.deviceBytes(), w.at, o.numel(), CudaDevice::of(o).stream());
}

template <Predicate Op>
void predicateKernel(const Tensor& a, Tensor& o, SourceLoc) {
  Walk<1> w(o, {&a});
  predicate(Op, elemOf(a.dtype()), a.deviceBytes(), w.of[0], reinterpret_cast<bool*>(o.deviceBytes()), w.at,
            o.numel(), CudaDevice::of(o).stream());
}

template <Compare Op>
void compareKernel(const Tensor& a, const Tensor& b, Tensor& o, SourceLoc) {
  Walk<2> w(o, {&a, &b});
  compare(Op, elemOf(a.dtype()), a.deviceBytes(), w.of[0], b.deviceBytes(), w.of[1],
          reinterpret_cast<bool*>(o.deviceBytes()), w.at, o.numel(), CudaDevice::of(o).stream());
}

void whereKernel(const Tensor& c, const Tensor& x, const Tensor& y, Tensor& o) {
  Walk<3> w(o, {&c, &x, &y});
  where(reinterpret_cast<const bool*>(c.deviceBytes()), w.of[0], elemOf(o.dtype()), x.deviceBytes(), w.of[1],
        y.deviceBytes(), w.of[2], o.deviceBytes(), w.at, o.numel(), CudaDevice::of(o).stream());
}

// Every copy of tensor data on the device: any dtype and strides into any
// (dst's strides are the walk's own).
void convertKernel(const Tensor& src, const Tensor& dst) {
  Walk<1> w(dst, {&src});
  convert(elemOf(src.dtype()), src.deviceBytes(), w.of[0], elemOf(dst.dtype()),
          const_cast<Tensor&>(dst).deviceBytes(), w.at, dst.numel(), CudaDevice::of(dst).stream());
}

// The storage start of t on its device: indexing offsets count from it.
char* storageStart(const Tensor& t) { return t.deviceBytes() - t.offset() * static_cast<int64_t>(dtypeSize(t.dtype())); }

void takeKernel(const Tensor& t, const int64_t* offsets, int64_t n, int64_t run, Tensor& o) {
  take(elemOf(t.dtype()), storageStart(t), offsets, n, run, o.deviceBytes(), CudaDevice::of(o).stream());
}

void putKernel(const Tensor& values, const int64_t* offsets, int64_t n, Tensor& dst) {
  size_t rank = values.shape().size();
  put(elemOf(dst.dtype()), values.deviceBytes(), stridedOf(values, rank), stridedOf(values, rank), offsets, n,
      storageStart(dst), CudaDevice::of(dst).stream());
}

void gatherKernel(const Tensor& x, int axis, const Tensor& index, Tensor& o) {
  size_t rank = index.shape().size();
  gather(elemOf(x.dtype()), x.deviceBytes(), stridedOf(x, rank), axis,
         reinterpret_cast<const int64_t*>(index.deviceBytes()), stridedOf(index, rank), o.deviceBytes(), o.numel(),
         CudaDevice::of(o).stream());
}

void scatterAddKernel(int axis, const Tensor& index, const Tensor& src, Tensor& o) {
  size_t rank = index.shape().size();
  scatterAdd(elemOf(o.dtype()), axis, reinterpret_cast<const int64_t*>(index.deviceBytes()), stridedOf(index, rank),
             elemOf(src.dtype()), src.deviceBytes(), stridedOf(src, rank), o.deviceBytes(), stridedOf(o, rank),
             index.numel(), CudaDevice::of(o).stream());
}

void scatterKernel(int axis, const Tensor& index, const Tensor& src, Tensor& o) {
  size_t rank = index.shape().size();
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < rank; ++d) inner *= index.dim(static_cast<int>(d));
  scatter(elemOf(o.dtype()), axis, reinterpret_cast<const int64_t*>(index.deviceBytes()), stridedOf(index, rank),
          src.deviceBytes(), stridedOf(src, rank), o.deviceBytes(), stridedOf(o, rank), index.dim(axis), inner,
          index.numel(), CudaDevice::of(o).stream());
}

void scatterReduceKernel(int axis, const Tensor& index, const Tensor& src, ScatterReduction r, Tensor& o) {
  size_t rank = index.shape().size();
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < rank; ++d) inner *= index.dim(static_cast<int>(d));
  scatterReduce(elemOf(o.dtype()), axis, reinterpret_cast<const int64_t*>(index.deviceBytes()), stridedOf(index, rank),
                src.deviceBytes(), stridedOf(src, rank), o.deviceBytes(), stridedOf(o, rank), index.dim(axis), inner,
                index.numel(), r, CudaDevice::of(o).stream());
}

template <ScanKind K>
void scanKernel(const Tensor& x, int axis, bool reverse, Tensor& o) {
  AxisLines l(x, axis);
  scan(elemOf(x.dtype()), x.deviceBytes(), l.count(), l.len, l.inner, reverse, K, o.deviceBytes(),
       CudaDevice::of(o).stream());
}

void sortKernel(const Tensor& x, int axis, bool descending, Tensor& values, Tensor& indices) {
  AxisLines l(x, axis);
  sort(elemOf(x.dtype()), x.deviceBytes(), l.count(), l.len, l.inner, descending, values.deviceBytes(),
       reinterpret_cast<int64_t*>(indices.deviceBytes()), CudaDevice::of(values).stream());
}

// Whole lines sorted into temporaries on the device, then the first k of
// each (values' and indices' length along the axis) copied out.
void topkKernel(const Tensor& x, int axis, bool largest, Tensor& values, Tensor& indices) {
  Tensor sorted = Tensor::empty(x.dtype(), x.shape(), x.device());
  Tensor order = Tensor::empty(DType::I64, x.shape(), x.device());
  sortKernel(x, axis, largest, sorted, order);
  convertKernel(sorted.view(values.shape(), sorted.strides(), sorted.offset()), values);
  convertKernel(order.view(indices.shape(), order.strides(), order.offset()), indices);
}

void triangleKernel(const Tensor& x, int64_t diagonal, bool upper, Tensor& o) {
  triangle(elemOf(x.dtype()), x.deviceBytes(), x.dim(x.ndim() - 2), x.dim(x.ndim() - 1), diagonal, upper,
           o.deviceBytes(), o.numel(), CudaDevice::of(o).stream());
}

void layerNormKernel(const Tensor& x, const Tensor* gamma, const Tensor* beta, double eps, Tensor& o) {
  int64_t D = x.shape().back();
  layerNorm(elemOf(x.dtype()), x.deviceBytes(), D ? x.numel() / D : 0, D, gamma ? gamma->deviceBytes() : nullptr,
            beta ? beta->deviceBytes() : nullptr, eps, o.deviceBytes(), CudaDevice::of(o).stream());
}

void layerNormGradKernel(const Tensor& g, const Tensor& x, const Tensor* gamma, double eps, Tensor& o) {
  int64_t D = x.shape().back();
  layerNormGrad(elemOf(x.dtype()), g.deviceBytes(), x.deviceBytes(), D ? x.numel() / D : 0, D,
                gamma ? gamma->deviceBytes() : nullptr, eps, o.deviceBytes(), CudaDevice::of(o).stream());
}

void interpolateKernel(const Tensor& x, const Resample& rows, const Resample& cols, Tensor& o) {
  interpolate(elemOf(x.dtype()), x.deviceBytes(), rows, cols, o.deviceBytes(), o.numel(), CudaDevice::of(o).stream());
}

void interpolateGradKernel(const Tensor& g, const Resample& rows, const Resample& cols, Tensor& dx) {
  interpolateGrad(elemOf(g.dtype()), g.deviceBytes(), rows, cols, reinterpret_cast<double*>(dx.deviceBytes()),
                  g.numel(), CudaDevice::of(dx).stream());
}

void maxPoolIndicesKernel(const Tensor& x, const PoolParams& p, Tensor& o) {
  PoolWindows w{x.dim(2), x.dim(3), o.dim(2), o.dim(3), p.kH,   p.kW,
                p.strideH, p.strideW, p.padH,  p.padW,  p.dilH, p.dilW};
  maxPoolIndices(elemOf(x.dtype()), x.deviceBytes(), w, reinterpret_cast<int64_t*>(o.deviceBytes()), o.numel(),
                 CudaDevice::of(o).stream());
}

void gridSampleKernel(const Tensor& x, const Tensor& grid, const GridSampling& s, Tensor& o) {
  gridSample(elemOf(x.dtype()), x.deviceBytes(), grid.deviceBytes(), s, x.dim(1), grid.dim(1) * grid.dim(2),
             o.deviceBytes(), o.numel(), CudaDevice::of(o).stream());
}

void gridSampleGradKernel(const Tensor& g, const Tensor& x, const Tensor& grid, const GridSampling& s, Tensor* dx,
                          Tensor* dgrid) {
  gridSampleGrad(elemOf(x.dtype()), g.deviceBytes(), x.deviceBytes(), grid.deviceBytes(), s, x.dim(0), x.dim(1),
                 grid.dim(1) * grid.dim(2), dx ? reinterpret_cast<double*>(dx->deviceBytes()) : nullptr,
                 dgrid ? dgrid->deviceBytes() : nullptr, CudaDevice::of(g).stream());
}

bool bceKernel(const Tensor& p, const Tensor& y, Tensor& o) {
  return binaryCrossEntropy(elemOf(p.dtype()), p.deviceBytes(), y.deviceBytes(), p.numel(), o.deviceBytes(),
                            CudaDevice::of(o).stream());
}

template <Reduce Op>
void reduceKernel(const Tensor& x, int64_t run, Tensor& o) {
  reduce(Op, elemOf(x.dtype()), x.deviceBytes(), o.numel(), run, elemOf(o.dtype()), o.deviceBytes(),
         CudaDevice::of(o).stream());
}

template <bool Log>
void softmaxKernel(const Tensor& x, int axis, Tensor& o) {
  int64_t n = x.dim(axis), inner = 1;
  for (int d = axis + 1; d < x.ndim(); ++d) inner *= x.dim(d);
  int64_t outer = n * inner != 0 ? x.numel() / (n * inner) : 0;
  softmax(elemOf(x.dtype()), x.deviceBytes(), outer, n, inner, o.deviceBytes(), Log, CudaDevice::of(o).stream());
}

bool crossEntropyKernel(const Tensor& logProbs, const Tensor& labels, int64_t ignore, Tensor& o, int64_t& bad) {
  return crossEntropy(elemOf(logProbs.dtype()), logProbs.deviceBytes(),
                      reinterpret_cast<const int64_t*>(labels.deviceBytes()), logProbs.dim(0), logProbs.dim(1), ignore,
                      o.deviceBytes(), bad, CudaDevice::of(o).stream());
}

void crossEntropyGradKernel(const Tensor& g, const Tensor& labels, int64_t ignore, Tensor& p) {
  crossEntropyGrad(elemOf(p.dtype()), g.deviceBytes(), reinterpret_cast<const int64_t*>(labels.deviceBytes()),
                   p.dim(0), p.dim(1), ignore, p.deviceBytes(), CudaDevice::of(p).stream());
}

bool oneHotKernel(const Tensor& labels, Tensor& o, int64_t& bad) {
  int64_t classes = o.ndim() ? o.dim(o.ndim() - 1) : 0;
  return oneHot(labels.deviceBytes(), labels.dtype() == DType::I64, labels.numel(), classes,
                reinterpret_cast<int64_t*>(o.deviceBytes()), bad, CudaDevice::of(o).stream());
}

template <bool Mean>
void sumKernel(const Tensor& x, int64_t outer, int64_t run, Tensor& o) {
  sum(elemOf(x.dtype()), x.deviceBytes(), outer, o.numel(), run, elemOf(o.dtype()), o.deviceBytes(), Mean,
      CudaDevice::of(o).stream());
}

// How cuBLAS reads a 2-D operand: a row-major matrix as its transpose's
// column-major form (no op), a transposed view (strides 1, rows) as the
// plain matrix (op T); false for any other strides.
bool blasLayout(const Tensor& t, cublasOperation_t& op, int& ld) {
  if (t.strides()[1] == 1 && t.strides()[0] >= t.dim(1)) {
    op = CUBLAS_OP_N, ld = static_cast<int>(std::max<int64_t>(t.strides()[0], 1));
  } else if (t.strides()[0] == 1 && t.strides()[1] >= t.dim(0)) {
    op = CUBLAS_OP_T, ld = static_cast<int>(std::max<int64_t>(t.strides()[1], 1));
  } else {
    return false;
  }
  return true;
}

// t itself when cuBLAS can read it, else a row-major copy on its device.
Tensor blasReadable(const Tensor& t, cublasOperation_t& op, int& ld) {
  if (blasLayout(t, op, ld)) return t;
  Tensor copy = Tensor::empty(t.dtype(), t.shape(), t.device());
  convertKernel(t, copy);
  blasLayout(copy, op, ld);
  return copy;
}

// Row-major C [m, n] = A [m, k] B [k, n] is column-major C^T = B^T A^T;
// f32 or f64 (the dtype of c).
void gemm(const Tensor& a0, const Tensor& b0, int m, int k, int n, Tensor& c) {
  cublasOperation_t opA, opB;
  int lda, ldb;
  Tensor a = blasReadable(a0, opA, lda), b = blasReadable(b0, opB, ldb);
  cublasHandle_t h = CudaDevice::of(c).blasHandle();
  if (c.dtype() == DType::F64) {
    const double one = 1.0, zero = 0.0;
    check(Blas::get().dgemm(h, opB, opA, n, m, k, &one, reinterpret_cast<const double*>(b.deviceBytes()), ldb,
                            reinterpret_cast<const double*>(a.deviceBytes()), lda, &zero,
                            reinterpret_cast<double*>(c.deviceBytes()), n),
          "cublasDgemm");
    return;
  }
  const float one = 1.0f, zero = 0.0f;
  check(Blas::get().sgemm(h, opB, opA, n, m, k, &one, floatsIn(b), ldb, floatsIn(a), lda, &zero, floatsOut(c), n),
        "cublasSgemm");
}

// The matrix of batch `i` (row-major over out's batch dimensions `batch`)
// of t, whose batch dimensions of size 1 broadcast.
Tensor matrixOf(const Tensor& t, const Shape& batch, int64_t i) {
  int r = t.ndim();
  int64_t offset = t.offset();
  for (int d = static_cast<int>(batch.size()) - 1; d >= 0; --d) {
    int64_t k = i % batch[d];
    i /= batch[d];
    if (t.dim(d) != 1) offset += k * t.strides()[d];
  }
  return t.view({t.dim(r - 2), t.dim(r - 1)}, {t.strides()[r - 2], t.strides()[r - 1]}, offset);
}

// a [..., M, K] @ b [..., K, N] (lifted to out's rank): one GEMM per
// matrix of out (cuBLAS for floats, the plugin's kernel for integers),
// queued in order on the device's stream.
void matmulKernel(const Tensor& a, const Tensor& b, Tensor& c) {
  int r = c.ndim();
  if (r < 2) throw std::runtime_error("matmul on cuda takes operands of rank 2 or more");
  Shape batch(c.shape().begin(), c.shape().end() - 2);
  int64_t count = 1;
  for (int64_t d : batch) count *= d;
  int m = static_cast<int>(c.dim(r - 2)), n = static_cast<int>(c.dim(r - 1)), k = static_cast<int>(a.dim(r - 1));
  bool floats = c.dtype() == DType::F32 || c.dtype() == DType::F64;
  for (int64_t i = 0; i < count; ++i) {
    Tensor ai = matrixOf(a, batch, i), bi = matrixOf(b, batch, i), ci = matrixOf(c, batch, i);
    if (floats) {
      gemm(ai, bi, m, k, n, ci);
      continue;
    }
    integerMatmul(elemOf(c.dtype()), ai.deviceBytes(), ai.strides()[0], ai.strides()[1], bi.deviceBytes(),
                  bi.strides()[0], bi.strides()[1], ci.deviceBytes(), m, k, n, CudaDevice::of(c).stream());
  }
}

// out [M, N] = x [M, K] @ w [N, K].T, then + bias [N] broadcast over rows.
void linearKernel(const Tensor& x, const Tensor& w, const Tensor* bias, Tensor& o) {
  Tensor wt = w.view({w.dim(1), w.dim(0)}, {w.strides()[1], w.strides()[0]}, w.offset());
  gemm(x, wt, static_cast<int>(x.dim(0)), static_cast<int>(x.dim(1)), static_cast<int>(w.dim(0)), o);
  if (!bias) return;
  Strided rows = stridedOf(o, 2), b = stridedOf(*bias, 2);  // bias: stride 0 down the rows
  binary(Binary::Add, Elem::F32, floatsOut(o), rows, floatsIn(*bias), b, floatsOut(o), rows, o.numel(),
         CudaDevice::of(o).stream());
}

const KernelTable& cudaKernels() {
  static const KernelTable table = [] {
    using ir::Op;
    KernelTable t;
    for (DType d : {DType::I32, DType::I64, DType::F32, DType::F64}) {
      t.addBinary(Op::Add, d, binaryKernel<Binary::Add>);
      t.addBinary(Op::Sub, d, binaryKernel<Binary::Sub>);
      t.addBinary(Op::Mul, d, binaryKernel<Binary::Mul>);
      t.addBinary(Op::FloorDiv, d, binaryKernel<Binary::FloorDiv>);
      t.addBinary(Op::Mod, d, binaryKernel<Binary::Mod>);
      t.addBinary(Op::Fmod, d, binaryKernel<Binary::Fmod>);
      t.addBinary(Op::Maximum, d, binaryKernel<Binary::Maximum>);
      t.addBinary(Op::Minimum, d, binaryKernel<Binary::Minimum>);
      t.addUnary(Op::Neg, d, unaryKernel<Unary::Neg>);
      t.addUnary(Op::Pos, d, unaryKernel<Unary::Pos>);
      t.addUnary(Op::Abs, d, unaryKernel<Unary::Abs>);
      t.addUnary(Op::Square, d, unaryKernel<Unary::Square>);
      t.addUnary(Op::Sign, d, unaryKernel<Unary::Sign>);
      t.addBinary(Op::Pow, d, binaryKernel<Binary::Pow>);
      t.addUnary(Op::Relu, d, unaryKernel<Unary::Relu>);
      t.addUnary(Op::Floor, d, unaryKernel<Unary::Floor>);
      t.addUnary(Op::Ceil, d, unaryKernel<Unary::Ceil>);
      t.addUnary(Op::Round, d, unaryKernel<Unary::Round>);
      t.add<Op::MatMul>(d, matmulKernel);
    }
    for (DType d : {DType::Bool, DType::I32, DType::I64, DType::F32, DType::F64}) {
      t.addBinary(Op::Lt, d, compareKernel<Compare::Lt>);
      t.addBinary(Op::Le, d, compareKernel<Compare::Le>);
      t.addBinary(Op::Gt, d, compareKernel<Compare::Gt>);
      t.addBinary(Op::Ge, d, compareKernel<Compare::Ge>);
      t.addBinary(Op::Eq, d, compareKernel<Compare::Eq>);
      t.addBinary(Op::Ne, d, compareKernel<Compare::Ne>);
      t.add<Op::Where>(d, whereKernel);
      t.addUnary(Op::IsNan, d, predicateKernel<Predicate::IsNan>);
      t.addUnary(Op::IsInf, d, predicateKernel<Predicate::IsInf>);
      t.addUnary(Op::IsFinite, d, predicateKernel<Predicate::IsFinite>);
      t.add<Op::Sum>(d, sumKernel<false>);
      t.add<Op::Mean>(d, sumKernel<true>);
      t.add<Op::Full>(d, fillKernel);
      t.add<Op::AsType>(d, convertKernel);
      t.add<Op::GetItem>(d, takeKernel);
      t.add<Op::SetItem>(d, putKernel);
      t.add<Op::Gather>(d, gatherKernel);
      t.add<Op::Scatter>(d, scatterKernel);
    }
    t.add<Op::ScatterAdd>(DType::F64, scatterAddKernel);
    t.add<Op::ScatterAdd>(DType::I64, scatterAddKernel);
    t.add<Op::ScatterReduce>(DType::F64, scatterReduceKernel);
    t.add<Op::ScatterReduce>(DType::I64, scatterReduceKernel);
    for (DType d : {DType::Bool, DType::I32, DType::I64, DType::F32, DType::F64}) {
      t.add<Op::Tril>(d, triangleKernel);
      t.add<Op::Sort>(d, sortKernel);
      t.add<Op::TopK>(d, topkKernel);
      t.add<Op::Interpolate>(d, interpolateKernel);
    }
    for (DType d : {DType::I32, DType::I64, DType::F32, DType::F64}) {
      t.add<Op::CumSum>(d, scanKernel<ScanKind::Sum>);
      t.add<Op::CumProd>(d, scanKernel<ScanKind::Product>);
    }
    for (DType d : {DType::F32, DType::F64}) {
      t.add<Op::LayerNorm>(d, layerNormKernel);
      t.add<Op::LayerNormGrad>(d, layerNormGradKernel);
      t.add<Op::BinaryCrossEntropy>(d, bceKernel);
      t.add<Op::InterpolateGrad>(d, interpolateGradKernel);
      t.add<Op::LogCumSumExp>(d, scanKernel<ScanKind::LogSumExp>);
      t.add<Op::GridSample>(d, gridSampleKernel);
      t.add<Op::MaxPool2dIndices>(d, maxPoolIndicesKernel);
      t.add<Op::GridSampleGradInput>(d, gridSampleGradKernel);
    }
    for (DType d : {DType::F32, DType::F64}) {
      t.addBinary(Op::Div, d, binaryKernel<Binary::Div>);
      t.addBinary(Op::Atan2, d, binaryKernel<Binary::Atan2>);
      t.addBinary(Op::Hypot, d, binaryKernel<Binary::Hypot>);
      t.addBinary(Op::Copysign, d, binaryKernel<Binary::Copysign>);
      t.addBinary(Op::Polygamma, d, binaryKernel<Binary::Polygamma>);
      t.addBinary(Op::Zeta, d, binaryKernel<Binary::Zeta>);
      t.addBinary(Op::Gammainc, d, binaryKernel<Binary::Gammainc>);
      t.addBinary(Op::Gammaincc, d, binaryKernel<Binary::Gammaincc>);
      t.addBinary(Op::Nextafter, d, binaryKernel<Binary::Nextafter>);
      t.addUnary(Op::Exp, d, unaryKernel<Unary::Exp>);
      t.addUnary(Op::Log, d, unaryKernel<Unary::Log>);
      t.addUnary(Op::Sqrt, d, unaryKernel<Unary::Sqrt>);
      t.addUnary(Op::Rsqrt, d, unaryKernel<Unary::Rsqrt>);
      t.addUnary(Op::Sin, d, unaryKernel<Unary::Sin>);
      t.addUnary(Op::Cos, d, unaryKernel<Unary::Cos>);
      t.addUnary(Op::Tanh, d, unaryKernel<Unary::Tanh>);
      t.addUnary(Op::Sigmoid, d, unaryKernel<Unary::Sigmoid>);
      t.addUnary(Op::Gelu, d, unaryKernel<Unary::Gelu>);
      t.addUnary(Op::GeluGrad, d, unaryKernel<Unary::GeluGrad>);
      t.addUnary(Op::Erf, d, unaryKernel<Unary::Erf>);
      t.addUnary(Op::Silu, d, unaryKernel<Unary::Silu>);
      t.addUnary(Op::SiluGrad, d, unaryKernel<Unary::SiluGrad>);
      t.addUnary(Op::Softplus, d, unaryKernel<Unary::Softplus>);
      t.addUnary(Op::Log1p, d, unaryKernel<Unary::Log1p>);
      t.addUnary(Op::Expm1, d, unaryKernel<Unary::Expm1>);
      t.addUnary(Op::Tan, d, unaryKernel<Unary::Tan>);
      t.addUnary(Op::Atan, d, unaryKernel<Unary::Atan>);
      t.addUnary(Op::Reciprocal, d, unaryKernel<Unary::Reciprocal>);
      t.addUnary(Op::Log2, d, unaryKernel<Unary::Log2>);
      t.addUnary(Op::Log10, d, unaryKernel<Unary::Log10>);
      t.addUnary(Op::Sinh, d, unaryKernel<Unary::Sinh>);
      t.addUnary(Op::Cosh, d, unaryKernel<Unary::Cosh>);
      t.addUnary(Op::Asin, d, unaryKernel<Unary::Asin>);
      t.addUnary(Op::Acos, d, unaryKernel<Unary::Acos>);
      t.addUnary(Op::Acosh, d, unaryKernel<Unary::Acosh>);
      t.addUnary(Op::Asinh, d, unaryKernel<Unary::Asinh>);
      t.addUnary(Op::Atanh, d, unaryKernel<Unary::Atanh>);
      t.addUnary(Op::Exp2, d, unaryKernel<Unary::Exp2>);
      t.addUnary(Op::Erfc, d, unaryKernel<Unary::Erfc>);
      t.addUnary(Op::Erfinv, d, unaryKernel<Unary::Erfinv>);
      t.addUnary(Op::Lgamma, d, unaryKernel<Unary::Lgamma>);
      t.addUnary(Op::Digamma, d, unaryKernel<Unary::Digamma>);
      t.addUnary(Op::I0, d, unaryKernel<Unary::I0>);
      t.addUnary(Op::I0e, d, unaryKernel<Unary::I0e>);
      t.addUnary(Op::I1, d, unaryKernel<Unary::I1>);
      t.addUnary(Op::I1e, d, unaryKernel<Unary::I1e>);
      t.addUnary(Op::K0, d, unaryKernel<Unary::K0>);
      t.addUnary(Op::K0e, d, unaryKernel<Unary::K0e>);
      t.addUnary(Op::K1, d, unaryKernel<Unary::K1>);
      t.addUnary(Op::K1e, d, unaryKernel<Unary::K1e>);
      t.addUnary(Op::Erfcx, d, unaryKernel<Unary::Erfcx>);
      t.addUnary(Op::Ndtri, d, unaryKernel<Unary::Ndtri>);
      t.addUnary(Op::LogNdtr, d, unaryKernel<Unary::LogNdtr>);
      t.addUnary(Op::BesselJ0, d, unaryKernel<Unary::BesselJ0>);
      t.addUnary(Op::BesselJ1, d, unaryKernel<Unary::BesselJ1>);
      t.addUnary(Op::BesselY0, d, unaryKernel<Unary::BesselY0>);
      t.addUnary(Op::BesselY1, d, unaryKernel<Unary::BesselY1>);
      t.addUnary(Op::AiryAi, d, unaryKernel<Unary::AiryAi>);
      t.addUnary(Op::FrexpMantissa, d, unaryKernel<Unary::FrexpMantissa>);
      t.addUnary(Op::FrexpExponent, d, unaryKernel<Unary::FrexpExponent>);
    }
    for (DType d : {DType::Bool, DType::I32, DType::I64, DType::F32, DType::F64}) {
      t.add<Op::Prod>(d, reduceKernel<Reduce::Prod>);
      t.add<Op::Max>(d, reduceKernel<Reduce::Max>);
      t.add<Op::Min>(d, reduceKernel<Reduce::Min>);
      t.add<Op::ArgMax>(d, reduceKernel<Reduce::ArgMax>);
      t.add<Op::ArgMin>(d, reduceKernel<Reduce::ArgMin>);
      t.add<Op::All>(d, reduceKernel<Reduce::All>);
      t.add<Op::Any>(d, reduceKernel<Reduce::Any>);
    }
    for (DType d : {DType::I32, DType::I64}) {
      t.addBinary(Op::BitAnd, d, binaryKernel<Binary::BitAnd>);
      t.addBinary(Op::BitOr, d, binaryKernel<Binary::BitOr>);
      t.addBinary(Op::BitXor, d, binaryKernel<Binary::BitXor>);
      t.addBinary(Op::LShift, d, binaryKernel<Binary::LShift>);
      t.addBinary(Op::RShift, d, binaryKernel<Binary::RShift>);
      t.addBinary(Op::Gcd, d, binaryKernel<Binary::Gcd>);
      t.addBinary(Op::Lcm, d, binaryKernel<Binary::Lcm>);
      t.addUnary(Op::Invert, d, unaryKernel<Unary::Invert>);
    }
    t.addBinary(Op::Maximum, DType::Bool, binaryKernel<Binary::Maximum>);
    t.addBinary(Op::Minimum, DType::Bool, binaryKernel<Binary::Minimum>);
    t.addBinary(Op::BitAnd, DType::Bool, binaryKernel<Binary::BitAnd>);
    t.addBinary(Op::BitOr, DType::Bool, binaryKernel<Binary::BitOr>);
    t.addBinary(Op::BitXor, DType::Bool, binaryKernel<Binary::BitXor>);
    t.addUnary(Op::Invert, DType::Bool, unaryKernel<Unary::Invert>);
    t.addUnary(Op::Not, DType::Bool, unaryKernel<Unary::Not>);
    t.addBinary(Op::LogicalAnd, DType::Bool, binaryKernel<Binary::And>);
    t.addBinary(Op::LogicalOr, DType::Bool, binaryKernel<Binary::Or>);
    t.addUnary(Op::LogicalNot, DType::Bool, unaryKernel<Unary::Not>);
    for (DType d : {DType::F32, DType::F64}) {
      t.add<Op::Softmax>(d, softmaxKernel<false>);
      t.add<Op::LogSoftmax>(d, softmaxKernel<true>);
      t.add<Op::CrossEntropy>(d, crossEntropyKernel);
      t.add<Op::CrossEntropyGrad>(d, crossEntropyGradKernel);
    }
    t.add<Op::OneHot>(DType::I32, oneHotKernel);
    t.add<Op::OneHot>(DType::I64, oneHotKernel);
    t.add<Op::Linear>(DType::F32, linearKernel);
    registerDnnKernels(t);
    return t;
  }();
  return table;
}

}  // namespace

cudaStream_t computeStream(const Tensor& t) {
  const CudaDevice& d = CudaDevice::of(t);
  cudaSetDevice(d.gpuIndex());
  return d.stream();
}

}  // namespace nn::rt::cuda

// The kernels every cuda device has, without a GPU: which ops and dtypes
// they cover is checked on machines without one
// (tests/unit/cuda_coverage_test.cpp, tests/unit/plugins/cuda_coverage_plugin.cpp).
extern "C" const nn::rt::KernelTable* nn_cuda_kernels() { return &nn::rt::cuda::cudaKernels(); }

// The plugin's entry (device_plugin.h): a device per GPU; none, with the
// reason, where the runtime finds no GPU or driver.
extern "C" bool nn_register_devices(nn::rt::Context& context, std::string& why) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    why = std::string("no CUDA device: ") + cudaGetErrorString(e);
    cudaGetLastError();
    return true;
  }
  if (count == 0) why = "no CUDA device";
  for (int i = 0; i < count; ++i) context.addDevice(std::make_unique<nn::rt::cuda::CudaDevice>(i));
  return true;
}
