// The one execute entry of the tensor ops that are not value ops
// (runtime/value_op.h): creation, reductions, shape functions, the NN ops
// and losses. Each op's implementation takes its arguments bound to the
// op's signature in ops.def — one value per parameter, defaults filled in
// — so the parameters, their order and their defaults are declared once.
// Three paths reach it: an op node (the interpreter and the graph executor
// pass its operands and attributes, State::runTensorOp), a call of the
// op's builtin (bound here by Python's rules: positional arguments in
// order, the rest into a `*name` parameter, keywords by name), and a
// tensor method (x.sum(axis=1) binds as sum(x, axis=1)).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "ir/op_signature.h"
#include "runtime/interpreter.h"
#include "runtime/tensor.h"

namespace nn::stdlib {

// The arguments of one tensor op, bound to its signature.
class OpCall {
 public:
  OpCall(rt::Interpreter& interp, ir::Op op, SourceLoc loc, std::vector<rt::Value>& params)
      : interp(interp), op(op), loc(loc), name(ir::opInfo(op).name), sig_(ir::signatureOf(op)), params_(params) {}

  rt::Interpreter& interp;
  ir::Op op;
  SourceLoc loc;
  const char* name;

  // Parameter `param`'s value.
  rt::Value& operator[](std::string_view param);
  // The value of the parameter at `index` in the signature's order.
  rt::Value& at(size_t index) { return params_.at(index); }
  bool isNone(std::string_view param) { return (*this)[param].is(rt::Kind::None); }
  // The parameter as a tensor (a located error names the parameter).
  const rt::Tensor& tensor(std::string_view param);
  // A tensor, or null for None.
  const rt::Tensor* optionalTensor(std::string_view param);
  int64_t integer(std::string_view param);
  double number(std::string_view param);
  const std::string& text(std::string_view param);
  bool flag(std::string_view param);
  // A dtype (f32, float, "f32"), nullopt for None.
  std::optional<rt::DType> dtype(std::string_view param);
  // An int or a sequence of ints; empty for None.
  std::vector<int64_t> ints(std::string_view param);
  // Fails at the call: "NAME(): message".
  [[noreturn]] void fail(const std::string& message) const;

 private:
  const ir::Signature& sig_;
  std::vector<rt::Value>& params_;
};

using TensorOpFn = rt::Value (*)(OpCall&);

// The ops named after PyTorch's, and layer_norm (pytorch_op_impls.cpp).
rt::Value normOp(OpCall& c);
rt::Value repeatOp(OpCall& c);
rt::Value diagOp(OpCall& c);
rt::Value flipOp(OpCall& c);
rt::Value rollOp(OpCall& c);
rt::Value nonzeroOp(OpCall& c);
rt::Value embeddingOp(OpCall& c);
rt::Value conv1dOp(OpCall& c);
rt::Value interpolateOp(OpCall& c);
rt::Value interpolateGradOp(OpCall& c);
rt::Value layerNormOp(OpCall& c);
rt::Value layerNormGradOp(OpCall& c);
// grid_sample and its gradients (grid_sample.cpp).
rt::Value gridSampleOp(OpCall& c);
rt::Value gridSampleGradOp(OpCall& c);
// ctc_loss and its gradient (ctc_loss.cpp).
rt::Value ctcLossOp(OpCall& c);
rt::Value ctcLossGradOp(OpCall& c);

// The implementation of tensor op `op` (null for value ops, which run
// through runValueOp, and for ops without one).
TensorOpFn tensorOpImpl(ir::Op op);

// Runs `op` on its bound parameters.
rt::Value runTensorOp(rt::Interpreter& interp, ir::Op op, std::vector<rt::Value>& params, SourceLoc loc);
// Binds a call's arguments (`args`, and the context's keywords) to `op`'s
// signature and runs it.
rt::Value callTensorOp(rt::CallContext& c, ir::Op op, std::vector<rt::Value>& args);
// The tuple of ints `v`, as an op's ints parameter takes them (a shape, a
// permutation, axes).
rt::Value intsTuple(const std::vector<int64_t>& v);
// x[key], recorded on the tape as that indexing (so that it
// differentiates); and x[(:,) * dim + (index,)], x indexed along one dim.
rt::Value getItemOnTape(rt::CallContext& c, const rt::Value& x, const rt::Value& key);
// t, the result of `op` on params computed together with others of one
// decomposition (svd's parts, lu's factors and pivots), recorded on a tape
// as that op, so that it differentiates as the op does.
rt::Value recordedOp(rt::CallContext& c, ir::Op op, const std::vector<rt::Value>& params, rt::Tensor t);
rt::Value indexAlong(rt::CallContext& c, const rt::Value& x, int64_t dim, rt::Value index);
// Tensor op `op` on its parameters (all of them, in its signature's
// order); a op b (arithmetic, `@` or a comparison); where(cond, a, b):
// each recorded on the tape, so that a builtin composed of them
// differentiates as they do.
rt::Value applyOp(rt::CallContext& c, ir::Op op, std::vector<rt::Value> params);
rt::Value binary(rt::CallContext& c, ir::Op op, const rt::Value& a, const rt::Value& b);
rt::Value where(rt::CallContext& c, const rt::Value& cond, const rt::Value& a, const rt::Value& b);
// A builtin's argument: positional argument `at`, or keyword `name`
// (declared in builtins.def for the parameters with defaults; the others
// are positional), or `fallback` (null: required); and the check that at
// most `count` came positionally.
rt::Value argument(rt::CallContext& c, const std::vector<rt::Value>& args, size_t at, const char* name,
                   const rt::Value* fallback);
void atMost(rt::CallContext& c, const std::vector<rt::Value>& args, size_t count);
// v as a tensor, else the builtin's located TypeError naming it (`what`).
const rt::Tensor& tensorArg(rt::CallContext& c, const rt::Value& v, const char* what);
// The i64 tensor of `items` in `shape`, made on the host and copied to
// `device`.
rt::Value i64Tensor(rt::CallContext& c, const std::vector<int64_t>& items, const rt::Shape& shape, rt::Device& device);
// Each entry of the integer tensor `index` (read on the host) within
// [0, n), or [-n, n) with fromEnd; else the builtin's located IndexError
// "NAME(): index K is out of range for " + `range`.
void checkIndexEntries(rt::CallContext& c, const rt::Tensor& index, int64_t n, bool fromEnd, const std::string& range);
// The dtype a value names: a dtype, the builtins bool, int (i64) and
// float (f32), or a dtype's name; nullopt for anything else.
std::optional<rt::DType> dtypeOfValue(const rt::Value& v);
// A builtin's bool argument `what`, else its located TypeError.
bool flagArg(rt::CallContext& c, const rt::Value& v, const char* what);
// x reshaped to `shape`, on the tape.
rt::Value reshaped(rt::CallContext& c, const rt::Value& x, const std::vector<int64_t>& shape);
// The dim argument v (an int, `what` in the TypeError) of a tensor of
// `ndim` dims, counted from the end when negative (a located error when
// out of range).
int64_t dimArg(rt::CallContext& c, const rt::Value& v, int64_t ndim, const char* what);

}  // namespace nn::stdlib
