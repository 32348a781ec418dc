// The front ends of the ops along one axis in order or by position (see
// tensor_ops.h): they check the axis and operands with located errors,
// make the operand contiguous in the kernel's dtype and run the device's
// kernel (kernels.h: CumSum, CumProd, LogCumSumExp, Sort, TopK, Tril).
#include "runtime/dispatch.h"
#include "runtime/kernels.h"
#include "runtime/tensor_ops.h"

namespace nn::rt {

using ir::Op;

Tensor scan(const Tensor& x, std::optional<int64_t> axis, bool reverse, ScanKind kind, SourceLoc loc) {
  const char* what = kind == ScanKind::Sum ? "cumsum" : kind == ScanKind::Product ? "cumprod" : "logcumsumexp";
  Tensor in = axis ? x : reshape(x, {x.numel()}, loc);
  // A 0-d tensor scans as one element.
  if (in.ndim() == 0) in = reshape(in, {1}, loc);
  int64_t a = normalizeAxis(axis.value_or(0), in.ndim(), loc, what);
  DType dt = isFloating(x.dtype()) ? x.dtype() : kind == ScanKind::LogSumExp ? DType::F32 : DType::I64;
  in = astype(in, dt).contiguous();
  Tensor out = Tensor::empty(dt, in.shape(), in.device());
  if (out.numel() > 0) {
    int along = static_cast<int>(a);
    if (kind == ScanKind::Sum) launch<Op::CumSum>(in.device(), dt, loc, in, along, reverse, out);
    else if (kind == ScanKind::Product) launch<Op::CumProd>(in.device(), dt, loc, in, along, reverse, out);
    else launch<Op::LogCumSumExp>(in.device(), dt, loc, in, along, reverse, out);
  }
  return x.ndim() == 0 && axis ? reshape(out, {}, loc) : out;
}

std::pair<Tensor, Tensor> sort(const Tensor& x, int64_t axis, bool descending, SourceLoc loc) {
  Tensor in = x.ndim() == 0 ? reshape(x, {1}, loc) : x;
  int64_t a = normalizeAxis(axis, in.ndim(), loc, "sort");
  in = in.contiguous();
  Tensor values = Tensor::empty(in.dtype(), in.shape(), in.device());
  Tensor indices = Tensor::empty(DType::I64, in.shape(), in.device());
  if (in.numel() > 0) launch<Op::Sort>(in.device(), in.dtype(), loc, in, static_cast<int>(a), descending, values, indices);
  if (x.ndim() == 0) return {reshape(values, {}, loc), reshape(indices, {}, loc)};
  return {values, indices};
}

std::pair<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t axis, bool largest, SourceLoc loc) {
  int64_t a = normalizeAxis(axis, std::max(x.ndim(), 1), loc, "topk");
  int64_t len = x.ndim() == 0 ? 1 : x.dim(static_cast<int>(a));
  if (k < 0 || k > len)
    fail(loc, "topk: k (" + std::to_string(k) + ") must be between 0 and the length " + std::to_string(len) +
                  " of dim " + std::to_string(axis));
  // A 0-d tensor is its own top 1 (or 0: k is checked above).
  if (x.ndim() == 0) return sort(x, a, largest, loc);
  Tensor in = x.contiguous();
  Shape shape = in.shape();
  shape[static_cast<size_t>(a)] = k;
  Tensor values = Tensor::empty(in.dtype(), shape, in.device());
  Tensor indices = Tensor::empty(DType::I64, shape, in.device());
  if (values.numel() > 0) launch<Op::TopK>(in.device(), in.dtype(), loc, in, static_cast<int>(a), largest, values, indices);
  return {values, indices};
}

Tensor triangle(const Tensor& x, int64_t diagonal, bool upper, SourceLoc loc) {
  if (x.ndim() < 2)
    fail(loc, std::string(upper ? "triu" : "tril") + ": expects a tensor of 2 or more dims, got " + typeString(x));
  Tensor in = x.contiguous();
  Tensor out = Tensor::empty(in.dtype(), in.shape(), in.device());
  if (out.numel() > 0) launch<Op::Tril>(in.device(), in.dtype(), loc, in, diagonal, upper, out);
  return out;
}

}  // namespace nn::rt
