// The LLVM emitter of compiled glue, shared by a loop's glue
// (glue_codegen.cpp, whose comment says how values live in registers and
// slots and which semantics the code keeps) and a whole function of
// numbers as native code (native_function_codegen.cpp, which overrides the
// hooks below: where a loop's glue calls a node back into the interpreter,
// native code of a pure function returns 1 and the runtime runs the call
// interpreted). Includes LLVM headers: for runtime/jit/ only.
#pragma once

#include <llvm/IR/MDBuilder.h>

#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "runtime/jit/codegen.h"
#include "runtime/jit/glue_nodes.h"

namespace nn::rt::jit::glue {

// The GlueApi's entries, by position (jit.h).
enum Api : unsigned { kRun, kSetInt, kSetFloat, kSetBool, kGetInt, kGetFloat, kGetBool, kAssign, kClear, kTick, kItemFloat, kSumFloat, kIterLen, kIterItem, kStoreGlobal, kListAppend, kUnpack, kLength, kGetItem, kContains, kSetItem };

class GlueEmitter {
 public:
  GlueEmitter(llvm::LLVMContext& ctx, llvm::Module& m, GlueFunction& out)
      : ctx_(ctx), m_(m), b_(ctx), out_(out) {
    i1_ = llvm::Type::getInt1Ty(ctx);
    i32_ = llvm::Type::getInt32Ty(ctx);
    i64_ = llvm::Type::getInt64Ty(ctx);
    f64_ = llvm::Type::getDoubleTy(ctx);
    ptr_ = llvm::Type::getInt8PtrTy(ctx);
  }
  virtual ~GlueEmitter() = default;
  GlueEmitter(const GlueEmitter&) = delete;
  GlueEmitter& operator=(const GlueEmitter&) = delete;

  // Whether the glue can run structured node n (an if or loop) natively.
  static bool structured(const ir::Node& n) {
    if (n.op() == Op::If) {
      if (n.operand(0)->type().kind != TypeKind::Bool) return false;
      for (size_t k = 0; k < 2; ++k)
        if (!blockOk(*n.block(k), n)) return false;
      return true;
    }
    if (n.op() == Op::Loop) {
      const ir::Block& cond = *n.block(0);
      if (cond.terminator()->operand(0)->type().kind != TypeKind::Bool) return false;
      return blockOk(cond, n) && blockOk(*n.block(1), n);
    }
    return false;
  }

  llvm::Function* emit(const ir::Node& loop, const std::string& name) {
    collectSlotUses(loop);
    auto* fnType = llvm::FunctionType::get(i32_, {ptr_, ptr_->getPointerTo(), ptr_->getPointerTo()}, false);
    fn_ = llvm::Function::Create(fnType, llvm::Function::ExternalLinkage, name, m_);
    ctxArg_ = fn_->getArg(0);
    apiArg_ = fn_->getArg(1);
    auto* entry = llvm::BasicBlock::Create(ctx_, "entry", fn_);
    failBlock_ = llvm::BasicBlock::Create(ctx_, "failed", fn_);
    b_.SetInsertPoint(failBlock_);
    b_.CreateRet(llvm::ConstantInt::get(i32_, 1));
    b_.SetInsertPoint(entry);
    llvm::Value* flags = fn_->getArg(2);
    interruptFlag_ = b_.CreateLoad(ptr_, b_.CreateConstGEP1_32(ptr_, flags, 0), "interrupt");
    budgetFlag_ = b_.CreateLoad(ptr_, b_.CreateConstGEP1_32(ptr_, flags, 1), "budget");
    outermost_ = &loop;
    emitLoop(loop);
    b_.CreateRet(llvm::ConstantInt::get(i32_, 0));
    return fn_;
  }

 protected:
  // The hooks a native function's emitter overrides (see the file's
  // comment): a node the glue does not compute itself (true: emitted);
  // whether a block's code is only a failure (it raises); what stays of a
  // loop's scalar results besides their registers.
  virtual bool emitOther(const ir::Node&) { return false; }
  virtual bool fails(const ir::Block&) const { return false; }
  virtual void keepLoopResult(const ir::Value* v, llvm::Value* r) { store(v, r); }
  // A for loop's length: of the iterable in the iter's slot.
  virtual llvm::Value* emitIterLen(const ir::Node& n) { return call(kIterLen, i64_, {u32(n.operand(0)->id())}); }

  // A yield of a scalar-typed carried value or if result is a scalar of
  // the same kind (every other node is native, structured or called back).
  static bool blockOk(const ir::Block& b, const ir::Node& owner) {
    const ir::Node* t = b.terminator();
    if (!t) return false;
    if (t->op() == Op::Yield)
      for (size_t i = 0; i < t->operands().size() && i < owner.numResults(); ++i) {
        const ir::Type& want = owner.result(i)->type();
        if (isScalar(want) && t->operand(i)->type().kind != want.kind) return false;
      }
    return true;
  }

  // Values some reader outside the glue's registers reads: the operands of
  // called-back nodes and every value their nested blocks read.
  void collectSlotUses(const ir::Node& loop) {
    for (size_t k = 0; k < loop.numBlocks(); ++k) {
      slotUses(*loop.block(k), loop);
      countReads(*loop.block(k));
    }
    scalarValues(loop);
  }
  void countReads(const ir::Block& b) {
    for (const auto& n : b.nodes()) {
      for (const ir::Value* v : n->operands()) ++reads_[v];
      for (size_t k = 0; k < n->numBlocks(); ++k) countReads(*n->block(k));
    }
  }
  // The slot ids of scalar values: a kill of one frees nothing.
  void scalarValues(const ir::Node& n) {
    for (size_t i = 0; i < n.numResults(); ++i)
      if (isScalar(n.result(i)->type())) scalarIds_.insert(n.result(i)->id());
    for (size_t k = 0; k < n.numBlocks(); ++k) {
      const ir::Block& b = *n.block(k);
      for (size_t i = 0; i < b.numArgs(); ++i)
        if (isScalar(b.arg(i)->type())) scalarIds_.insert(b.arg(i)->id());
      for (const auto& inner : b.nodes()) scalarValues(*inner);
    }
  }
  // Loads, before loop n, the scalars of enclosing blocks its blocks read
  // (once, not per iteration).
  void preload(const ir::Node& n, const ir::Node& loop) {
    for (size_t k = 0; k < n.numBlocks(); ++k)
      for (const auto& inner : n.block(k)->nodes()) {
        for (const ir::Value* v : inner->operands())
          if (isScalar(v->type()) && !reg_.count(v) && !inside(v->owner(), loop)) scalar(v);
        preload(*inner, loop);
      }
  }
  static bool inside(const ir::Block* b, const ir::Node& loop) {
    for (const ir::Node* p = b ? b->parentNode() : nullptr; p; p = p->parent() ? p->parent()->parentNode() : nullptr)
      if (p == &loop) return true;
    return false;
  }
  void slotUses(const ir::Block& b, const ir::Node& owner) {
    for (const auto& n : b.nodes()) {
      if (ir::hasTrait(n->op(), ir::TERM)) break;  // the terminator: below
      if (nativeScalar(*n)) continue;
      if (directItem(*n)) {  // the index from its register (stored only when called back)
        inSlot_.insert(n->operand(0));
        continue;
      }
      if (directStore(*n)) continue;
      if (structured(*n)) {
        // A nested loop copies a carried value that is not typed as a
        // scalar from its operand's slot (emitLoop).
        if (n->op() == Op::Loop)
          for (size_t i = 0; i < n->operands().size(); ++i)
            if (!isScalar(n->result(i)->type())) inSlot_.insert(n->operand(i));
        for (size_t k = 0; k < n->numBlocks(); ++k) slotUses(*n->block(k), *n);
        continue;
      }
      readsAll(*n);
    }
    // A scalar yielded into a carried value or if result that is not
    // typed as one moves from its slot.
    const ir::Node* t = b.terminator();
    if (t && t->op() == Op::Yield)
      for (size_t i = 0; i < t->operands().size() && i < owner.numResults(); ++i)
        if (!isScalar(owner.result(i)->type())) inSlot_.insert(t->operand(i));
  }
  void readsAll(const ir::Node& n) {
    for (const ir::Value* v : n.operands()) inSlot_.insert(v);
    for (size_t k = 0; k < n.numBlocks(); ++k)
      for (const auto& inner : n.block(k)->nodes()) readsAll(*inner);
    for (size_t k = 0; k < n.numBlocks(); ++k)
      if (const ir::Node* t = n.block(k)->terminator()) readsAll(*t);
  }

  // The values nodes of b (nested blocks and terminators included) read.
  static void readsIn(const ir::Block& b, std::unordered_set<const ir::Value*>& into) {
    for (const auto& n : b.nodes()) {
      for (const ir::Value* v : n->operands()) into.insert(v);
      for (size_t k = 0; k < n->numBlocks(); ++k) readsIn(*n->block(k), into);
    }
  }

  llvm::Value* api(Api which, llvm::FunctionType* type) {
    llvm::Value* slot = b_.CreateConstGEP1_32(ptr_, apiArg_, which);
    llvm::Value* p = b_.CreateLoad(ptr_, slot);
    return b_.CreateBitCast(p, type->getPointerTo());
  }
  llvm::Value* call(Api which, llvm::Type* ret, std::vector<llvm::Value*> args) {
    std::vector<llvm::Type*> types{ptr_};
    for (llvm::Value* a : args) types.push_back(a->getType());
    auto* type = llvm::FunctionType::get(ret, types, false);
    args.insert(args.begin(), ctxArg_);
    return b_.CreateCall(type, api(which, type), args);
  }
  llvm::Constant* u32(uint64_t v) { return llvm::ConstantInt::get(i32_, v); }

  // Branches to the failure exit when status (i32) is not 0.
  void check(llvm::Value* status) {
    auto* ok = llvm::BasicBlock::Create(ctx_, "ok", fn_);
    b_.CreateCondBr(b_.CreateICmpNE(status, u32(0)), failBlock_, ok);
    b_.SetInsertPoint(ok);
  }
  // The end of an iteration of loop n: `tick` when a GlueFlags flag is set.
  // The interrupt flag is another thread's to set: an atomic load, which
  // LLVM never hoists out of the loop (the budget flag it may hoist).
  virtual void tickIfFlagged(const ir::Node& n) {
    auto* i8 = llvm::Type::getInt8Ty(ctx_);
    llvm::LoadInst* interrupt = b_.CreateLoad(i8, interruptFlag_);
    interrupt->setAtomic(llvm::AtomicOrdering::Monotonic);
    interrupt->setAlignment(llvm::Align(1));
    llvm::Value* budget = b_.CreateLoad(i8, budgetFlag_);
    llvm::Value* set = b_.CreateICmpNE(b_.CreateOr(interrupt, budget), llvm::ConstantInt::get(i8, 0));
    auto* tick = llvm::BasicBlock::Create(ctx_, "tick", fn_);
    auto* next = llvm::BasicBlock::Create(ctx_, "next", fn_);
    b_.CreateCondBr(set, tick, next, llvm::MDBuilder(ctx_).createBranchWeights(1, 1 << 20));
    b_.SetInsertPoint(tick);
    check(call(kTick, i32_, {u32(nodeIndex(n))}));
    b_.CreateBr(next);
    b_.SetInsertPoint(next);
  }
  // When `cond` holds, node n raises: it is called back with its operands
  // in their slots, so the interpreter raises its own error, located as
  // it locates it.
  virtual void raiseIf(llvm::Value* cond, const ir::Node& n) {
    auto* bad = llvm::BasicBlock::Create(ctx_, "raise", fn_);
    auto* ok = llvm::BasicBlock::Create(ctx_, "ok", fn_);
    b_.CreateCondBr(cond, bad, ok, llvm::MDBuilder(ctx_).createBranchWeights(1, 1 << 20));
    b_.SetInsertPoint(bad);
    for (const ir::Value* v : n.operands()) store(v, scalar(v));
    call(kRun, i32_, {u32(nodeIndex(n))});
    b_.CreateBr(failBlock_);
    b_.SetInsertPoint(ok);
  }
  uint32_t nodeIndex(const ir::Node& n) {
    auto [it, fresh] = nodeIndex_.emplace(&n, static_cast<uint32_t>(out_.nodes.size()));
    if (fresh) out_.nodes.push_back(&n);
    return it->second;
  }

  llvm::Type* typeOf(TypeKind k) { return k == TypeKind::Float ? f64_ : k == TypeKind::Bool ? i1_ : i64_; }

  // A scalar operand in a register: the glue's own, or read from its slot
  // (a value of an enclosing block or of a called-back node).
  llvm::Value* scalar(const ir::Value* v) {
    if (auto it = reg_.find(v); it != reg_.end()) return it->second;
    llvm::Value* r = load(v);
    reg_[v] = r;
    return r;
  }
  llvm::Value* load(const ir::Value* v) {
    switch (v->type().kind) {
      case TypeKind::Float: return call(kGetFloat, f64_, {u32(v->id())});
      case TypeKind::Bool: return b_.CreateICmpNE(call(kGetBool, i32_, {u32(v->id())}), u32(0));
      default: return call(kGetInt, i64_, {u32(v->id())});
    }
  }
  void store(const ir::Value* v, llvm::Value* r) {
    switch (v->type().kind) {
      case TypeKind::Float: call(kSetFloat, llvm::Type::getVoidTy(ctx_), {u32(v->id()), r}); return;
      case TypeKind::Bool: call(kSetBool, llvm::Type::getVoidTy(ctx_), {u32(v->id()), b_.CreateZExt(r, i32_)}); return;
      default: call(kSetInt, llvm::Type::getVoidTy(ctx_), {u32(v->id()), r}); return;
    }
  }
  // Defines v's register; also its slot when something outside the
  // registers reads it.
  void define(const ir::Value* v, llvm::Value* r) {
    reg_[v] = r;
    if (inSlot_.count(v)) store(v, r);
  }
  void assign(const ir::Value* dst, const ir::Value* src, bool move) {
    call(kAssign, llvm::Type::getVoidTy(ctx_), {u32(dst->id()), u32(src->id()), u32(move ? 1 : 0)});
  }

  // `s` a full sum or mean whose one reader is `f`, the next node, a
  // float() of it: f(s(x)) is computed as one call, without the 0-d tensor.
  // (Only the next node: one between could write into x's buffer.)
  bool sumIntoFloat(const ir::Node& s, const ir::Node& f) const {
    if ((s.op() != Op::Sum && s.op() != Op::Mean) || !ir::reducesWhole(s) || !s.operand(0)->type().isTensor())
      return false;
    auto uses = reads_.find(s.result(0));
    return floatOfItem(f) && f.operand(1) == s.result(0) && uses != reads_.end() && uses->second == 1;
  }
  llvm::Value* emitSumFloat(const ir::Node& s, const ir::Node& f) {
    return resultOrElse(f64_, kSumFloat, {u32(s.operand(0)->id()), u32(s.op() == Op::Mean ? 1 : 0)}, [&] {
      check(call(kRun, i32_, {u32(nodeIndex(s))}));
      return emitFloatOfItem(f);
    });
  }

  virtual void clearKills(const ir::Node& n) {
    // Values the node is the last reader of: slots only hold resources
    // for non-scalars (a scalar's slot is overwritten when next defined).
    for (uint32_t id : n.kills())
      if (!scalarIds_.count(id)) call(kClear, llvm::Type::getVoidTy(ctx_), {u32(id)});
  }

  void emitBlock(const ir::Block& b) {
    const auto& nodes = b.nodes();
    for (size_t k = 0; k < nodes.size(); ++k) {
      const ir::Node& n = *nodes[k];
      if (ir::hasTrait(n.op(), ir::TERM)) break;  // the owner moves the yields
      if (k + 1 < nodes.size() && sumIntoFloat(n, *nodes[k + 1])) {
        const ir::Node& f = *nodes[++k];
        define(f.result(0), emitSumFloat(n, f));
        clearKills(n);  // (already empty when the nodes were called back)
        clearKills(f);
        continue;
      }
      // Native scalars that a direct call computes, doing the node's kills
      // as a callback does (emitScalar computes the others inline).
      if (lengthOfValue(n) || containsValue(n)) {
        define(n.result(0), lengthOfValue(n) ? emitLength(n) : emitContains(n));
        continue;
      }
      if (nativeScalar(n)) {
        define(n.result(0), emitScalar(n));
      } else if (directItem(n)) {
        emitItem(n);
      } else if (directStore(n)) {
        emitStoreGlobal(n);
      } else if (std::optional<Api> api = directApi(n)) {
        emitDirect(*api, n);
        continue;  // the call did the node's kills, as a callback does
      } else if (structured(n)) {
        if (n.op() == Op::If) emitIf(n);
        else emitLoop(n);
      } else if (emitOther(n)) {
      } else {
        // Its scalar results are read from their slots where used.
        check(call(kRun, i32_, {u32(nodeIndex(n))}));
        continue;
      }
      clearKills(n);
    }
  }

  llvm::Value* toFloat(const ir::Value* v) {
    llvm::Value* r = scalar(v);
    if (v->type().kind == TypeKind::Bool) return b_.CreateUIToFP(r, f64_);  // True is 1.0
    return v->type().kind == TypeKind::Float ? r : b_.CreateSIToFP(r, f64_);
  }

  llvm::Value* emitScalar(const ir::Node& n) {
    if (n.op() == Op::Const) {
      const ir::Attr& a = *n.attr("value");
      TypeKind k = n.result(0)->type().kind;
      if (k == TypeKind::Float) {
        double d = std::holds_alternative<double>(a) ? std::get<double>(a) : static_cast<double>(std::get<int64_t>(a));
        return llvm::ConstantFP::get(f64_, d);
      }
      if (k == TypeKind::Bool) return llvm::ConstantInt::get(i1_, std::holds_alternative<bool>(a) && std::get<bool>(a));
      return llvm::ConstantInt::get(i64_, std::holds_alternative<int64_t>(a) ? std::get<int64_t>(a) : 0);
    }
    TypeKind r = n.result(0)->type().kind;
    switch (n.op()) {
      case Op::Add:
      case Op::Sub:
      case Op::Mul: {
        if (r == TypeKind::Int) {
          llvm::Intrinsic::ID id = n.op() == Op::Add   ? llvm::Intrinsic::sadd_with_overflow
                                   : n.op() == Op::Sub ? llvm::Intrinsic::ssub_with_overflow
                                                       : llvm::Intrinsic::smul_with_overflow;
          llvm::Value* pair = b_.CreateBinaryIntrinsic(id, scalar(n.operand(0)), scalar(n.operand(1)));
          raiseIf(b_.CreateExtractValue(pair, 1), n);
          return b_.CreateExtractValue(pair, 0);
        }
        llvm::Value* x = toFloat(n.operand(0));
        llvm::Value* y = toFloat(n.operand(1));
        return n.op() == Op::Add ? b_.CreateFAdd(x, y) : n.op() == Op::Sub ? b_.CreateFSub(x, y) : b_.CreateFMul(x, y);
      }
      case Op::FloorDiv:
      case Op::Mod: return emitFloorDivMod(n);
      case Op::Div: {
        llvm::Value* x = toFloat(n.operand(0));
        llvm::Value* y = toFloat(n.operand(1));
        raiseIf(b_.CreateFCmpOEQ(y, llvm::ConstantFP::get(f64_, 0.0)), n);
        return b_.CreateFDiv(x, y);
      }
      case Op::Lt:
      case Op::Le:
      case Op::Gt:
      case Op::Ge:
      case Op::Eq:
      case Op::Ne: {
        llvm::Value* x = scalar(n.operand(0));
        llvm::Value* y = scalar(n.operand(1));
        bool f = n.operand(0)->type().kind == TypeKind::Float;
        using P = llvm::CmpInst::Predicate;
        P p;
        switch (n.op()) {
          case Op::Lt: p = f ? P::FCMP_OLT : P::ICMP_SLT; break;
          case Op::Le: p = f ? P::FCMP_OLE : P::ICMP_SLE; break;
          case Op::Gt: p = f ? P::FCMP_OGT : P::ICMP_SGT; break;
          case Op::Ge: p = f ? P::FCMP_OGE : P::ICMP_SGE; break;
          case Op::Eq: p = f ? P::FCMP_OEQ : P::ICMP_EQ; break;
          default: p = f ? P::FCMP_UNE : P::ICMP_NE; break;
        }
        return f ? b_.CreateFCmp(p, x, y) : b_.CreateICmp(p, x, y);
      }
      case Op::Call: return floatOfNumber(n) ? toFloat(n.operand(1)) : emitFloatOfItem(n);
      case Op::IsNan: {
        llvm::Value* x = scalar(n.operand(0));
        return b_.CreateFCmpUNO(x, x);
      }
      case Op::IsInf:
      case Op::IsFinite: {
        llvm::Value* magnitude = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, scalar(n.operand(0)));
        llvm::Value* inf = llvm::ConstantFP::getInfinity(f64_);
        // Ordered: a NaN is neither.
        return n.op() == Op::IsInf ? b_.CreateFCmpOEQ(magnitude, inf) : b_.CreateFCmpOLT(magnitude, inf);
      }
      case Op::IterLen: return emitIterLen(n);
      case Op::Not: return b_.CreateNot(scalar(n.operand(0)));
      case Op::Neg: {
        if (r == TypeKind::Float) return b_.CreateFNeg(scalar(n.operand(0)));
        llvm::Value* pair = b_.CreateBinaryIntrinsic(llvm::Intrinsic::ssub_with_overflow,
                                                     llvm::ConstantInt::get(i64_, 0), scalar(n.operand(0)));
        raiseIf(b_.CreateExtractValue(pair, 1), n);
        return b_.CreateExtractValue(pair, 0);
      }
      default: {
        // float_unary.def's math (nativeScalar said yes to nothing else).
        std::string why;
        return ElementwiseEmitter(b_, m_).floatMath(n.op(), scalar(n.operand(0)), why);
      }
    }
  }

  // Python's int // and % (floor semantics, as runtime/scalar_ops.cpp): a
  // zero divisor raises, as does INT64_MIN // -1 (overflow); x % -1 is 0.
  llvm::Value* emitFloorDivMod(const ir::Node& n) {
    llvm::Value* x = scalar(n.operand(0));
    llvm::Value* y = scalar(n.operand(1));
    auto* zero = llvm::ConstantInt::get(i64_, 0);
    auto* minusOne = llvm::ConstantInt::get(i64_, -1);
    llvm::Value* bad = b_.CreateICmpEQ(y, zero);
    if (n.op() == Op::FloorDiv)
      bad = b_.CreateOr(bad, b_.CreateAnd(b_.CreateICmpEQ(x, llvm::ConstantInt::get(i64_, INT64_MIN)),
                                          b_.CreateICmpEQ(y, minusOne)));
    raiseIf(bad, n);
    // (x % -1 through x % 1: srem of INT64_MIN by -1 overflows.)
    llvm::Value* divisor = b_.CreateSelect(b_.CreateICmpEQ(y, minusOne), llvm::ConstantInt::get(i64_, 1), y);
    llvm::Value* rem = b_.CreateSRem(x, n.op() == Op::Mod ? divisor : y);
    // The truncated result moves down one step when the remainder is not 0
    // and its sign differs from the divisor's.
    llvm::Value* adjust = b_.CreateAnd(b_.CreateICmpNE(rem, zero), b_.CreateICmpSLT(b_.CreateXor(rem, y), zero));
    if (n.op() == Op::Mod) return b_.CreateSelect(adjust, b_.CreateAdd(rem, y), rem);
    llvm::Value* q = b_.CreateSDiv(x, y);
    return b_.CreateSelect(adjust, b_.CreateSub(q, llvm::ConstantInt::get(i64_, 1)), q);
  }

  // float(t): the element read by itemFloat, or else the node called back
  // (its result then read from its slot).
  llvm::Value* emitFloatOfItem(const ir::Node& n) {
    return resultOrElse(f64_, kItemFloat, {u32(n.operand(1)->id())}, [&] {
      check(call(kRun, i32_, {u32(nodeIndex(n))}));
      return load(n.result(0));
    });
  }
  // len(x): as measured by the direct call, or else the node called back.
  llvm::Value* emitLength(const ir::Node& n) {
    return resultOrElse(i64_, kLength, {u32(nodeIndex(n))}, [&] {
      check(call(kRun, i32_, {u32(nodeIndex(n))}));
      return load(n.result(0));
    });
  }

  // x in c: as found by the direct call, or else the node called back.
  llvm::Value* emitContains(const ir::Node& n) {
    llvm::Value* found = resultOrElse(i64_, kContains, {u32(nodeIndex(n))}, [&] {
      check(call(kRun, i32_, {u32(nodeIndex(n))}));
      return b_.CreateZExt(load(n.result(0)), i64_);
    });
    return b_.CreateICmpNE(found, llvm::ConstantInt::get(i64_, 0));
  }

  // The `type` value that runtime call `api` writes through its last
  // argument, or, when it returns non-zero, the one `slow` makes (calling
  // nodes back).
  llvm::Value* resultOrElse(llvm::Type* type, Api api, std::vector<llvm::Value*> args,
                            const std::function<llvm::Value*()>& slow) {
    llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
    llvm::Value* out = entry.CreateAlloca(type);
    args.push_back(out);
    llvm::Value* status = call(api, i32_, std::move(args));
    llvm::Value* fast = b_.CreateLoad(type, out);  // unused when called back
    llvm::BasicBlock* from = b_.GetInsertBlock();
    auto* slowB = llvm::BasicBlock::Create(ctx_, "callback", fn_);
    auto* join = llvm::BasicBlock::Create(ctx_, "fast", fn_);
    b_.CreateCondBr(b_.CreateICmpNE(status, u32(0)), slowB, join, llvm::MDBuilder(ctx_).createBranchWeights(1, 1 << 20));
    b_.SetInsertPoint(slowB);
    llvm::Value* called = slow();
    llvm::BasicBlock* slowEnd = b_.GetInsertBlock();
    b_.CreateBr(join);
    b_.SetInsertPoint(join);
    llvm::PHINode* phi = b_.CreatePHI(type, 2);
    phi->addIncoming(fast, from);
    phi->addIncoming(called, slowEnd);
    return phi;
  }

  // iter_item n into its result slot: the direct call, or when that
  // declines, the node called back with its index in its slot. (A scalar
  // result is read from the slot where used, as a called-back node's.)
  void emitItem(const ir::Node& n) {
    llvm::Value* index = scalar(n.operand(1));  // here: it dominates both ways
    llvm::Value* status = call(kIterItem, i32_, {u32(nodeIndex(n)), index});
    auto* slow = llvm::BasicBlock::Create(ctx_, "callback", fn_);
    auto* join = llvm::BasicBlock::Create(ctx_, "item", fn_);
    b_.CreateCondBr(b_.CreateICmpNE(status, u32(0)), slow, join, llvm::MDBuilder(ctx_).createBranchWeights(1, 1 << 20));
    b_.SetInsertPoint(slow);
    store(n.operand(1), index);
    check(call(kRun, i32_, {u32(nodeIndex(n))}));
    b_.CreateBr(join);
    b_.SetInsertPoint(join);
  }

  // The direct call that runs node n where it can (the node called back
  // where that declines), if there is one.
  static std::optional<Api> directApi(const ir::Node& n) {
    if (directAppend(n)) return kListAppend;
    if (directUnpack(n)) return kUnpack;
    if (directGetItem(n)) return kGetItem;
    if (directSetItem(n)) return kSetItem;
    return std::nullopt;
  }
  // Node n by direct call `api` (directApi), or where that declines,
  // called back.
  void emitDirect(Api api, const ir::Node& n) {
    llvm::Value* status = call(api, i32_, {u32(nodeIndex(n))});
    auto* slow = llvm::BasicBlock::Create(ctx_, "callback", fn_);
    auto* join = llvm::BasicBlock::Create(ctx_, "direct", fn_);
    b_.CreateCondBr(b_.CreateICmpNE(status, u32(0)), slow, join, llvm::MDBuilder(ctx_).createBranchWeights(1, 1 << 20));
    b_.SetInsertPoint(slow);
    check(call(kRun, i32_, {u32(nodeIndex(n))}));
    b_.CreateBr(join);
    b_.SetInsertPoint(join);
  }

  void emitStoreGlobal(const ir::Node& n) {
    const ir::Value* v = n.operand(0);
    llvm::Value* r = scalar(v);
    llvm::Value* bits = v->type().kind == TypeKind::Float ? b_.CreateBitCast(r, i64_)
                        : v->type().kind == TypeKind::Bool ? b_.CreateZExt(r, i64_)
                                                           : r;
    call(kStoreGlobal, llvm::Type::getVoidTy(ctx_), {u32(nodeIndex(n)), bits});
  }

  // Moves block b's yields into `results` (phis for scalars: their incoming
  // values are collected in `incoming`; slots otherwise).
  void yieldInto(const ir::Node& t, const ir::Node& owner,
                 std::vector<std::vector<std::pair<llvm::Value*, llvm::BasicBlock*>>>& incoming,
                 const std::vector<const ir::Value*>& slotsOf) {
    for (size_t i = 0; i < t.operands().size(); ++i) {
      const ir::Value* v = t.operand(i);
      if (isScalar(owner.result(i)->type())) {
        incoming[i].push_back({scalar(v), nullptr});
      } else {
        assign(slotsOf[i], v, t.operandDies(i));
      }
    }
    llvm::BasicBlock* from = b_.GetInsertBlock();
    for (auto& in : incoming)
      if (!in.empty() && !in.back().second) in.back().second = from;
  }

  void emitIf(const ir::Node& n) {
    llvm::Value* c = scalar(n.operand(0));
    auto* thenB = llvm::BasicBlock::Create(ctx_, "then", fn_);
    auto* elseB = llvm::BasicBlock::Create(ctx_, "else", fn_);
    auto* join = llvm::BasicBlock::Create(ctx_, "endif", fn_);
    b_.CreateCondBr(c, thenB, elseB);
    std::vector<std::vector<std::pair<llvm::Value*, llvm::BasicBlock*>>> incoming(n.numResults());
    std::vector<const ir::Value*> results;
    for (size_t i = 0; i < n.numResults(); ++i) results.push_back(n.result(i));
    auto saved = reg_;
    for (size_t k = 0; k < 2; ++k) {
      b_.SetInsertPoint(k == 0 ? thenB : elseB);
      if (fails(*n.block(k))) {
        b_.CreateBr(failBlock_);
        continue;
      }
      emitBlock(*n.block(k));
      yieldInto(*n.block(k)->terminator(), n, incoming, results);
      b_.CreateBr(join);
      reg_ = saved;  // a branch's registers do not dominate the join
    }
    b_.SetInsertPoint(join);
    for (size_t i = 0; i < n.numResults(); ++i) {
      if (!isScalar(n.result(i)->type())) continue;
      llvm::PHINode* phi = b_.CreatePHI(typeOf(n.result(i)->type().kind), 2);
      for (auto& [v, from] : incoming[i]) phi->addIncoming(v, from);
      define(n.result(i), phi);
    }
  }

  // The loop: carried scalars are phis at the head; other carried values
  // live in the loop's result slots between iterations (the interpreter's
  // `carried` vector), copied to the cond's arguments and moved to the
  // body's, and back from the body's yields.
  void emitLoop(const ir::Node& n) {
    const ir::Block& cond = *n.block(0);
    const ir::Block& body = *n.block(1);
    size_t count = n.operands().size();
    std::vector<const ir::Value*> results;
    for (size_t i = 0; i < count; ++i) results.push_back(n.result(i));
    preload(n, n);
    // The outermost loop starts from the values the runtime put in its
    // result slots (its operands, or the carried values of the iteration
    // the interpreter stopped at); a nested loop from its operands.
    bool outermost = &n == outermost_;
    std::vector<llvm::Value*> initial(count, nullptr);
    for (size_t i = 0; i < count; ++i) {
      if (isScalar(n.result(i)->type())) initial[i] = outermost ? load(n.result(i)) : scalar(n.operand(i));
      else if (!outermost) assign(n.result(i), n.operand(i), false);
    }
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    auto* head = llvm::BasicBlock::Create(ctx_, "loop", fn_);
    auto* bodyB = llvm::BasicBlock::Create(ctx_, "body", fn_);
    auto* exit = llvm::BasicBlock::Create(ctx_, "endloop", fn_);
    b_.CreateBr(head);
    b_.SetInsertPoint(head);
    std::vector<llvm::PHINode*> phis(count, nullptr);
    for (size_t i = 0; i < count; ++i)
      if (initial[i]) {
        phis[i] = b_.CreatePHI(typeOf(n.result(i)->type().kind), 2);
        phis[i]->addIncoming(initial[i], pre);
      }
    // (A carried value the cond does not read is not copied for it.)
    std::unordered_set<const ir::Value*> condReads;
    readsIn(cond, condReads);
    for (size_t i = 0; i < count; ++i) {
      if (phis[i]) define(cond.arg(i), phis[i]);
      else if (condReads.count(cond.arg(i))) assign(cond.arg(i), n.result(i), false);
    }
    emitBlock(cond);
    llvm::Value* go = scalar(cond.terminator()->operand(0));
    for (size_t i = 0; i < count; ++i)
      if (!phis[i] && condReads.count(cond.arg(i))) call(kClear, llvm::Type::getVoidTy(ctx_), {u32(cond.arg(i)->id())});
    b_.CreateCondBr(go, bodyB, exit);
    // The exit's registers: what dominates it (the head's phis and the cond).
    auto atExit = reg_;
    b_.SetInsertPoint(bodyB);
    for (size_t i = 0; i < count; ++i) {
      if (phis[i]) define(body.arg(i), phis[i]);
      else assign(body.arg(i), n.result(i), true);
    }
    emitBlock(body);
    std::vector<std::vector<std::pair<llvm::Value*, llvm::BasicBlock*>>> incoming(count);
    yieldInto(*body.terminator(), n, incoming, results);
    tickIfFlagged(n);
    llvm::BasicBlock* latch = b_.GetInsertBlock();
    for (size_t i = 0; i < count; ++i)
      if (phis[i]) phis[i]->addIncoming(incoming[i].front().first, latch);
    b_.CreateBr(head);
    b_.SetInsertPoint(exit);
    reg_ = atExit;
    for (size_t i = 0; i < count; ++i)
      if (phis[i]) {
        reg_[n.result(i)] = phis[i];
        keepLoopResult(n.result(i), phis[i]);  // the loop's results are read after it
      }
  }

  llvm::LLVMContext& ctx_;
  llvm::Module& m_;
  llvm::IRBuilder<> b_;
  GlueFunction& out_;
  llvm::Type *i1_, *i32_, *i64_, *f64_;
  llvm::PointerType* ptr_;
  llvm::Function* fn_ = nullptr;
  const ir::Node* outermost_ = nullptr;
  llvm::Value* ctxArg_ = nullptr;
  llvm::Value* apiArg_ = nullptr;
  llvm::Value* interruptFlag_ = nullptr;  // i8*: GlueFlags, loaded at entry
  llvm::Value* budgetFlag_ = nullptr;
  llvm::BasicBlock* failBlock_ = nullptr;
  std::unordered_map<const ir::Value*, llvm::Value*> reg_;
  std::unordered_set<const ir::Value*> inSlot_;
  std::unordered_set<uint32_t> scalarIds_;
  std::unordered_map<const ir::Value*, size_t> reads_;  // readers in the loop, per value
  std::unordered_map<const ir::Node*, uint32_t> nodeIndex_;
};

}  // namespace nn::rt::jit::glue
