// The eager tape (see tape.h).
#include "runtime/tape.h"

#include "ir/op_signature.h"
#include "passes/reverse_mode.h"
#include "runtime/compile_cache.h"
#include "runtime/interpreter.h"
#include "runtime/tensor.h"
#include "runtime/tensor_ops.h"
#include "support/diagnostics.h"

namespace nn::rt {
namespace {

Value zerosLike(const Value& v) {
  const Tensor& t = tensorOf(v);
  return makeTensorValue(fullLike(t.dtype(), t.shape(), 0.0, t.device()));
}

bool floatingTensor(const Value& v) { return v.is(Kind::Tensor) && isFloating(tensorOf(v).dtype()); }

// A tensor op's attribute parameter as an IR attribute.
ir::Attr attrOf(const Value& v, SourceLoc loc) {
  switch (v.kind()) {
    case Kind::None: return ir::NoneAttr{};
    case Kind::Bool: return v.asBool();
    case Kind::Int: return v.asInt();
    case Kind::Float: return v.asFloat();
    case Kind::Str: return v.asStr();
    case Kind::DType: return std::string(ir::dtypeName(static_cast<DType>(v.asInt())));
    case Kind::Tuple:
    case Kind::List: {
      ir::Ints ints;
      for (const Value& item : v.as<SeqObj>().items) {
        if (!item.isIntLike()) fail(loc, "the gradient of an op with a non-integer list argument is not supported");
        ints.push_back(item.asInt());
      }
      return ints;
    }
    default: fail(loc, std::string("the gradient of an op with a ") + typeName(v) + " argument is not supported");
  }
}

}  // namespace

Tape::Tape(Interpreter& interp, Tape* outer, SourceLoc loc)
    : interp_(interp), outer_(outer), loc_(loc), module_("<gradient>", "<gradient>") {
  trace_ = graph_.addFunction("trace", loc);
}

Tape::~Tape() = default;

Value Tape::watch(const Value& v) {
  Value fresh = makeTensorValue(tensorOf(v));
  std::string name = "x";  // appended: GCC 12 warns falsely on "x" + std::string at -O2
  name += std::to_string(watched_.size());
  ir::Value* arg = trace_->addParam(name, staticType(fresh));
  watched_.push_back(arg);
  tracked_[fresh.ptr()] = arg;
  values_[arg] = fresh;
  // For the tapes outside, the new value is the watched one passed on.
  for (Tape* t = outer_; t; t = t->outer_) t->appendIfTracked(ir::Op::Pos, loc_, {v}, fresh);
  return fresh;
}

bool Tape::tracks(const Value& v) const { return v.is(Kind::Tensor) && tracked_.count(v.ptr()); }

bool Tape::tracksAny(const Value& v) const {
  if (v.is(Kind::Tuple) || v.is(Kind::List)) {
    for (const Value& item : v.as<SeqObj>().items)
      if (tracksAny(item)) return true;
    return false;
  }
  return tracks(v);
}

ir::Value* Tape::traced(const Value& v) {
  if (v.is(Kind::Tensor))
    if (auto it = tracked_.find(v.ptr()); it != tracked_.end()) return it->second;
  if ((v.is(Kind::Tuple) || v.is(Kind::List)) && tracksAny(v)) {
    std::vector<ir::Value*> items;
    for (const Value& item : v.as<SeqObj>().items) items.push_back(traced(item));
    ir::Node* n = ir::build(trace_->body(), v.is(Kind::List) ? ir::Op::MakeList : ir::Op::MakeTuple, loc_, items, 1);
    n->result(0)->setType(v.is(Kind::List) ? ir::TypeKind::List : ir::TypeKind::Tuple);
    values_[n->result(0)] = v;
    return n->result(0);
  }
  ir::Value* arg = trace_->addCapture("c", staticType(v));
  values_[arg] = v;
  return arg;
}

ir::Node* Tape::appendIfTracked(ir::Op op, SourceLoc loc, const std::vector<Value>& operands, const Value& out) {
  // An op that hands back a value this tape already has (an element of a
  // list: xs[1]) passes it on unchanged.
  if (tracks(out)) return nullptr;
  bool any = false;
  for (const Value& v : operands) any |= tracksAny(v);
  return any ? append(op, loc, operands, out) : nullptr;
}

ir::Node* Tape::append(ir::Op op, SourceLoc loc, const std::vector<Value>& operands, const Value& out) {
  std::vector<ir::Value*> in;
  for (const Value& v : operands) in.push_back(traced(v));
  ir::Node* n = ir::build(trace_->body(), op, loc, std::move(in), 1);
  n->result(0)->setType(staticType(out));
  tracked_[out.ptr()] = n->result(0);
  values_[n->result(0)] = out;
  return n;
}

void Tape::recordNode(const ir::Node& n, const Value* const* in, const Value& out) {
  if (!floatingTensor(out)) return;
  std::vector<Value> operands;
  for (size_t i = 0; i < n.operands().size(); ++i) operands.push_back(*in[i]);
  // Every enclosing tape that tracks an operand records the op too: a
  // gradient computed inside another grad is differentiated through.
  for (Tape* t = this; t; t = t->outer_)
    if (ir::Node* r = t->appendIfTracked(n.op(), n.loc(), operands, out)) {
      r->setInlinedAt(n.inlinedAt());
      for (const auto& [name, value] : n.attrs()) r->setAttr(name, value);
    }
}

void Tape::recordOp(ir::Op op, SourceLoc loc, const std::vector<Value>& operands, const Value& out) {
  if (!floatingTensor(out)) return;
  for (Tape* t = this; t; t = t->outer_) t->appendIfTracked(op, loc, operands, out);
}

void Tape::recordTensorOp(ir::Op op, SourceLoc loc, const std::vector<Value>& params, const Value& out) {
  if ((op == ir::Op::Split || op == ir::Op::Chunk) && out.is(Kind::List)) {
    recordPieces(params[0], params[2].asInt(), out, loc);
    return;
  }
  if ((op == ir::Op::Sort || op == ir::Op::TopK) && out.is(Kind::Tuple)) {
    // The values are x gathered by the indices (passes/gather_sorted.cpp):
    // recorded so, their gradient scatters back to where each came from.
    const std::vector<Value>& vi = out.as<SeqObj>().items;
    if (!floatingTensor(vi[0])) return;
    int64_t axis = params[op == ir::Op::Sort ? 1 : 2].asInt();
    for (Tape* t = this; t; t = t->outer_)
      if (ir::Node* n = t->appendIfTracked(ir::Op::Gather, loc, {params[0], vi[1]}, vi[0])) n->setAttr("axis", axis);
    return;
  }
  if (!floatingTensor(out)) return;
  const ir::Signature& sig = ir::signatureOf(op);
  std::vector<Value> operands;
  for (size_t i = 0; i < sig.params.size() && i < params.size(); ++i)
    if (!sig.params[i].isAttr) operands.push_back(params[i]);
  for (Tape* t = this; t; t = t->outer_)
    if (ir::Node* n = t->appendIfTracked(op, loc, operands, out))
      for (size_t i = 0; i < sig.params.size() && i < params.size(); ++i)
        if (sig.params[i].isAttr) n->setAttr(sig.params[i].name, attrOf(params[i], loc));
}

void Tape::recordPieces(const Value& x, int64_t axis, const Value& pieces, SourceLoc loc) {
  if (!floatingTensor(x)) return;
  int ndim = tensorOf(x).ndim();
  if (axis < 0) axis += ndim;
  int64_t start = 0;
  for (const Value& piece : pieces.as<SeqObj>().items) {
    int64_t size = tensorOf(piece).dim(static_cast<int>(axis));
    // x[:, ..., start:start + size]: the piece as an index of x.
    std::vector<Value> index;
    for (int64_t k = 0; k < axis; ++k) index.push_back(makeSlice(Value::none(), Value::none(), Value::none()));
    index.push_back(makeSlice(Value::integer(start), Value::integer(start + size), Value::none()));
    recordOp(ir::Op::GetItem, loc, {x, makeTuple(std::move(index))}, piece);
    start += size;
  }
}

std::vector<Value> Tape::gradients(const Value& output, const Value& seedValue, bool last) {
  std::vector<Value> grads;
  if (!tracks(output)) {
    for (ir::Value* w : watched_) grads.push_back(zerosLike(values_[w]));
    return grads;
  }
  // backward(seed, primals...): the trace's reverse sweep, with each
  // forward value it reads passed in as an argument; built once per form
  // of trace (a training loop's steps share one).
  BackwardCache::TraceForm form = BackwardCache::formOf(*trace_, tracked_[output.ptr()], loc_);
  BackwardCache& cache = interp_.backwardCache();
  std::shared_ptr<const BackwardCache::Entry> entry = cache.find(form.key);
  if (!entry) {
    entry = buildBackward(form, output);
    cache.add(form.key, entry);
  }
  std::vector<Value> args;
  const Tensor& out = tensorOf(output);
  args.push_back(seedValue.is(Kind::None) ? makeTensorValue(fullLike(out.dtype(), out.shape(), 1.0, out.device()))
                                          : seedValue);
  for (uint32_t i : entry->primals) args.push_back(values_[form.values[i]]);
  // The backward's arguments are now the only holders of the values it
  // reads, so each is freed at its last use there.
  std::vector<Value> inputs;
  for (ir::Value* w : watched_) inputs.push_back(values_[w]);
  if (last) {
    values_.clear();
    tracked_.clear();
  }
  Value computed = interp_.runFunction(*entry->backward, module_, nullptr, args);
  args.clear();
  const std::vector<Value>& items = computed.as<SeqObj>().items;
  size_t next = 0;
  for (size_t i = 0; i < entry->adjoints.size(); ++i)
    grads.push_back(entry->adjoints[i] ? items[next++] : zerosLike(inputs[i]));
  return grads;
}

std::shared_ptr<const BackwardCache::Entry> Tape::buildBackward(const BackwardCache::TraceForm& form,
                                                                const Value& output) {
  auto entry = std::make_shared<BackwardCache::Entry>();
  entry->graph = std::make_unique<ir::Graph>();
  ir::Function* backward = entry->backward = entry->graph->addFunction("backward", loc_);
  ir::Value* seed = backward->addParam("seed", staticType(output));
  std::unordered_map<const ir::Value*, ir::Value*> primals;
  passes::ReverseRequest request;
  for (const auto& n : trace_->body()->nodes()) request.nodes.push_back(n.get());
  request.output = tracked_[output.ptr()];
  request.seed = seed;
  request.wrt.assign(watched_.begin(), watched_.end());
  request.primal = [&](const ir::Value* v) {
    auto [it, fresh] = primals.emplace(v, nullptr);
    if (fresh) {
      // Appended, not "p" + ...: GCC 12 warns falsely on that at -O2.
      std::string name = "p";
      name += std::to_string(entry->primals.size() + 1);
      it->second = backward->addParam(name, v->type());
      entry->primals.push_back(form.index.at(v));
    }
    return it->second;
  };
  std::vector<ir::Value*> adjoints = passes::reverseMode(*backward->body(), request);
  ir::Node* tuple = ir::build(backward->body(), ir::Op::MakeTuple, loc_, {}, 1);
  for (ir::Value* a : adjoints) {
    entry->adjoints.push_back(a != nullptr);
    if (a) tuple->addOperand(a);
  }
  ir::build(backward->body(), ir::Op::Return, loc_, {tuple->result(0)}, 0);
  backward->number();
  return entry;
}

}  // namespace nn::rt
