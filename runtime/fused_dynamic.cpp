// Runs a fused node of untyped ops (passes/fuse_elementwise.cpp: a chain
// whose types are known only at run time, such as an optimiser's update
// `p[i] - lr * g[i]` over lists of parameters and gradients). For each
// signature of run-time operands it meets (each operand a Python number of
// some kind or a tensor of some dtype and shape, at least one a tensor) it
// makes once a typed copy of the body, infers its types and fuses it, as
// the compile cache does for a specialised function; when the whole body
// then is one typed fused node reading the operands, that node's native
// kernel (fused_kernel_run.cpp) runs it from then on, reading and writing
// the caller's frame. Anything else — other operands, a body that does not
// fuse whole (an operand broadcast inside the chain), a node whose kernel
// is not compiled yet or faults, more than kMaxSpecialisations signatures
// — runs the node's ops one by one (fused_exec.cpp), as unfused code would:
// the same values and the same errors either way.
#include <algorithm>
#include <mutex>

#include "ir/clone.h"
#include "passes/passes.h"
#include "runtime/compile_cache.h"
#include "runtime/fast_ops.h"
#include "runtime/jit/jit.h"

namespace nn::rt {

struct FusedSpecialisation {
  // Per operand of the untyped node: its kind, and a tensor's dtype and
  // shape (the slot is unused).
  std::vector<FastOp::FusedOperand> signature;
  // The typed copy (null when the node runs op by op for this signature):
  // its one fused node, which of the untyped node's operands (results)
  // each of that node's operands (results) is, and its pre-resolved form,
  // whose slots are the untyped node's in the caller's frame.
  std::unique_ptr<ir::Graph> graph;
  const ir::Node* node = nullptr;
  std::vector<size_t> outerOperand, outerResult;
  std::unique_ptr<FastOp> op;
};

namespace {

// Shapes that keep changing get no more kernels past this many.
constexpr size_t kMaxSpecialisations = 8;

// The signature of n's run-time operands, or false when one is neither a
// number nor a tensor on `device`.
bool signatureOf(const ir::Node& n, const Value* slots, const Device& device,
                 std::vector<FastOp::FusedOperand>& sig) {
  for (const ir::Value* v : n.operands()) {
    const Value& x = slots[v->id()];
    FastOp::FusedOperand o;
    if (x.is(Kind::Tensor)) {
      const Tensor& t = tensorOf(x);
      if (&t.device() != &device) return false;
      o.kind = ir::TypeKind::Tensor;
      o.dtype = t.dtype();
      o.shape = t.shape();
    } else if (x.is(Kind::Int) || x.is(Kind::Float) || x.is(Kind::Bool)) {
      o.kind = staticType(x).kind;
    } else {
      return false;
    }
    sig.push_back(std::move(o));
  }
  return true;
}

bool matches(const std::vector<FastOp::FusedOperand>& sig, const ir::Node& n, const Value* slots,
             const Device& device) {
  for (size_t i = 0; i < sig.size(); ++i) {
    const Value& x = slots[n.operand(i)->id()];
    const FastOp::FusedOperand& o = sig[i];
    if (o.kind == ir::TypeKind::Tensor) {
      if (!x.is(Kind::Tensor)) return false;
      const Tensor& t = tensorOf(x);
      if (t.dtype() != o.dtype || t.shape() != o.shape || &t.device() != &device) return false;
    } else if (!(o.kind == ir::TypeKind::Int     ? x.is(Kind::Int)
                 : o.kind == ir::TypeKind::Float ? x.is(Kind::Float)
                                                 : x.is(Kind::Bool))) {
      return false;
    }
  }
  return true;
}

ir::Type typeOf(const FastOp::FusedOperand& o) {
  if (o.kind != ir::TypeKind::Tensor) return o.kind;
  ir::DimList dims;
  for (int64_t d : o.shape) dims.push_back(ir::Dim::known(d));
  return ir::Type::tensor(o.dtype, std::move(dims));
}

// The typed copy of n's body for `s.signature`, inferred and fused; sets
// s.graph, s.node and s.outerOperand when it is one fused node over the
// operands, else leaves them empty (op by op) and returns why.
std::string specialise(const ir::Node& n, FusedSpecialisation& s) {
  const ir::Function* outer = n.parent()->function();
  auto g = std::make_unique<ir::Graph>(outer && outer->graph() ? outer->graph()->file() : 0);
  ir::Function* f = g->addFunction("fused", n.loc());
  std::vector<ir::Value*> args;
  for (size_t i = 0; i < s.signature.size(); ++i) {
    std::string name = "x";
    name += std::to_string(i);
    args.push_back(f->addParam(name, typeOf(s.signature[i])));
  }
  std::vector<ir::Value*> out = ir::appendBlockCopy(*n.block(0), *f->body(), args);
  // Several results are returned as a tuple, so each has a use outside.
  ir::Value* returned = out.at(0);
  if (out.size() > 1) returned = ir::build(f->body(), ir::Op::MakeTuple, n.loc(), out, 1)->result(0);
  ir::build(f->body(), ir::Op::Return, n.loc(), {returned}, 0);
  f->number();
  // Neither pass reads the context beyond `fuse`; a mismatch the rules
  // find leaves a type unknown (non-strict types), so the body does not
  // fuse whole and its op raises when it runs.
  passes::PassContext ctx;
  ctx.fuse = true;
  passes::inferTypes(*g, ctx);
  passes::fuseElementwise(*g, ctx);
  const auto& nodes = f->body()->nodes();
  const char* apart = "its ops do not make one chain over the result's shape (an operand broadcast inside it, or "
                      "an op these operands make fail)";
  if (nodes.size() != (out.size() > 1 ? 3 : 2) || nodes[0]->op() != ir::Op::Fused ||
      nodes[0]->numResults() != out.size())
    return apart;
  const ir::Node& fused = *nodes[0];
  // Result k of n is result resultOf[k] of the typed node.
  std::vector<size_t> resultOf;
  for (const ir::Value* v : nodes[1]->operands()) {
    size_t j = 0;
    while (j < fused.numResults() && fused.result(j) != v) ++j;
    if (j == fused.numResults()) return apart;
    resultOf.push_back(j);
  }
  for (size_t j = 0; j < fused.numResults(); ++j) {
    const ir::Type& type = fused.result(j)->type();
    if (!type.dtype || !type.hasStaticShape()) return apart;
  }
  std::vector<size_t> outerOperand;
  for (const ir::Value* v : fused.operands()) {
    auto it = std::find(args.begin(), args.end(), v);
    if (it == args.end()) return apart;
    outerOperand.push_back(static_cast<size_t>(it - args.begin()));
  }
  s.node = &fused;
  s.outerOperand = std::move(outerOperand);
  s.outerResult.assign(resultOf.size(), 0);
  for (size_t k = 0; k < resultOf.size(); ++k) s.outerResult[resultOf[k]] = k;
  s.graph = std::move(g);
  return "";
}

std::string describe(const std::vector<FastOp::FusedOperand>& sig) {
  std::string out;
  for (const FastOp::FusedOperand& o : sig) out += (out.empty() ? "" : ", ") + typeOf(o).str();
  return out;
}

// The specialisation of `op` for n's run-time operands: found, or made and
// kept (up to kMaxSpecialisations); null when none of them is a tensor or
// one is neither a number nor a tensor.
std::shared_ptr<const FusedSpecialisation> specialisationFor(const FastOp& op, const ir::Node& n, const Value* slots) {
  // Scalar code (no tensor operand) runs op by op without a look-up.
  bool tensor = false;
  for (const ir::Value* v : n.operands()) tensor = tensor || slots[v->id()].is(Kind::Tensor);
  if (!tensor) return nullptr;
  std::lock_guard<std::mutex> lock(op.specialisedMutex);
  for (const auto& s : op.specialised)
    if (matches(s->signature, n, slots, *op.device)) return s;
  if (op.specialised.size() == kMaxSpecialisations) {
    if (!op.specialisedFull) {  // said once; new signatures run op by op
      op.specialisedFull = true;
      op.jit->notCompiled(n, "the chain of untyped ops met operands of more than " +
                                 std::to_string(kMaxSpecialisations) + " types or shapes");
    }
    return nullptr;
  }
  auto s = std::make_shared<FusedSpecialisation>();
  if (!signatureOf(n, slots, *op.device, s->signature)) return nullptr;
  std::string why;
  try {
    why = specialise(n, *s);
  } catch (const std::exception&) {
    // A rule that throws on these types: the ops raise when they run.
    s->graph.reset();
    s->node = nullptr;
    why = "an op of the chain fails for these operands";
  }
  if (!s->node) op.jit->notCompiled(n, "for operands (" + describe(s->signature) + ") " + why);
  if (s->node) {
    jit::Engine* engine = op.jit;
    s->op = compileFastOp(*s->node, *op.device, [engine] { return engine; });
    if (s->op) {
      for (size_t k = 0; k < s->outerOperand.size(); ++k)
        s->op->fusedOperands[k].slot = n.operand(s->outerOperand[k])->id();
      for (size_t j = 0; j < s->outerResult.size(); ++j)
        s->op->fusedResults[j].slot = n.result(s->outerResult[j])->id();
      s->op->chargedTo = &n;
    }
  }
  op.specialised.push_back(s);
  return s;
}

}  // namespace

bool runDynamicFused(const FastOp& op, const ir::Node& n, Value* slots, uint64_t dying) {
  std::shared_ptr<const FusedSpecialisation> s = specialisationFor(op, n, slots);
  if (!s || !s->op) return false;
  // Operand k of the typed node is operand outerOperand[k] of n.
  uint64_t typedDying = 0;
  for (size_t k = 0; k < s->outerOperand.size() && k < ir::Node::kMaxDyingOperands; ++k)
    if (s->outerOperand[k] < ir::Node::kMaxDyingOperands && ((dying >> s->outerOperand[k]) & 1))
      typedDying |= uint64_t{1} << k;
  return runFusedKernel(*s->op, *s->node, slots, typedDying);
}

}  // namespace nn::rt
