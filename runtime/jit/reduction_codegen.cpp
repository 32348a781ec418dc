// The loops of fused kernels that fold (the JIT's half of the reductions,
// called by buildFusedModule in fused_codegen.cpp): a trailing reduction
// over all axes or over the last axis, and the folds of one row that row
// reductions inside a body make. Each folds as the CPU's reduction kernels
// do (kernels_cpu_reduce.cpp), so a fused kernel and the op-by-op kernels
// agree bit for bit: a sum adds in sum_order.h's order (sixteen running
// double sums of a chunk, added pairwise, then its last elements; chunk
// sums in order), which strict floating-point additions keep; a max or min
// is the answer of a scan from the front (the first NaN, else the first of
// the largest), found with eight vectorised lanes that scan again only
// after a NaN or for a zero's sign.
#include "runtime/jit/codegen.h"

#include <functional>
#include <optional>

#include "runtime/sum_order.h"

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

using Values = std::vector<llvm::Value*>;
using LoopBody = std::function<std::optional<Values>(llvm::Value* i, const Values& carried)>;

// A loop over i from `from` while below `to` in steps of `step`, emitted at
// b's insertion point (which it leaves after the loop), carrying values
// (phis starting at `init`) that `body` advances; their values after the
// loop (`init` when it does not run), or none when body cannot make them.
std::optional<Values> countedLoop(llvm::IRBuilder<>& b, llvm::Function* fn, llvm::Value* from, llvm::Value* to,
                                  int64_t step, const Values& init, const LoopBody& body) {
  auto* constFrom = llvm::dyn_cast<llvm::ConstantInt>(from);
  auto* constTo = llvm::dyn_cast<llvm::ConstantInt>(to);
  bool known = constFrom && constTo;  // whether it runs is known now
  if (known && constFrom->getSExtValue() >= constTo->getSExtValue()) return init;
  llvm::LLVMContext& ctx = b.getContext();
  llvm::BasicBlock* pre = b.GetInsertBlock();
  auto* bodyB = llvm::BasicBlock::Create(ctx, "loop", fn);
  auto* done = llvm::BasicBlock::Create(ctx, "loop.end", fn);
  if (known) b.CreateBr(bodyB);
  else b.CreateCondBr(b.CreateICmpSLT(from, to), bodyB, done);
  b.SetInsertPoint(bodyB);
  llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2, "i");
  i->addIncoming(from, pre);
  std::vector<llvm::PHINode*> phis;
  Values carried;
  for (llvm::Value* v : init) {
    phis.push_back(b.CreatePHI(v->getType(), 2, "acc"));
    phis.back()->addIncoming(v, pre);
    carried.push_back(phis.back());
  }
  std::optional<Values> next = body(i, carried);
  if (!next) return std::nullopt;
  llvm::Value* nextI = b.CreateAdd(i, b.getInt64(step), "", true, true);
  llvm::BasicBlock* latch = b.GetInsertBlock();
  i->addIncoming(nextI, latch);
  for (size_t k = 0; k < phis.size(); ++k) phis[k]->addIncoming((*next)[k], latch);
  b.CreateCondBr(b.CreateICmpSLT(nextI, to), bodyB, done);
  b.SetInsertPoint(done);
  if (known) return next;
  Values after;
  for (size_t k = 0; k < init.size(); ++k) {
    llvm::PHINode* merged = b.CreatePHI(init[k]->getType(), 2);
    merged->addIncoming(init[k], pre);
    merged->addIncoming((*next)[k], latch);
    after.push_back(merged);
  }
  return after;
}

// Index i + k (no overflow: indices are below the tensor's element count).
llvm::Value* plus(llvm::IRBuilder<>& b, llvm::Value* i, int64_t k) {
  return b.CreateAdd(i, b.getInt64(k), "", true, true);
}

// The max (min) of elements [from, to), each element(i) of elementType, as
// a scan from the front keeps it and the CPU kernel finds it
// (kernels_cpu_reduce.cpp extremumOf): eight lanes fold every eighth
// element (LLVM vectorises them), each with a flag for a NaN met, the rest
// one by one; that is the scan's answer unless a NaN was met or it is a
// zero (whose sign is the first zero's), and then [from, to) is scanned.
// The scan's start, -inf (+inf), when empty; null when an element cannot
// be compiled.
llvm::Value* emitExtremumFold(llvm::IRBuilder<>& b, llvm::Function* fn, llvm::Value* from, llvm::Value* to,
                              llvm::Type* elementType, bool max, const ColumnAt& element) {
  llvm::Value* start = llvm::ConstantFP::getInfinity(elementType, max);
  auto pick = [&](llvm::Value* acc, llvm::Value* v) {
    return b.CreateSelect(max ? b.CreateFCmpOGT(v, acc) : b.CreateFCmpOLT(v, acc), v, acc);
  };
  // Lanes 0..w-1 of the carried values fold elements i + k, lanes w..2w-1
  // note NaNs.
  auto lanes = [&](llvm::Value* i, const Values& carried) -> std::optional<Values> {
    size_t width = carried.size() / 2;
    Values next(carried.size());
    for (size_t k = 0; k < width; ++k) {
      llvm::Value* v = element(plus(b, i, static_cast<int64_t>(k)));
      if (!v) return std::nullopt;
      next[k] = pick(carried[k], v);
      next[width + k] = b.CreateOr(carried[width + k], b.CreateFCmpUNO(v, v));
    }
    return next;
  };
  llvm::Value* mainEnd = b.CreateAdd(from, b.CreateAnd(b.CreateSub(to, from), b.getInt64(~int64_t{7})));
  Values init(8, start);
  init.resize(16, b.getFalse());
  std::optional<Values> eight = countedLoop(b, fn, from, mainEnd, 8, init, lanes);
  if (!eight) return nullptr;
  Values one{(*eight)[0], (*eight)[8]};
  for (size_t k = 1; k < 8; ++k) {
    one[0] = pick(one[0], (*eight)[k]);
    one[1] = b.CreateOr(one[1], (*eight)[8 + k]);
  }
  std::optional<Values> rest = countedLoop(b, fn, mainEnd, to, 1, one, lanes);
  if (!rest) return nullptr;
  llvm::Value* found = (*rest)[0];
  llvm::Value* rescan = b.CreateOr((*rest)[1], b.CreateFCmpOEQ(found, llvm::ConstantFP::get(elementType, 0.0)));
  llvm::BasicBlock* quick = b.GetInsertBlock();
  auto* scanB = llvm::BasicBlock::Create(b.getContext(), "scan", fn);
  auto* foldEnd = llvm::BasicBlock::Create(b.getContext(), "fold.end", fn);
  b.CreateCondBr(rescan, scanB, foldEnd);
  b.SetInsertPoint(scanB);
  std::optional<Values> scanned =
      countedLoop(b, fn, from, to, 1, {start}, [&](llvm::Value* i, const Values& acc) -> std::optional<Values> {
        llvm::Value* v = element(i);
        if (!v) return std::nullopt;
        return Values{foldExtremum(b, max, acc[0], v)};
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

// The sum of elements [from, to), at most kSumChunk of them, each
// element(i) widened to double, in sum_order.h's order: kSumLanes running
// sums of every sixteenth element (LLVM vectorises them), added pairwise,
// then the last ones in order. Null when an element cannot be compiled.
llvm::Value* emitChunkSum(llvm::IRBuilder<>& b, llvm::Function* fn, llvm::Value* from, llvm::Value* to,
                          const ColumnAt& element) {
  auto add = [&](llvm::Value* acc, llvm::Value* i) -> llvm::Value* {
    llvm::Value* v = element(i);
    return v ? b.CreateFAdd(acc, widenToDouble(b, v)) : nullptr;
  };
  llvm::Value* mainEnd = b.CreateAdd(from, b.CreateAnd(b.CreateSub(to, from), b.getInt64(-kSumLanes)));
  Values zeros(kSumLanes, llvm::ConstantFP::get(b.getDoubleTy(), 0.0));
  std::optional<Values> lanes =
      countedLoop(b, fn, from, mainEnd, kSumLanes, zeros, [&](llvm::Value* i, const Values& acc) -> std::optional<Values> {
        Values next;
        for (int64_t k = 0; k < kSumLanes; ++k) {
          next.push_back(add(acc[static_cast<size_t>(k)], plus(b, i, k)));
          if (!next.back()) return std::nullopt;
        }
        return next;
      });
  if (!lanes) return nullptr;
  Values& lane = *lanes;
  for (size_t width = lane.size() / 2; width >= 1; width /= 2)
    for (size_t k = 0; k < width; ++k) lane[k] = b.CreateFAdd(lane[2 * k], lane[2 * k + 1]);
  std::optional<Values> tail =
      countedLoop(b, fn, mainEnd, to, 1, {lane[0]}, [&](llvm::Value* i, const Values& acc) -> std::optional<Values> {
        llvm::Value* sum = add(acc[0], i);
        if (!sum) return std::nullopt;
        return Values{sum};
      });
  return tail ? (*tail)[0] : nullptr;
}

}  // namespace

// The loops of a kernel with a trailing reduction over all axes, over the
// flat element indices [begin, end) (a chunk of a sum, a thread's share of
// a max or min: runReduction in fused_kernel_run.cpp), by rows when cols
// > 0; the result, as a double, in *out.
bool emitReductionLoops(llvm::IRBuilder<>& b, llvm::Function* fn, llvm::BasicBlock* exit, llvm::Value* out,
                        llvm::Value* begin, llvm::Value* end, int64_t cols, DType chainType,
                        FusedKernel::Reduce reduce, const ChainAt& chainAt, const Return& ret) {
  bool max = reduce == FusedKernel::Reduce::Max;
  bool extremum = max || reduce == FusedKernel::Reduce::Min;
  llvm::Type* elementType = chainType == DType::F32 ? b.getFloatTy() : b.getDoubleTy();
  // By rows, element i is in row i / cols (a division by a constant: a
  // multiplication and shifts).
  auto element = [&](llvm::Value* i) -> llvm::Value* {
    if (!cols) return chainAt(i, nullptr, nullptr);
    llvm::Value* row = b.CreateUDiv(i, b.getInt64(cols));
    return chainAt(i, row, b.CreateSub(i, b.CreateMul(row, b.getInt64(cols))));
  };
  llvm::Value* result = extremum ? emitExtremumFold(b, fn, begin, end, elementType, max, element)
                                 : emitChunkSum(b, fn, begin, end, element);
  if (!result) return false;
  b.CreateStore(widenToDouble(b, result), out);
  b.CreateBr(exit);
  b.SetInsertPoint(exit);
  ret();
  return true;
}

// The fold of one row's `cols` elements (element(col) each, of the chain's
// dtype), emitted at b's insertion point, as reduceRun folds a run
// (kernels_cpu_reduce.cpp): a sum in sum_order.h's order, chunk by chunk
// (a mean divides by cols), a max or min as emitExtremumFold finds the
// scan's answer; the row's result as `outType`. Null when an element
// cannot be compiled.
llvm::Value* emitRowFold(llvm::IRBuilder<>& b, llvm::Function* fn, int64_t cols, DType chainType, DType outType,
                         FusedKernel::Reduce reduce, const ColumnAt& element) {
  llvm::Type* elementType = chainType == DType::F32 ? b.getFloatTy() : b.getDoubleTy();
  if (reduce == FusedKernel::Reduce::Max || reduce == FusedKernel::Reduce::Min)
    return emitExtremumFold(b, fn, b.getInt64(0), b.getInt64(cols), elementType, reduce == FusedKernel::Reduce::Max,
                            element);
  int64_t whole = cols / kSumChunk * kSumChunk;  // the columns in whole chunks
  std::optional<Values> chunks =
      countedLoop(b, fn, b.getInt64(0), b.getInt64(whole), kSumChunk, {llvm::ConstantFP::get(b.getDoubleTy(), 0.0)},
                  [&](llvm::Value* c, const Values& acc) -> std::optional<Values> {
                    llvm::Value* sum = emitChunkSum(b, fn, c, plus(b, c, kSumChunk), element);
                    if (!sum) return std::nullopt;
                    return Values{b.CreateFAdd(acc[0], sum)};
                  });
  if (!chunks) return nullptr;
  llvm::Value* result = (*chunks)[0];
  if (whole < cols) {
    llvm::Value* last = emitChunkSum(b, fn, b.getInt64(whole), b.getInt64(cols), element);
    if (!last) return nullptr;
    // A single chunk's sum is the row's (0 + s is s: a chunk's sum is never -0).
    result = whole ? b.CreateFAdd(result, last) : last;
  }
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
