// The loop of a fused kernel: reads each operand's element, runs the body's
// ops on it (elementwise_codegen.cpp) and stores the yielded element.
//
//   void name(void* const* in, void* noalias out, i64 begin, i64 end)
//     by elements:  for i in [begin, end): out[i] = body(in_k[i] | in_k[0] | number_k)
//     by rows:      for r in [begin, end): for j in [0, cols):
//                     out[r*cols + j] = body(..., in_k[r*rowStride_k + j*colStep_k], ...)
//
// How each operand is read follows from its static type (jit.h Access):
// the output's shape, all ones, a broadcast of a contiguous tensor whose
// strides collapse to a row stride and a column step of 0 or 1 (a bias, a
// per-row statistic), or a Python number. Single values and numbers are
// loaded once, before the loop. Broadcasts that do not collapse (along a
// middle dimension only, say) are refused. The output may be the buffer of
// an operand read element by element (a dying operand the runtime reuses,
// as the unfused kernels do) but never overlaps one otherwise, so no
// iteration depends on another: the loop's accesses are marked parallel
// (llvm.loop.parallel_accesses, what `#pragma omp simd` says), which lets
// LLVM vectorise without run-time overlap checks.
#include "runtime/jit/codegen.h"
#include "support/row_layout.h"

#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

namespace nn::rt::jit {
namespace {

using ir::DType;

bool staticShape(const ir::Type& t, std::vector<int64_t>& out) {
  if (!t.isTensor() || !t.dtype || !t.hasStaticShape()) return false;
  out.clear();
  for (const ir::Dim& d : *t.shape) out.push_back(d.size);
  return true;
}

// How a contiguous tensor of `shape` is read when broadcast to `outShape`,
// or false when its strides do not collapse into rows (support/row_layout.h,
// on the broadcast strides).
bool accessOf(std::vector<int64_t> shape, const std::vector<int64_t>& outShape, OperandAccess& a) {
  if (shape.size() > outShape.size()) return false;
  shape.insert(shape.begin(), outShape.size() - shape.size(), 1);
  if (shape == outShape) {
    a.access = Access::Elementwise;
    return true;
  }
  int64_t numel = 1;
  for (int64_t d : shape) numel *= d;
  if (numel == 1) {
    a.access = Access::Single;
    return true;
  }
  size_t nd = shape.size();
  std::vector<int64_t> strides(nd, 0);
  int64_t s = 1;
  for (size_t i = nd; i-- > 0;) {
    if (shape[i] != outShape[i] && shape[i] != 1) return false;
    strides[i] = shape[i] == 1 ? 0 : s;
    s *= shape[i];
  }
  RowLayout rows = rowLayout(outShape.data(), strides.data(), nd);
  a.access = Access::Rows;
  a.rowStride = rows.rowStride;
  a.colStep = rows.colStep;
  return rows.ok;
}

}  // namespace

std::unique_ptr<llvm::Module> buildFusedModule(llvm::LLVMContext& ctx, const ir::Node& n, const std::string& name,
                                               FusedKernel& kernel, std::string& why) {
  const ir::Block& body = *n.block(0);
  std::vector<int64_t> outShape;
  if (!staticShape(n.result(0)->type(), outShape)) {
    why = "the result's shape or dtype is not known";
    return nullptr;
  }
  for (int64_t d : outShape)
    if (d == 0) {
      why = "the result is empty";
      return nullptr;
    }
  DType outType = *n.result(0)->type().dtype;
  int64_t cols = outShape.empty() ? 1 : outShape.back();
  kernel.operands.assign(n.operands().size(), OperandAccess{});
  bool byRows = false;
  for (size_t i = 0; i < n.operands().size(); ++i) {
    const ir::Type& t = n.operand(i)->type();
    OperandAccess& a = kernel.operands[i];
    std::vector<int64_t> shape;
    if (t.kind == ir::TypeKind::Int || t.kind == ir::TypeKind::Float || t.kind == ir::TypeKind::Bool) {
      a.access = Access::Number;
    } else if (!staticShape(t, shape) || !accessOf(shape, outShape, a)) {
      why = "operand " + std::to_string(i) + " (" + t.str() + ") is not read as rows of the result";
      return nullptr;
    }
    byRows |= a.access == Access::Rows;
  }
  kernel.cols = byRows ? cols : 0;

  auto module = std::make_unique<llvm::Module>(name, ctx);
  llvm::IRBuilder<> b(ctx);
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Type* bytePtr = b.getInt8PtrTy();
  auto* fnType = llvm::FunctionType::get(b.getVoidTy(), {bytePtr->getPointerTo(), bytePtr, i64, i64}, false);
  auto* fn = llvm::Function::Create(fnType, llvm::Function::ExternalLinkage, name, module.get());
  fn->setDoesNotThrow();
  llvm::Value* inArg = fn->getArg(0);
  llvm::Value* outArg = fn->getArg(1);
  llvm::Value* begin = fn->getArg(2);
  llvm::Value* end = fn->getArg(3);
  ElementwiseEmitter emitter(b, *module);

  // Storage type of a dtype: bools are bytes.
  auto storageOf = [&](DType dt) { return dt == DType::Bool ? b.getInt8Ty() : emitter.typeOf(dt); };
  auto loadElement = [&](llvm::Value* base, DType dt, llvm::Value* index) -> llvm::Value* {
    llvm::Type* st = storageOf(dt);
    llvm::Value* v = b.CreateLoad(st, b.CreateInBoundsGEP(st, base, index));
    return dt == DType::Bool ? b.CreateICmpNE(v, b.getInt8(0)) : v;
  };

  auto* entry = llvm::BasicBlock::Create(ctx, "entry", fn);
  auto* exit = llvm::BasicBlock::Create(ctx, "exit", fn);
  b.SetInsertPoint(entry);
  // Operand bases, and the values read once.
  std::vector<llvm::Value*> base(n.operands().size());
  std::vector<Element> hoisted(n.operands().size());
  for (size_t i = 0; i < n.operands().size(); ++i) {
    const ir::Type& t = n.operand(i)->type();
    llvm::Value* p = b.CreateLoad(bytePtr, b.CreateConstInBoundsGEP1_64(bytePtr, inArg, i));
    const OperandAccess& a = kernel.operands[i];
    if (a.access == Access::Number) {
      Element e;
      e.number = true;
      e.kind = t.kind == ir::TypeKind::Float ? ir::ScalarKind::Float
               : t.kind == ir::TypeKind::Int ? ir::ScalarKind::Int
                                             : ir::ScalarKind::Bool;
      llvm::Type* st = e.kind == ir::ScalarKind::Float ? b.getDoubleTy() : i64;
      e.value = b.CreateLoad(st, b.CreateBitCast(p, st->getPointerTo()));
      hoisted[i] = e;
      continue;
    }
    DType dt = *t.dtype;
    base[i] = b.CreateBitCast(p, storageOf(dt)->getPointerTo());
    if (a.access == Access::Single) hoisted[i] = Element{loadElement(base[i], dt, b.getInt64(0)), false, dt};
  }
  llvm::Value* out = b.CreateBitCast(outArg, storageOf(outType)->getPointerTo());
  b.CreateCondBr(b.CreateICmpSLT(begin, end), llvm::BasicBlock::Create(ctx, "loop", fn), exit);

  // The loop nest: one loop over elements, or rows and their columns.
  llvm::BasicBlock* loop = entry->getTerminator()->getSuccessor(0);
  b.SetInsertPoint(loop);
  llvm::PHINode* outer = b.CreatePHI(i64, 2, byRows ? "row" : "i");
  outer->addIncoming(begin, entry);
  llvm::PHINode* col = nullptr;
  llvm::BasicBlock* inner = loop;
  if (byRows) {
    inner = llvm::BasicBlock::Create(ctx, "col", fn);
    b.CreateBr(inner);
    b.SetInsertPoint(inner);
    col = b.CreatePHI(i64, 2, "j");
    col->addIncoming(b.getInt64(0), loop);
  }
  llvm::Value* flat = byRows ? b.CreateAdd(b.CreateMul(outer, b.getInt64(cols)), col, "", true, true) : outer;

  std::unordered_map<const ir::Value*, Element> elements;
  for (size_t i = 0; i < n.operands().size(); ++i) {
    const OperandAccess& a = kernel.operands[i];
    Element e = hoisted[i];
    if (a.access == Access::Elementwise) {
      DType dt = *n.operand(i)->type().dtype;
      e = Element{loadElement(base[i], dt, flat), false, dt};
    } else if (a.access == Access::Rows) {
      DType dt = *n.operand(i)->type().dtype;
      llvm::Value* index = b.CreateMul(outer, b.getInt64(a.rowStride), "", true, true);
      if (a.colStep) index = b.CreateAdd(index, b.CreateMul(col, b.getInt64(a.colStep), "", true, true), "", true, true);
      e = Element{loadElement(base[i], dt, index), false, dt};
    }
    elements[body.arg(i)] = e;
  }
  for (const auto& node : body.nodes()) {
    if (node->op() == ir::Op::Yield) break;
    std::vector<Element> in;
    for (const ir::Value* v : node->operands()) in.push_back(elements.at(v));
    Element r = emitter.emit(*node, in, why);
    if (!r.value) {
      if (why.empty()) why = std::string(node->info().name) + " cannot be compiled";
      return nullptr;
    }
    elements[node->result(0)] = r;
  }
  const Element& result = elements.at(body.terminator()->operand(0));
  llvm::Value* v = emitter.convert(result, outType);
  if (outType == DType::Bool) v = b.CreateZExt(v, b.getInt8Ty());
  b.CreateStore(v, b.CreateInBoundsGEP(storageOf(outType), out, flat));

  // The innermost loop's memory accesses are independent across iterations.
  llvm::MDNode* accesses = llvm::MDNode::getDistinct(ctx, {});
  for (llvm::Instruction& inst : *inner)
    if (llvm::isa<llvm::LoadInst>(inst) || llvm::isa<llvm::StoreInst>(inst))
      inst.setMetadata(llvm::LLVMContext::MD_access_group, accesses);
  auto markParallel = [&](llvm::Instruction* latch) {
    llvm::TempMDTuple self = llvm::MDNode::getTemporary(ctx, {});
    llvm::Metadata* parallel[] = {llvm::MDString::get(ctx, "llvm.loop.parallel_accesses"), accesses};
    llvm::MDNode* loopId = llvm::MDNode::getDistinct(ctx, {self.get(), llvm::MDNode::get(ctx, parallel)});
    loopId->replaceOperandWith(0, loopId);
    latch->setMetadata(llvm::LLVMContext::MD_loop, loopId);
  };
  if (byRows) {
    llvm::Value* nextCol = b.CreateAdd(col, b.getInt64(1), "", true, true);
    col->addIncoming(nextCol, b.GetInsertBlock());
    auto* rowEnd = llvm::BasicBlock::Create(ctx, "row.end", fn);
    markParallel(b.CreateCondBr(b.CreateICmpSLT(nextCol, b.getInt64(cols)), inner, rowEnd));
    b.SetInsertPoint(rowEnd);
  }
  llvm::Value* next = b.CreateAdd(outer, b.getInt64(1), "", true, true);
  outer->addIncoming(next, b.GetInsertBlock());
  llvm::Instruction* latch = b.CreateCondBr(b.CreateICmpSLT(next, end), loop, exit);
  if (!byRows) markParallel(latch);
  b.SetInsertPoint(exit);
  b.CreateRetVoid();

  if (!verified(*fn, why)) return nullptr;
  return module;
}

bool verified(const llvm::Function& fn, std::string& why) {
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (!llvm::verifyFunction(fn, &os)) return true;
  why = "internal error: invalid LLVM IR: " + os.str();
  return false;
}

}  // namespace nn::rt::jit
