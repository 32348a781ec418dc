// Tensor construction, views and element access.
#include "runtime/tensor.h"

#include <new>

#include "runtime/device.h"
#include "runtime/dispatch.h"
#include "support/diagnostics.h"

namespace nn::rt {

std::optional<int64_t> checkedNumel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return std::nullopt;
  return n;
}

// The bytes a contiguous tensor of `shape` takes; bad_alloc (a MemoryError
// to the user) when no memory could hold it.
static size_t byteCount(DType dtype, const Shape& shape) {
  std::optional<int64_t> n = checkedNumel(shape);
  size_t bytes = 0;
  if (!n || __builtin_mul_overflow(static_cast<size_t>(*n), dtypeSize(dtype), &bytes)) throw std::bad_alloc();
  return bytes;
}

Shape Tensor::contiguousStrides(const Shape& shape) {
  Shape strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    // Past int64, no tensor of this shape fits in memory.
    if (i > 0 && __builtin_mul_overflow(s, shape[i], &s)) throw std::bad_alloc();
  }
  return strides;
}

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

Storage::Storage(size_t bytes, Device& device)
    : bytes(bytes),
      device(&device),
      hostMemory(device.hostMemory()),
      data(bytes <= kInlineBytes && hostMemory ? inline_ : device.allocator().allocate(bytes)) {}

Storage::Storage(void* data, size_t bytes, Device& device, void (*release)(void*), void* releaseContext)
    : bytes(bytes),
      device(&device),
      hostMemory(device.hostMemory()),
      data(data),
      borrowed(true),
      release_(release),
      releaseContext_(releaseContext) {}

Storage::~Storage() {
  if (borrowed) {
    if (release_) release_(releaseContext_);
  } else if (data != inline_) {
    device->allocator().deallocate(data, bytes);
  }
}

char* Tensor::bytesOffHost() const {
  if (!device().kernelAddressesOnHost())
    fail({}, "a tensor on " + device().name() + " is not addressable from the host; copy it to cpu first");
  return deviceBytes();
}

Tensor Tensor::borrow(DType dtype, const Shape& shape, void* data, Device& device, void (*release)(void*),
                      void* releaseContext) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = shape;
  t.strides_ = contiguousStrides(shape);
  t.storage_ = std::make_shared<Storage>(data, byteCount(dtype, shape), device, release, releaseContext);
  return t;
}

Tensor Tensor::empty(DType dtype, const Shape& shape, Device& device) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = shape;
  t.strides_ = contiguousStrides(shape);
  t.storage_ = std::make_shared<Storage>(byteCount(dtype, shape), device);
  return t;
}

Tensor Tensor::zeros(DType dtype, const Shape& shape, Device& device) {
  Tensor t = empty(dtype, shape, device);
  if (t.numel() > 0) launch<ir::Op::Full>(device, dtype, SourceLoc{}, 0.0, t);
  return t;
}

bool Tensor::isContiguous() const {
  int64_t expected = 1;
  for (size_t i = shape_.size(); i-- > 0;) {
    if (shape_[i] != 1 && strides_[i] != expected) return false;
    expected *= shape_[i];
  }
  return true;
}

Tensor Tensor::view(Shape shape, Shape strides, int64_t offset) const {
  Tensor t = *this;
  t.shape_ = std::move(shape);
  t.strides_ = std::move(strides);
  t.offset_ = offset;
  return t;
}

int64_t Tensor::flatOffset(int64_t i) const {
  int64_t off = 0;
  for (size_t d = shape_.size(); d-- > 0;) {
    off += (i % shape_[d]) * strides_[d];
    i /= shape_[d];
  }
  return off;
}

Tensor Tensor::contiguous() const {
  if (isContiguous()) return *this;
  return clone();
}

Tensor Tensor::clone() const {
  Tensor out = empty(dtype_, shape_, device());
  out.copyFrom(*this);
  return out;
}

void Tensor::copyFrom(const Tensor& src) const {
  if (numel() == 0) return;
  launch<ir::Op::AsType>(device(), dtype_, SourceLoc{}, src, *this);
}

double Tensor::flatAsDouble(int64_t i) const {
  const char* p = bytes() + flatOffset(i) * static_cast<int64_t>(dtypeSize(dtype_));  // may be < 0
  switch (dtype_) {
    case DType::Bool: return *reinterpret_cast<const bool*>(p) ? 1.0 : 0.0;
    case DType::I32: return *reinterpret_cast<const int32_t*>(p);
    case DType::I64: return static_cast<double>(*reinterpret_cast<const int64_t*>(p));
    case DType::F32: return *reinterpret_cast<const float*>(p);
    case DType::F64: return *reinterpret_cast<const double*>(p);
  }
  return 0;
}

int64_t Tensor::flatAsInt(int64_t i) const {
  const char* p = bytes() + flatOffset(i) * static_cast<int64_t>(dtypeSize(dtype_));  // may be < 0
  switch (dtype_) {
    case DType::Bool: return *reinterpret_cast<const bool*>(p) ? 1 : 0;
    case DType::I32: return *reinterpret_cast<const int32_t*>(p);
    case DType::I64: return *reinterpret_cast<const int64_t*>(p);
    case DType::F32: return static_cast<int64_t>(*reinterpret_cast<const float*>(p));
    case DType::F64: return static_cast<int64_t>(*reinterpret_cast<const double*>(p));
  }
  return 0;
}

Value makeTensorValue(Tensor t) { return Value::object(Kind::Tensor, std::make_shared<TensorObj>(std::move(t))); }

std::string shapeString(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

}  // namespace nn::rt
