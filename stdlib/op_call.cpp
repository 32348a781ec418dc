// Binding a tensor op's call to its signature, and reading the bound
// parameters (see op_call.h). Which argument fills which parameter is
// ir::matchArguments' answer, as in the compiler (ir/op_args.cpp); a call
// it could not bind is reported here.
#include "stdlib/op_call.h"

#include <algorithm>

#include "runtime/device.h"
#include "runtime/device_align.h"
#include "runtime/scalar_ops.h"
#include "runtime/tape.h"
#include "runtime/tensor_ops.h"
#include "runtime/value_op.h"
#include "stdlib/builtins.h"
#include "support/suggest.h"

namespace nn::stdlib {

using namespace nn::rt;

namespace {

// How many positional arguments `sig` takes ("from 1 to 3", "at least 1").
std::string positionalRange(const ir::Signature& sig) {
  size_t min = 0, max = 0;
  for (const ir::Param& p : sig.params) {
    if (p.variadic) return "at least " + std::to_string(min);
    if (!p.defaultValue) ++min;
    ++max;
  }
  return min == max ? std::to_string(min) : "from " + std::to_string(min) + " to " + std::to_string(max);
}

}  // namespace

Value& OpCall::operator[](std::string_view param) {
  int i = sig_.find(param);
  // The implementations name their own signature's parameters.
  if (i < 0) nn::fail(loc, std::string("internal error: ") + name + " has no parameter '" + std::string(param) + "'");
  // Callers pass every parameter, defaults included.
  if (static_cast<size_t>(i) >= params_.size())
    nn::fail(loc,
             std::string("internal error: ") + name + " was called without its parameter '" + std::string(param) + "'");
  return params_[static_cast<size_t>(i)];
}

void OpCall::fail(const std::string& message) const { nn::fail(loc, std::string(name) + "(): " + message); }

const Tensor& OpCall::tensor(std::string_view param) {
  const Value& v = (*this)[param];
  if (!v.is(Kind::Tensor)) fail("argument '" + std::string(param) + "' must be a Tensor, not " + typeName(v));
  return tensorOf(v);
}

const Tensor* OpCall::optionalTensor(std::string_view param) { return isNone(param) ? nullptr : &tensor(param); }

int64_t OpCall::integer(std::string_view param) {
  const Value& v = (*this)[param];
  if (!v.isIntLike()) fail(std::string(param) + " must be an int, not " + typeName(v));
  return v.asInt();
}

const std::string& OpCall::text(std::string_view param) {
  const Value& v = (*this)[param];
  if (!v.is(Kind::Str)) fail(std::string(param) + " must be a str, not " + typeName(v));
  return v.asStr();
}

double OpCall::number(std::string_view param) {
  const Value& v = (*this)[param];
  if (!v.isNumber()) fail(std::string(param) + " must be a number, not " + typeName(v));
  return v.asFloat();
}

bool OpCall::flag(std::string_view param) { return truthy((*this)[param], loc); }

std::optional<DType> dtypeOfValue(const Value& v) {
  if (v.is(Kind::DType)) return static_cast<DType>(v.asInt());
  if (v.is(Kind::Builtin)) {
    const std::string& n = v.as<BuiltinObj>().name;
    if (n == "bool") return DType::Bool;
    if (n == "int") return DType::I64;
    if (n == "float") return DType::F32;
  }
  if (v.is(Kind::Str)) return dtypeFromName(v.asStr());
  return std::nullopt;
}

std::optional<DType> OpCall::dtype(std::string_view param) {
  const Value& v = (*this)[param];
  if (v.is(Kind::None)) return std::nullopt;
  if (std::optional<DType> d = dtypeOfValue(v)) return d;
  nn::fail(loc, std::string("dtype must be one of f32, f64, i32, i64, bool, not ") + repr(v));
}

std::vector<int64_t> OpCall::ints(std::string_view param) {
  const Value& v = (*this)[param];
  if (v.is(Kind::None)) return {};
  if (v.isIntLike()) return {v.asInt()};
  if (!v.is(Kind::Tuple) && !v.is(Kind::List))
    fail(std::string(param) + " must be an int or a tuple of ints, not " + typeName(v));
  std::vector<int64_t> out;
  for (const Value& d : v.as<SeqObj>().items) {
    if (!d.isIntLike()) fail(std::string(param) + " must contain integers, not " + typeName(d));
    out.push_back(d.asInt());
  }
  return out;
}

Value runTensorOp(Interpreter& interp, ir::Op op, std::vector<Value>& params, SourceLoc loc) {
  TensorOpFn fn = tensorOpImpl(op);
  if (!fn) nn::fail(loc, std::string("internal error: ") + ir::opInfo(op).name + " has no implementation");
  // Tensor operands on several devices: copies (on the tape) onto the one
  // the op runs on, as for the value ops (Interpreter::simpleOp).
  alignOperandDevices(op, params, [&](const Value& x, Device& to) {
    std::vector<Value> p{x, Value::str(to.name())};
    return runTensorOp(interp, ir::Op::ToDevice, p, loc);
  });
  rt::Tape* tape = interp.tape();
  std::vector<Value> in;
  if (tape) in = params;  // the implementation may take its arguments
  OpCall call(interp, op, loc, params);
  Value out = fn(call);
  if (tape) tape->recordTensorOp(op, loc, in, out);
  return out;
}

Value intsTuple(const std::vector<int64_t>& v) {
  std::vector<Value> items;
  for (int64_t i : v) items.push_back(Value::integer(i));
  return makeTuple(std::move(items));
}

Value recordedOp(CallContext& c, ir::Op op, const std::vector<Value>& params, Tensor t) {
  Value v = makeTensorValue(std::move(t));
  if (rt::Tape* tape = c.interp.tape()) tape->recordTensorOp(op, c.loc, params, v);
  return v;
}

Value getItemOnTape(CallContext& c, const Value& x, const Value& key) {
  Value out = getItem(x, key, c.loc);
  if (rt::Tape* tape = c.interp.tape()) tape->recordOp(ir::Op::GetItem, c.loc, {x, key}, out);
  return out;
}

Value indexAlong(CallContext& c, const Value& x, int64_t dim, Value index) {
  std::vector<Value> items(static_cast<size_t>(dim), makeSlice(Value::none(), Value::none(), Value::none()));
  items.push_back(std::move(index));
  return getItemOnTape(c, x, makeTuple(std::move(items)));
}

Value callTensorOp(CallContext& c, ir::Op op, std::vector<Value>& args) {
  const ir::Signature& sig = ir::signatureOf(op);
  // The common call, f(x) of an op of one parameter (sqrt, isnan, relu):
  // the argument is the parameter list as it is.
  if (sig.params.size() == 1 && args.size() == 1 && c.kwnames.empty() && !sig.params[0].variadic)
    return runTensorOp(c.interp, op, args, c.loc);
  ir::ArgMatch m = ir::matchArguments(sig, args.size(), c.kwnames);
  switch (m.error) {
    case ir::ArgMatch::Error::None: break;
    case ir::ArgMatch::Error::TooManyPositional:
      fail(c.loc, positionalCountMessage(c.name, positionalRange(sig), args.size()));
    case ir::ArgMatch::Error::UnexpectedKeyword: {
      std::vector<std::string> names;
      for (const ir::Param& p : sig.params)
        if (!p.variadic) names.push_back(p.name);
      fail(c.loc, c.name + "() got an unexpected keyword argument '" + m.name + "'" + didYouMean(m.name, names));
    }
    case ir::ArgMatch::Error::DuplicateKeyword:
      fail(c.loc, c.name + "() got multiple values for argument '" + m.name + "'");
    case ir::ArgMatch::Error::MissingArgument: fail(c.loc, c.name + "() missing required argument '" + m.name + "'");
  }
  c.markAllUsed();  // each keyword names a parameter
  std::vector<Value> params(sig.params.size());
  for (size_t i = 0; i < sig.params.size(); ++i) {
    const ir::ArgSource& src = m.sources[i];
    switch (src.kind) {
      case ir::ArgSource::Positional: params[i] = std::move(args[src.index]); break;
      case ir::ArgSource::Keyword: {
        // A variadic parameter by keyword (permute(x, dims=(1, 0))) as
        // the same sequence given positionally; dims=1 as (1,).
        Value v = std::move(c.kwargs[src.index]);
        bool sequence = v.is(Kind::Tuple) || v.is(Kind::List);
        params[i] = sig.params[i].variadic && !sequence ? makeTuple({v}) : v;
        break;
      }
      case ir::ArgSource::Rest: {
        // zeros(2, 3), zeros((2, 3)) and zeros([2, 3]) alike.
        std::vector<Value> rest(std::make_move_iterator(args.begin() + static_cast<std::ptrdiff_t>(src.index)),
                                std::make_move_iterator(args.end()));
        bool one = rest.size() == 1 && (rest[0].is(Kind::Tuple) || rest[0].is(Kind::List));
        params[i] = one ? rest[0] : makeTuple(std::move(rest));
        break;
      }
      case ir::ArgSource::Default:
        params[i] = sig.params[i].variadic ? makeTuple({}) : attrValue(*sig.params[i].defaultValue);
        break;
    }
  }
  return runTensorOp(c.interp, op, params, c.loc);
}

Value argument(CallContext& c, const std::vector<Value>& args, size_t at, const char* name, const Value* fallback) {
  const Value* kw = c.kw(name);
  if (kw && args.size() > at)
    fail(c.loc, c.name + "() got multiple values for argument '" + name + "'", ErrorClass::TypeError);
  if (kw) return *kw;
  if (args.size() > at) return args[at];
  if (!fallback) fail(c.loc, c.name + "() missing required argument '" + name + "'", ErrorClass::TypeError);
  return *fallback;
}

const Tensor& tensorArg(CallContext& c, const Value& v, const char* what) {
  if (!v.is(Kind::Tensor))
    fail(c.loc, c.name + "(): " + what + " must be a Tensor, not " + typeName(v), ErrorClass::TypeError);
  return tensorOf(v);
}

Value i64Tensor(CallContext& c, const std::vector<int64_t>& items, const Shape& shape, Device& device) {
  Tensor t = Tensor::empty(DType::I64, shape, c.interp.context().cpu());
  std::copy(items.begin(), items.end(), t.data<int64_t>());
  return makeTensorValue(copyTo(t, device, c.loc));
}

void checkIndexEntries(CallContext& c, const Tensor& index, int64_t n, bool fromEnd, const std::string& range) {
  Tensor positions = readableOnHost(index, c.loc);
  for (int64_t k = 0; k < positions.numel(); ++k) {
    int64_t at = positions.flatAsInt(k);
    if (at < (fromEnd ? -n : 0) || at >= n)
      fail(c.loc, c.name + "(): index " + std::to_string(at) + " is out of range for " + range,
           ErrorClass::IndexError);
  }
}

bool flagArg(CallContext& c, const Value& v, const char* what) {
  if (!v.is(Kind::Bool))
    fail(c.loc, c.name + "(): " + what + " must be a bool, not " + typeName(v), ErrorClass::TypeError);
  return v.asBool();
}

Value reshaped(CallContext& c, const Value& x, const std::vector<int64_t>& shape) {
  return applyOp(c, ir::Op::Reshape, {x, intsTuple(shape)});
}

int64_t dimArg(CallContext& c, const Value& v, int64_t ndim, const char* what) {
  if (!v.isIntLike())
    fail(c.loc, c.name + "(): " + what + " must be an int, not " + typeName(v), ErrorClass::TypeError);
  return normalizeAxis(v.asInt(), static_cast<int>(ndim), c.loc, c.name.c_str());
}

void atMost(CallContext& c, const std::vector<Value>& args, size_t count) {
  if (args.size() > count)
    fail(c.loc, c.name + "() takes at most " + std::to_string(count) + " arguments (" + std::to_string(args.size()) +
                    " given)",
         ErrorClass::TypeError);
}

Value applyOp(CallContext& c, ir::Op op, std::vector<Value> params) {
  return runTensorOp(c.interp, op, params, c.loc);
}

Value binary(CallContext& c, ir::Op op, const Value& a, const Value& b) {
  bool comparison = op == ir::Op::Ne || op == ir::Op::Eq || op == ir::Op::Lt || op == ir::Op::Le ||
                    op == ir::Op::Gt || op == ir::Op::Ge;
  Value out = comparison ? compareOp(op, a, b, c.loc) : binaryOp(op, a, b, c.loc);
  if (Tape* tape = c.interp.tape()) tape->recordOp(op, c.loc, {a, b}, out);
  return out;
}

Value where(CallContext& c, const Value& cond, const Value& a, const Value& b) {
  Value out = whereOp(cond, a, b, c.loc);
  if (Tape* tape = c.interp.tape()) tape->recordOp(ir::Op::Where, c.loc, {cond, a, b}, out);
  return out;
}

}  // namespace nn::stdlib
