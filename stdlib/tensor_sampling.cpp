// PyTorch's multinomial(input, num_samples, replacement=False): category
// indices drawn from each row of non-negative weights (a language model's
// next token), the draws shaped like a tensor (rand_like, randn_like,
// randint_like and bernoulli), and normal and poisson. All draw from the
// state's random generator in program order (the builtins' effect class
// is Random, so graph mode keeps their places among the other draws). The draws are nn's, not
// PyTorch's: the same seed gives the same numbers in every mode.
#include <algorithm>
#include <cmath>

#include "ir/builtins.h"
#include "runtime/random.h"
#include "runtime/scalar_ops.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"
#include "stdlib/op_call.h"

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
    fail(c.loc, positionalCountMessage("multinomial", "2", args.size()), ErrorClass::TypeError);
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

// The tensor a *_like draw is shaped after.
const Tensor& likeTensor(CallContext& c, const std::vector<Value>& args) {
  if (args.empty() || !args[0].is(Kind::Tensor))
    fail(c.loc, c.name + "(): input must be a Tensor" + (args.empty() ? std::string() : ", not " + std::string(typeName(args[0]))),
         ErrorClass::TypeError);
  return tensorOf(args[0]);
}

// A creation op's dtype and device arguments for a draw like x: the
// keywords given, else x's (a float dtype for rand_like and randn_like).
std::pair<Value, Value> likeDtypeDevice(CallContext& c, const Tensor& x, bool floats) {
  const Value* dtype = c.kw("dtype");
  const Value* device = c.kw("device");
  Value dt = dtype && !dtype->is(Kind::None) ? *dtype : Value::dtype(static_cast<int>(x.dtype()));
  Value dev = device && !device->is(Kind::None) ? *device : Value::str(x.device().name());
  if (floats && dt.is(Kind::DType) && !isFloating(static_cast<DType>(dt.asInt())))
    fail(c.loc, c.name + "(): draws floats, so the dtype must be a float one, not " + dtypeName(static_cast<DType>(dt.asInt())),
         ErrorClass::TypeError);
  return {dt, dev};
}

Value likeShape(const Tensor& x) {
  std::vector<Value> dims;
  for (int64_t d : x.shape()) dims.push_back(Value::integer(d));
  return makeTuple(std::move(dims));
}

// rand_like(x, dtype=None, device=None) and randn_like: rand and randn of
// x's shape, dtype and device.
Value bRandLike(CallContext& c, std::vector<Value>& args) {
  const Tensor& x = likeTensor(c, args);
  if (args.size() > 1)
    fail(c.loc, c.name + "() takes 1 positional argument (" + std::to_string(args.size()) + " given)", ErrorClass::TypeError);
  auto [dtype, device] = likeDtypeDevice(c, x, true);
  c.checkKeywordsUsed(c.name.c_str());
  ir::Op op = c.name == "rand_like" ? ir::Op::Rand : ir::Op::Randn;
  std::vector<Value> params{likeShape(x), dtype, device};
  return runTensorOp(c.interp, op, params, c.loc);
}

// randint_like(x, high) or randint_like(x, low, high): randint of x's
// shape, dtype and device.
Value bRandintLike(CallContext& c, std::vector<Value>& args) {
  const Tensor& x = likeTensor(c, args);
  if (args.size() < 2 || args.size() > 3)
    fail(c.loc, "randint_like() takes input and high, or input, low and high", ErrorClass::TypeError);
  Value low = args.size() == 3 ? args[1] : Value::integer(0), high = args.back();
  for (const Value* v : {&low, &high})
    if (!v->isIntLike())
      fail(c.loc, std::string("randint_like(): low and high must be ints, not ") + typeName(*v), ErrorClass::TypeError);
  auto [dtype, device] = likeDtypeDevice(c, x, false);
  c.checkKeywordsUsed("randint_like");
  // (randint draws integers; a float dtype gets them converted, as
  // PyTorch's randint_like gives.)
  bool floats = dtype.is(Kind::DType) && isFloating(static_cast<DType>(dtype.asInt()));
  std::vector<Value> params{low, high, likeShape(x), floats ? Value::dtype(static_cast<int>(DType::I64)) : dtype, device};
  Value drawn = runTensorOp(c.interp, ir::Op::Randint, params, c.loc);
  return floats ? makeTensorValue(astype(tensorOf(drawn), static_cast<DType>(dtype.asInt()))) : drawn;
}

// bernoulli(p) (or bernoulli(x, p) with a number p): 1 with probability p
// and 0 otherwise for each element, in p's (x's) float dtype, drawn as
// rand < p; no gradient, as PyTorch's.
Value bBernoulli(CallContext& c, std::vector<Value>& args) {
  const Tensor& x = likeTensor(c, args);
  if (args.size() > 2) fail(c.loc, "bernoulli() takes at most 2 arguments", ErrorClass::TypeError);
  const Value* pKw = c.kw("p");
  c.checkKeywordsUsed("bernoulli");
  if (!isFloating(x.dtype()))
    fail(c.loc, "bernoulli(): expects a float tensor, not " + typeString(x), ErrorClass::TypeError);
  Value p = args.size() == 2 ? args[1] : pKw ? *pKw : args[0];
  if (!p.isNumber() && !p.is(Kind::Tensor))
    fail(c.loc, std::string("bernoulli(): p must be a number or a Tensor, not ") + typeName(p), ErrorClass::TypeError);
  Tensor probabilities = p.is(Kind::Tensor) ? tensorOf(p) : Tensor();
  double lo = p.isNumber() ? p.asFloat() : 0, hi = lo;
  if (p.is(Kind::Tensor) && probabilities.numel() > 0) {
    Tensor h = astype(readableOnHost(probabilities, c.loc), DType::F64).contiguous();
    lo = *std::min_element(h.data<double>(), h.data<double>() + h.numel(), [](double a, double b) { return a < b || a != a; });
    hi = *std::max_element(h.data<double>(), h.data<double>() + h.numel(), [](double a, double b) { return a < b || b != b; });
  }
  if (!(lo >= 0 && hi <= 1)) fail(c.loc, "bernoulli(): p must be in [0, 1]", ErrorClass::ValueError);
  std::vector<Value> params{likeShape(x), Value::dtype(static_cast<int>(x.dtype())), Value::str(x.device().name())};
  Value u = runTensorOp(c.interp, ir::Op::Rand, params, c.loc);
  Value hit = compareOp(ir::Op::Lt, u, p, c.loc);
  return makeTensorValue(astype(tensorOf(hit), x.dtype()));
}

// normal(mean=0.0, std=1.0, size=None, *, dtype=None, device=None):
// mean + std * randn, mean and std numbers or tensors (broadcast; a tensor
// gives the dtype and device), or numbers with size; std must not be
// negative. No gradient reaches mean or std, as in PyTorch (write mean +
// std * randn_like(mean) for a reparameterised draw).
Value bNormal(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 3);
  Value zero = Value::real(0.0), one = Value::real(1.0), none = Value::none();
  Value mean = argument(c, args, 0, "mean", &zero), stdev = argument(c, args, 1, "std", &one),
        size = argument(c, args, 2, "size", &none);
  const Value* dtypeKw = c.kw("dtype");
  const Value* deviceKw = c.kw("device");
  c.checkKeywordsUsed("normal");
  const Tensor* like = nullptr;
  for (const Value* v : {&mean, &stdev}) {
    if (v->is(Kind::Tensor)) {
      const Tensor& t = tensorOf(*v);
      if (!isFloating(t.dtype()))
        fail(c.loc, "normal(): mean and std must be float tensors or numbers, not " + typeString(t),
             ErrorClass::TypeError);
      if (!like) like = &t;
    } else if (!v->isNumber() || v->is(Kind::Bool)) {
      fail(c.loc, std::string("normal(): mean and std must be numbers or tensors, not ") + typeName(*v),
           ErrorClass::TypeError);
    }
  }
  bool negative = !stdev.is(Kind::Tensor) && stdev.asFloat() < 0;
  if (stdev.is(Kind::Tensor)) {
    Tensor h = astype(readableOnHost(tensorOf(stdev), c.loc), DType::F64).contiguous();
    negative = std::any_of(h.data<double>(), h.data<double>() + h.numel(), [](double v) { return v < 0; });
  }
  if (negative) fail(c.loc, "normal(): std must not be negative", ErrorClass::ValueError);
  Value shape;
  if (like) {
    if (!size.is(Kind::None)) fail(c.loc, "normal(): size is for a number mean and std only", ErrorClass::TypeError);
    Shape s = mean.is(Kind::Tensor) && stdev.is(Kind::Tensor)
                  ? broadcastShapes(tensorOf(mean).shape(), tensorOf(stdev).shape(), c.loc,
                                    "normal(): mean " + typeString(tensorOf(mean)) + " and std " +
                                        typeString(tensorOf(stdev)) + " do not broadcast")
                  : like->shape();
    shape = intsTuple(std::vector<int64_t>(s.begin(), s.end()));
  } else {
    if (size.is(Kind::None)) fail(c.loc, "normal(): a number mean and std need a size", ErrorClass::TypeError);
    shape = size.isIntLike() ? makeTuple({size}) : size;
  }
  Value dtype = like ? Value::dtype(static_cast<int>(like->dtype())) : Value::none();
  if (dtypeKw && !dtypeKw->is(Kind::None)) dtype = *dtypeKw;
  Value device = like ? Value::str(like->device().name()) : Value::none();
  if (deviceKw && !deviceKw->is(Kind::None)) device = *deviceKw;
  std::vector<Value> params{shape, dtype, device};
  Value drawn = runTensorOp(c.interp, ir::Op::Randn, params, c.loc);
  Value out = binary(c, ir::Op::Add, binary(c, ir::Op::Mul, drawn, stdev), mean);
  return applyOp(c, ir::Op::StopGradient, {out});
}

// A Poisson draw of rate lam >= 0: Knuth's product of uniforms below 10,
// above it Hormann's transformed rejection (PTRS, "The transformed
// rejection method for generating Poisson random variables", 1993), which
// takes about one try whatever the rate.
double poissonDraw(RandomGenerator& rng, double lam) {
  if (lam == 0) return 0;
  if (lam < 10) {
    double limit = std::exp(-lam), product = rng.uniformF64();
    double k = 0;
    while (product > limit) {
      product *= rng.uniformF64();
      k += 1;
    }
    return k;
  }
  double slam = std::sqrt(lam), loglam = std::log(lam);
  double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
  while (true) {
    double u = rng.uniformF64() - 0.5, v = rng.uniformF64(), us = 0.5 - std::abs(u);
    double k = std::floor((2 * a / us + b) * u + lam + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (std::log(v) + std::log(invalpha) - std::log(a / (us * us) + b) <= -lam + k * loglam - std::lgamma(k + 1))
      return k;
  }
}

// poisson(input): a Poisson draw for each rate of input (float, finite, not
// negative), input's dtype and device; drawn on the host in element order,
// no gradient (as PyTorch's).
Value bPoisson(CallContext& c, std::vector<Value>& args) {
  atMost(c, args, 1);
  Value x = argument(c, args, 0, "input", nullptr);
  c.checkKeywordsUsed("poisson");
  const Tensor& t = tensorArg(c, x, "input");
  if (!isFloating(t.dtype()))
    fail(c.loc, "poisson(): expects a float tensor of rates, not " + typeString(t), ErrorClass::TypeError);
  Tensor rates = astype(readableOnHost(t, c.loc), DType::F64).contiguous();
  const double* r = rates.data<double>();
  for (int64_t i = 0; i < rates.numel(); ++i)
    if (!(r[i] >= 0) || !std::isfinite(r[i]))
      fail(c.loc, "poisson(): the rates must be finite and non-negative, not " + repr(Value::real(r[i])),
           ErrorClass::ValueError);
  Tensor drawn = Tensor::empty(DType::F64, rates.shape(), rates.device());
  for (int64_t i = 0; i < rates.numel(); ++i) drawn.data<double>()[i] = poissonDraw(c.interp.rng(), r[i]);
  return makeTensorValue(copyTo(astype(drawn, t.dtype()), t.device(), c.loc));
}

}  // namespace

void addTensorSampling(BuiltinTable& table) {
  using ir::Builtin;
  table[ir::builtinInfo(Builtin::Multinomial).name] = bMultinomial;
  table[ir::builtinInfo(Builtin::RandLike).name] = bRandLike;
  table[ir::builtinInfo(Builtin::RandnLike).name] = bRandLike;
  table[ir::builtinInfo(Builtin::RandintLike).name] = bRandintLike;
  table[ir::builtinInfo(Builtin::Bernoulli).name] = bBernoulli;
  table[ir::builtinInfo(Builtin::Normal).name] = bNormal;
  table[ir::builtinInfo(Builtin::Poisson).name] = bPoisson;
}

}  // namespace nn::stdlib
