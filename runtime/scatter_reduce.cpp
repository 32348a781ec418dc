// scatter_reduce's front end, PyTorch's x.scatter_reduce(dim, index, src,
// reduce, include_self=True): the operands checked as scatter's, then the
// reduction computed in the accumulation dtype scatter_add uses (double
// for floats, int64 for integers and bools) and cast back to x's dtype.
// Where x's own elements are left out, the places the index reaches first
// get a start that leaves the reduction as it is (a scatter), so that
// places it misses keep x's. "sum" is scatter_add's kernel, "mean" that sum over the count of
// the terms (floor division for integers, as PyTorch's), "prod", "amax"
// and "amin" the ScatterReduce kernel, which runs each line in index
// order, so the result is the same on every run and device.
#include <string>

#include "runtime/dispatch.h"
#include "runtime/kernels.h"
#include "runtime/tensor_ops.h"

namespace nn::rt {

Tensor scatterReduce(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src, const std::string& reduce,
                     bool includeSelf, SourceLoc loc) {
  if (reduce != "sum" && reduce != "prod" && reduce != "mean" && reduce != "amax" && reduce != "amin")
    fail(loc, "scatter_reduce: reduce must be 'sum', 'prod', 'mean', 'amax' or 'amin', not '" + reduce + "'",
         ErrorClass::ValueError);
  int a = scatterAxis(x, axis, index, src, loc, "scatter_reduce");
  bool integers = !ir::isFloating(x.dtype()) && !ir::isFloating(src.dtype());
  DType acc = integers ? DType::I64 : DType::F64;
  bool sums = reduce == "sum" || reduce == "mean";
  Tensor at = astype(index, DType::I64), values = sums ? scatterAddTerms(src, acc) : astype(src, acc);
  Tensor out = x.dtype() == acc ? x.clone() : astype(x, acc);
  if (!includeSelf) {
    // Where the index reaches, the sum's and the product's identity, or
    // for an extreme one of its own terms (which it may meet twice).
    bool extreme = reduce == "amax" || reduce == "amin";
    Tensor start = extreme ? values : fullLike(acc, index.shape(), reduce == "prod" ? 1.0 : 0.0, x.device());
    launch<ir::Op::Scatter>(x.device(), acc, loc, a, at, start, out);
  }
  if (sums) {
    launch<ir::Op::ScatterAdd>(x.device(), acc, loc, a, at, values, out);
  } else {
    ScatterReduction r = reduce == "prod"   ? ScatterReduction::Prod
                         : reduce == "amax" ? ScatterReduction::Max
                                            : ScatterReduction::Min;
    launch<ir::Op::ScatterReduce>(x.device(), acc, loc, a, at, values, r, out);
  }
  if (reduce == "mean") {
    Tensor counts = fullLike(DType::I64, x.shape(), includeSelf ? 1.0 : 0.0, x.device());
    launch<ir::Op::ScatterAdd>(x.device(), DType::I64, loc, a, at, fullLike(DType::I64, index.shape(), 1.0, x.device()),
                               counts);
    // A place no term reaches (count 0, x left out) keeps x's element.
    Value divisor = tensorBinary(ir::Op::Maximum, makeTensorValue(counts), Value::integer(1), loc);
    out = tensorOf(tensorBinary(integers ? ir::Op::FloorDiv : ir::Op::Div, makeTensorValue(out), divisor, loc));
  }
  return astype(out, x.dtype());
}

}  // namespace nn::rt
