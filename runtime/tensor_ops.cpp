// Tensor operations: conversion, broadcasting, elementwise dispatch, views,
// basic indexing and reductions (see tensor_ops.h).
#include "runtime/tensor_ops.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>

#include "runtime/device.h"
#include "runtime/dispatch.h"
#include "runtime/kernels.h"
#include "runtime/scalar_ops.h"

namespace nn::rt {

using ir::Op;

std::string typeString(const Tensor& t) { return std::string(dtypeName(t.dtype())) + shapeString(t.shape()); }

Tensor astype(const Tensor& t, DType dtype) {
  if (t.dtype() == dtype) return t;
  Tensor out = Tensor::empty(dtype, t.shape(), t.device());
  launch<Op::AsType>(t.device(), dtype, SourceLoc{}, t, out);
  return out;
}

std::optional<Shape> tryBroadcastShapes(const Shape& a, const Shape& b) {
  if (a == b) return a;
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[i] = x == 1 ? y : x;
  }
  return out;
}

Shape broadcastShapes(const Shape& a, const Shape& b, SourceLoc loc, const std::string& what) {
  std::optional<Shape> s = tryBroadcastShapes(a, b);
  if (!s) fail(loc, what);
  return *s;
}

Device& commonDevice(const Tensor& a, const Tensor& b, const char* op, SourceLoc loc) {
  if (&a.device() != &b.device())
    fail(loc, std::string("operands of ") + op + " are on different devices: " + a.device().name() + " and " +
                  b.device().name());
  return a.device();
}

Tensor broadcastTo(const Tensor& t, const Shape& shape, SourceLoc loc) {
  if (t.shape() == shape) return t;
  if (shape.size() < t.shape().size())
    fail(loc, "cannot broadcast " + typeString(t) + " to shape " + shapeString(shape));
  // A view's element count must fit numel()'s int64, as a tensor's does.
  if (!checkedNumel(shape)) {
    bool negative = std::any_of(shape.begin(), shape.end(), [](int64_t d) { return d < 0; });
    fail(loc, "cannot broadcast " + typeString(t) + " to shape " + shapeString(shape) +
                  (negative ? ": negative dimension" : ": more elements than an int64 counts"));
  }
  Shape strides(shape.size(), 0);
  size_t lead = shape.size() - t.shape().size();
  for (size_t i = 0; i < t.shape().size(); ++i) {
    int64_t d = t.shape()[i];
    if (d == shape[lead + i]) strides[lead + i] = t.strides()[i];
    else if (d != 1) fail(loc, "cannot broadcast " + typeString(t) + " to shape " + shapeString(shape));
  }
  return t.view(shape, strides, t.offset());
}


static std::string describe(const Value& v) {
  if (v.is(Kind::Tensor)) return typeString(tensorOf(v));
  return typeName(v);
}

// Whether the Full kernel (which converts a double as astype does) makes
// from `value` exactly the element of `dtype` that Python number v is.
static bool fillable(const Value& v, DType dtype, double& value) {
  switch (dtype) {
    case DType::Bool: value = v.asFloat() != 0.0 ? 1.0 : 0.0; return true;
    case DType::F32: case DType::F64: value = v.asFloat(); return true;
    case DType::I32: case DType::I64: {
      if (!v.isIntLike()) return false;
      int64_t i = v.asInt();
      value = static_cast<double>(i);
      return dtype == DType::I32 ? i >= INT32_MIN && i <= INT32_MAX : i >= -(int64_t{1} << 53) && i <= (int64_t{1} << 53);
    }
  }
  return false;
}

// A 0-d tensor on `device` holding a Python number: written in place on a
// host-memory device; on a device the host cannot address, filled by its
// Full kernel on its own queue, since a transfer in would wait for the
// work queued before it (a GPU's does), once per operation with a number
// (or, for the rare value Full cannot make exactly, copied in).
static Tensor scalarTensor(const Value& v, DType dtype, Device& device) {
  double value;
  if (!device.hostMemory() && fillable(v, dtype, value)) return fullLike(dtype, {}, value, device);
  Tensor t = Tensor::empty(dtype, {}, device);
  alignas(8) char host[8];
  switch (dtype) {
    case DType::Bool: *reinterpret_cast<bool*>(host) = v.asFloat() != 0.0; break;
    case DType::I32: *reinterpret_cast<int32_t*>(host) = static_cast<int32_t>(v.asInt()); break;
    case DType::I64:
      *reinterpret_cast<int64_t*>(host) = v.isIntLike() ? v.asInt() : static_cast<int64_t>(v.asFloat());
      break;
    case DType::F32: *reinterpret_cast<float*>(host) = static_cast<float>(v.asFloat()); break;
    case DType::F64: *reinterpret_cast<double*>(host) = v.asFloat(); break;
  }
  if (device.hostMemory()) std::memcpy(t.bytes(), host, dtypeSize(dtype));
  else device.copyFromHost(t.deviceBytes(), host, dtypeSize(dtype));
  return t;
}

Tensor contiguousOnItsDevice(const Tensor& t, SourceLoc loc) {
  if (t.isContiguous()) return t;
  Tensor out = Tensor::empty(t.dtype(), t.shape(), t.device());
  launch<ir::Op::AsType>(t.device(), t.dtype(), loc, t, out);
  return out;
}

Tensor readableOnHost(const Tensor& t, SourceLoc loc) {
  Device& from = t.device();
  if (from.hostMemory()) return t;
  Tensor src = contiguousOnItsDevice(t, loc);
  if (!from.host()) fail(loc, "device '" + from.name() + "' has no host to read tensors on");
  Tensor out = Tensor::empty(t.dtype(), t.shape(), *from.host());
  if (out.numel() > 0) from.copyToHost(out.bytes(), src.deviceBytes(), static_cast<size_t>(out.numel()) * dtypeSize(t.dtype()));
  return out;
}

Device& hostSideOf(Device& device) { return device.hostMemory() || !device.host() ? device : *device.host(); }

// x's elements in new memory of `to` (x itself when it is there). Between
// host-memory devices, a strided copy; to or from a device the host cannot
// address, that device's transfers (Device::copyFromHost / copyToHost) of
// a contiguous tensor, through the host between two such devices.
Tensor copyTo(const Tensor& x, Device& to, SourceLoc loc) {
  if (&x.device() == &to) return x;
  Tensor out = Tensor::empty(x.dtype(), x.shape(), to);
  Device& from = x.device();
  if (from.hostMemory() && to.hostMemory()) {
    out.copyFrom(x);
    return out;
  }
  size_t bytes = static_cast<size_t>(x.numel()) * dtypeSize(x.dtype());
  if (from.hostMemory()) {
    Tensor src = x.contiguous();
    to.copyFromHost(out.deviceBytes(), src.bytes(), bytes);
    return out;
  }
  Tensor src = contiguousOnItsDevice(x, loc);
  if (to.hostMemory()) {
    from.copyToHost(out.bytes(), src.deviceBytes(), bytes);
    return out;
  }
  std::vector<char> staging(bytes);
  from.copyToHost(staging.data(), src.deviceBytes(), bytes);
  to.copyFromHost(out.deviceBytes(), staging.data(), bytes);
  return out;
}

static ScalarKind scalarKind(const Value& v) {
  return v.is(Kind::Bool) ? ScalarKind::Bool : v.is(Kind::Int) ? ScalarKind::Int : ScalarKind::Float;
}

// The tensor of `v` when its buffer can take a result of this dtype and
// shape: v is held only by the caller, who gives it up.
static const Tensor* reusable(const Value& v, bool consumable, DType dtype, const Shape& shape) {
  if (!consumable || !v.is(Kind::Tensor) || v.useCount() != 1) return nullptr;
  const Tensor& t = tensorOf(v);
  if (t.dtype() != dtype || t.shape() != shape || !t.ownsBufferAlone() || !t.isContiguous()) return nullptr;
  return &t;
}

Tensor elementwiseResult(DType dtype, const Shape& shape, const Value& a, const Value* b, unsigned consumable) {
  if (const Tensor* t = reusable(a, consumable & kConsumeFirst, dtype, shape)) return *t;
  if (b)
    if (const Tensor* t = reusable(*b, consumable & kConsumeSecond, dtype, shape)) return *t;
  // On the operands' device.
  const Value& onDevice = a.is(Kind::Tensor) || !b ? a : *b;
  return Tensor::empty(dtype, shape, tensorOf(onDevice).device());
}

Value tensorBinary(Op op, const Value& a, const Value& b, SourceLoc loc, unsigned consumable) {
  auto bad = [&]() -> Value {
    fail(loc, std::string("unsupported operand type(s) for ") + opSymbol(op) + ": " + describe(a) + " and " +
                  describe(b));
  };
  bool ta = a.is(Kind::Tensor), tb = b.is(Kind::Tensor);
  if ((!ta && !a.isNumber()) || (!tb && !b.isNumber())) return bad();
  DType common = ta && tb ? promote(tensorOf(a).dtype(), tensorOf(b).dtype())
                 : ta     ? promoteWithScalar(tensorOf(a).dtype(), scalarKind(b))
                          : promoteWithScalar(tensorOf(b).dtype(), scalarKind(a));
  bool compare = ir::isComparison(op);
  DType compute = compare ? common : ir::binaryComputeType(op, common);
  // Dispatch by the operands' device, then op and dtype.
  Device& device = ta && tb ? commonDevice(tensorOf(a), tensorOf(b), ir::opInfo(op).name, loc)
                            : (ta ? tensorOf(a) : tensorOf(b)).device();
  BinaryKernel k = device.kernels().binary(op, compute);
  if (!k && !device.hostMemory()) detail::noKernel(op, compute, device, loc);  // a plugin's device lacks it
  if (!k) return bad();
  // Operands are used in place when they already have the compute type and
  // the result shape (the common case); otherwise converted or broadcast.
  Tensor xs, ys;
  const Tensor* x = ta ? &tensorOf(a) : &(xs = scalarTensor(a, compute, device));
  const Tensor* y = tb ? &tensorOf(b) : &(ys = scalarTensor(b, compute, device));
  DType outType = compare ? DType::Bool : compute;
  if (x->shape() == y->shape() && x->dtype() == compute && y->dtype() == compute) {
    Tensor out = elementwiseResult(outType, x->shape(), a, &b, consumable);
    launchBinary(op, device, k, *x, *y, out, loc);
    return makeTensorValue(std::move(out));
  }
  std::optional<Shape> shape = tryBroadcastShapes(x->shape(), y->shape());
  if (!shape)
    fail(loc, std::string("shape mismatch in ") + ir::opInfo(op).name + ": " + typeString(*x) + " " + opSymbol(op) +
                  " " + typeString(*y));
  // Chosen before the broadcast views below add holders to the operands.
  Tensor out = elementwiseResult(outType, *shape, a, &b, consumable);
  Tensor xb = broadcastTo(astype(*x, compute), *shape, loc);
  Tensor yb = broadcastTo(astype(*y, compute), *shape, loc);
  launchBinary(op, device, k, xb, yb, out, loc);
  return makeTensorValue(std::move(out));
}

Value tensorUnary(Op op, const Value& a, SourceLoc loc, unsigned consumable) {
  const Tensor& t = tensorOf(a);
  DType compute = t.dtype();
  if (op == Op::Not) fail(loc, "'not' on a tensor needs one element; use logical_not for elementwise negation");
  if ((op == Op::Neg || op == Op::Pos) && compute == DType::Bool)
    fail(loc, std::string("unary ") + (op == Op::Neg ? "-" : "+") + " is not supported for bool tensors; use ~ or logical_not");
  UnaryKernel k = t.device().kernels().unary(op, compute);
  if (!k && !t.device().hostMemory()) detail::noKernel(op, compute, t.device(), loc);
  if (!k) fail(loc, std::string("bad operand type for unary ") + ir::opInfo(op).name + ": " + typeString(t));
  Tensor out = elementwiseResult(compute, t.shape(), a, nullptr, consumable);
  launchUnary(op, t.device(), k, t, out, loc);
  return makeTensorValue(std::move(out));
}

// ---- construction from nested lists ----

static void collectData(const Value& v, size_t depth, Shape& shape, std::vector<Value>& flat, SourceLoc loc) {
  if (depth > 64) fail(loc, "tensor(): the data is nested more than 64 levels deep");
  bool seq = v.is(Kind::List) || v.is(Kind::Tuple);
  if (v.is(Kind::Tensor)) {
    const Tensor& t = tensorOf(v);
    Value lst = toList(t);
    collectData(lst, depth, shape, flat, loc);
    return;
  }
  if (!seq) {
    if (depth != shape.size()) fail(loc, "tensor(): nested lists have inconsistent depth");
    if (!v.isNumber()) fail(loc, std::string("tensor(): elements must be numbers or bools, not ") + typeName(v));
    flat.push_back(v);
    return;
  }
  const auto& items = v.as<SeqObj>().items;
  if (depth == shape.size()) {
    if (!flat.empty()) fail(loc, "tensor(): nested lists have inconsistent depth");
    shape.push_back(static_cast<int64_t>(items.size()));
  } else if (depth > shape.size() || shape[depth] != static_cast<int64_t>(items.size())) {
    fail(loc, "tensor(): nested lists have inconsistent lengths (expected " +
                  (depth < shape.size() ? std::to_string(shape[depth]) : std::string("a number")) + ", got " +
                  std::to_string(items.size()) + ")");
  }
  for (const Value& x : items) collectData(x, depth + 1, shape, flat, loc);
}

// The dtype tensor() gives a Python number v.
static DType numberDType(const Value& v) {
  return v.is(Kind::Bool) ? DType::Bool : v.is(Kind::Int) ? DType::I64 : DType::F32;
}

Tensor tensorFromData(const Value& data, std::optional<DType> dtype, SourceLoc loc, Device& device) {
  if (data.is(Kind::Tensor)) return astype(tensorOf(data), dtype.value_or(tensorOf(data).dtype())).contiguous();
  if (!device.hostMemory()) {
    // The host cannot write a GPU's memory: a number is filled in there
    // (scalarTensor), a list made on the host and copied in.
    if (data.isNumber()) return scalarTensor(data, dtype.value_or(numberDType(data)), device);
    if (!device.host()) fail(loc, "device '" + device.name() + "' has no host to make tensors on");
    return copyTo(tensorFromData(data, dtype, loc, *device.host()), device, loc);
  }
  Shape shape;
  std::vector<Value> flat;
  collectData(data, 0, shape, flat, loc);
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  if (static_cast<int64_t>(flat.size()) != n) fail(loc, "tensor(): nested lists have inconsistent lengths");
  DType dt = DType::Bool;
  bool any = false;
  for (const Value& v : flat) {
    dt = any ? promote(dt, numberDType(v)) : numberDType(v);
    any = true;
  }
  if (!any) dt = DType::F32;
  if (dtype) dt = *dtype;
  Tensor t = Tensor::empty(dt, shape, device);
  for (int64_t i = 0; i < n; ++i) {
    const Value& v = flat[i];
    switch (dt) {
      case DType::Bool: t.data<bool>()[i] = v.asFloat() != 0.0; break;
      case DType::I32: t.data<int32_t>()[i] = static_cast<int32_t>(v.isIntLike() ? v.asInt() : static_cast<int64_t>(v.asFloat())); break;
      case DType::I64: t.data<int64_t>()[i] = v.isIntLike() ? v.asInt() : static_cast<int64_t>(v.asFloat()); break;
      case DType::F32: t.data<float>()[i] = static_cast<float>(v.asFloat()); break;
      case DType::F64: t.data<double>()[i] = v.asFloat(); break;
    }
  }
  return t;
}

static Value scalarAt(const Tensor& t, int64_t flat) {
  switch (t.dtype()) {
    case DType::Bool: return Value::boolean(t.flatAsInt(flat) != 0);
    case DType::I32:
    case DType::I64: return Value::integer(t.flatAsInt(flat));
    default: return Value::real(t.flatAsDouble(flat));
  }
}

Value item(const Tensor& t, SourceLoc loc) {
  if (t.numel() != 1)
    fail(loc, "a tensor with " + std::to_string(t.numel()) + " elements cannot be converted to a Python scalar");
  return t.device().hostMemory() ? scalarAt(t, 0) : scalarAt(readableOnHost(t, loc), 0);
}

Value toList(const Tensor& device) {
  Tensor t = readableOnHost(device, {});
  if (t.ndim() == 0) return scalarAt(t, 0);
  checkHostAllocation(static_cast<size_t>(t.numel()), sizeof(Value));
  std::function<Value(int, int64_t)> build = [&](int axis, int64_t base) -> Value {
    std::vector<Value> items;
    int64_t len = t.dim(axis);
    int64_t inner = 1;
    for (int d = axis + 1; d < t.ndim(); ++d) inner *= t.dim(d);
    for (int64_t i = 0; i < len; ++i)
      items.push_back(axis + 1 == t.ndim() ? scalarAt(t, base + i) : build(axis + 1, base + i * inner));
    return makeList(std::move(items));
  };
  return build(0, 0);
}

// ---- shape views ----

namespace {

// `shape` with its -1 inferred, checked to hold t's elements.
Shape resolvedShape(const Tensor& t, Shape shape, SourceLoc loc) {
  // A shape with more elements than an int64 counts is no tensor's shape.
  auto mismatch = [&] { fail(loc, "cannot reshape " + typeString(t) + " into shape " + shapeString(shape)); };
  int64_t inferAt = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (inferAt >= 0) fail(loc, "reshape: only one dimension can be -1");
      inferAt = static_cast<int64_t>(i);
    } else if (shape[i] < 0) {
      fail(loc, "reshape: invalid dimension " + std::to_string(shape[i]));
    }
  }
  if (inferAt >= 0) {
    shape[inferAt] = 1;
    std::optional<int64_t> known = checkedNumel(shape);
    shape[inferAt] = -1;  // the error names the shape as written
    if (!known || *known == 0 || t.numel() % *known != 0) mismatch();
    shape[inferAt] = t.numel() / *known;
  }
  std::optional<int64_t> n = checkedNumel(shape);
  if (!n || *n != t.numel()) mismatch();
  return shape;
}

// Strides that lay t's elements, in row-major order, out in `shape`, or
// nullopt where none do. t's dims fall into runs that one stride walks (a
// dim's stride is the next one's times its size; a dim of size 1 joins
// any run); the new dims must split each run's elements exactly, taking
// the run's strides. An expanded (stride 0) run stays stride 0.
std::optional<Shape> viewStrides(const Tensor& t, const Shape& shape) {
  if (t.numel() == 0) return Tensor::contiguousStrides(shape);
  const Shape &old = t.shape(), &oldStrides = t.strides();
  Shape strides(shape.size(), 1);
  int64_t d = static_cast<int64_t>(shape.size()) - 1;
  int64_t runElements = 1, placed = 1, runStride = old.empty() ? 1 : oldStrides.back();
  for (int64_t k = static_cast<int64_t>(old.size()) - 1; k >= 0; --k) {
    runElements *= old[k];
    bool runEnds = k == 0 || (old[k - 1] != 1 && oldStrides[k - 1] != runElements * runStride);
    if (!runEnds) continue;
    while (d >= 0 && (placed < runElements || shape[d] == 1)) {
      strides[d] = placed * runStride;
      placed *= shape[d];
      --d;
    }
    if (placed != runElements) return std::nullopt;
    if (k > 0) {
      runStride = oldStrides[k - 1];
      runElements = placed = 1;
    }
  }
  for (; d >= 0; --d)
    if (shape[d] != 1) return std::nullopt;
  return strides;
}

// t's elements, contiguous (a copy unless they are), in `shape`.
Tensor contiguousIn(const Tensor& t, const Shape& shape) {
  Tensor c = t.contiguous();
  return c.view(shape, Tensor::contiguousStrides(shape), c.offset());
}

}  // namespace

Tensor reshape(const Tensor& t, Shape shape, SourceLoc loc) {
  return contiguousIn(t, resolvedShape(t, std::move(shape), loc));
}

Tensor reshapeView(const Tensor& t, Shape shape, SourceLoc loc) {
  shape = resolvedShape(t, std::move(shape), loc);
  if (std::optional<Shape> strides = viewStrides(t, shape)) return t.view(shape, std::move(*strides), t.offset());
  return contiguousIn(t, shape);
}

Tensor transpose(const Tensor& t, const std::vector<int64_t>& perm, SourceLoc loc) {
  int nd = t.ndim();
  std::vector<int64_t> p = perm;
  if (p.empty())
    for (int i = nd - 1; i >= 0; --i) p.push_back(i);
  if (static_cast<int>(p.size()) != nd)
    fail(loc, "transpose: permutation of length " + std::to_string(p.size()) + " for " + typeString(t));
  std::vector<bool> seen(nd, false);
  Shape shape(nd), strides(nd);
  for (int i = 0; i < nd; ++i) {
    int64_t a = p[i] < 0 ? p[i] + nd : p[i];
    if (a < 0 || a >= nd || seen[a]) fail(loc, "transpose: invalid permutation for " + typeString(t));
    seen[a] = true;
    shape[i] = t.shape()[a];
    strides[i] = t.strides()[a];
  }
  return t.view(shape, strides, t.offset());
}

// ---- indexing ----

namespace {

struct Selection {
  Shape shape, strides;
  int64_t offset;
};

Selection select(const Tensor& t, const Value& index, SourceLoc loc) {
  std::vector<Value> parts = index.is(Kind::Tuple) ? index.as<SeqObj>().items : std::vector<Value>{index};
  int consumed = 0;
  bool ellipsis = false;
  for (const Value& p : parts) {
    if (p.is(Kind::Ellipsis)) {
      if (ellipsis) fail(loc, "an index can only have a single ellipsis ('...')");
      ellipsis = true;
    } else if (!p.is(Kind::None)) {
      ++consumed;
    }
  }
  if (consumed > t.ndim())
    fail(loc, "too many indices for " + typeString(t) + ": " + std::to_string(consumed) + " given");
  Selection s{{}, {}, t.offset()};
  int axis = 0;
  for (const Value& p : parts) {
    if (p.is(Kind::Ellipsis)) {
      for (int k = 0; k < t.ndim() - consumed; ++k, ++axis) {
        s.shape.push_back(t.shape()[axis]);
        s.strides.push_back(t.strides()[axis]);
      }
    } else if (p.is(Kind::None)) {
      s.shape.push_back(1);
      s.strides.push_back(0);
    } else if (p.isIntLike()) {
      int64_t len = t.shape()[axis];
      int64_t i = p.asInt() < 0 ? p.asInt() + len : p.asInt();
      if (i < 0 || i >= len)
        fail(loc, "index " + std::to_string(p.asInt()) + " is out of bounds for axis " + std::to_string(axis) +
                      " with size " + std::to_string(len));
      s.offset += i * t.strides()[axis];
      ++axis;
    } else if (p.is(Kind::Slice)) {
      const SliceObj& sl = p.as<SliceObj>();
      int64_t len = t.shape()[axis];
      int64_t start, stop, step;
      sliceIndices(sl, len, start, stop, step, loc);
      int64_t count = step > 0 ? (stop > start ? (stop - start + step - 1) / step : 0)
                               : (start > stop ? (start - stop - step - 1) / (-step) : 0);
      if (count > 0) s.offset += start * t.strides()[axis];
      s.shape.push_back(count);
      s.strides.push_back(t.strides()[axis] * step);
      ++axis;
    } else {
      fail(loc, std::string("tensor indices must be integers, slices, None or ..., not ") + typeName(p));
    }
  }
  for (; axis < t.ndim(); ++axis) {
    s.shape.push_back(t.shape()[axis]);
    s.strides.push_back(t.strides()[axis]);
  }
  return s;
}

}  // namespace

Tensor tensorGetItem(const Tensor& t, const Value& index, SourceLoc loc) {
  if (hasAdvancedIndex(index)) return advancedGetItem(t, index, loc);
  Selection s = select(t, index, loc);
  return t.view(s.shape, s.strides, s.offset);
}

std::optional<Tensor> addAtBasicIndex(const Value& acc, const Tensor& g, const Value& index, bool consume,
                                      SourceLoc loc) {
  const Tensor& a = tensorOf(acc);
  if (hasAdvancedIndex(index) || g.dtype() != a.dtype()) return std::nullopt;
  Selection s = select(a, index, loc);
  if (s.shape != g.shape()) return std::nullopt;
  const Tensor* own = reusable(acc, consume, a.dtype(), a.shape());
  Tensor out = own ? *own : a.clone();
  if (!own) s = select(out, index, loc);
  Tensor target = out.view(s.shape, s.strides, s.offset);
  target.copyFrom(tensorOf(tensorBinary(Op::Add, makeTensorValue(target), makeTensorValue(g), loc)));
  return out;
}

Tensor tensorSetItem(const Tensor& t, const Value& index, const Value& value, SourceLoc loc) {
  // Functional update: the result is a fresh copy; `t` is unchanged.
  if (hasAdvancedIndex(index)) {
    Tensor v = value.is(Kind::Tensor) ? tensorOf(value) : tensorFromData(value, t.dtype(), loc, t.device());
    return advancedSetItem(t, index, v, loc);
  }
  Tensor copy = t.clone();
  Selection s = select(copy, index, loc);
  Tensor target = copy.view(s.shape, s.strides, s.offset);
  Tensor v = value.is(Kind::Tensor) ? tensorOf(value) : tensorFromData(value, t.dtype(), loc, t.device());
  v = astype(v, t.dtype());
  v = broadcastTo(v, target.shape(), loc);
  target.copyFrom(v);
  return copy;
}

}  // namespace nn::rt
