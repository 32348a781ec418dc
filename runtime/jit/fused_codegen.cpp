// The loop of a fused kernel: reads each operand's element, runs the body's
// ops on it (elementwise_codegen.cpp) and stores the yielded element (each
// of them, for a node of several results: `out` then lists their buffers).
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
//
// A body ending in a trailing reduction (a sum, mean, max or min over all
// axes) folds the chain's elements in index order over [begin, end) flat
// indices into one value, as the CPU reduction kernels do (a sum adds
// them, widened to double, to a running sum; the runtime splits the indices
// among threads as the sum kernel does); over the last axis, it folds each
// row of [begin, end) rows into its result element as reduceRun folds a
// run (reduction_codegen.cpp). The chain's results are never stored.
//
// A body with row reductions inside (the last axis, keepdims: softmax's
// max and sum, layer norm's means) runs by rows: each row is folded by
// them in body order, each fold reading the earlier ones' results, then
// the row's elements are made from the folds. A folded value the body
// makes (softmax's exp) is made once per row into a stack buffer by a loop
// LLVM vectorises, folded from there, and read back where the row's
// elements need it; past kRowBufferBytes it is made again where read.
#include "runtime/jit/codegen.h"
#include "support/row_layout.h"

#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace nn::rt::jit {
namespace {

using ir::DType;

// The most a kernel keeps on its stack in row buffers (one per inner
// reduction of a made value; past it, the value is made again where it is
// read).
constexpr int64_t kRowBufferBytes = 64 * 1024;

bool staticShape(const ir::Type& t, std::vector<int64_t>& out) {
  if (!t.isTensor() || !t.dtype || !t.hasStaticShape()) return false;
  out.clear();
  for (const ir::Dim& d : *t.shape) out.push_back(d.size);
  return true;
}

// How a tensor of `shape` is read when broadcast to `outShape`: contiguous,
// or, given `layout`, with those strides (in elements: a transposed or
// stepped view); false when its strides do not collapse into rows
// (support/row_layout.h, on the broadcast strides).
bool accessOf(std::vector<int64_t> shape, const std::vector<int64_t>& outShape, const std::vector<int64_t>* layout,
              OperandAccess& a) {
  if (shape.size() > outShape.size() || (layout && layout->size() != shape.size())) return false;
  size_t pad = outShape.size() - shape.size();
  shape.insert(shape.begin(), pad, 1);
  int64_t numel = 1;
  for (int64_t d : shape) numel *= d;
  if (numel == 1) {
    a.access = Access::Single;
    return true;
  }
  size_t nd = shape.size();
  std::vector<int64_t> strides(nd, 0);
  bool contiguous = true;
  int64_t s = 1;
  for (size_t i = nd; i-- > 0;) {
    if (shape[i] != outShape[i] && shape[i] != 1) return false;
    int64_t own = layout && i >= pad ? (*layout)[i - pad] : s;
    strides[i] = shape[i] == 1 ? 0 : own;
    contiguous = contiguous && (shape[i] == 1 || own == s);
    s *= shape[i];
  }
  if (shape == outShape && contiguous) {
    a.access = Access::Elementwise;
    return true;
  }
  RowLayout rows = rowLayout(outShape.data(), strides.data(), nd, true);
  a.access = Access::Rows;
  a.rowStride = rows.rowStride;
  a.colStep = rows.colStep;
  return rows.ok;
}

// The fold a reduction op makes in a kernel; None for one no kernel makes.
FusedKernel::Reduce foldOf(ir::Op op) {
  switch (op) {
    case ir::Op::Sum: return FusedKernel::Reduce::Sum;
    case ir::Op::Mean: return FusedKernel::Reduce::Mean;
    case ir::Op::Max: return FusedKernel::Reduce::Max;
    case ir::Op::Min: return FusedKernel::Reduce::Min;
    default: return FusedKernel::Reduce::None;
  }
}

}  // namespace

std::unique_ptr<llvm::Module> buildFusedModule(llvm::LLVMContext& ctx, const ir::Node& n, const std::string& name,
                                               FusedKernel& kernel, std::string& why, const OperandLayouts* layouts) {
  const ir::Block& body = *n.block(0);
  // A trailing reduction (passes/fuse_elementwise.cpp) sums the chain's
  // elements, of its operand's shape, into a 0-d result.
  const ir::Node* reduction = ir::trailingReduction(n);
  if (reduction && foldOf(reduction->op()) == FusedKernel::Reduce::None) {
    why = std::string("a trailing ") + reduction->info().name + " is not compiled";
    return nullptr;
  }
  // Row reductions inside the body (softmax's max and sum): each row is
  // folded by them in turn, then its elements are made from the folds.
  std::vector<const ir::Node*> inner;
  for (const auto& node : body.nodes())
    if (ir::hasTrait(node->op(), ir::REDUCE) && node.get() != reduction) inner.push_back(node.get());
  for (const ir::Node* r : inner)
    if (reduction || foldOf(r->op()) == FusedKernel::Reduce::None || ir::reducesWhole(*r)) {
      why = std::string("a ") + r->info().name + " inside a fused chain is not compiled";
      return nullptr;
    }
  std::vector<int64_t> shape;  // of the chain's elements
  if (!staticShape((reduction ? reduction->operand(0) : n.result(0))->type(), shape)) {
    why = "the result's shape or dtype is not known";
    return nullptr;
  }
  // Several results (passes/fuse_elementwise.cpp rule 6): elementwise
  // chains of one shape, each result stored as the loop makes it.
  if (n.numResults() > 1) {
    std::vector<int64_t> other;
    for (size_t r = 0; r < n.numResults(); ++r)
      if (!staticShape(n.result(r)->type(), other) || other != shape) {
        why = "the results' shapes differ";
        return nullptr;
      }
    if (reduction || !inner.empty()) {
      why = "a reduction in a fused node of several results is not compiled";
      return nullptr;
    }
  }
  for (int64_t d : shape)
    if (d == 0) {
      why = "the result is empty";
      return nullptr;
    }
  DType outType = *n.result(0)->type().dtype;
  if (reduction && outType != DType::F32 && outType != DType::F64) {
    why = "only reductions of floats end a fused kernel";
    return nullptr;
  }
  DType chainType = reduction ? *reduction->operand(0)->type().dtype : outType;
  int64_t cols = shape.empty() ? 1 : shape.back();
  // A reduction over the last axis folds each row (the pass admits no
  // other axis).
  bool perRow = reduction && !ir::reducesWhole(*reduction);
  kernel.operands.assign(n.operands().size(), OperandAccess{});
  bool byRows = false;
  for (size_t i = 0; i < n.operands().size(); ++i) {
    const ir::Type& t = n.operand(i)->type();
    OperandAccess& a = kernel.operands[i];
    std::vector<int64_t> operandShape;
    if (t.kind == ir::TypeKind::Int || t.kind == ir::TypeKind::Float || t.kind == ir::TypeKind::Bool) {
      a.access = Access::Number;
    } else if (!staticShape(t, operandShape) ||
               !accessOf(operandShape, shape, layouts && !(*layouts)[i].empty() ? &(*layouts)[i] : nullptr, a)) {
      why = "operand " + std::to_string(i) + " (" + t.str() + ") is not read as rows of the result";
      return nullptr;
    }
    byRows |= a.access == Access::Rows;
  }
  byRows |= !inner.empty();
  kernel.cols = byRows || perRow ? cols : 0;
  kernel.reduce = reduction ? foldOf(reduction->op()) : FusedKernel::Reduce::None;
  kernel.count = 1;
  for (int64_t d : shape) kernel.count *= d;

  auto module = std::make_unique<llvm::Module>(name, ctx);
  llvm::IRBuilder<> b(ctx);
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Type* bytePtr = b.getInt8PtrTy();
  auto* fnType = llvm::FunctionType::get(b.getInt32Ty(), {bytePtr->getPointerTo(), bytePtr, i64, i64}, false);
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
  // Whether some element faulted (FusedFn): a local that LLVM keeps in a
  // register (an `or` across iterations), returned at the end.
  llvm::Value* faulted = b.CreateAlloca(b.getInt8Ty(), nullptr, "faulted");
  b.CreateStore(b.getInt8(0), faulted);
  auto ret = [&] { b.CreateRet(b.CreateZExt(b.CreateLoad(b.getInt8Ty(), faulted), b.getInt32Ty())); };
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
  llvm::Value* out = b.CreateBitCast(outArg, storageOf(reduction && !perRow ? DType::F64 : outType)->getPointerTo());
  // The results' element pointers: `out` itself, or for several results
  // the pointers it lists.
  std::vector<const ir::Value*> yielded(body.terminator()->operands().begin(), body.terminator()->operands().end());
  std::vector<DType> resultTypes;
  std::vector<llvm::Value*> outs;
  llvm::Value* outList = b.CreateBitCast(outArg, bytePtr->getPointerTo());
  for (size_t r = 0; r < n.numResults(); ++r) {
    DType dt = *n.result(r)->type().dtype;
    resultTypes.push_back(dt);
    if (n.numResults() == 1) {
      outs.push_back(out);
    } else {
      llvm::Value* p = b.CreateLoad(bytePtr, b.CreateConstInBoundsGEP1_64(bytePtr, outList, r));
      outs.push_back(b.CreateBitCast(p, storageOf(dt)->getPointerTo()));
    }
  }

  // The current row's folds by the inner reductions made so far, and the
  // row buffers holding the elements of values an inner reduction folded
  // (read back, not made again, by later folds and the row's elements).
  std::unordered_map<const ir::Value*, Element> folds;
  std::unordered_map<const ir::Value*, llvm::Value*> stored;
  // The element of body value `target` at flat index `flat` (row `row`,
  // column `col` when some operand is read by rows), converted to `as`;
  // only the ops it depends on are emitted, an inner reduction's result
  // being its fold. Null (with `why`) when an op cannot be compiled.
  auto elementsAt = [&](const std::vector<const ir::Value*>& targets, const std::vector<DType>& as, llvm::Value* flat,
                        llvm::Value* row, llvm::Value* col) -> std::vector<llvm::Value*> {
    std::unordered_set<const ir::Node*> needed;
    std::vector<const ir::Value*> work = targets;
    while (!work.empty()) {
      const ir::Value* v = work.back();
      work.pop_back();
      const ir::Node* d = v->def();
      if (!d || folds.count(v) || stored.count(v) || !needed.insert(d).second) continue;
      for (const ir::Value* o : d->operands()) work.push_back(o);
    }
    std::unordered_map<const ir::Value*, Element> elements = folds;
    for (const auto& [v, buffer] : stored) {
      DType dt = *v->type().dtype;
      elements[v] = Element{loadElement(buffer, dt, col), false, dt};
    }
    for (size_t i = 0; i < n.operands().size(); ++i) {
      const OperandAccess& a = kernel.operands[i];
      Element e = hoisted[i];
      if (a.access == Access::Elementwise) {
        DType dt = *n.operand(i)->type().dtype;
        e = Element{loadElement(base[i], dt, flat), false, dt};
      } else if (a.access == Access::Rows) {
        DType dt = *n.operand(i)->type().dtype;
        llvm::Value* index = b.CreateMul(row, b.getInt64(a.rowStride), "", true, true);
        if (a.colStep) index = b.CreateAdd(index, b.CreateMul(col, b.getInt64(a.colStep), "", true, true), "", true, true);
        e = Element{loadElement(base[i], dt, index), false, dt};
      }
      elements[body.arg(i)] = e;
    }
    for (const auto& node : body.nodes()) {
      if (node->op() == ir::Op::Yield || node.get() == reduction) break;
      if (!needed.count(node.get())) continue;
      std::vector<Element> in;
      for (const ir::Value* v : node->operands()) in.push_back(elements.at(v));
      Element r = emitter.emit(*node, in, why);
      if (!r.value) {
        if (why.empty()) why = std::string(node->info().name) + " cannot be compiled";
        return {};
      }
      elements[node->result(0)] = r;
    }
    std::vector<llvm::Value*> faults = emitter.takeFaults();
    if (!faults.empty()) {
      kernel.canFail = true;
      llvm::Value* any = faults[0];
      for (size_t k = 1; k < faults.size(); ++k) any = b.CreateOr(any, faults[k]);
      llvm::Value* was = b.CreateLoad(b.getInt8Ty(), faulted);
      b.CreateStore(b.CreateOr(was, b.CreateZExt(any, b.getInt8Ty())), faulted);
    }
    std::vector<llvm::Value*> out;
    for (size_t k = 0; k < targets.size(); ++k) {
      out.push_back(emitter.convert(elements.at(targets[k]), as[k]));
      if (!out.back()) {
        why = std::string("a value is not converted to ") + ir::dtypeName(as[k]) + " in a kernel";
        return {};
      }
    }
    return out;
  };
  auto elementAt = [&](const ir::Value* target, DType as, llvm::Value* flat, llvm::Value* row,
                       llvm::Value* col) -> llvm::Value* {
    std::vector<llvm::Value*> v = elementsAt({target}, {as}, flat, row, col);
    return v.empty() ? nullptr : v[0];
  };
  const ir::Value* last = reduction ? reduction->operand(0) : body.terminator()->operand(0);
  auto chainAt = [&](llvm::Value* flat, llvm::Value* row, llvm::Value* col) {
    return elementAt(last, chainType, flat, row, col);
  };

  // The innermost loop's memory accesses are independent across iterations
  // (a reduction's running sum is a register, never memory).
  llvm::MDNode* accesses = llvm::MDNode::getDistinct(ctx, {});
  auto markAccesses = [&](llvm::BasicBlock* inner) {
    for (llvm::Instruction& inst : *inner)
      if ((llvm::isa<llvm::LoadInst>(inst) || llvm::isa<llvm::StoreInst>(inst)) &&
          llvm::getLoadStorePointerOperand(&inst) != faulted)
        inst.setMetadata(llvm::LLVMContext::MD_access_group, accesses);
  };
  auto markParallel = [&](llvm::Instruction* latch) {
    llvm::TempMDTuple self = llvm::MDNode::getTemporary(ctx, {});
    llvm::Metadata* parallel[] = {llvm::MDString::get(ctx, "llvm.loop.parallel_accesses"), accesses};
    llvm::MDNode* loopId = llvm::MDNode::getDistinct(ctx, {self.get(), llvm::MDNode::get(ctx, parallel)});
    loopId->replaceOperandWith(0, loopId);
    latch->setMetadata(llvm::LLVMContext::MD_loop, loopId);
  };

  if (perRow) {
    kernel.perRow = true;
    if (!emitRowReductionLoops(b, fn, entry, exit, out, begin, end, cols, chainType, outType, kernel.reduce,
                               chainAt, ret))
      return nullptr;
    if (!verified(*fn, why)) return nullptr;
    return module;
  }
  if (reduction) {
    if (!emitReductionLoops(b, fn, exit, out, begin, end, byRows ? cols : 0, chainType, kernel.reduce, chainAt, ret))
      return nullptr;
    if (!verified(*fn, why)) return nullptr;
    return module;
  }

  b.CreateCondBr(b.CreateICmpSLT(begin, end), llvm::BasicBlock::Create(ctx, "loop", fn), exit);
  // The loop nest: one loop over elements, or rows and their columns.
  llvm::BasicBlock* loop = entry->getTerminator()->getSuccessor(0);
  b.SetInsertPoint(loop);
  llvm::PHINode* outer = b.CreatePHI(i64, 2, byRows ? "row" : "i");
  outer->addIncoming(begin, entry);
  llvm::PHINode* col = nullptr;
  llvm::BasicBlock* columns = loop;
  if (byRows) {
    // The row's folds, in body order (a later one may read an earlier one).
    llvm::Value* rowBase = b.CreateMul(outer, b.getInt64(cols), "", true, true);
    int64_t bufferBytes = 0;
    for (const ir::Node* r : inner) {
      DType of = *r->operand(0)->type().dtype, to = *r->result(0)->type().dtype;
      FusedKernel::Reduce kind = foldOf(r->op());
      const ir::Value* folded = r->operand(0);
      llvm::Value* buffer = nullptr;
      int64_t bytes = cols * (of == DType::F32 ? 4 : 8);
      if (folded->def() && bufferBytes + bytes <= kRowBufferBytes) {
        bufferBytes += bytes;
        // Made once, in a loop LLVM vectorises, then folded from the buffer
        // (a strict sum's loop stays scalar: an exp in it would too).
        llvm::Type* st = storageOf(of);
        llvm::IRBuilder<> atEntry(entry->getTerminator());
        buffer = atEntry.CreateAlloca(st, b.getInt64(cols), "row");
        llvm::BasicBlock* pre = b.GetInsertBlock();
        auto* fill = llvm::BasicBlock::Create(ctx, "fill", fn);
        auto* filled = llvm::BasicBlock::Create(ctx, "fill.end", fn);
        b.CreateBr(fill);
        b.SetInsertPoint(fill);
        llvm::PHINode* j = b.CreatePHI(i64, 2, "j");
        j->addIncoming(b.getInt64(0), pre);
        llvm::Value* e = elementAt(folded, of, b.CreateAdd(rowBase, j, "", true, true), outer, j);
        if (!e) return nullptr;
        b.CreateStore(e, b.CreateInBoundsGEP(st, buffer, j));
        markAccesses(b.GetInsertBlock());
        llvm::Value* nextJ = b.CreateAdd(j, b.getInt64(1), "", true, true);
        j->addIncoming(nextJ, b.GetInsertBlock());
        markParallel(b.CreateCondBr(b.CreateICmpSLT(nextJ, b.getInt64(cols)), fill, filled));
        b.SetInsertPoint(filled);
      }
      llvm::Value* fold = emitRowFold(b, fn, cols, of, to, kind, [&](llvm::Value* j) {
        if (buffer) return loadElement(buffer, of, j);
        return elementAt(folded, of, b.CreateAdd(rowBase, j, "", true, true), outer, j);
      });
      if (!fold) return nullptr;
      if (buffer) stored[folded] = buffer;
      folds[r->result(0)] = Element{fold, false, to};
    }
    llvm::BasicBlock* rowStart = b.GetInsertBlock();
    columns = llvm::BasicBlock::Create(ctx, "col", fn);
    b.CreateBr(columns);
    b.SetInsertPoint(columns);
    col = b.CreatePHI(i64, 2, "j");
    col->addIncoming(b.getInt64(0), rowStart);
  }
  llvm::Value* flat = byRows ? b.CreateAdd(b.CreateMul(outer, b.getInt64(cols)), col, "", true, true) : outer;
  // Every result's element is made before any is stored (a result may
  // take the buffer of an operand read element by element).
  std::vector<llvm::Value*> values = elementsAt(yielded, resultTypes, flat, outer, col);
  if (values.empty()) return nullptr;
  for (size_t r = 0; r < values.size(); ++r) {
    llvm::Value* v = values[r];
    if (resultTypes[r] == DType::Bool) v = b.CreateZExt(v, b.getInt8Ty());
    b.CreateStore(v, b.CreateInBoundsGEP(storageOf(resultTypes[r]), outs[r], flat));
  }
  markAccesses(columns);
  if (byRows) {
    llvm::Value* nextCol = b.CreateAdd(col, b.getInt64(1), "", true, true);
    col->addIncoming(nextCol, b.GetInsertBlock());
    auto* rowEnd = llvm::BasicBlock::Create(ctx, "row.end", fn);
    markParallel(b.CreateCondBr(b.CreateICmpSLT(nextCol, b.getInt64(cols)), columns, rowEnd));
    b.SetInsertPoint(rowEnd);
  }
  llvm::Value* next = b.CreateAdd(outer, b.getInt64(1), "", true, true);
  outer->addIncoming(next, b.GetInsertBlock());
  llvm::Instruction* latch = b.CreateCondBr(b.CreateICmpSLT(next, end), loop, exit);
  if (!byRows) markParallel(latch);
  b.SetInsertPoint(exit);
  ret();

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
