// The creation ops' front ends (see tensor_ops.h): each allocates the
// result on the device it is given and fills it with that device's kernel,
// so nothing here touches tensor memory from the host.
#include "runtime/dispatch.h"
#include "runtime/tensor_ops.h"

namespace nn::rt {

using ir::Op;

Tensor fullLike(DType dtype, const Shape& shape, double value, Device& device) {
  Tensor t = Tensor::empty(dtype, shape, device);
  if (t.numel() > 0) launch<Op::Full>(device, dtype, SourceLoc{}, value, t);
  return t;
}

Tensor rampTensor(Op op, DType dtype, int64_t n, const Ramp& ramp, Device& device, SourceLoc loc) {
  Tensor t = Tensor::empty(dtype, {n}, device);
  if (n == 0) return t;
  if (op == Op::Linspace) launch<Op::Linspace>(device, dtype, loc, ramp, t);
  else launch<Op::Arange>(device, dtype, loc, ramp, t);
  return t;
}

Tensor eye(DType dtype, int64_t n, int64_t m, Device& device, SourceLoc loc) {
  Tensor t = Tensor::empty(dtype, {n, m}, device);
  if (t.numel() > 0) launch<Op::Eye>(device, dtype, loc, t);
  return t;
}

Tensor randomTensor(Op op, DType dtype, const Shape& shape, RandomGenerator& rng, Device& device, SourceLoc loc) {
  Tensor t = Tensor::empty(dtype, shape, device);
  if (t.numel() == 0) return t;
  if (op == Op::Randn) launch<Op::Randn>(device, dtype, loc, rng, t);
  else launch<Op::Rand>(device, dtype, loc, rng, t);
  return t;
}

Tensor randint(DType dtype, const Shape& shape, int64_t low, int64_t high, RandomGenerator& rng, Device& device,
               SourceLoc loc) {
  Tensor t = Tensor::empty(dtype, shape, device);
  uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  if (t.numel() > 0) launch<Op::Randint>(device, dtype, loc, rng, low, range, t);
  return t;
}

Tensor randperm(DType dtype, int64_t n, RandomGenerator& rng, Device& device, SourceLoc loc) {
  if (n < 0) fail(loc, "randperm: n must be non-negative, got " + std::to_string(n));
  if (dtype == DType::Bool) fail(loc, "randperm: the permutation cannot be bool");
  Tensor t = Tensor::empty(dtype, {n}, device);
  if (n > 0) launch<Op::Randperm>(device, dtype, loc, rng, t);
  return t;
}

}  // namespace nn::rt
