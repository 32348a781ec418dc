// The loops of fused kernels that fold (the JIT's half of the reductions,
// called by buildFusedModule in fused_codegen.cpp): a trailing reduction
// over all axes or over the last axis, and the folds of one row that row
// reductions inside a body make. Each folds as the CPU's reduction kernels
// do (kernels_cpu_reduce.cpp), so a fused kernel and the op-by-op kernels
// agree bit for bit: a sum in a fixed order (four running double sums of a
// row; one running sum of a flat share), which a strict floating-point sum
// keeps; a max or min is the answer of a scan from the front (the first
// NaN, else the first of the largest), over a flat share or a row found
// with eight vectorised lanes that scan again only after a NaN or for a
// zero's sign (a share read by rows, whose operands broadcast along them,
// scans).
#include "runtime/jit/codegen.h"

#include <functional>
#include <optional>

namespace nn::rt::jit {
namespace {

using ir::DType;

// v as a double (a float is extended exactly).
llvm::Value* widenToDouble(llvm::IRBuilder<>& b, llvm::Value* v) {
  return v->getType()->isDoubleTy() ? v : b.CreateFPExt(v, b.getDoubleTy());
}

// The running max (min) `acc` after element v, as reduceRun's scan keeps
// it: the first NaN stays, else v replaces acc only when larger (smaller),
// so the first of equal values stays.
llvm::Value* foldExtremum(llvm::IRBuilder<>& b, bool max, llvm::Value* acc, llvm::Value* v) {
  llvm::Value* better = max ? b.CreateFCmpOGT(v, acc) : b.CreateFCmpOLT(v, acc);
  llvm::Value* next = b.CreateSelect(b.CreateOr(b.CreateFCmpUNO(v, v), better), v, acc);
  return b.CreateSelect(b.CreateFCmpUNO(acc, acc), acc, next);
}

// The loops of a kernel with a trailing max or min over flat indices
// [begin, end) (one thread's share), as the CPU kernel finds the scan's
// answer (kernels_cpu_reduce.cpp extremumOf): eight lanes fold every eighth
// element (LLVM vectorises them), each with a flag for a NaN met, the rest
// one by one; that is the scan's answer unless a NaN was met or it is a
// zero (whose sign is the first zero's), and then the share is scanned.
// The answer, as a double, in *out; the scan's start, -inf (+inf), for an
// empty share.
void emitFlatExtremumLoops(llvm::IRBuilder<>& b, llvm::Function* fn, llvm::BasicBlock* entry, llvm::BasicBlock* exit,
                           llvm::Value* out, llvm::Value* begin, llvm::Value* end, llvm::Type* elementType, bool max,
                           const ChainAt& chainAt, const Return& ret, bool& failed) {
  llvm::LLVMContext& ctx = b.getContext();
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Value* start = llvm::ConstantFP::getInfinity(elementType, max);
  auto block = [&](const char* name) { return llvm::BasicBlock::Create(ctx, name, fn); };
  auto pick = [&](llvm::Value* acc, llvm::Value* v) {
    return b.CreateSelect(max ? b.CreateFCmpOGT(v, acc) : b.CreateFCmpOLT(v, acc), v, acc);
  };
  // A loop from `from` while below `to` in steps of `width`, lanes 0..w-1
  // of the carried values folding elements i + k and lanes w..2w-1 noting
  // NaNs; the values after it (`init` when it does not run).
  auto lanes = [&](llvm::Value* from, llvm::Value* to, std::vector<llvm::Value*> init) {
    size_t width = init.size() / 2;
    llvm::BasicBlock* pre = b.GetInsertBlock();
    llvm::BasicBlock* body = block("lanes");
    llvm::BasicBlock* done = block("lanes.end");
    b.CreateCondBr(b.CreateICmpSLT(from, to), body, done);
    b.SetInsertPoint(body);
    llvm::PHINode* i = b.CreatePHI(i64, 2, "i");
    i->addIncoming(from, pre);
    std::vector<llvm::PHINode*> phis;
    for (llvm::Value* v : init) {
      phis.push_back(b.CreatePHI(v->getType(), 2, "acc"));
      phis.back()->addIncoming(v, pre);
    }
    std::vector<llvm::Value*> next(init.size());
    for (size_t k = 0; k < width && !failed; ++k) {
      llvm::Value* v = chainAt(b.CreateAdd(i, b.getInt64(static_cast<int64_t>(k)), "", true, true), nullptr, nullptr);
      if (!v) {
        failed = true;
        break;
      }
      next[k] = pick(phis[k], v);
      next[width + k] = b.CreateOr(phis[width + k], b.CreateFCmpUNO(v, v));
    }
    if (failed) return init;
    llvm::Value* nextI = b.CreateAdd(i, b.getInt64(static_cast<int64_t>(width)), "", true, true);
    llvm::BasicBlock* latch = b.GetInsertBlock();
    i->addIncoming(nextI, latch);
    for (size_t k = 0; k < phis.size(); ++k) phis[k]->addIncoming(next[k], latch);
    b.CreateCondBr(b.CreateICmpSLT(nextI, to), body, done);
    b.SetInsertPoint(done);
    std::vector<llvm::Value*> after;
    for (size_t k = 0; k < init.size(); ++k) {
      llvm::PHINode* merged = b.CreatePHI(init[k]->getType(), 2);
      merged->addIncoming(init[k], pre);
      merged->addIncoming(next[k], latch);
      after.push_back(merged);
    }
    return after;
  };
  llvm::BasicBlock* first = block("extremum");
  b.CreateCondBr(b.CreateICmpSLT(begin, end), first, exit);
  b.SetInsertPoint(first);
  llvm::Value* mainEnd = b.CreateAdd(begin, b.CreateAnd(b.CreateSub(end, begin), b.getInt64(~int64_t{7})));
  std::vector<llvm::Value*> init(8, start);
  init.resize(16, b.getFalse());
  std::vector<llvm::Value*> eight = lanes(begin, mainEnd, init);
  if (failed) return;
  std::vector<llvm::Value*> one{eight[0], eight[8]};
  for (size_t k = 1; k < 8; ++k) {
    one[0] = pick(one[0], eight[k]);
    one[1] = b.CreateOr(one[1], eight[8 + k]);
  }
  std::vector<llvm::Value*> rest = lanes(mainEnd, end, one);
  if (failed) return;
  llvm::Value* rescan = b.CreateOr(rest[1], b.CreateFCmpOEQ(rest[0], llvm::ConstantFP::get(elementType, 0.0)));
  llvm::BasicBlock* quick = b.GetInsertBlock();
  llvm::BasicBlock* scanB = block("scan");
  llvm::BasicBlock* finish = block("extremum.end");
  b.CreateCondBr(rescan, scanB, finish);
  b.SetInsertPoint(scanB);
  llvm::PHINode* i = b.CreatePHI(i64, 2, "i");
  llvm::PHINode* acc = b.CreatePHI(elementType, 2, "acc");
  i->addIncoming(begin, quick);
  acc->addIncoming(start, quick);
  llvm::Value* v = chainAt(i, nullptr, nullptr);
  if (!v) {
    failed = true;
    return;
  }
  llvm::Value* scanned = foldExtremum(b, max, acc, v);
  llvm::Value* nextI = b.CreateAdd(i, b.getInt64(1), "", true, true);
  llvm::BasicBlock* scanEnd = b.GetInsertBlock();
  i->addIncoming(nextI, scanEnd);
  acc->addIncoming(scanned, scanEnd);
  b.CreateCondBr(b.CreateICmpSLT(nextI, end), scanB, finish);
  b.SetInsertPoint(finish);
  llvm::PHINode* found = b.CreatePHI(elementType, 2, "found");
  found->addIncoming(rest[0], quick);
  found->addIncoming(scanned, scanEnd);
  b.CreateBr(exit);
  b.SetInsertPoint(exit);
  llvm::PHINode* total = b.CreatePHI(elementType, 2, "extremum");
  total->addIncoming(start, entry);
  total->addIncoming(found, finish);
  b.CreateStore(widenToDouble(b, total), out);
  ret();
}

// The loops of a kernel with a trailing reduction: [begin, end) are flat
// element indices (one thread's share, split as the CPU's sum kernel splits
// its blocks), and the chain's elements are folded in index order into a
// running value that starts as `init` (of `accType`) and ends in *out, as a
// double. Sums add the elements, widened to double, to *out (the sum
// kernel's own additions); max and min keep the first NaN, else the
// largest (smallest) element, the first of equal ones (reduceRun's scan:
// starting from -inf (+inf) keeps the same value). By rows (cols > 0) the
// share may start and end inside a row.
}  // namespace

bool emitReductionLoops(llvm::IRBuilder<>& b, llvm::Function* fn, llvm::BasicBlock* entry, llvm::BasicBlock* exit,
                        llvm::Value* out, llvm::Value* begin, llvm::Value* end, int64_t cols, DType chainType,
                        FusedKernel::Reduce reduce, const ChainAt& chainAt, const Return& ret) {
  llvm::LLVMContext& ctx = b.getContext();
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Type* f64 = b.getDoubleTy();
  bool extremum = reduce == FusedKernel::Reduce::Max || reduce == FusedKernel::Reduce::Min;
  llvm::Type* elementType = chainType == DType::F32 ? b.getFloatTy() : f64;
  llvm::Type* accType = extremum ? elementType : f64;
  llvm::Value* init = extremum ? llvm::ConstantFP::getInfinity(elementType, reduce == FusedKernel::Reduce::Max)
                              : static_cast<llvm::Value*>(b.CreateLoad(f64, out));
  auto add = [&](llvm::Value* acc, llvm::Value* flat, llvm::Value* row, llvm::Value* col) -> llvm::Value* {
    llvm::Value* v = chainAt(flat, row, col);
    if (!v) return nullptr;
    return extremum ? foldExtremum(b, reduce == FusedKernel::Reduce::Max, acc, v)
                    : b.CreateFAdd(acc, widenToDouble(b, v));
  };
  if (extremum && !cols) {
    bool failed = false;
    emitFlatExtremumLoops(b, fn, entry, exit, out, begin, end, elementType, reduce == FusedKernel::Reduce::Max,
                          chainAt, ret, failed);
    return !failed;
  }
  auto* loop = llvm::BasicBlock::Create(ctx, cols ? "row" : "loop", fn);
  b.CreateCondBr(b.CreateICmpSLT(begin, end), loop, exit);
  b.SetInsertPoint(loop);
  llvm::Value* sum = nullptr;
  llvm::BasicBlock* last = nullptr;  // the block that branches to exit
  if (!cols) {
    llvm::PHINode* i = b.CreatePHI(i64, 2, "i");
    llvm::PHINode* acc = b.CreatePHI(accType, 2, "acc");
    i->addIncoming(begin, entry);
    acc->addIncoming(init, entry);
    sum = add(acc, i, nullptr, nullptr);
    if (!sum) return false;
    llvm::Value* next = b.CreateAdd(i, b.getInt64(1), "", true, true);
    last = b.GetInsertBlock();
    i->addIncoming(next, last);
    acc->addIncoming(sum, last);
    b.CreateCondBr(b.CreateICmpSLT(next, end), loop, exit);
  } else {
    llvm::Value* c = b.getInt64(cols);
    b.SetInsertPoint(entry->getTerminator());
    llvm::Value* row0 = b.CreateSDiv(begin, c);
    llvm::Value* col0 = b.CreateSRem(begin, c);
    b.SetInsertPoint(loop);
    llvm::PHINode* row = b.CreatePHI(i64, 2, "r");
    llvm::PHINode* start = b.CreatePHI(i64, 2, "j0");
    llvm::PHINode* rowFlat = b.CreatePHI(i64, 2, "flat0");
    llvm::PHINode* rowAcc = b.CreatePHI(accType, 2, "acc0");
    row->addIncoming(row0, entry);
    start->addIncoming(col0, entry);
    rowFlat->addIncoming(begin, entry);
    rowAcc->addIncoming(init, entry);
    llvm::Value* stop = b.CreateAdd(start, b.CreateSub(end, rowFlat), "", true, true);
    stop = b.CreateSelect(b.CreateICmpSLT(stop, c), stop, c);  // the row's end, or the share's
    llvm::Value* rowBase = b.CreateMul(row, c, "", true, true);
    auto* colB = llvm::BasicBlock::Create(ctx, "col", fn);
    auto* rowEnd = llvm::BasicBlock::Create(ctx, "row.end", fn);
    b.CreateBr(colB);
    b.SetInsertPoint(colB);
    llvm::PHINode* j = b.CreatePHI(i64, 2, "j");
    llvm::PHINode* acc = b.CreatePHI(accType, 2, "acc");
    j->addIncoming(start, loop);
    acc->addIncoming(rowAcc, loop);
    sum = add(acc, b.CreateAdd(rowBase, j, "", true, true), row, j);
    if (!sum) return false;
    llvm::Value* nextJ = b.CreateAdd(j, b.getInt64(1), "", true, true);
    llvm::BasicBlock* latch = b.GetInsertBlock();
    j->addIncoming(nextJ, latch);
    acc->addIncoming(sum, latch);
    b.CreateCondBr(b.CreateICmpSLT(nextJ, stop), colB, rowEnd);
    b.SetInsertPoint(rowEnd);
    llvm::Value* nextFlat = b.CreateAdd(rowBase, stop, "", true, true);
    row->addIncoming(b.CreateAdd(row, b.getInt64(1), "", true, true), rowEnd);
    start->addIncoming(b.getInt64(0), rowEnd);
    rowFlat->addIncoming(nextFlat, rowEnd);
    rowAcc->addIncoming(sum, rowEnd);
    last = rowEnd;
    b.CreateCondBr(b.CreateICmpSLT(nextFlat, end), loop, exit);
  }
  b.SetInsertPoint(exit);
  llvm::PHINode* total = b.CreatePHI(accType, 2, "sum");
  total->addIncoming(init, entry);
  total->addIncoming(sum, last);
  b.CreateStore(widenToDouble(b, total), out);
  ret();
  return true;
}

// The fold of one row's `cols` elements (element(col) each, of the chain's
// dtype), emitted at b's insertion point, as reduceRun folds a run
// (kernels_cpu_reduce.cpp): a sum in four running sums of every fourth
// element, added pairwise, then the tail in order (a mean divides by
// cols), a max or min as a scan keeping the first NaN and the first of
// equal values finds it; the row's result as `outType`. Null when an
// element cannot be compiled.
llvm::Value* emitRowFold(llvm::IRBuilder<>& b, llvm::Function* fn, int64_t cols, DType chainType, DType outType,
                         FusedKernel::Reduce reduce, const ColumnAt& element) {
  llvm::LLVMContext& ctx = b.getContext();
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Type* elementType = chainType == DType::F32 ? b.getFloatTy() : b.getDoubleTy();
  using Values = std::vector<llvm::Value*>;
  // One loop over columns j in [from, to) in steps of `step`, carrying
  // running values (phis starting at `init`) that `body(j, values)`
  // advances; their last values, or none when an element cannot be made.
  auto loop = [&](int64_t from, int64_t to, int64_t step, Values init,
                  const std::function<std::optional<Values>(llvm::Value*, const Values&)>& body) -> std::optional<Values> {
    if (from >= to) return init;
    llvm::BasicBlock* pre = b.GetInsertBlock();
    auto* bodyB = llvm::BasicBlock::Create(ctx, "col", fn);
    auto* done = llvm::BasicBlock::Create(ctx, "cols.end", fn);
    b.CreateBr(bodyB);
    b.SetInsertPoint(bodyB);
    llvm::PHINode* j = b.CreatePHI(i64, 2, "j");
    j->addIncoming(b.getInt64(from), pre);
    std::vector<llvm::PHINode*> phis;
    Values current;
    for (llvm::Value* v : init) {
      phis.push_back(b.CreatePHI(v->getType(), 2, "acc"));
      phis.back()->addIncoming(v, pre);
      current.push_back(phis.back());
    }
    std::optional<Values> next = body(j, current);
    if (!next) return std::nullopt;
    llvm::Value* nextJ = b.CreateAdd(j, b.getInt64(step), "", true, true);
    llvm::BasicBlock* latch = b.GetInsertBlock();
    j->addIncoming(nextJ, latch);
    for (size_t k = 0; k < phis.size(); ++k) phis[k]->addIncoming((*next)[k], latch);
    b.CreateCondBr(b.CreateICmpSLT(nextJ, b.getInt64(to)), bodyB, done);
    b.SetInsertPoint(done);
    return next;
  };
  auto column = [&](llvm::Value* j, size_t k) { return b.CreateAdd(j, b.getInt64(static_cast<int64_t>(k)), "", true, true); };
  // `init.size()` lanes over columns [from, to) in steps of `step`: lane k
  // folds column j + k with `fold(k, acc, column)`.
  auto columns = [&](int64_t from, int64_t to, int64_t step, Values init,
                     const std::function<llvm::Value*(size_t, llvm::Value*, llvm::Value*)>& fold) {
    return loop(from, to, step, init, [&](llvm::Value* j, const Values& acc) -> std::optional<Values> {
      Values next;
      for (size_t k = 0; k < acc.size(); ++k) {
        llvm::Value* r = fold(k, acc[k], column(j, k));
        if (!r) return std::nullopt;
        next.push_back(r);
      }
      return next;
    });
  };
  if (reduce == FusedKernel::Reduce::Max || reduce == FusedKernel::Reduce::Min) {
    bool max = reduce == FusedKernel::Reduce::Max;
    llvm::Value* start = llvm::ConstantFP::getInfinity(elementType, max);
    // As reduceRun finds the scan's answer (kernels_cpu_reduce.cpp
    // extremumOf): eight running extrema of every eighth element, which
    // LLVM vectorises, each with a flag for a NaN seen, then the rest in
    // order. That is the scan's answer unless a NaN was seen or it is a
    // zero (whose sign is the first zero's): then the row is scanned.
    auto pick = [&](llvm::Value* acc, llvm::Value* v) {
      return b.CreateSelect(max ? b.CreateFCmpOGT(v, acc) : b.CreateFCmpOLT(v, acc), v, acc);
    };
    // Lanes 0..w-1 of `values` keep the extrema of columns j + k, lanes
    // w..2w-1 whether they met a NaN.
    auto lanes = [&](llvm::Value* j, const Values& values) -> std::optional<Values> {
      size_t width = values.size() / 2;
      Values next(values.size());
      for (size_t k = 0; k < width; ++k) {
        llvm::Value* v = element(column(j, k));
        if (!v) return std::nullopt;
        next[k] = pick(values[k], v);
        next[width + k] = b.CreateOr(values[width + k], b.CreateFCmpUNO(v, v));
      }
      return next;
    };
    int64_t main = cols - cols % 8;
    Values init(8, start);
    init.resize(16, b.getFalse());
    auto eight = loop(0, main, 8, init, lanes);
    if (!eight) return nullptr;
    Values one{(*eight)[0], (*eight)[8]};
    for (size_t k = 1; k < 8; ++k) {
      one[0] = pick(one[0], (*eight)[k]);
      one[1] = b.CreateOr(one[1], (*eight)[8 + k]);
    }
    auto rest = loop(main, cols, 1, one, lanes);
    if (!rest) return nullptr;
    llvm::Value* found = (*rest)[0];
    llvm::Value* rescan = b.CreateOr((*rest)[1], b.CreateFCmpOEQ(found, llvm::ConstantFP::get(elementType, 0.0)));
    llvm::BasicBlock* quick = b.GetInsertBlock();
    auto* scanB = llvm::BasicBlock::Create(ctx, "scan", fn);
    auto* foldEnd = llvm::BasicBlock::Create(ctx, "fold.end", fn);
    b.CreateCondBr(rescan, scanB, foldEnd);
    b.SetInsertPoint(scanB);
    auto scanned = columns(0, cols, 1, {start}, [&](size_t, llvm::Value* acc, llvm::Value* col) -> llvm::Value* {
      llvm::Value* v = element(col);
      return v ? foldExtremum(b, max, acc, v) : nullptr;
    });
    if (!scanned) return nullptr;
    llvm::BasicBlock* scanEnd = b.GetInsertBlock();
    b.CreateBr(foldEnd);
    b.SetInsertPoint(foldEnd);
    llvm::PHINode* result = b.CreatePHI(elementType, 2, "extremum");
    result->addIncoming(found, quick);
    result->addIncoming((*scanned)[0], scanEnd);
    return result;
  }
  int64_t main = cols - cols % 4;
  llvm::Value* zero = llvm::ConstantFP::get(b.getDoubleTy(), 0.0);
  auto add = [&](size_t, llvm::Value* acc, llvm::Value* col) -> llvm::Value* {
    llvm::Value* v = element(col);
    return v ? b.CreateFAdd(acc, widenToDouble(b, v)) : nullptr;
  };
  auto lanes = columns(0, main, 4, {zero, zero, zero, zero}, add);
  if (!lanes) return nullptr;
  llvm::Value* sum = b.CreateFAdd(b.CreateFAdd((*lanes)[0], (*lanes)[1]), b.CreateFAdd((*lanes)[2], (*lanes)[3]));
  auto tail = columns(main, cols, 1, {sum}, add);
  if (!tail) return nullptr;
  llvm::Value* result = (*tail)[0];
  if (reduce == FusedKernel::Reduce::Mean)
    result = b.CreateFDiv(result, llvm::ConstantFP::get(b.getDoubleTy(), double(cols)));
  return outType == DType::F32 ? b.CreateFPTrunc(result, b.getFloatTy()) : result;
}

// The loops of a kernel with a trailing reduction over the last axis: for
// each row r in [begin, end) of `cols` elements, out[r] = the row's fold
// (emitRowFold).
bool emitRowReductionLoops(llvm::IRBuilder<>& b, llvm::Function* fn, llvm::BasicBlock* entry,
                           llvm::BasicBlock* exit, llvm::Value* out, llvm::Value* begin, llvm::Value* end,
                           int64_t cols, DType chainType, DType outType, FusedKernel::Reduce reduce,
                           const ChainAt& chainAt, const Return& ret) {
  auto* rowB = llvm::BasicBlock::Create(b.getContext(), "row", fn);
  b.CreateCondBr(b.CreateICmpSLT(begin, end), rowB, exit);
  b.SetInsertPoint(rowB);
  llvm::PHINode* row = b.CreatePHI(b.getInt64Ty(), 2, "r");
  row->addIncoming(begin, entry);
  llvm::Value* rowBase = b.CreateMul(row, b.getInt64(cols), "", true, true);
  llvm::Value* result = emitRowFold(b, fn, cols, chainType, outType, reduce, [&](llvm::Value* col) {
    return chainAt(b.CreateAdd(rowBase, col, "", true, true), row, col);
  });
  if (!result) return false;
  b.CreateStore(result, b.CreateInBoundsGEP(result->getType(), out, row));
  llvm::Value* nextRow = b.CreateAdd(row, b.getInt64(1), "", true, true);
  row->addIncoming(nextRow, b.GetInsertBlock());
  b.CreateCondBr(b.CreateICmpSLT(nextRow, end), rowB, exit);
  b.SetInsertPoint(exit);
  ret();
  return true;
}

}  // namespace nn::rt::jit
