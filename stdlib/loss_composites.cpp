// PyTorch's losses that are compositions of nn's ops:
// binary_cross_entropy_with_logits (the stable form PyTorch computes, with
// pos_weight and weight) and nll_loss (the negative log-likelihood of
// log-probabilities at class indices: weight, ignore_index, a class dim
// among more). Each runs its ops where a tape sees them, so it
// differentiates as they do, in every mode; reduction "mean", "sum" or
// "none" as PyTorch's (nll_loss's mean divides by the counted targets'
// weights).
#include <string>

#include "ir/builtins.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"
#include "stdlib/op_call.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

Value negated(CallContext& c, const Value& x) { return binary(c, ir::Op::Mul, x, Value::real(-1.0)); }

// The reduction argument: "mean", "sum" or "none" (a located ValueError
// otherwise); the deprecated size_average and reduce only as None.
std::string reductionArg(CallContext& c, const Value& reduction, const Value& sizeAverage, const Value& reduce) {
  if (!sizeAverage.is(Kind::None) || !reduce.is(Kind::None))
    fail(c.loc, c.name + "(): size_average and reduce are not supported (PyTorch deprecates them); use reduction",
         ErrorClass::NotImplementedError);
  if (!reduction.is(Kind::Str) ||
      (reduction.asStr() != "mean" && reduction.asStr() != "sum" && reduction.asStr() != "none"))
    fail(c.loc, c.name + "(): invalid reduction " + repr(reduction) + " (mean, sum or none)", ErrorClass::ValueError);
  return reduction.asStr();
}

Value reduced(CallContext& c, const Value& loss, const std::string& reduction) {
  if (reduction == "none") return loss;
  return applyOp(c, reduction == "sum" ? ir::Op::Sum : ir::Op::Mean, {loss, Value::none(), Value::boolean(false)});
}

// binary_cross_entropy_with_logits(input, target, weight=None,
// size_average=None, reduce=None, reduction="mean", pos_weight=None):
// with m = max(-x, 0), (1 - t) x + l (log(exp(-m) + exp(-x - m)) + m),
// l = 1 + (pos_weight - 1) t (1 without pos_weight), times weight.
Value bBinaryCrossEntropyWithLogits(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 7);
  Value none = Value::none(), mean = Value::str("mean");
  Value x = argument(c, args, 0, "input", nullptr), t = argument(c, args, 1, "target", nullptr),
        weight = argument(c, args, 2, "weight", &none), sizeAverage = argument(c, args, 3, "size_average", &none),
        reduce = argument(c, args, 4, "reduce", &none), reductionV = argument(c, args, 5, "reduction", &mean),
        posWeight = argument(c, args, 6, "pos_weight", &none);
  c.checkKeywordsUsed("binary_cross_entropy_with_logits");
  std::string reduction = reductionArg(c, reductionV, sizeAverage, reduce);
  const Tensor& input = tensorArg(c, x, "input");
  const Tensor& target = tensorArg(c, t, "target");
  if (input.shape() != target.shape())
    fail(c.loc,
         "binary_cross_entropy_with_logits(): the target " + typeString(target) + " must have the input's shape " +
             typeString(input),
         ErrorClass::ValueError);
  if (!isFloating(input.dtype()))
    fail(c.loc, "binary_cross_entropy_with_logits(): input must be floating, not " + typeString(input),
         ErrorClass::TypeError);
  for (const Value* v : {&weight, &posWeight})
    if (!v->is(Kind::None)) tensorArg(c, *v, v == &weight ? "weight" : "pos_weight");
  Value m = binary(c, ir::Op::Maximum, negated(c, x), Value::real(0.0));
  Value spread = binary(c, ir::Op::Add, applyOp(c, ir::Op::Exp, {negated(c, m)}),
                        applyOp(c, ir::Op::Exp, {binary(c, ir::Op::Sub, negated(c, x), m)}));
  Value logSum = applyOp(c, ir::Op::Log, {spread});
  Value linear = binary(c, ir::Op::Mul, binary(c, ir::Op::Sub, Value::real(1.0), t), x);
  Value loss;
  if (posWeight.is(Kind::None)) {
    loss = binary(c, ir::Op::Add, binary(c, ir::Op::Add, linear, m), logSum);
  } else {
    Value logWeight =
        binary(c, ir::Op::Add, binary(c, ir::Op::Mul, binary(c, ir::Op::Sub, posWeight, Value::real(1.0)), t),
               Value::real(1.0));
    loss = binary(c, ir::Op::Add, linear, binary(c, ir::Op::Mul, logWeight, binary(c, ir::Op::Add, logSum, m)));
  }
  if (!weight.is(Kind::None)) loss = binary(c, ir::Op::Mul, loss, weight);
  return reduced(c, loss, reduction);
}

// nll_loss(input, target, weight=None, size_average=None,
// ignore_index=-100, reduce=None, reduction="mean"): -w[y] input[y] at each
// position's class index y along the class dim (1, or 0 of a 1-d input),
// 0 where y is ignore_index; the mean divides by the counted w[y].
Value bNllLoss(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 7);
  Value none = Value::none(), mean = Value::str("mean"), ignored = Value::integer(-100);
  Value x = argument(c, args, 0, "input", nullptr), t = argument(c, args, 1, "target", nullptr),
        weight = argument(c, args, 2, "weight", &none), sizeAverage = argument(c, args, 3, "size_average", &none),
        ignoreV = argument(c, args, 4, "ignore_index", &ignored), reduce = argument(c, args, 5, "reduce", &none),
        reductionV = argument(c, args, 6, "reduction", &mean);
  c.checkKeywordsUsed("nll_loss");
  std::string reduction = reductionArg(c, reductionV, sizeAverage, reduce);
  const Tensor& input = tensorArg(c, x, "input");
  const Tensor& target = tensorArg(c, t, "target");
  if (!ignoreV.isIntLike())
    fail(c.loc, "nll_loss(): ignore_index must be an int, not " + repr(ignoreV), ErrorClass::TypeError);
  int64_t ignore = ignoreV.asInt();
  if (input.ndim() < 1)
    fail(c.loc, "nll_loss(): input must have a class dim, got " + typeString(input), ErrorClass::ValueError);
  int64_t classDim = input.ndim() >= 2 ? 1 : 0, classes = input.dim(static_cast<int>(classDim));
  Shape expected = input.shape();
  expected.erase(expected.begin() + classDim);
  if (!isIntegral(target.dtype()) || target.dtype() == DType::Bool || target.shape() != expected)
    fail(c.loc,
         "nll_loss(): target must be class indices of " + typeString(input) + "'s shape less its class dim, got " +
             typeString(target),
         ErrorClass::ValueError);
  if (!weight.is(Kind::None)) {
    const Tensor& w = tensorArg(c, weight, "weight");
    if (w.ndim() != 1 || w.dim(0) != classes)
      fail(c.loc, "nll_loss(): weight must be [" + std::to_string(classes) + "], got " + typeString(w),
           ErrorClass::ValueError);
  }
  Tensor onHost = readableOnHost(astype(target, DType::I64).contiguous(), c.loc);
  for (int64_t i = 0; i < onHost.numel(); ++i) {
    int64_t label = onHost.data<int64_t>()[i];
    if (label != ignore && (label < 0 || label >= classes))
      fail(
          c.loc,
          "nll_loss(): label " + std::to_string(label) + " is out of range for " + std::to_string(classes) + " classes",
          ErrorClass::IndexError);
  }
  Value valid = binary(c, ir::Op::Ne, t, Value::integer(ignore));
  Value safe = where(c, valid, t, Value::integer(0));
  Value index = applyOp(c, ir::Op::Unsqueeze, {safe, Value::integer(classDim)});
  Value picked = applyOp(c, ir::Op::Squeeze,
                         {applyOp(c, ir::Op::Gather, {x, Value::integer(classDim), index}), intsTuple({classDim})});
  Value weights = where(c, valid, Value::real(1.0), Value::real(0.0));
  if (!weight.is(Kind::None)) {
    Value flat = applyOp(c, ir::Op::Reshape, {safe, intsTuple({-1})});
    Value perTarget = applyOp(c, ir::Op::Reshape,
                              {applyOp(c, ir::Op::Gather, {weight, Value::integer(0), flat}),
                               intsTuple(std::vector<int64_t>(expected.begin(), expected.end()))});
    weights = binary(c, ir::Op::Mul, perTarget, weights);
  }
  Value loss = negated(c, binary(c, ir::Op::Mul, picked, weights));
  if (reduction != "mean") return reduced(c, loss, reduction);
  Value all = Value::none(), keep = Value::boolean(false);
  return binary(c, ir::Op::Div, applyOp(c, ir::Op::Sum, {loss, all, keep}),
                applyOp(c, ir::Op::Sum, {weights, all, keep}));
}

}  // namespace

void addLossComposites(BuiltinTable& table) {
  table[ir::builtinInfo(ir::Builtin::BinaryCrossEntropyWithLogits).name] = bBinaryCrossEntropyWithLogits;
  table[ir::builtinInfo(ir::Builtin::NllLoss).name] = bNllLoss;
}

}  // namespace nn::stdlib
