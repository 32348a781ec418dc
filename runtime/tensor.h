// The Tensor: an element type, a shape, strides and an offset into
// reference-counted storage on a Device (device.h), from that device's
// allocator. Views (reshape of
// contiguous data, transpose, slicing, broadcasting) share storage; tensors
// have value semantics at the language level because every op that "writes"
// produces a new tensor (language.md §2).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/allocator.h"
#include "runtime/dims.h"
#include "runtime/dtype.h"
#include "runtime/value.h"

namespace nn::rt {

using Shape = Dims;
class Device;

// The number of elements of `shape`; nullopt when a dim is negative or the
// count passes int64: no tensor, and no view, has such a shape. The one
// check behind every "too many elements" error of the runtime.
std::optional<int64_t> checkedNumel(const Shape& shape);

// Tiny tensors (scalars, small vectors) keep their elements inside the
// storage object: one allocation instead of two on the per-op fast path.
struct Storage {
  static constexpr size_t kInlineBytes = 64;
  // `bytes` of `device`'s memory, from its allocator (tensor.cpp).
  Storage(size_t bytes, Device& device);
  // `bytes` at `data` that a host application owns (the embedding API's
  // nn_tensor_wrap): used in place, never reused for a result, and handed
  // back by `release(releaseContext)` when the last tensor on it goes.
  Storage(void* data, size_t bytes, Device& device, void (*release)(void*), void* releaseContext);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  size_t bytes;
  Device* device;
  // The device's Device::hostMemory(), kept here for Tensor::bytes()'s
  // inline check (tiny tensors' inline elements exist only on such devices).
  bool hostMemory;
  void* data;
  // The host application's memory (the second constructor).
  bool borrowed = false;

 private:
  void (*release_)(void*) = nullptr;
  void* releaseContext_ = nullptr;
  // 16-byte alignment (malloc's own) keeps make_shared on the fast path;
  // a 64-byte alignment would go through memalign.
  alignas(16) char inline_[kInlineBytes];
};

class Tensor {
 public:
  Tensor() = default;
  // A new contiguous tensor with uninitialised (for zeros: zeroed) memory
  // on `device`. Every allocation names its device: a kernel's result goes
  // where its inputs are, a creation builtin's to its state's default device.
  static Tensor empty(DType dtype, const Shape& shape, Device& device);
  static Tensor zeros(DType dtype, const Shape& shape, Device& device);
  // A contiguous tensor over memory a host application owns (Storage's
  // borrowing constructor); `data` is aligned to the dtype's size.
  static Tensor borrow(DType dtype, const Shape& shape, void* data, Device& device, void (*release)(void*),
                       void* releaseContext);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  const Shape& strides() const { return strides_; }
  int64_t offset() const { return offset_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  int64_t numel() const;
  int64_t dim(int i) const { return shape_[i]; }
  bool isContiguous() const;
  // Whether every element is the same one (a single value broadcast:
  // stride 0 wherever a dimension has more than one element).
  bool isSingleValue() const {
    for (size_t i = 0; i < shape_.size(); ++i)
      if (strides_[i] != 0 && shape_[i] != 1) return false;
    return true;
  }
  const std::shared_ptr<Storage>& storage() const { return storage_; }
  // Whether a result may be written over this tensor's elements once its
  // holder gives it up: no other tensor shares them and the runtime owns
  // them (not a host application's borrowed memory).
  bool ownsBufferAlone() const { return storage_.use_count() == 1 && !storage_->borrowed; }
  // The device holding the elements.
  Device& device() const { return *storage_->device; }

  // The one raw access to the elements: the address of the first one. It
  // fails (an NnError) for a tensor whose memory the host cannot address;
  // host code copies such a tensor to the CPU first.
  char* bytes() const {
    if (!storage_->hostMemory) [[unlikely]]
      return bytesOffHost();
    return static_cast<char*>(storage_->data) + offset_ * dtypeSize(dtype_);
  }
  template <class T>
  T* data() const { return reinterpret_cast<T*>(bytes()); }
  // The address of the first element in the device's own address space,
  // for that device's kernels and transfers only (a GPU pointer on a GPU).
  char* deviceBytes() const { return static_cast<char*>(storage_->data) + offset_ * dtypeSize(dtype_); }

  // The same elements with new shape/strides/offset (a view).
  Tensor view(Shape shape, Shape strides, int64_t offset) const;
  // A contiguous tensor with the same values (this one if already contiguous).
  Tensor contiguous() const;
  // A contiguous copy with storage of its own.
  Tensor clone() const;

  // Element i in row-major order as double / int64 (for printing, item, tests).
  double flatAsDouble(int64_t i) const;
  int64_t flatAsInt(int64_t i) const;
  // Byte offset (in elements from bytes()) of row-major element i.
  int64_t flatOffset(int64_t i) const;

  static Shape contiguousStrides(const Shape& shape);

  // Copies the elements of `src` (same shape and dtype, any strides) into
  // the elements this view addresses, row by row: the innermost dimension is
  // one memcpy when both sides are unit-stride there.
  void copyFrom(const Tensor& src) const;

 private:
  // bytes() of a device whose memory the host cannot address: an error,
  // unless the device lets its own kernels address it on the host
  // (Device::kernelAddressesOnHost, the tests' stand-in GPU).
  [[gnu::noinline]] char* bytesOffHost() const;

  DType dtype_ = DType::F32;
  Shape shape_, strides_;
  int64_t offset_ = 0;
  std::shared_ptr<Storage> storage_;
};

// The handle counts itself against the memory limit (host_memory.h), its
// elements being the allocator's to count: a script that splits a tensor
// into a million row views holds that many handles.
struct TensorObj : Object {
  explicit TensorObj(Tensor t) : tensor(std::move(t)) { charge.set(sizeof(TensorObj) + kSharedBlockBytes); }
  Tensor tensor;
  HostCharge charge;
};

Value makeTensorValue(Tensor t);
inline const Tensor& tensorOf(const Value& v) { return v.as<TensorObj>().tensor; }

std::string shapeString(const Shape& s);  // "[2, 3]"

}  // namespace nn::rt
