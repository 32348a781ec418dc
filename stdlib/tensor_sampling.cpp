// PyTorch's multinomial(input, num_samples, replacement=False): category
// indices drawn from each row of non-negative weights (a language model's
// next token), from the state's random generator in program order (the
// builtin's effect class is Random, so graph mode keeps its place among
// the other draws). The draws are nn's, not PyTorch's: the same seed gives
// the same indices in every mode.
#include <cmath>

#include "ir/builtins.h"
#include "runtime/random.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

// One row's draws into out[0, count): each the first category whose
// running sum of weights passes a uniform fraction of the weights left;
// without replacement a drawn category's weight leaves the row. Once only
// categories of weight zero are left, one of them uniformly.
void drawRow(RandomGenerator& rng, std::vector<double> weights, int64_t count, bool replacement, int64_t* out) {
  int64_t n = static_cast<int64_t>(weights.size());
  std::vector<bool> taken(weights.size(), false);
  double total = 0;
  for (double w : weights) total += w;
  for (int64_t k = 0; k < count; ++k) {
    double target = rng.uniformF64() * total;
    int64_t pick = -1;
    if (total > 0) {
      double running = 0;
      for (int64_t i = 0; i < n && pick < 0; ++i) {
        running += weights[static_cast<size_t>(i)];
        if (weights[static_cast<size_t>(i)] > 0 && running > target) pick = i;
      }
      // Rounding can leave the target at the very end: the last category
      // of positive weight.
      for (int64_t i = n - 1; i >= 0 && pick < 0; --i)
        if (weights[static_cast<size_t>(i)] > 0) pick = i;
    }
    if (pick < 0) {
      int64_t left = 0;
      for (int64_t i = 0; i < n; ++i) left += !taken[static_cast<size_t>(i)];
      int64_t skip = static_cast<int64_t>(rng.below(static_cast<uint64_t>(left)));
      for (int64_t i = 0; i < n && pick < 0; ++i)
        if (!taken[static_cast<size_t>(i)] && skip-- == 0) pick = i;
    }
    out[k] = pick;
    if (!replacement) {
      taken[static_cast<size_t>(pick)] = true;
      total -= weights[static_cast<size_t>(pick)];
      weights[static_cast<size_t>(pick)] = 0;
      if (total < 0) total = 0;
    }
  }
}

Value bMultinomial(CallContext& c, std::vector<Value>& args) {
  if (args.size() != 2)
    fail(c.loc, "multinomial() takes 2 positional arguments (" + std::to_string(args.size()) + " given)",
         ErrorClass::TypeError);
  bool replacement = false;
  if (const Value* r = c.kw("replacement")) {
    if (!r->is(Kind::Bool))
      fail(c.loc, std::string("multinomial(): replacement must be a bool, not ") + typeName(*r), ErrorClass::TypeError);
    replacement = r->asBool();
  }
  c.checkKeywordsUsed("multinomial");
  if (!args[0].is(Kind::Tensor))
    fail(c.loc, std::string("multinomial(): input must be a Tensor, not ") + typeName(args[0]), ErrorClass::TypeError);
  const Tensor& input = tensorOf(args[0]);
  if (!isFloating(input.dtype()))
    fail(c.loc, "multinomial(): input must be a float tensor of weights, not " + typeString(input),
         ErrorClass::TypeError);
  if (input.ndim() != 1 && input.ndim() != 2)
    fail(c.loc, "multinomial(): input must be 1-d or 2-d, not " + typeString(input), ErrorClass::ValueError);
  if (!args[1].isIntLike() || args[1].asInt() <= 0)
    fail(c.loc, "multinomial(): num_samples must be a positive int, not " + repr(args[1]), ErrorClass::ValueError);
  int64_t count = args[1].asInt(), n = input.shape().back(), rows = input.ndim() == 2 ? input.shape()[0] : 1;
  if (!replacement && count > n)
    fail(c.loc,
         "multinomial(): cannot draw " + std::to_string(count) + " samples from " + std::to_string(n) +
             " categories without replacement",
         ErrorClass::ValueError);
  Tensor w = astype(readableOnHost(input, c.loc), DType::F64).contiguous();
  const double* d = w.data<double>();
  // Every row checked before any draw, so that an error leaves the
  // generator where it was.
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      double v = d[r * n + i];
      if (!std::isfinite(v) || v < 0)
        fail(c.loc, "multinomial(): the weights must be finite and non-negative, but row " + std::to_string(r) +
                        " has " + repr(Value::real(v)),
             ErrorClass::ValueError);
      sum += v;
    }
    if (!(sum > 0))
      fail(c.loc, "multinomial(): row " + std::to_string(r) + "'s weights sum to 0", ErrorClass::ValueError);
  }
  Shape shape = input.ndim() == 2 ? Shape{rows, count} : Shape{count};
  Tensor out = Tensor::empty(DType::I64, shape, w.device());
  for (int64_t r = 0; r < rows; ++r)
    drawRow(c.interp.rng(), std::vector<double>(d + r * n, d + (r + 1) * n), count, replacement,
            out.data<int64_t>() + r * count);
  return makeTensorValue(copyTo(out, input.device(), c.loc));
}

}  // namespace

void addTensorSampling(BuiltinTable& table) {
  table[ir::builtinInfo(ir::Builtin::Multinomial).name] = bMultinomial;
}

}  // namespace nn::stdlib
