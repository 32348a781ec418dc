// Native code for a whole compiled function of numbers (jit.h
// NativeFunction): a version whose parameters and result are ints, floats
// and bools and whose nodes are all ones the loop glue computes itself
// (glue_emitter.h: scalar arithmetic and comparisons, a float's math,
// float() of a number, ifs, loops, for loops over `range` of ints), plus
// calls of the function itself with its own parameter types — which run
// this same version, so they are direct native calls, and a recursive
// function such as fib runs without the interpreter at all.
//
//   i32 name(i64* args, i64* result, i64 depth, i8* interrupt)      ; the entry
//   i32 name.body(i8* interrupt, i64 depth, T0 a0, ..., Tr* result) ; internal
//
// Every value lives in a register; there is no frame and no callback into
// the runtime. Such a function has no effects, so wherever the interpreter
// would raise — an int overflow, a float division by zero, a branch that
// raises (an `if` branch holding a `raise`: the code leaves at its start),
// a call deeper than `depth` more levels — and wherever the interrupt flag
// is set (read at each call and each loop iteration), the code returns 1
// and the runtime runs the call interpreted from its start, which then
// raises or stops with the interpreter's own location and trace. `depth`
// counts down by one per nested call, from what the interpreter's call
// depth and stack still allow.
#include "runtime/jit/glue_emitter.h"

namespace nn::rt::jit {
namespace {

using glue::GlueEmitter;
using glue::isScalar;
using ir::Op;
using ir::TypeKind;

const ir::Value* returned(const ir::Function& f) {
  const ir::Node* t = f.body()->terminator();
  return t && t->op() == Op::Return && t->operands().size() == 1 ? t->operand(0) : nullptr;
}

// A block that holds a raise runs to it (early returns are lowered into
// ifs), unless something before it raises first: either way it raises.
bool raises(const ir::Block& b) {
  for (const auto& n : b.nodes())
    if (n->op() == Op::Raise) return true;
  return false;
}

// A call of the running function with one positional argument of each
// parameter's type: the same version runs it (passes/infer_types.cpp
// gives its result the version's return type).
bool recursiveCall(const ir::Node& n, const ir::Function& f) {
  if (!ir::callsItself(n, f)) return false;
  const ir::Value* r = returned(f);
  return r && n.result(0)->type() == r->type();
}

// `range(stop)` or `range(start, stop)` of ints: a for loop's range, whose
// items range-items made int arithmetic on the counter; null otherwise.
const ir::Node* rangeOfInts(const ir::Value* v) {
  const ir::Node* call = v->def();
  if (!call || call->op() != Op::Call || ir::calledFunction(*call) != ir::Builtin::Range ||
      !call->strListAttr("kw").empty() || call->operands().size() < 2 || call->operands().size() > 3)
    return nullptr;
  for (size_t i = 1; i < call->operands().size(); ++i)
    if (call->operand(i)->type().kind != TypeKind::Int) return nullptr;
  return call;
}

// The for loop over such a range: the call, its `iter` and the loop's
// `iter_len` (computed from the call's arguments).
bool rangeLoopPart(const ir::Node& n) {
  if (n.op() == Op::Call) return n.numResults() == 1 && rangeOfInts(n.result(0));
  if (n.op() == Op::Iter) return rangeOfInts(n.operand(0)) != nullptr;
  if (n.op() == Op::IterLen)
    return n.operand(0)->def() && n.operand(0)->def()->op() == Op::Iter &&
           rangeOfInts(n.operand(0)->def()->operand(0)) && n.result(0)->type().kind == TypeKind::Int;
  return false;
}

// What the loop glue computes itself that needs no frame or runtime call.
bool computed(const ir::Node& n) {
  if (!glue::nativeScalar(n) || n.op() == Op::IterLen || glue::containsValue(n)) return false;
  return n.op() != Op::Call || glue::floatOfNumber(n);
}

bool yieldsKinds(const ir::Block& b, const ir::Node& owner) {
  const ir::Node* t = b.terminator();
  if (!t) return false;
  if (t->op() != Op::Yield) return true;
  for (size_t i = 0; i < t->operands().size() && i < owner.numResults(); ++i)
    if (t->operand(i)->type().kind != owner.result(i)->type().kind) return false;
  return true;
}

bool allResultsScalar(const ir::Node& n) {
  for (size_t i = 0; i < n.numResults(); ++i)
    if (!isScalar(n.result(i)->type())) return false;
  return true;
}

// Whether every node of b compiles; `branch`: b is an if's branch, which
// may instead raise.
bool compiles(const ir::Block& b, const ir::Function& f, bool branch) {
  if (raises(b)) return branch;
  for (const auto& np : b.nodes()) {
    const ir::Node& n = *np;
    if (ir::hasTrait(n.op(), ir::TERM)) break;
    if (n.op() == Op::SelfClosure || n.op() == Op::Builtin || computed(n) || rangeLoopPart(n) ||
        recursiveCall(n, f))
      continue;
    if (n.op() == Op::If) {
      if (n.operand(0)->type().kind != TypeKind::Bool || !allResultsScalar(n)) return false;
      if (raises(*n.block(0)) && raises(*n.block(1))) return false;
      for (size_t k = 0; k < 2; ++k)
        if (!compiles(*n.block(k), f, true) || (!raises(*n.block(k)) && !yieldsKinds(*n.block(k), n))) return false;
      continue;
    }
    if (n.op() == Op::Loop) {
      const ir::Node* c = n.block(0)->terminator();
      if (!allResultsScalar(n) || !c || c->operands().empty() || c->operand(0)->type().kind != TypeKind::Bool)
        return false;
      if (!compiles(*n.block(0), f, false) || !compiles(*n.block(1), f, false) || !yieldsKinds(*n.block(1), n))
        return false;
      continue;
    }
    return false;
  }
  return true;
}

class NativeEmitter : public GlueEmitter {
 public:
  NativeEmitter(llvm::LLVMContext& ctx, llvm::Module& m, GlueFunction& unused, const ir::Function& f)
      : GlueEmitter(ctx, m, unused), f_(f) {}

  // The internal function, then the entry (returned) that calls it.
  llvm::Function* emitFunction(const std::string& name) {
    const ir::Block& body = *f_.body();
    std::vector<llvm::Type*> params{ptr_, i64_};
    for (size_t i = 0; i < body.numArgs(); ++i) params.push_back(typeOf(body.arg(i)->type().kind));
    resultType_ = typeOf(returned(f_)->type().kind);
    params.push_back(resultType_->getPointerTo());
    inner_ = llvm::Function::Create(llvm::FunctionType::get(i32_, params, false), llvm::Function::InternalLinkage,
                                    name + ".body", m_);
    fn_ = inner_;
    auto* entry = llvm::BasicBlock::Create(ctx_, "entry", fn_);
    failBlock_ = llvm::BasicBlock::Create(ctx_, "failed", fn_);
    b_.SetInsertPoint(failBlock_);
    b_.CreateRet(u32(1));
    b_.SetInsertPoint(entry);
    interruptFlag_ = inner_->getArg(0);
    depth_ = inner_->getArg(1);
    for (size_t i = 0; i < body.numArgs(); ++i) reg_[body.arg(i)] = inner_->getArg(2 + i);
    failIfInterrupted();
    emitBlock(body);
    b_.CreateStore(scalar(returned(f_)), inner_->getArg(2 + body.numArgs()));
    b_.CreateRet(u32(0));
    return emitEntry(name);
  }
  llvm::Function* inner() const { return inner_; }

 protected:
  bool emitOther(const ir::Node& n) override {
    // Callees, read only by the calls below and by float() of a number,
    // and a for loop's range (read by emitIterLen).
    if (n.op() == Op::SelfClosure || n.op() == Op::Builtin || (n.op() != Op::IterLen && rangeLoopPart(n)))
      return true;
    if (!recursiveCall(n, f_)) return false;     // (compiles() admitted none)
    auto* deeper = llvm::BasicBlock::Create(ctx_, "deeper", fn_);
    b_.CreateCondBr(b_.CreateICmpSLT(depth_, llvm::ConstantInt::get(i64_, 1)), failBlock_, deeper, unlikely());
    b_.SetInsertPoint(deeper);
    llvm::IRBuilder<> atEntry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
    llvm::Value* out = atEntry.CreateAlloca(resultType_);
    std::vector<llvm::Value*> args{interruptFlag_, b_.CreateSub(depth_, llvm::ConstantInt::get(i64_, 1))};
    for (size_t i = 1; i < n.operands().size(); ++i) args.push_back(scalar(n.operand(i)));
    args.push_back(out);
    check(b_.CreateCall(inner_, args));
    define(n.result(0), b_.CreateLoad(resultType_, out));
    return true;
  }
  bool fails(const ir::Block& b) const override { return raises(b); }
  // As RangeObj::length with step 1: stop - start items, none when stop is
  // not past start; more than int64 holds (an overflow) raises.
  llvm::Value* emitIterLen(const ir::Node& n) override {
    const ir::Node& range = *rangeOfInts(n.operand(0)->def()->operand(0));
    auto* zero = llvm::ConstantInt::get(i64_, 0);
    llvm::Value* start = range.operands().size() == 3 ? scalar(range.operand(1)) : zero;
    llvm::Value* stop = scalar(range.operand(range.operands().size() - 1));
    llvm::Value* pair = b_.CreateBinaryIntrinsic(llvm::Intrinsic::ssub_with_overflow, stop, start);
    llvm::Value* past = b_.CreateICmpSGT(stop, start);
    raiseIf(b_.CreateAnd(past, b_.CreateExtractValue(pair, 1)), n);
    return b_.CreateSelect(past, b_.CreateExtractValue(pair, 0), zero);
  }
  void keepLoopResult(const ir::Value*, llvm::Value*) override {}  // registers only
  void tickIfFlagged(const ir::Node&) override { failIfInterrupted(); }
  void raiseIf(llvm::Value* cond, const ir::Node&) override {
    auto* ok = llvm::BasicBlock::Create(ctx_, "ok", fn_);
    b_.CreateCondBr(cond, failBlock_, ok, unlikely());
    b_.SetInsertPoint(ok);
  }
  void clearKills(const ir::Node&) override {}  // no slots

 private:
  llvm::MDNode* unlikely() { return llvm::MDBuilder(ctx_).createBranchWeights(1, 1 << 20); }

  // The interrupt flag is another thread's to set: an atomic load, which
  // LLVM never hoists out of a loop.
  void failIfInterrupted() {
    auto* i8 = llvm::Type::getInt8Ty(ctx_);
    llvm::LoadInst* flag = b_.CreateLoad(i8, interruptFlag_);
    flag->setAtomic(llvm::AtomicOrdering::Monotonic);
    flag->setAlignment(llvm::Align(1));
    auto* running = llvm::BasicBlock::Create(ctx_, "running", fn_);
    b_.CreateCondBr(b_.CreateICmpNE(flag, llvm::ConstantInt::get(i8, 0)), failBlock_, running, unlikely());
    b_.SetInsertPoint(running);
  }

  // The entry: the parameters' bits from `args`, the result's to `result`.
  llvm::Function* emitEntry(const std::string& name) {
    auto* type = llvm::FunctionType::get(i32_, {ptr_, ptr_, i64_, ptr_}, false);
    auto* entry = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, m_);
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", entry));
    llvm::Value* bits = b_.CreateBitCast(entry->getArg(0), i64_->getPointerTo());
    std::vector<llvm::Value*> args{entry->getArg(3), entry->getArg(2)};
    const ir::Block& body = *f_.body();
    for (size_t i = 0; i < body.numArgs(); ++i) {
      llvm::Value* v = b_.CreateLoad(i64_, b_.CreateConstGEP1_64(i64_, bits, i));
      TypeKind k = body.arg(i)->type().kind;
      args.push_back(k == TypeKind::Float  ? b_.CreateBitCast(v, f64_)
                     : k == TypeKind::Bool ? b_.CreateICmpNE(v, llvm::ConstantInt::get(i64_, 0))
                                           : v);
    }
    llvm::Value* out = b_.CreateAlloca(resultType_);
    args.push_back(out);
    llvm::Value* status = b_.CreateCall(inner_, args);
    llvm::Value* r = b_.CreateLoad(resultType_, out);
    TypeKind k = returned(f_)->type().kind;
    r = k == TypeKind::Float ? b_.CreateBitCast(r, i64_) : k == TypeKind::Bool ? b_.CreateZExt(r, i64_) : r;
    b_.CreateStore(r, b_.CreateBitCast(entry->getArg(1), i64_->getPointerTo()));
    b_.CreateRet(status);
    return entry;
  }

  const ir::Function& f_;
  llvm::Function* inner_ = nullptr;
  llvm::Value* depth_ = nullptr;
  llvm::Type* resultType_ = nullptr;
};

}  // namespace

bool compilesAsNative(const ir::Function& version) {
  const ir::Block& body = *version.body();
  const ir::Value* r = returned(version);
  if (!r || !isScalar(r->type()) || body.numArgs() > kMaxNativeArgs) return false;
  for (size_t i = 0; i < body.numArgs(); ++i)
    if (!isScalar(body.arg(i)->type())) return false;
  return compiles(body, version, false);
}

std::unique_ptr<llvm::Module> buildNativeModule(llvm::LLVMContext& ctx, const ir::Function& version,
                                                const std::string& name, std::string& why) {
  if (!compilesAsNative(version)) {
    why = "the function has a value or an operation other than a number's";
    return nullptr;
  }
  auto m = std::make_unique<llvm::Module>("nn_native", ctx);
  GlueFunction unused;
  NativeEmitter emitter(ctx, *m, unused, version);
  llvm::Function* entry = emitter.emitFunction(name);
  if (!verified(*emitter.inner(), why) || !verified(*entry, why)) return nullptr;
  return m;
}

}  // namespace nn::rt::jit
