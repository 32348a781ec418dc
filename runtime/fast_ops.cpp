// Pre-resolved elementwise ops (see fast_ops.h).
#include "runtime/fast_ops.h"

#include "runtime/device.h"
#include "runtime/dispatch.h"
#include "runtime/nn_ops.h"
#include "runtime/tensor_ops.h"

namespace nn::rt {
namespace {

using ir::Op;

std::optional<Shape> knownShape(const ir::Type& t) {
  if (!t.isTensor() || !t.dtype || !t.shape) return std::nullopt;
  Shape s;
  for (const ir::Dim& d : *t.shape) {
    if (!d.isKnown()) return std::nullopt;
    s.push_back(d.size);
  }
  return s;
}

// A literal operand as a tensor of the result shape: one element
// broadcast with stride 0, as eager mode makes it (its element lives
// inside the tensor's storage, so the plan holds no device memory; the
// kernels loop over a single-value operand as fast as over a contiguous
// one).
std::optional<Tensor> constantOperand(const ir::Value* v, DType dtype, const Shape& shape, Device& device) {
  const ir::Node* d = v->def();
  if (!d || d->op() != Op::Const) return std::nullopt;
  const ir::Attr* a = d->attr("value");
  double x;
  ScalarKind kind;
  if (auto* i = std::get_if<int64_t>(a)) x = static_cast<double>(*i), kind = ScalarKind::Int;
  else if (auto* f = std::get_if<double>(a)) x = *f, kind = ScalarKind::Float;
  else return std::nullopt;
  if (promoteWithScalar(dtype, kind) != dtype) return std::nullopt;
  if (kind == ScalarKind::Int && static_cast<double>(static_cast<int64_t>(x)) != x) return std::nullopt;
  return broadcastTo(fullLike(dtype, {}, x, device), shape, {});
}

}  // namespace

// A full reduction: sum or mean with axis None and keepdims false.
std::unique_ptr<FastOp> compileReduction(const ir::Node& n, Device& device) {
  Op op = n.op();
  if (!ir::reducesWhole(n)) return nullptr;
  const ir::Type& t = n.operand(0)->type();
  auto shape = knownShape(t);
  if (!shape || !isFloating(*t.dtype)) return nullptr;
  auto f = std::make_unique<FastOp>();
  f->device = &device;
  f->in = f->out = *t.dtype;
  f->shape = *shape;
  f->reduction = op == Op::Sum ? Reduction::Sum : Reduction::Mean;
  f->name = ir::opInfo(op).name;
  return f;
}

std::unique_ptr<FastOp> compileMatmul(const ir::Node& n, Device& device) {
  const ir::Type &a = n.operand(0)->type(), &b = n.operand(1)->type();
  auto sa = knownShape(a), sb = knownShape(b);
  if (!sa || !sb || *a.dtype != *b.dtype || !knownShape(n.result(0)->type())) return nullptr;
  auto f = std::make_unique<FastOp>();
  f->matmul = true;
  f->device = &device;
  f->in = f->out = *a.dtype;
  f->shape = *sa;
  f->shapeB = *sb;
  return f;
}

// linear(x, w) or linear(x, w, b) of f32 tensors of known shapes.
std::unique_ptr<FastOp> compileLinear(const ir::Node& n, Device& device) {
  size_t operands = n.operands().size();
  if (operands < 2 || operands > 3 || !knownShape(n.result(0)->type())) return nullptr;
  auto f = std::make_unique<FastOp>();
  Shape* shapes[] = {&f->shape, &f->shapeB, &f->shapeBias};
  for (size_t i = 0; i < operands; ++i) {
    const ir::Type& t = n.operand(i)->type();
    auto s = knownShape(t);
    if (!s || *t.dtype != DType::F32) return nullptr;
    *shapes[i] = *s;
  }
  f->linear = true;
  f->bias = operands == 3;
  f->device = &device;
  return f;
}

std::unique_ptr<FastOp> compileFastOp(const ir::Node& n, Device& device, const std::function<jit::Engine*()>& jit) {
  Op op = n.op();
  if (n.numResults() != 1 && op != Op::Fused) return nullptr;
  if (op == Op::Sum || op == Op::Mean) return compileReduction(n, device);
  if (op == Op::MatMul) return compileMatmul(n, device);
  if (op == Op::Linear) return compileLinear(n, device);
  auto shape = knownShape(n.result(0)->type());
  if (op == Op::Fused) {
    jit::Engine* engine = jit ? jit() : nullptr;
    if (!engine) return nullptr;
    auto f = std::make_unique<FastOp>();
    f->device = &device;
    f->jit = engine;
    // Untyped ops: specialised per run-time operands (fused_dynamic.cpp).
    f->dynamic = !shape;
    if (f->dynamic) return f;
    f->out = *n.result(0)->type().dtype;
    f->shape = *shape;
    const ir::Node* last = ir::trailingReduction(n);
    auto chain = last ? knownShape(last->operand(0)->type()) : shape;
    f->elementsPerRun = 1;
    for (int64_t d : chain ? *chain : *shape) f->elementsPerRun *= d;
    for (const ir::Value* v : n.operands()) {
      FastOp::FusedOperand o;
      o.slot = v->id();
      o.kind = v->type().kind;
      if (v->type().isTensor()) {
        auto s = knownShape(v->type());
        if (!s || !v->type().dtype) return nullptr;
        o.dtype = *v->type().dtype;
        o.shape = *s;
      }
      f->fusedOperands.push_back(std::move(o));
    }
    for (size_t k = 0; k < n.numResults(); ++k) {
      const ir::Value* r = n.result(k);
      if (!r->type().dtype || knownShape(r->type()) != shape) return nullptr;
      f->fusedResults.push_back({r->id(), *r->type().dtype});
    }
    return f;
  }
  if (!shape) return nullptr;
  auto f = std::make_unique<FastOp>();
  f->shape = *shape;
  f->out = *n.result(0)->type().dtype;
  // Planned for the state's CPU device; an operand on another device takes
  // the generic path (runFastOp checks).
  f->device = &device;
  const KernelTable& reg = f->device->kernels();
  bool binary = op == Op::Add || op == Op::Sub || op == Op::Mul || op == Op::Div || ir::isComparison(op) ||
                op == Op::Maximum || op == Op::Minimum;
  if (binary && n.operands().size() == 2) {
    // The operands' common dtype, from the tensor operands.
    std::optional<DType> dt;
    for (const ir::Value* v : n.operands())
      if (v->type().isTensor()) {
        if (!v->type().dtype || (dt && *dt != *v->type().dtype)) return nullptr;
        dt = v->type().dtype;
      }
    if (!dt || *dt == DType::Bool || (op == Op::Div && !isFloating(*dt))) return nullptr;
    if (ir::isComparison(op) ? f->out != DType::Bool : f->out != *dt) return nullptr;
    f->in = *dt;
    for (int i = 0; i < 2; ++i) {
      const ir::Value* v = n.operand(i);
      if (v->type().isTensor()) {
        if (knownShape(v->type()) != shape) return nullptr;
      } else if (!(f->constant[i] = constantOperand(v, *dt, *shape, device))) {
        return nullptr;
      }
    }
    if (f->constant[0] && f->constant[1]) return nullptr;
    f->binary = reg.binary(op, *dt);
    return f->binary ? std::move(f) : nullptr;
  }
  bool unary = ir::hasTrait(op, ir::ELEM) && ir::opInfo(op).maxOperands == 1;
  if (unary && n.operands().size() == 1) {
    const ir::Type& t = n.operand(0)->type();
    if (knownShape(t) != shape || *t.dtype != f->out || f->out == DType::Bool) return nullptr;
    f->in = f->out;
    f->unary = reg.unary(op, f->in);
    return f->unary ? std::move(f) : nullptr;
  }
  return nullptr;
}

bool runFastOp(const FastOp& op, const ir::Node& n, Value* slots, uint64_t dying) {
  if (op.jit) return op.dynamic ? runDynamicFused(op, n, slots, dying) : runFusedKernel(op, n, slots, dying);
  if (op.matmul) {
    const Value &a = slots[n.operand(0)->id()], &b = slots[n.operand(1)->id()];
    if (!a.is(Kind::Tensor) || !b.is(Kind::Tensor)) return false;
    const Tensor &x = tensorOf(a), &y = tensorOf(b);
    if (x.dtype() != op.in || y.dtype() != op.in || x.shape() != op.shape || y.shape() != op.shapeB ||
        &x.device() != &y.device())
      return false;
    slots[n.result(0)->id()] = makeTensorValue(matmul(x, y, n.loc()));
    return true;
  }
  if (op.linear) {
    const Tensor* t[3] = {};
    const Shape* shapes[] = {&op.shape, &op.shapeB, &op.shapeBias};
    for (size_t i = 0; i < n.operands().size(); ++i) {
      const Value& v = slots[n.operand(i)->id()];
      if (!v.is(Kind::Tensor)) return false;
      t[i] = &tensorOf(v);
      if (t[i]->dtype() != DType::F32 || t[i]->shape() != *shapes[i] || &t[i]->device() != &t[0]->device())
        return false;
    }
    slots[n.result(0)->id()] = makeTensorValue(linear(*t[0], *t[1], t[2], n.loc()));
    return true;
  }
  if (op.reduction) {
    const Value& v = slots[n.operand(0)->id()];
    if (!v.is(Kind::Tensor)) return false;
    const Tensor& t = tensorOf(v);
    if (t.dtype() != op.in || t.shape() != op.shape) return false;
    slots[n.result(0)->id()] = makeTensorValue(reduce(t, *op.reduction, {}, false, n.loc(), op.name));
    return true;
  }
  const Tensor* in[2] = {nullptr, nullptr};
  const Value* holder[2] = {nullptr, nullptr};
  size_t arity = op.binary ? 2 : 1;
  for (size_t i = 0; i < arity; ++i) {
    if (op.constant[i]) {
      in[i] = &*op.constant[i];
      continue;
    }
    const Value& v = slots[n.operand(i)->id()];
    if (!v.is(Kind::Tensor)) return false;
    const Tensor& t = tensorOf(v);
    if (t.dtype() != op.in || t.shape() != op.shape || &t.device() != op.device) return false;
    in[i] = &t;
    holder[i] = &v;
  }
  // A dying operand held nowhere else takes the result (as in eager mode).
  // The value object moves along with its buffer: nothing is allocated.
  for (size_t i = 0; i < arity; ++i)
    if (holder[i] && ((dying >> i) & 1) && op.in == op.out && holder[i]->useCount() == 1 &&
        in[i]->ownsBufferAlone() && in[i]->isContiguous()) {
      Tensor& out = const_cast<Tensor&>(*in[i]);
      if (op.binary) launchBinary(n.op(), *op.device, op.binary, *in[0], *in[1], out, n.loc());
      else launchUnary(n.op(), *op.device, op.unary, *in[0], out, n.loc());
      slots[n.result(0)->id()] = std::move(slots[n.operand(i)->id()]);
      return true;
    }
  Tensor out = Tensor::empty(op.out, op.shape, *op.device);
  if (op.binary) launchBinary(n.op(), *op.device, op.binary, *in[0], *in[1], out, n.loc());
  else launchUnary(n.op(), *op.device, op.unary, *in[0], out, n.loc());
  slots[n.result(0)->id()] = makeTensorValue(std::move(out));
  return true;
}

}  // namespace nn::rt
