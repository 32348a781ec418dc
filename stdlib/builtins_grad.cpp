// The autodiff builtins (language.md §5): grad(f, argnums=0) and
// value_and_grad(f, argnums=0, has_aux=False) return functions that call f
// under a tape (runtime/tape.h) and return its gradients with respect to
// the arguments `argnums` names; vjp(f, *args) calls f at once and returns
// its value and a pullback, a function from a cotangent of the value's
// shape to the cotangents of all the arguments (as JAX's); stop_gradient(x)
// is x with no gradient flowing back through it.
//
// A differentiated argument is a floating tensor, a float, or any nesting
// of tuples, lists and dicts of them; its gradient has the same structure
// (a float's gradient is a float). Inside the call a differentiated float
// is a 0-d f64 tensor, as in JAX.
#include <memory>

#include "runtime/tape.h"
#include "runtime/tensor.h"
#include "runtime/tensor_ops.h"
#include "stdlib/builtins.h"
#include "stdlib/op_call.h"

namespace nn::stdlib {
namespace {

using namespace rt;

// What a grad-function closes over, held as its method receiver.
enum Flavour : int64_t { kGrad = 0, kValueAndGrad = 1 };

// The tape active for the lifetime of this object, the previous one after.
class ActiveTape {
 public:
  ActiveTape(Interpreter& interp, Tape* tape) : interp_(interp), previous_(interp.tape()) { interp.setTape(tape); }
  ~ActiveTape() { interp_.setTape(previous_); }
  ActiveTape(const ActiveTape&) = delete;
  ActiveTape& operator=(const ActiveTape&) = delete;

 private:
  Interpreter& interp_;
  Tape* previous_;
};

// `v` with each leaf (anything but a tuple, list or dict) replaced by
// leaf(it), in order, and the structure kept.
template <class F>
Value mapLeaves(const Value& v, F& leaf) {
  switch (v.kind()) {
    case Kind::Tuple:
    case Kind::List: {
      std::vector<Value> items;
      for (const Value& item : v.as<SeqObj>().items) items.push_back(mapLeaves(item, leaf));
      return v.is(Kind::Tuple) ? makeTuple(std::move(items)) : makeList(std::move(items));
    }
    case Kind::Dict: {
      Value out = makeDict();
      for (const auto& [key, item] : v.as<DictObj>().items) out.as<DictObj>().set(key, mapLeaves(item, leaf));
      return out;
    }
    default: return leaf(v);
  }
}

// The differentiated arguments' leaves, watched on a tape, and how to put
// their gradients back into the arguments' structure.
class Leaves {
 public:
  Leaves(CallContext& c, Tape& tape) : c_(c), tape_(tape) {}

  // `v` with its leaves watched.
  Value watch(const Value& v, size_t argnum) {
    auto leaf = [&](const Value& x) -> Value {
      std::string arg = "grad: argument " + std::to_string(argnum);
      switch (x.kind()) {
        case Kind::Tensor:
          if (!isFloating(tensorOf(x).dtype()))
            fail(c_.loc, arg + " is an integer tensor (" + typeString(tensorOf(x)) +
                             "): only floating-point values can be differentiated");
          return tape_.watch(x);
        case Kind::Float:
          return tape_.watch(makeTensorValue(fullLike(DType::F64, {}, x.asFloat(), c_.interp.context().cpu())));
        case Kind::None: return x;  // an empty subtree, as in JAX: its gradient is None
        case Kind::Int:
        case Kind::Bool:
          fail(c_.loc, arg + " is " + (x.is(Kind::Bool) ? "a bool" : "an int") +
                           ": only floating-point values can be differentiated (pass " +
                           (x.is(Kind::Bool) ? "a float" : std::to_string(x.asInt()) + ".0") + ")");
        default:
          fail(c_.loc, arg + " contains a " + typeName(x) +
                           ": only floating-point tensors and floats (in tuples, lists and dicts, beside Nones) can be "
                           "differentiated");
      }
    };
    return mapLeaves(v, leaf);
  }

  // The gradients (in watch order, from `next`) in the structure of `v`.
  Value rebuild(const Value& v, const std::vector<Value>& grads, size_t& next) {
    auto leaf = [&](const Value& x) -> Value {
      if (x.is(Kind::None)) return x;
      if (x.is(Kind::Tensor)) return grads[next++];
      return Value::real(item(tensorOf(grads[next++]), c_.loc).asFloat());  // a float: watch() took nothing else
    };
    return mapLeaves(v, leaf);
  }

 private:
  CallContext& c_;
  Tape& tape_;
};

// Calls the function a grad-function wraps: args[0] is its receiver
// (f, argnums, has_aux, flavour), the rest f's arguments.
Value callGradFunction(CallContext& c, std::vector<Value>& args) {
  const std::vector<Value>& self = args[0].as<SeqObj>().items;
  const Value& f = self[0];
  const Value& argnums = self[1];
  bool hasAux = self[2].asBool();
  auto flavour = static_cast<Flavour>(self[3].asInt());
  std::vector<Value> callArgs(args.begin() + 1, args.end());
  // Which positional arguments, and whether the answer is a tuple.
  std::vector<int64_t> which;
  bool many = argnums.is(Kind::Tuple) || argnums.is(Kind::List);
  if (many) {
    for (const Value& a : argnums.as<SeqObj>().items) which.push_back(a.asInt());
  } else {
    which.push_back(argnums.asInt());
  }
  int64_t n = static_cast<int64_t>(callArgs.size());
  for (int64_t& a : which) {
    if (a < -n || a >= n)
      fail(c.loc, "grad: argnums " + std::to_string(a) + " is out of range for a call with " + std::to_string(n) +
                      " positional argument" + (n == 1 ? "" : "s"));
    if (a < 0) a += n;
  }
  // Graph mode differentiates the function's IR (passes/autodiff.cpp)
  // where it can; the tape does the rest.
  GradientSpec spec;
  for (int64_t a : which) spec.argnums.push_back(static_cast<size_t>(a));
  spec.tuple = many;
  spec.hasAux = hasAux;
  spec.withValue = flavour == kValueAndGrad;
  if (std::optional<Value> r = c.interp.callGradient(f, callArgs, c.kwnames, c.kwargs, spec, c.loc)) {
    c.markAllUsed();  // f took the keyword arguments
    return *r;
  }
  Tape tape(c.interp, c.interp.tape(), c.loc);
  Leaves leaves(c, tape);
  std::vector<Value> original;
  for (int64_t a : which) {
    original.push_back(callArgs[static_cast<size_t>(a)]);
    callArgs[static_cast<size_t>(a)] = leaves.watch(callArgs[static_cast<size_t>(a)], static_cast<size_t>(a));
  }
  Value result;
  {
    ActiveTape active(c.interp, &tape);
    result = c.interp.call(f, std::move(callArgs), c.kwnames, c.kwargs, c.loc);
  }
  c.markAllUsed();  // f took the keyword arguments
  Value loss = result, aux;
  if (hasAux) {
    if (!result.is(Kind::Tuple) || result.as<SeqObj>().items.size() != 2)
      fail(c.loc, "value_and_grad(has_aux=True): the function must return a pair (loss, aux), not " +
                      std::string(typeName(result)));
    loss = result.as<SeqObj>().items[0];
    aux = result.as<SeqObj>().items[1];
  }
  bool scalar = loss.is(Kind::Float) || loss.is(Kind::Int) ||
                (loss.is(Kind::Tensor) && tensorOf(loss).ndim() == 0 && isFloating(tensorOf(loss).dtype()));
  if (!scalar) {
    std::string got = loss.is(Kind::Tensor) ? typeString(tensorOf(loss)) : std::string(typeName(loss));
    fail(c.loc, "grad: the function must return a scalar (a float or a 0-d floating tensor) to differentiate, not " +
                    got);
  }
  std::vector<Value> grads = tape.gradients(loss);
  std::vector<Value> perArg;
  size_t next = 0;
  for (const Value& arg : original) perArg.push_back(leaves.rebuild(arg, grads, next));
  Value g = many ? makeTuple(std::move(perArg)) : perArg[0];
  if (flavour == kGrad) return g;
  return makeTuple({hasAux ? makeTuple({loss, aux}) : loss, g});
}

Value makeGradFunction(CallContext& c, std::vector<Value>& args, Flavour flavour) {
  if (args.empty()) fail(c.loc, c.name + "() missing required argument 'f'");
  if (args.size() > 2) fail(c.loc, c.name + "() takes at most 2 positional arguments");
  const Value& f = args[0];
  if (!f.is(Kind::Function) && !f.is(Kind::Builtin) && !f.is(Kind::Method))
    fail(c.loc, c.name + "() expects a function to differentiate, not " + std::string(typeName(f)));
  Value argnums = args.size() > 1 ? args[1] : Value::integer(0);
  if (const Value* a = c.kw("argnums")) argnums = *a;
  bool hasAux = false;
  if (flavour == kValueAndGrad)
    if (const Value* a = c.kw("has_aux")) hasAux = a->asBool();
  bool ok = argnums.is(Kind::Int);
  if (argnums.is(Kind::Tuple) || argnums.is(Kind::List)) {
    ok = !argnums.as<SeqObj>().items.empty();
    for (const Value& a : argnums.as<SeqObj>().items) ok &= a.is(Kind::Int);
  }
  if (!ok) fail(c.loc, c.name + "(): argnums must be an int or a non-empty tuple of ints, not " + repr(argnums));
  auto m = std::make_shared<MethodObj>();
  m->self = makeTuple({f, argnums, Value::boolean(hasAux), Value::integer(flavour)});
  m->name = c.name;
  m->fn = callGradFunction;
  return Value::object(Kind::Method, std::move(m));
}

// A pullback's receiver: (value, arguments...), and the tape that ran f.
struct PullbackObj : SeqObj {
  std::shared_ptr<Tape> tape;
};

Value callPullback(CallContext& c, std::vector<Value>& args) {
  if (args.size() != 2) fail(c.loc, "pullback() takes 1 argument (a cotangent of the value's shape)");
  auto& self = static_cast<PullbackObj&>(args[0].as<SeqObj>());
  const Value& out = self.items[0];
  Value cotangent = args[1];
  if (out.is(Kind::Tensor)) {
    const Tensor& o = tensorOf(out);
    if (cotangent.isNumber() && o.ndim() == 0)
      cotangent = makeTensorValue(fullLike(o.dtype(), {}, cotangent.asFloat(), o.device()));
    if (!cotangent.is(Kind::Tensor) || tensorOf(cotangent).shape() != o.shape())
      fail(c.loc, "pullback(): the cotangent must have the value's shape " + typeString(o) + ", not " +
                      (cotangent.is(Kind::Tensor) ? typeString(tensorOf(cotangent)) : std::string(typeName(cotangent))));
    // Converted as an op on the tape (a pullback called under another
    // tape differentiates in its cotangent: jvp's double-vjp), and only
    // where the dtype differs, so that a tracked cotangent stays itself.
    if (tensorOf(cotangent).dtype() != o.dtype())
      cotangent = applyOp(c, ir::Op::AsType, {cotangent, Value::dtype(static_cast<int>(o.dtype()))});
  }
  std::vector<Value> grads = self.tape->gradients(out, cotangent, false);
  Leaves leaves(c, *self.tape);
  std::vector<Value> perArg;
  size_t next = 0;
  for (size_t i = 1; i < self.items.size(); ++i) perArg.push_back(leaves.rebuild(self.items[i], grads, next));
  return makeTuple(std::move(perArg));
}

Value bVjp(CallContext& c, std::vector<Value>& args) {
  if (args.empty()) fail(c.loc, "vjp() missing required argument 'f'");
  const Value& f = args[0];
  if (!f.is(Kind::Function) && !f.is(Kind::Builtin) && !f.is(Kind::Method))
    fail(c.loc, "vjp() expects a function to differentiate, not " + std::string(typeName(f)));
  auto tape = std::make_shared<Tape>(c.interp, c.interp.tape(), c.loc);
  Leaves leaves(c, *tape);
  std::vector<Value> primals(args.begin() + 1, args.end()), watched;
  for (size_t i = 0; i < primals.size(); ++i) watched.push_back(leaves.watch(primals[i], i));
  Value out;
  {
    ActiveTape active(c.interp, tape.get());
    out = c.interp.call(f, std::move(watched), c.loc);
  }
  tape->detach();
  bool differentiable = out.is(Kind::Float) || (out.is(Kind::Tensor) && isFloating(tensorOf(out).dtype()));
  if (!differentiable)
    fail(c.loc, "vjp: the function must return a floating tensor or a float, not " +
                    (out.is(Kind::Tensor) ? typeString(tensorOf(out)) : std::string(typeName(out))));
  auto self = std::make_shared<PullbackObj>();
  self->items.push_back(out);
  for (const Value& p : primals) self->items.push_back(p);
  self->tape = std::move(tape);
  auto pullback = std::make_shared<MethodObj>();
  pullback->self = Value::object(Kind::Tuple, std::move(self));
  pullback->name = "pullback";
  pullback->fn = callPullback;
  return makeTuple({out, Value::object(Kind::Method, std::move(pullback))});
}

Value bGrad(CallContext& c, std::vector<Value>& args) { return makeGradFunction(c, args, kGrad); }
Value bValueAndGrad(CallContext& c, std::vector<Value>& args) { return makeGradFunction(c, args, kValueAndGrad); }

// A tensor with the same elements and an identity no tape tracks; the
// same through tuples, lists and dicts; anything else as it is.
Value detached(const Value& v) {
  auto leaf = [](const Value& x) { return x.is(Kind::Tensor) ? makeTensorValue(tensorOf(x)) : x; };
  return mapLeaves(v, leaf);
}

Value bStopGradient(CallContext& c, std::vector<Value>& args) {
  checkArity(c, args, 1, 1);
  return detached(args[0]);
}

}  // namespace

void addGradBuiltins(BuiltinTable& table) {
  table["grad"] = bGrad;
  table["value_and_grad"] = bValueAndGrad;
  table["stop_gradient"] = bStopGradient;
  table["vjp"] = bVjp;
}

}  // namespace nn::stdlib
